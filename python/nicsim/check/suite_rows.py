"""The row catalogue of `nicsim validate --suite ortiz2008`: every experiment of the thesis that
nicsim can run (host-path §7.10, E1–E16), as rows of the thesis's own tables and figures.

A row names the run (preset, `--set` overrides, command and its argument) and the figure read
from it (metric, unit). Roles: `target` and `training` are the calibration rows T1–T5 and
P1–P3 of `validation.BUILTIN`, reused with their references; every other row is `held-out`:
calibration.md withholds the thesis's figure, so its reference is None unless a `--reference`
file gives one. `plot` says where a row's figure sits in the report: (figure, series, x).

Commands (suite.py runs each distinct run once):
- `pingpong`, `stream`, `curve`, `hpcbench`, `profile`: validation.py's runs (its Measurer);
- `hpcsize`: Hpcbench at γ = 0 with the message size `arg`, window SUITE_HPC_WINDOW;
- `sizes`: NetPIPE streaming at the sizes of `arg`, for the cache statistics at each size;
- `gamma`: hpc.gamma_sweep at the message size `arg` over GAMMAS;
- `web`: `nicsim web` with `arg` = (page size, users), window SUITE_WEB_WINDOW.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .validation import BUILTIN, Row

SUITES = ("ortiz2008",)
HPC_SIZES = ("1 KiB", "8 KiB", "64 KiB", "256 KiB")
CACHE_SIZES = ("2 KiB", "100 KiB", "1 MiB")
GAMMAS = (0.0, 1.0, 2.0, 3.5)
GAMMA_MSGS = ("2 Mbit", "8 Kbit")
WEB_PAGES = ("5 KiB", "300 KiB")
WEB_USERS = (100, 500)
PLACEMENTS = ("base", "offload", "onload")
# The overrides that put a placement on a preset whose hardware lacks its processors (the
# ortiz2008-offload/-onload/-hybrid presets carry the same settings).
ON = {
    "base": (),
    "offload": (("nic_cpu.present", "true"), ("placement.preset", "offload")),
    "onload": (("cpu.count", "2"), ("placement.preset", "onload"), ("tcp.prequeue", "false")),
}
UNITS = {"latency_us": "µs", "peak_mbps": "Mbps", "peak_netpipe_mbps": "NetPIPE Mbps", "gain": "ratio",
         "saturation_bytes": "B", "cpu0_util": "fraction", "node1.cpu0": "fraction", "category_order": "shares",
         "cpu0_irq_per_s": "1/s", "cpu0_nic_irq_per_s": "1/s", "delta_b": "ratio", "p": "fraction", "beta": "ratio",
         "alpha": "ratio", "sigma": "ratio", "peak_delta_b": "ratio", "gamma_at_peak": "ratio",
         "l1d_read_hit_rate": "fraction", "l2_read_hit_rate": "fraction", "requests_per_s": "1/s",
         "response_time_ms": "ms", "bandwidth_mbps": "Mbps", "requests_per_s_gain_pct": "%",
         "response_time_gain_pct": "%", "bandwidth_gain_pct": "%"}


@dataclass(frozen=True)
class SuiteRow:
    id: str
    experiment: str
    table: str
    description: str
    preset: str
    sets: tuple[tuple[str, str], ...]
    command: str
    metric: str
    arg: Any = None
    role: str = "held-out"
    reference: float | None = None
    tolerance: str = ""
    source: str = ""
    plot: tuple[str, str, Any] | None = None
    builtin: Row | None = field(default=None, compare=False)

    @property
    def unit(self) -> str:
        return UNITS.get(self.metric, "")


def _size_tag(size: str) -> str:
    return "msg" + size.replace(" ", "")


def _builtin_rows() -> list[SuiteRow]:
    """T1–T5 and P1–P3 as validation.BUILTIN has them, placed in the thesis's tables."""
    where = {"T1": "E8", "T2": "E8", "T3": "E8", "T4": "E1", "T5": "T5", "P1": "E8", "P2": "E8", "P3": "E7"}
    tables = {"E8": "Tables 4.9, 4.10: latency, peak and saturation (realistic buses)",
              "E1": "Figs 4.2, 4.9: CPU0 load at full-rate reception (§4.3.1, §4.4.1)",
              "E7": "Figs 4.2, 4.9: CPU0 load at full-rate reception (§4.3.1, §4.4.1)",
              "T5": "Table 4.4: real-machine receive profile"}
    out = []
    for r in BUILTIN:
        exp = where[r.id.split(".")[0]]
        out.append(SuiteRow(r.id, exp, tables[exp], r.source, r.preset, (), r.command, r.metric, role=r.role,
                            reference=r.value, tolerance=r.tolerance, source=r.source, builtin=r))
    return out


