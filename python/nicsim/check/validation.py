"""Reference rows and the checks of `nicsim validate`: published or measured figures, each with
the run that reproduces it and a tolerance, compared with the model side by side.

A row names a preset, a command and a metric. Commands (each run once per preset and shared
by every row that needs it):
- `pingpong`: NetPIPE ping-pong of 1 byte; metric `latency_us` (one-way, NetPIPE's RTT/2).
- `curve`: a short NetPIPE ping-pong curve; metric `saturation_bytes` (t0 × R∞).
- `stream`: NetPIPE streaming of large blocks; metrics `peak_mbps`, `peak_netpipe_mbps`
  (2^20 bit/s) and `gain` (peak over the same hardware with the base placement, one unit).
- `hpcbench`: Hpcbench streaming at γ = 0 with 256 KiB messages, as the study measured CPU
  load; metrics `NODE.PROC` (utilisation over the window, e.g. `node1.cpu0`) and `mbps`.
- `profile`: streaming into node1; metric `category_order` (copy > TCP/IP > OS > driver of
  `node1.cpu0`'s busy time).
- `netperf`: netperf's `test` (TCP_STREAM, TCP_RR, ...) at `msg_size` on the preset, a name or
  a TOML file of the host's overrides; metrics `throughput_mbps`, `transactions_per_s`,
  `cpu_util` (the server's host CPUs, mean) and `share.CATEGORY` (that category's part of the
  server's busy cycles: `share.copy`, `share.tcpip`, `share.os`, `share.driver`).

Tolerances: `10%` (relative), `0.10` (absolute), `230:315` (a band; the value may be empty),
`>=0.9` or `<=x` (one-sided), `order` (for `category_order`, and for `latency_us` rows whose
preset is `a<b<c`: the values must rise in that order).
"""
from __future__ import annotations

import csv
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import api
from ..config import resolve
from ..config.costs import RANKED
from ..errors import ConfigError
from ..benchmarks.hpc import run_hpcbench
from ..config.placements import base_of

COMMANDS = ("pingpong", "curve", "stream", "hpcbench", "profile", "netperf")
METRICS = {
    "pingpong": ("latency_us",),
    "curve": ("saturation_bytes",),
    "stream": ("peak_mbps", "peak_netpipe_mbps", "gain"),
    "hpcbench": ("mbps", "NODE.PROC"),
    "profile": ("category_order",),
    "netperf": ("throughput_mbps", "transactions_per_s", "cpu_util", "share.CATEGORY"),
}
ROLES = ("training", "held-out", "user")
CATEGORIES = RANKED


@dataclass(frozen=True)
class Row:
    id: str
    preset: str
    command: str
    metric: str
    value: float | None
    tolerance: str
    role: str = "check"  # target | training | held-out | check | user
    source: str = ""
    # netperf rows: the test and its message size (netperf -m / -r), and what the receiver's
    # recv asks for when the tool is not netserver (iperf3 reads its block size; empty: the
    # preset's workload.netperf.recv_bytes).
    test: str = ""
    msg_size: str = ""
    recv_size: str = ""


# calibration.md §3 (T1–T5) and its §1.1 training rows P1–P3 (issue: placement fidelity).
BUILTIN: tuple[Row, ...] = (
    Row("T1", "ortiz2008-base", "pingpong", "latency_us", 68.0, "10%", "target", "thesis Tables 4.8-4.12"),
    Row("T2", "ortiz2008-base", "stream", "peak_mbps", None, "230:315", "target", "thesis Tables 4.9, 4.10 and §4.3.3 (SI Mbps)"),
    Row("T3", "ortiz2008-base", "curve", "saturation_bytes", 2048.0, "1536:3072", "target", "thesis Tables 4.9, 4.10"),
    Row("T4", "ortiz2008-base", "hpcbench", "node1.cpu0", 0.9, ">=0.9", "target", "thesis §4.3.1, §4.4.1"),
    Row("T5", "ortiz2008-real-profile", "profile", "category_order", None, "order", "target", "thesis Table 4.4"),
    Row("P1.offload", "ortiz2008-offload", "pingpong", "latency_us", 60.0, "15%", "training", "thesis Tables 4.9, 4.10, 4.12"),
    Row("P1.onload", "ortiz2008-onload", "pingpong", "latency_us", 64.0, "15%", "training", "thesis Tables 4.9, 4.10, 4.12"),
    Row("P1.order", "ortiz2008-offload<ortiz2008-onload<ortiz2008-base", "pingpong", "latency_us", None, "order", "training", "offload < onload < base"),
    Row("P2.offload", "ortiz2008-offload", "stream", "peak_netpipe_mbps", 340.0, "15%", "training", "thesis Tables 4.9, 4.10"),
    Row("P2.onload", "ortiz2008-onload", "stream", "peak_netpipe_mbps", 345.0, "15%", "training", "thesis Tables 4.9, 4.10"),
    Row("P2.offload_gain", "ortiz2008-offload", "stream", "gain", None, "1.30:1.55", "training", "340/230 in one unit"),
    Row("P2.onload_gain", "ortiz2008-onload", "stream", "gain", None, "1.30:1.55", "training", "345/230 in one unit"),
    Row("P3.offload", "ortiz2008-offload", "hpcbench", "node1.cpu0", 0.50, "0.10", "training", "thesis §4.3.1, §4.4.1"),
    Row("P3.onload", "ortiz2008-onload", "hpcbench", "node1.cpu0", 0.40, "0.10", "training", "thesis §4.3.1, §4.4.1"),
)

