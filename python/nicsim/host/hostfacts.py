"""`nicsim probe --host-out FILE`: the host's own primitives, measured in compiled code
(crates/nicsim-probe through `nicsim._core.host_*`), and the configuration derived from them by
the rules of docs/real-host.md §1a, extending `modern-x86-loopback`. Nothing here is fitted to a
netperf or iperf3 row.

Primitives (`measure()`; bandwidths the best and latencies the least of three runs, the round
trips the median of five): memcpy and pipe copy bandwidth (user to kernel with `write()`, kernel
to user with `read()`) at working sets from 4 KiB to well past the last-level cache; the entry
and exit of a system call that does nothing (getppid); a one-byte pipe round trip between two
processes pinned to one CPU and to two; the latency of a dependent load within L1 and past the
last-level cache; the CPU count and clock.

Rules (`derive()`), in order, each key from one primitive and what the core computes:
1. `cpu.count` = the CPUs this process may use; `cpu.clock_hz` = the loop clock (a chain of
   dependent additions, one a cycle), else /proc/cpuinfo's.
2. `mem.miss_cycles` = the dependent-load latency past the last-level cache × the clock.
3. `mem.hit_ratio` = 1 − m: m, the share of a copy's references that would pay a full miss to
   account for memcpy's slowdown from a cache-resident working set to one past the LLC:
   m = clock × (1/B_far − 1/B_near) / ρ / (miss_cycles − hit_cycles), ρ the profile's references
   per byte copied (rx_copy.r_byte).
4. `costs.tx_copy.{i_byte,r_byte}` and `costs.rx_copy.{i_byte,r_byte}` = the profile's, times
   k = measured per-byte time / modelled per-byte time: measured, the pipe's marginal time per
   byte between 4 KiB and 64 KiB calls on a cache-resident buffer (write for tx, read for rx);
   modelled, the core's price of one byte of the stage (`stage_ps`) under rules 1-3.
5. `costs.scale.os` = measured getppid time / the core's price of the system-call entry and
   exit: rx_syscall's job (`stage_ps`) × ENTRY_EXIT_INSTRUCTIONS / its i_pkt, under rules 1-3.
6. `sched.wake_latency_ps` = (cross-CPU − same-CPU round trip) / 2 − apic.ipi_latency_ps, at
   least 0 (each round trip has two wake-ups; the model delivers the IPI itself).
7. `sched.idle_poll` from the cpuidle driver in sysfs (a fact, not a measurement): intel_idle
   idles in MWAIT with TIF_POLLING_NRFLAG set (mwait_idle_with_hints), so a wake-up needs no
   IPI: true; haltpoll polls first only when guest_halt_poll_ns > 0: true then, else false (it
   halts, and a wake-up is an IPI through the hypervisor); no cpuidle driver: default_idle
   halts, false; any other driver (acpi_idle may halt or MWAIT): the preset's."""
from __future__ import annotations

import json
import math
import re
import statistics
import time
from pathlib import Path
from typing import Any

from ..errors import ConfigError

KiB, MiB = 1024, 1024 * 1024
# Working sets: within L1, the pipe's default 64 KiB, within L2, within a typical LLC, and past
# it (at least 64 MiB and four times the LLC the kernel reports; `far_size_bytes`).
NEAR_SIZES = (4 * KiB, 64 * KiB, 256 * KiB, 2 * MiB, 16 * MiB)
# The pipe's largest call: its default capacity (16 pages), so a write never blocks.
PIPE_CHUNK_BYTES = 64 * KiB
# The cache-resident memcpy of rule 3 (a working set of twice this, within any current L2).
NEAR_COPY_BYTES = 256 * KiB
# Rule 5: the system-call entry and exit's share of rx_syscall, in instruction-equivalents:
# "entry_SYSCALL_64 ... sysretq ~160" in the linux6-x86_64 profile's rx_syscall source.
ENTRY_EXIT_INSTRUCTIONS = 160.0
PRESET = "modern-x86-loopback"
BUDGET_S = 0.3  # per bandwidth or latency figure, shared by its BEST_OF runs
BEST_OF = 3
ROUND_TRIPS, WARM_TRIPS, REPEATS = 20000, 2000, 5