def _load_rows() -> list[SuiteRow]:
    """E1, E2, E7: CPU0 load and interrupts against message size (Hpcbench, γ = 0)."""
    out = []
    t1 = "Fig. 4.2 (§4.3.1): CPU0 load against message size, base vs offload"
    t7 = "Figs 4.9, 4.16 (§4.4.1, §4.5.1): CPU0 load and interrupts against message size"
    t2 = "Cluster 2006 models: CPU0 interrupts against message size, offload"
    for size in HPC_SIZES:
        tag = _size_tag(size)
        for pl in ("base", "offload"):
            out.append(SuiteRow(f"E1.{pl}.{tag}.cpu0_util", "E1", t1, f"{pl}: node1.cpu0 load, {size} messages",
                                f"ortiz2008-{pl}", (), "hpcsize", "cpu0_util", size, plot=("E1 cpu0 load", pl, size)))
        for pl in PLACEMENTS:
            for metric, what in (("cpu0_util", "load"), ("cpu0_irq_per_s", "interrupts/s (all)"),
                                 ("cpu0_nic_irq_per_s", "NIC interrupts/s")):
                out.append(SuiteRow(f"E7.{pl}.{tag}.{metric}", "E7", t7, f"{pl}: node1.cpu0 {what}, {size} messages",
                                    f"ortiz2008-{pl}", (), "hpcsize", metric, size, plot=(f"E7 {metric}", pl, size)))
        for metric in ("cpu0_irq_per_s", "cpu0_nic_irq_per_s"):
            out.append(SuiteRow(f"E2.offload.{tag}.{metric}", "E2", t2, f"offload, MTU 1500, no coalescing/NAPI: node1.cpu0 {metric}, {size}",
                                "ortiz2006-cluster", ON["offload"], "hpcsize", metric, size, plot=(f"E2 {metric}", "offload", size)))
    return out