_RUNS = {
    "pingpong": {"workload.netpipe.mode": "pingpong", "workload.netpipe.sizes_bytes": "1 B", "workload.netpipe.target_ps": "50 ms"},
    "curve": {"workload.netpipe.mode": "pingpong", "workload.netpipe.sizes_bytes": "1 B,256 B,1 KiB,4 KiB,16 KiB,64 KiB,256 KiB,1 MiB,2 MiB", "workload.netpipe.target_ps": "50 ms"},
    "stream": {"workload.netpipe.mode": "stream", "workload.netpipe.sizes_bytes": "128 KiB,512 KiB,1 MiB,2 MiB", "workload.netpipe.target_ps": "200 ms"},
    "profile": {"workload.netpipe.mode": "stream", "workload.netpipe.sizes_bytes": "256 KiB", "workload.netpipe.target_ps": "200 ms"},
}
HPCBENCH_WINDOW = "1 s"


@dataclass
class Measurer:
    """Runs each (preset, command) once, with the same `--set` overrides for every run."""

    sets: dict[str, Any] = field(default_factory=dict)
    cache: dict[tuple[str, str], dict] = field(default_factory=dict)

    def run(self, preset: str, command: str, base_placement: bool = False) -> dict:
        key = (preset + ("#base" if base_placement else ""), command)
        if key not in self.cache:
            sets = base_of(self.sets) if base_placement else dict(self.sets)
            if command == "hpcbench":
                self.cache[key] = run_hpcbench(preset, sets, gamma=0.0, msg_size="256 KiB", duration=HPCBENCH_WINDOW)
            else:
                self.cache[key] = api.run(resolve(preset, {**sets, **_RUNS[command]}))
        return self.cache[key]

    def netperf(self, row: Row) -> float:
        """A netperf row's figure, from one run per (preset, test, size)."""
        key = (row.preset, f"netperf {row.test} {row.msg_size} {row.recv_size}")
        if key not in self.cache:
            from ..benchmarks.netperf import netperf_sets, run_netperf

            sets = netperf_sets(dict(self.sets), test=row.test or None, msg_size=row.msg_size or None)
            if row.recv_size:
                sets["workload.netperf.recv_bytes"] = row.recv_size
            self.cache[key] = run_netperf(row.preset, sets)
        out, metric = self.cache[key], row.metric
        block = out["netperf"]
        if metric in ("throughput_mbps", "transactions_per_s"):
            if metric not in block["aggregate"]:
                raise ConfigError(f"row {row.id}: {block['test']} reports {', '.join(block['aggregate'])}, not {metric}")
            return block["aggregate"][metric]
        procs = {k: v for k, v in out["processors"].items() if k.startswith(block["server"] + ".cpu")}
        if metric == "cpu_util":
            return sum(v["utilisation"] for v in procs.values()) / len(procs)
        if metric.startswith("share.") and metric[6:] in CATEGORIES:
            busy = [sum(v["busy"][c] for v in procs.values()) for c in CATEGORIES]
            return busy[CATEGORIES.index(metric[6:])] / sum(busy) if sum(busy) else 0.0
        raise ConfigError(f"row {row.id}: metric {metric!r} is not defined for netperf; allowed: throughput_mbps, transactions_per_s, cpu_util, "
                          + ", ".join(f"share.{c}" for c in CATEGORIES))

    def metric(self, preset: str, command: str, metric: str) -> float | dict:
        r = self.run(preset, command)
        if command == "pingpong" and metric == "latency_us":
            return r["summary"]["latency_us"]
        if command == "curve" and metric == "saturation_bytes":
            return r["summary"]["saturation_bytes"]
        if command == "stream" and metric in ("peak_mbps", "peak_netpipe_mbps"):
            return r["summary"]["peak_throughput_" + metric.split("_", 1)[1]]
        if command == "stream" and metric == "gain":
            base = self.run(preset, command, base_placement=True)
            return r["summary"]["peak_throughput_mbps"] / base["summary"]["peak_throughput_mbps"]
        if command == "hpcbench" and metric == "mbps":
            return r["hpcbench"]["throughput_mbps"]
        if command == "hpcbench":
            procs = r["hpcbench"]["processors"]
            if metric not in procs:
                raise ConfigError(f"metric {metric!r}: {preset} has no such processor; it has {', '.join(procs)}")
            return procs[metric]["utilisation"]
        if command == "profile" and metric == "category_order":
            busy = r["points"][-1]["processors"]["node1.cpu0"]["busy"]
            total = sum(busy[c] for c in CATEGORIES)
            return {c: busy[c] / total for c in CATEGORIES}
        raise ConfigError(f"metric {metric!r} is not defined for command {command!r}; allowed: {', '.join(METRICS[command])}")