def cpu_clock_hz(cpuinfo: str | None = None) -> float | None:
    """The CPUs' clock from /proc/cpuinfo: the first `cpu MHz` line (the current clock, which a
    virtual machine reports as the host's nominal one), or None where there is none."""
    try:
        text = cpuinfo if cpuinfo is not None else Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    m = re.search(r"^cpu MHz\s*:\s*([0-9.]+)", text, re.M)
    return float(m.group(1)) * 1e6 if m else None


def llc_bytes(root: str = "/sys/devices/system/cpu/cpu0/cache") -> int | None:
    """The last-level cache's size as the kernel reports it (the highest `index*/level`)."""
    best: tuple[int, int] | None = None
    for d in sorted(Path(root).glob("index*")):
        try:
            level = int((d / "level").read_text())
            size = (d / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", size)
        if m:
            b = int(m.group(1)) * {"": 1, "K": KiB, "M": MiB, "G": 1024 * MiB}[m.group(2)]
            best = max(best or (0, 0), (level, b))
    return best[1] if best else None


def far_size_bytes(llc: int | None) -> int:
    """Past the LLC: 64 MiB or four times the LLC, whichever is larger, at most 1 GiB."""
    return min(1024 * MiB, max(64 * MiB, 4 * (llc or 0)))


def measure(budget_s: float = BUDGET_S, round_trips: int = ROUND_TRIPS, repeats: int = REPEATS) -> dict[str, Any]:
    """Every primitive, measured here and now (about 10-20 s), as plain numbers."""
    from .. import _core

    try:
        cpus = _core.host_allowed_cpus()
        llc = llc_bytes()
        sizes = (*NEAR_SIZES, far_size_bytes(llc))
        # Noise on a shared machine only slows a primitive: each figure is the best of BEST_OF.
        memcpy = {s: max(_core.host_memcpy_bytes_per_s(s, budget_s / BEST_OF) for _ in range(BEST_OF)) for s in sizes}
        pipe = {s: _best_pipe(s, budget_s) for s in sizes}
        syscall = min(_core.host_syscall_ns(budget_s / BEST_OF) for _ in range(BEST_OF))
        load_near = min(_core.host_load_latency_ns(16 * KiB, budget_s / BEST_OF) for _ in range(BEST_OF))
        load_far = min(_core.host_load_latency_ns(sizes[-1], 2 * budget_s / BEST_OF) for _ in range(BEST_OF))
        same, cross = [], []
        for _ in range(repeats):
            same.append(_core.host_round_trip_ns(cpus[0], cpus[0], round_trips, WARM_TRIPS))
            if len(cpus) > 1:
                cross.append(_core.host_round_trip_ns(cpus[0], cpus[1], round_trips, WARM_TRIPS))
        loop_hz = _core.host_loop_clock_hz(budget_s)
        idle = cpuidle()
    except OSError as e:
        raise ConfigError(f"probe --host-out: a measurement failed: {e}") from None
    return {
        "cpus": len(cpus),
        "clock_hz_loop": loop_hz,
        "clock_hz_cpuinfo": cpu_clock_hz(),
        "llc_bytes": llc,
        "memcpy_bytes_per_s": memcpy,
        "pipe_write_ns": {s: p["write_ns"] for s, p in pipe.items()},
        "pipe_read_ns": {s: p["read_ns"] for s, p in pipe.items()},
        "pipe_chunk_bytes": {s: p["chunk_bytes"] for s, p in pipe.items()},
        "syscall_ns": syscall,
        "load_latency_l1_ns": load_near,
        "load_latency_memory_ns": load_far,
        "round_trip_same_cpu_ns": statistics.median(same),
        "round_trip_cross_cpu_ns": statistics.median(cross) if cross else None,
        "cpuidle": idle,
    }


def cpuidle(root: str = "/sys") -> dict[str, Any]:
    """The cpuidle driver and, for haltpoll, how long a guest polls before it halts."""
    def read(path: str) -> str | None:
        try:
            return Path(root, path).read_text().strip()
        except OSError:
            return None

    poll = read("module/haltpoll/parameters/guest_halt_poll_ns")
    return {"driver": read("devices/system/cpu/cpuidle/current_driver") or "none",
            "guest_halt_poll_ns": int(poll) if poll and poll.isdigit() else None}


def idle_polls(idle: dict[str, Any] | None) -> bool | None:
    """Rule 7: whether an idle CPU polls its need-resched flag; None when it cannot be told."""
    if not idle:
        return None
    driver = idle.get("driver")
    if driver == "intel_idle":
        return True
    if driver == "haltpoll":
        return bool(idle.get("guest_halt_poll_ns"))
    if driver == "none":
        return False
    return None


def _best_pipe(size_bytes: int, budget_s: float) -> dict[str, float]:
    """The pipe copy at one working set: each direction's fastest of BEST_OF runs."""
    from .. import _core

    runs = [_core.host_pipe_copy(size_bytes, min(size_bytes, PIPE_CHUNK_BYTES), budget_s / BEST_OF) for _ in range(BEST_OF)]
    return {"chunk_bytes": runs[0]["chunk_bytes"], "write_ns": min(r["write_ns"] for r in runs),
            "read_ns": min(r["read_ns"] for r in runs)}


def _marginal_ns_per_byte(times_ns: dict[int, float], what: str) -> float:
    """Rule 4's measured side: the pipe's time per byte between 4 KiB and 64 KiB calls."""
    lo, hi = 4 * KiB, PIPE_CHUNK_BYTES
    tau = (times_ns[hi] - times_ns[lo]) / (hi - lo)
    if not (math.isfinite(tau) and tau > 0):
        raise ConfigError(f"probe --host-out: the pipe's {what} per byte came out {tau:g} ns (64 KiB calls no dearer than 4 KiB "
                          "ones); the machine was too busy to measure, run it again")
    return tau


def derive(prims: dict[str, Any], preset: str = PRESET) -> dict[str, Any]:
    """The configuration keys rules 1-6 give from `prims` (as `measure()` returns them), as
    flat key = value (base units), in the order they are decided."""
    from .. import _core
    from ..config import resolve

    def keys(sizes: dict) -> dict[int, float]:
        return {int(k): float(v) for k, v in sizes.items()}

    out: dict[str, Any] = {"cpu.count": int(prims["cpus"])}
    clock = prims.get("clock_hz_loop") or prims.get("clock_hz_cpuinfo")
    if clock:
        out["cpu.clock_hz"] = float(f"{clock:.4g}")
    base = resolve(preset, {k: str(v) for k, v in out.items()})
    f = float(base.values["cpu.clock_hz"])
    hit_cycles = float(base.values["mem.hit_cycles"])
    stages = base.costs["stages"]
    # Rule 2
    miss_cycles = float(prims["load_latency_memory_ns"]) * 1e-9 * f
    out["mem.miss_cycles"] = round(miss_cycles, 1)
    # Rule 3
    memcpy = keys(prims["memcpy_bytes_per_s"])
    b_near, b_far = memcpy[NEAR_COPY_BYTES], memcpy[max(memcpy)]
    rho = float(stages["rx_copy"]["r_byte"])
    extra_cycles_per_ref = f * (1 / b_far - 1 / b_near) / rho
    m = min(1.0, max(0.0, extra_cycles_per_ref / max(miss_cycles - hit_cycles, 1e-9)))
    out["mem.hit_ratio"] = round(1 - m, 5)
    model = resolve(preset, {k: str(v) for k, v in out.items()})
    cfg = model.to_json()
    # Rule 4
    for stage, times in (("tx_copy", prims["pipe_write_ns"]), ("rx_copy", prims["pipe_read_ns"])):
        tau_ns = _marginal_ns_per_byte(keys(times), "write" if stage == "tx_copy" else "read")
        model_ns = _core.stage_ps(cfg, stage, 1.0, 0.0) / 1000 / float(model.costs["scale"]["copy"])
        k = tau_ns / model_ns
        for field in ("i_byte", "r_byte"):
            out[f"costs.{stage}.{field}"] = float(f"{k * float(stages[stage][field]):.4g}")
    # Rule 5
    rx = stages["rx_syscall"]
    entry_exit_ns = _core.stage_ps(cfg, "rx_syscall", 0.0, 1.0) / 1000 / float(model.costs["scale"]["os"])
    entry_exit_ns *= ENTRY_EXIT_INSTRUCTIONS / float(rx["i_pkt"])
    out["costs.scale.os"] = float(f"{float(prims['syscall_ns']) / entry_exit_ns:.4g}")
    # Rule 6
    if prims.get("round_trip_cross_cpu_ns") is not None:
        extra_ns = (float(prims["round_trip_cross_cpu_ns"]) - float(prims["round_trip_same_cpu_ns"])) / 2
        ipi_ns = float(base.values["apic.ipi_latency_ps"]) / 1000
        out["sched.wake_latency_ps"] = max(0.0, round(extra_ns - ipi_ns)) * 1000
    # Rule 7
    polls = idle_polls(prims.get("cpuidle"))
    if polls is not None:
        out["sched.idle_poll"] = polls
    return out


def _size(b: int) -> str:
    return f"{b // MiB} MiB" if b >= MiB else f"{b // KiB} KiB"


def primitive_lines(p: dict[str, Any]) -> list[str]:
    """The primitives, one line each, for stdout and the file's header."""
    sizes = sorted(int(s) for s in p["memcpy_bytes_per_s"])
    lines = [f"cpus {p['cpus']}; clock {(p['clock_hz_loop'] or 0) / 1e6:.0f} MHz (dependent-add loop), "
             f"{(p['clock_hz_cpuinfo'] or 0) / 1e6:.0f} MHz (/proc/cpuinfo); LLC {_size(p['llc_bytes'] or 0)}",
             "working set   memcpy GB/s   pipe write GB/s (ns/call)   pipe read GB/s (ns/call)"]
    for s in sizes:
        w, r, c = (float(p[k][s] if s in p[k] else p[k][str(s)]) for k in ("pipe_write_ns", "pipe_read_ns", "pipe_chunk_bytes"))
        mc = float(p["memcpy_bytes_per_s"][s] if s in p["memcpy_bytes_per_s"] else p["memcpy_bytes_per_s"][str(s)])
        lines.append(f"{_size(s):>11}   {mc / 1e9:11.1f}   {c / w:10.1f} ({w:8.0f})           {c / r:10.1f} ({r:8.0f})")
    cross = p.get("round_trip_cross_cpu_ns")
    lines += [f"getppid entry+exit {p['syscall_ns']:.0f} ns; dependent load {p['load_latency_l1_ns']:.2f} ns in L1, "
              f"{p['load_latency_memory_ns']:.0f} ns past the LLC",
              f"pipe round trip {p['round_trip_same_cpu_ns'] / 1000:.2f} us on one CPU, "
              + (f"{cross / 1000:.2f} us across two" if cross is not None else "not measured across two (one CPU)")]
    return lines


def host_toml(prims: dict[str, Any], derived: dict[str, Any], preset: str = PRESET) -> str:
    """The host file: plain TOML (strings, numbers, tables) extending `preset`, its header the
    primitives and the rules, each key's rule beside it."""
    rule = {"cpu.count": 1, "cpu.clock_hz": 1, "mem.miss_cycles": 2, "mem.hit_ratio": 3, "costs.scale.os": 5, "sched.wake_latency_ps": 6,
            "sched.idle_poll": 7}
    head = [f"# The host nicsim probe --host-out measured on {time.strftime('%Y-%m-%d')}: its primitives in compiled code",
            "# (crates/nicsim-probe), and the keys derived from them by the rules of docs/real-host.md §1a. Nothing",
            "# here is fitted to a netperf or iperf3 row. Primitives:"]
    head += [f"#   {line}" for line in primitive_lines(prims)]
    head += [f"# primitives (JSON): {json.dumps(prims, sort_keys=True)}", f'preset = "{preset}"', ""]
    tables: dict[str, list[str]] = {}
    for key, v in derived.items():
        table, _, leaf = key.rpartition(".")
        n = rule.get(key, 4)
        if key == "cpu.clock_hz":
            text = f'"{v / 1e6:.0f} MHz"'
        elif key == "sched.wake_latency_ps":
            text = f'"{v / 1000:.0f} ns"'
        elif isinstance(v, bool):
            text = "true" if v else "false"
        else:
            text = repr(v)
        tables.setdefault(table, []).append(f"{leaf} = {text}  # rule {n}")
    for table, lines in tables.items():
        head += [f"[{table}]", *lines, ""]
    return "\n".join(head)


def write_host(path: str, preset: str = PRESET) -> dict[str, Any]:
    """Measures, derives and writes `path`; prints the primitives and the keys."""
    t = time.monotonic()
    prims = measure()
    derived = derive(prims, preset)
    try:
        Path(path).write_text(host_toml(prims, derived, preset))
    except OSError as e:
        raise ConfigError(f"probe --host-out: {path!r} cannot be written: {e.strerror}") from None
    for line in primitive_lines(prims):
        print(f"# {line}")
    print("# " + ", ".join(f"{k} = {v:g}" for k, v in derived.items()))
    print(f"# host written to {path} in {time.monotonic() - t:.0f} s: extends {preset}; run it with nicsim netperf {path}")
    return prims