def _netpipe_rows() -> list[SuiteRow]:
    """E3–E6, E8: latency and peak streaming under bus, memory and speed settings."""
    out = []
    t3 = "§4.3: base vs offload with an ideal NIC–bus connection"
    for pl in ("base", "offload"):
        out.append(SuiteRow(f"E3.{pl}.peak_mbps", "E3", t3, f"{pl}, ideal buses: peak NetPIPE streaming",
                            "ortiz2008-ideal-bus", ON[pl], "stream", "peak_mbps", plot=("E3 peak", "ideal bus", pl)))
    t4 = "Table 4.8, Fig. 4.5 (§4.3.3): Offload x, NIC-side delay"
    for x in (1, 2, 4, 6, 10):
        s = (("nic_cpu.mem_latency_cycles", str(x)),)
        for metric, cmd in (("latency_us", "pingpong"), ("peak_mbps", "stream")):
            out.append(SuiteRow(f"E4.x{x}.{metric}", "E4", t4, f"Offload {x}: {metric}", "ortiz2008-offload", s, cmd, metric,
                                plot=(f"E4 {metric}", "offload", x)))
    t5 = "Fig. 4.6: NIC processor speed"
    for f in (1.0, 0.75, 0.5, 0.25):
        out.append(SuiteRow(f"E5.nic{int(f * 100)}.peak_mbps", "E5", t5, f"offload, NIC processor at {int(f * 100)}%: peak streaming",
                            "ortiz2008-offload", (("nic_cpu.speed_fraction", str(f)),), "stream", "peak_mbps",
                            plot=("E5 peak", "offload", f)))
    t6 = "§4.3: onload, ideal memory latency vs the base's"
    for tag, s in (("ideal_mem", (("mem.hit_ratio", "1.0"),)), ("base_mem", ())):
        for metric, cmd in (("latency_us", "pingpong"), ("peak_mbps", "stream")):
            out.append(SuiteRow(f"E6.onload.{tag}.{metric}", "E6", t6, f"onload, {tag.replace('_', ' ')}: {metric}",
                                "ortiz2008-onload", s, cmd, metric, plot=(f"E6 {metric}", "onload", tag)))
    t8 = "§4.3, Tables 4.9, 4.10: ideal against realistic buses"
    for pl in PLACEMENTS:
        for metric, cmd in (("latency_us", "pingpong"), ("peak_mbps", "stream")):
            out.append(SuiteRow(f"E8.ideal.{pl}.{metric}", "E8", t8, f"{pl}, ideal buses: {metric}", "ortiz2008-ideal-bus",
                                ON[pl], cmd, metric, plot=(f"E8 {metric}", "ideal buses", pl)))
            out.append(SuiteRow(f"E8.real.{pl}.{metric}", "E8", t8, f"{pl}, realistic buses: {metric}", f"ortiz2008-{pl}",
                                (), cmd, metric, plot=(f"E8 {metric}", "realistic buses", pl)))
    for f in (0.5, 0.25):
        out.append(SuiteRow(f"E8.ideal.offload.nic{int(f * 100)}.peak_mbps", "E8", t8, f"offload, ideal buses, α = {1 / f:g}: peak streaming",
                            "ortiz2008-ideal-bus", ON["offload"] + (("nic_cpu.speed_fraction", str(f)),), "stream", "peak_mbps",
                            plot=("E8 alpha", "offload, ideal buses", 1 / f)))
    return out


def _gamma_rows() -> list[SuiteRow]:
    """E9, E10, E14: the LAWS γ sweeps (δb against γ) and the measured LAWS quantities."""
    out = []
    t9 = "§4.6, Table 4.14: offload's LAWS parameters, 2-Mbit messages"
    for metric in ("p", "beta", "alpha", "sigma", "peak_delta_b", "gamma_at_peak"):
        out.append(SuiteRow(f"E9.offload.2Mbit.{metric}", "E9", t9, f"offload, 2 Mbit: measured {metric}", "ortiz2008-offload",
                            (), "gamma", metric, "2 Mbit"))
    t10 = "§4.6: δb against γ, offload and onload"
    t14 = "§4.7: δb against γ in cache mode (L1D 16 KB)"
    for ms in GAMMA_MSGS:
        tag = ms.replace(" ", "")
        for pl in ("offload", "onload"):
            for g in GAMMAS:
                out.append(SuiteRow(f"E10.{pl}.{tag}.g{g:g}.delta_b", "E10", t10, f"{pl}, {ms}, γ = {g:g}: δb",
                                    f"ortiz2008-{pl}", (), "gamma", f"delta_b@{g:g}", ms, plot=(f"E10 δb {ms}", pl, g)))
                out.append(SuiteRow(f"E14.l1d16.{pl}.{tag}.g{g:g}.delta_b", "E14", t14, f"{pl}, cache mode, {ms}, γ = {g:g}: δb",
                                    f"ortiz2008-cache-l1d16-{pl}", (), "gamma", f"delta_b@{g:g}", ms, plot=(f"E14 δb {ms}", pl, g)))
    return out