def parse_tolerance(tol: str, value: float | None) -> tuple[float, float] | str:
    """A tolerance as the band it allows, or 'order'."""
    t = tol.strip().replace(" ", "")

    def finite(x: str) -> float:
        v = float(x)
        if not math.isfinite(v):
            raise ValueError
        return v

    try:
        if t == "order":
            return "order"
        if t.startswith(">="):
            return finite(t[2:]), math.inf
        if t.startswith("<="):
            return -math.inf, finite(t[2:])
        if ":" in t:
            lo, hi = (finite(x) for x in t.split(":", 1))
            if lo > hi:
                raise ConfigError(f"tolerance {tol!r}: the band's low end {lo:g} is above its high end {hi:g}; write it low:high")
            return lo, hi
        if value is None:
            raise ValueError
        d = finite(t[:-1]) if t.endswith("%") else finite(t)
        if d < 0:
            raise ConfigError(f"tolerance {tol!r}: must be at least 0 (a negative tolerance passes nothing)")
        if t.endswith("%"):
            d = abs(value) * d / 100.0
        return value - d, value + d
    except ConfigError:
        raise
    except ValueError:
        raise ConfigError(f"tolerance {tol!r}: expected 'N%', an absolute 'x', a band 'lo:hi', '>=x', '<=x' or 'order' (finite numbers; with a value for N% and x)") from None


def check_row(row: Row, m: Measurer) -> dict[str, Any]:
    """One row's reference, model figure, error and verdict."""
    band = parse_tolerance(row.tolerance, row.value)
    out: dict[str, Any] = {"id": row.id, "preset": row.preset, "command": row.command, "metric": row.metric,
                           "reference": row.value, "tolerance": row.tolerance, "role": row.role, "source": row.source}
    if row.command == "netperf":
        out.update(test=row.test, msg_size=row.msg_size)
    if band == "order" and row.metric == "category_order":
        shares = m.metric(row.preset, row.command, row.metric)
        vals = [shares[c] for c in CATEGORIES]
        out.update(model=shares, error=None, passed=bool(vals == sorted(vals, reverse=True)))
        return out
    if band == "order":
        presets = row.preset.split("<")
        vals = [m.metric(p, row.command, row.metric) for p in presets]
        out.update(model=dict(zip(presets, vals)), error=None, passed=bool(all(a < b for a, b in zip(vals, vals[1:]))))
        return out
    x = m.netperf(row) if row.command == "netperf" else m.metric(row.preset, row.command, row.metric)
    lo, hi = band
    err = None
    if x is not None and row.value:
        err = (x - row.value) / row.value
    out.update(model=x, error=err, low=lo, high=hi, passed=bool(x is not None and lo <= x <= hi))
    return out


