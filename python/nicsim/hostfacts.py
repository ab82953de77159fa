"""What `nicsim probe --host-out` writes about the host it runs on: the CPUs it may use, their
clock, and what a wake-up across CPUs costs here beyond one on the same CPU, as a
configuration that extends the probe's preset (`--config` of validate and calibrate).

The wake-up cost is measured, not fitted: two processes pass a byte back and forth over pipes,
pinned first to one CPU, then to two. On one CPU each hand-over is a switch; across two, the
woken process's CPU must also be told (a reschedule IPI, on a virtual machine an exit to the
hypervisor and an injection) and leave its idle loop. Half the difference of the round trips is
that extra per wake-up; less the model's own IPI delivery (`apic.ipi_latency_ps`), it is
`sched.wake_latency_ps`. The interpreter's time is the same on both sides and cancels."""
from __future__ import annotations

import os
import re
import statistics
import time
from pathlib import Path

from .errors import ConfigError


def cpu_clock_hz(cpuinfo: str | None = None) -> float | None:
    """The CPUs' clock from /proc/cpuinfo: the first `cpu MHz` line (the current clock, which a
    virtual machine reports as the host's nominal one), or None where there is none."""
    text = cpuinfo if cpuinfo is not None else Path("/proc/cpuinfo").read_text()
    m = re.search(r"^cpu MHz\s*:\s*([0-9.]+)", text, re.M)
    return float(m.group(1)) * 1e6 if m else None


def _round_trip_s(cpus: tuple[int, int], n: int, warm: int) -> float:
    """Mean round trip of one byte between this process on `cpus[0]` and a child on `cpus[1]`."""
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    old = os.sched_getaffinity(0)
    pid = os.fork()
    if pid == 0:
        try:
            os.sched_setaffinity(0, {cpus[1]})
            for _ in range(n + warm):
                os.read(r1, 1)
                os.write(w2, b"x")
        finally:
            os._exit(0)
    try:
        os.sched_setaffinity(0, {cpus[0]})
        for _ in range(warm):
            os.write(w1, b"x")
            os.read(r2, 1)
        start = time.perf_counter()
        for _ in range(n):
            os.write(w1, b"x")
            os.read(r2, 1)
        return (time.perf_counter() - start) / n
    finally:
        os.sched_setaffinity(0, old)
        os.waitpid(pid, 0)
        for fd in (r1, w1, r2, w2):
            os.close(fd)


def cross_cpu_wake_s(repeats: int = 5, n: int = 20000, warm: int = 2000) -> float:
    """The extra time of a wake-up on another CPU over one on the same CPU: the median over
    `repeats` pairs of half the round trips' difference."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise ConfigError("probe --host-out: a cross-CPU wake-up needs two CPUs; this process may use one")
    a, b = cpus[0], cpus[1]
    extra = [(_round_trip_s((a, b), n, warm) - _round_trip_s((a, a), n, warm)) / 2 for _ in range(repeats)]
    return max(0.0, statistics.median(extra))


def host_toml(preset: str, cpus: int, clock_hz: float | None, wake_s: float, ipi_latency_s: float) -> str:
    """The host as a configuration extending `preset`: its CPU count and clock, and the
    measured cross-CPU wake-up less the model's IPI delivery as `sched.wake_latency_ps`."""
    wake_latency_ns = max(0.0, (wake_s - ipi_latency_s) * 1e9)
    lines = [f"# The host nicsim probe ran on, measured {time.strftime('%Y-%m-%d')}: {cpus} CPUs this process may use",
             "# (sched_getaffinity), their clock from /proc/cpuinfo, and a wake-up on another CPU",
             f"# {wake_s * 1e6:.2f} us dearer than on the same one (pipe ping-pong, median of 5), less the",
             f"# model's IPI delivery of {ipi_latency_s * 1e9:.0f} ns (apic.ipi_latency_ps). Measured, not fitted.",
             f'preset = "{preset}"', "", "[cpu]", f"count = {cpus}"]
    if clock_hz:
        lines.append(f'clock_hz = "{clock_hz / 1e6:.0f} MHz"')
    lines += ["", "[sched]", f'wake_latency_ps = "{wake_latency_ns:.0f} ns"', ""]
    return "\n".join(lines)