def _cache_rows() -> list[SuiteRow]:
    """E12, E13: detailed caches (Table 4.17): latency, peak, hit rates at three sizes."""
    out = []
    t12 = "§4.7, Table 4.17: cache mode, latency, peak and hit rates"
    for l1 in ("l1d16", "l1d32"):
        for pl in PLACEMENTS:
            preset = f"ortiz2008-cache-{l1}-{pl}"
            for metric, cmd in (("latency_us", "pingpong"), ("peak_mbps", "stream")):
                out.append(SuiteRow(f"E12.{l1}.{pl}.{metric}", "E12", t12, f"{pl}, {l1}: {metric}", preset, (), cmd, metric,
                                    plot=(f"E12 {metric}", l1, pl)))
            for size in CACHE_SIZES:
                for metric in ("l1d_read_hit_rate", "l2_read_hit_rate"):
                    out.append(SuiteRow(f"E12.{l1}.{pl}.{_size_tag(size)}.{metric}", "E12", t12,
                                        f"{pl}, {l1}: node1.cpu0 {metric}, {size} messages", preset, (), "sizes",
                                        f"{metric}@{size}", CACHE_SIZES, plot=(f"E12 {metric}", f"{l1} {pl}", size)))
        for metric, cmd in (("latency_us", "pingpong"), ("peak_mbps", "stream")):
            out.append(SuiteRow(f"E13.{l1}.offload_niclocal.{metric}", "E13", "§4.7: offload with a NIC-local memory (1.9-cycle mean)",
                                f"offload, {l1}, NIC-local memory: {metric}", f"ortiz2008-cache-{l1}-offload-niclocal", (), cmd,
                                metric, plot=(f"E13 {metric}", "NIC-local", l1)))
    return out


def _ch5_rows() -> list[SuiteRow]:
    """E15 (hybrid against offload and onload) and E16 (the web server, every placement)."""
    out = []
    t15 = "Ch. 5: hybrid against offload and onload"
    for pl in ("hybrid", "offload", "onload"):
        for metric, cmd, arg in (("latency_us", "pingpong", None), ("peak_mbps", "stream", None),
                                 ("cpu0_util", "hpcsize", "256 KiB"), ("cpu0_irq_per_s", "hpcsize", "256 KiB")):
            out.append(SuiteRow(f"E15.{pl}.{metric}", "E15", t15, f"{pl}: {metric}", f"ortiz2008-{pl}", (), cmd, metric, arg,
                                plot=(f"E15 {metric}", "Ch. 5", pl)))
    t16 = "Ch. 5: Apache 2.0 static pages, improvement over base"
    for page in WEB_PAGES:
        for users in WEB_USERS:
            tag = f"{page.replace(' ', '')}.u{users}"
            for metric in ("requests_per_s", "response_time_ms", "bandwidth_mbps"):
                out.append(SuiteRow(f"E16.{tag}.base.{metric}", "E16", t16, f"base, {page} pages, {users} users: {metric}",
                                    "ortiz2008-base", (), "web", metric, (page, users)))
            for pl in ("offload", "onload", "hybrid"):
                for metric in ("requests_per_s_gain_pct", "response_time_gain_pct", "bandwidth_gain_pct"):
                    out.append(SuiteRow(f"E16.{tag}.{pl}.{metric}", "E16", t16, f"{pl}, {page} pages, {users} users: {metric}",
                                        f"ortiz2008-{pl}", (), "web", metric, (page, users),
                                        plot=(f"E16 {metric} {page}", pl, users)))
    return out


def catalogue(name: str = "ortiz2008") -> list[SuiteRow]:
    rows = _builtin_rows() + _load_rows() + _netpipe_rows() + _gamma_rows() + _cache_rows() + _ch5_rows()
    ids = [r.id for r in rows]
    assert len(ids) == len(set(ids)), "suite row ids must be unique"
    return rows


# Experiments of host-path §7.10 the suite leaves out, and why (docs/validation.md).
LEFT_OUT = {
    "E2 (UDP)": "Hpcbench in nicsim is TCP only; the UDP half of E2 has no matching benchmark (netperf UDP_STREAM is a different tool)",
    "E11": "no key sets σ: the thesis does not say how σ was varied (host-path Q3), and nicsim has no laws.sigma_method",
    "E17": "the HDL paper's αβ sweeps, 10 Gbps link and trace-driven input belong to another model (host-path §5.9, §7.9)",
}