def read_records(path: str, header: str) -> list[dict]:
    """The rows of a reference file, TOML (`[[row]]` tables) or CSV, as dicts; `header` names
    the CSV columns the caller needs, for the message when there are none."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"--reference: {path!r} is not a file")
    try:
        if p.suffix.lower() == ".toml":
            from ..config.tomlfile import read_toml

            recs = read_toml(p, "--reference").get("row", [])
        else:
            with p.open(newline="") as f:
                recs = list(csv.DictReader(f))
    except (tomllib.TOMLDecodeError, csv.Error, UnicodeDecodeError) as e:
        raise ConfigError(f"--reference: {path!r} could not be read: {e}") from None
    if not recs or not all(isinstance(r, dict) for r in recs):
        raise ConfigError(f"--reference: {path!r} has no rows (TOML: [[row]] tables; CSV: a header {header})")
    return recs


def reference_value(raw, where: str) -> float | None:
    """A reference file's value: a finite number, or None when left empty (a band or an order)."""
    text = str(raw if raw is not None else "").strip()
    try:
        value = float(text) if text else None
    except ValueError:
        raise ConfigError(f"--reference: {where}: value {text!r} is not a number") from None
    if value is not None and not math.isfinite(value):
        raise ConfigError(f"--reference: {where}: value {text!r} must be finite")
    return value


def load_reference(path: str) -> list[Row]:
    """A user's table of figures: TOML (`[[row]]` tables) or CSV with the columns
    preset, command, metric, value, tolerance (and optional id, source, role; netperf rows
    add test and msg_size)."""
    recs = read_records(path, "preset,command,metric,value,tolerance")
    rows = []
    for i, r in enumerate(recs, 1):
        missing = [k for k in ("preset", "command", "metric", "tolerance") if not str(r.get(k, "")).strip()]
        if missing:
            raise ConfigError(f"--reference: row {i} lacks {', '.join(missing)}")
        cmd = str(r["command"]).strip()
        if cmd not in COMMANDS:
            raise ConfigError(f"--reference: row {i}: command {cmd!r} is not one of {', '.join(COMMANDS)}")
        value = reference_value(r.get("value"), f"row {i}")
        role = str(r.get("role") or "user").strip()
        if role not in ROLES:
            raise ConfigError(f"--reference: row {i}: role {role!r} is not one of {', '.join(ROLES)}")
        if cmd == "netperf":
            from ..benchmarks.netperf import TESTS

            if str(r.get("test") or "").strip() not in TESTS:
                raise ConfigError(f"--reference: row {i}: test {r.get('test')!r}: a netperf row needs one of {', '.join(TESTS)}")
            size = str(r.get("msg_size") or "").strip()
            if not size:
                raise ConfigError(f"--reference: row {i}: a netperf row needs msg_size (the send or request size, e.g. 64KiB)")
            from ..units import UnitError, parse_size

            try:
                if parse_size(size) < 1:
                    raise UnitError("at least 1 byte")
            except (UnitError, ValueError) as e:
                raise ConfigError(f"--reference: row {i}: msg_size {size!r} is not a size such as 64KiB ({e})") from None
        row = Row(str(r.get("id") or f"row{i}"), str(r["preset"]).strip(), cmd, str(r["metric"]).strip(), value, str(r["tolerance"]), role,
                  str(r.get("source") or ""), str(r.get("test") or "").strip(), str(r.get("msg_size") or "").strip(),
                  str(r.get("recv_size") or "").strip())
        try:
            parse_tolerance(row.tolerance, row.value)
        except ConfigError as e:
            raise ConfigError(f"--reference: row {i}: {e}") from None
        rows.append(row)
    return rows


def validate(rows: tuple[Row, ...] | list[Row] = BUILTIN, sets: dict | None = None) -> list[dict[str, Any]]:
    m = Measurer(dict(sets or {}))
    return [check_row(r, m) for r in rows]


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, dict):
        return " ".join(f"{k.replace('ortiz2008-', '')}={v:.3g}" for k, v in x.items())
    return f"{x:.4g}"


def table(results: list[dict[str, Any]]) -> str:
    head = f"{'row':<16} {'role':<9} {'reference':>10} {'model':>34} {'error':>8} {'tolerance':>10}  result"
    lines = [head, "-" * len(head)]
    for r in results:
        ref = _fmt(r["reference"]) if r["reference"] is not None else r["tolerance"]
        err = f"{100 * r['error']:+.1f}%" if r.get("error") is not None else "-"
        lines.append(f"{r['id']:<16} {r['role']:<9} {ref:>10} {_fmt(r['model']):>34} {err:>8} {r['tolerance']:>10}  {'pass' if r['passed'] else 'FAIL'}")
    n = sum(r["passed"] for r in results)
    lines.append(f"{n} of {len(results)} rows pass")
    return "\n".join(lines)
