"""`nicsim validate --suite ortiz2008`: the thesis's experiments (suite_rows.py), each distinct
run executed once and shared by its rows, printed in the thesis's table layout.

Rows with a reference (the calibration rows T1–T5 and P1–P3, or any row a `--reference` file
names by id) carry `error` and `passed`; held-out rows without one carry `reference: null,
passed: null`. Short windows keep the whole suite within a few minutes.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

from .. import api
from ..config import resolve
from ..errors import ConfigError
from ..benchmarks.hpc import gamma_sweep, run_hpcbench
from .suite_rows import GAMMAS, SUITES, SuiteRow, catalogue
from .validation import Measurer, check_row, parse_tolerance, read_records, reference_value
from ..benchmarks.web import run_web

SUITE_HPC_WINDOW = "250 ms"
SUITE_GAMMA_WINDOW = "200 ms"
SUITE_WEB_WINDOW = "400 ms"
SUITE_WEB_WARMUP = "200 ms"
SIZES_TARGET = "50 ms"


@dataclass
class SuiteMeasurer:
    """Runs each (preset, overrides, command, argument) once. `sets` (the command line's
    `--set`) apply to every run; a row's own overrides come on top."""

    sets: dict[str, Any] = field(default_factory=dict)
    by_sets: dict[tuple, Measurer] = field(default_factory=dict)
    cache: dict[tuple, dict] = field(default_factory=dict)
    runs: int = 0

    def _sets(self, row_sets: tuple) -> dict[str, Any]:
        return {**self.sets, **dict(row_sets)}

    def validation_measurer(self, row_sets: tuple) -> Measurer:
        """validation.py's Measurer for these overrides: T/P rows and held-out rows of the
        same command share its runs."""
        if row_sets not in self.by_sets:
            self.by_sets[row_sets] = Measurer(self._sets(row_sets))
        return self.by_sets[row_sets]

    def _run(self, row: SuiteRow) -> dict:
        key = (row.preset, row.sets, row.command, row.arg)
        if key in self.cache:
            return self.cache[key]
        sets = self._sets(row.sets)
        if row.command == "hpcsize":
            out = run_hpcbench(row.preset, sets, gamma=0.0, msg_size=row.arg, duration=SUITE_HPC_WINDOW)
        elif row.command == "sizes":
            out = api.run(resolve(row.preset, {**sets, "workload.kind": "netpipe", "workload.netpipe.mode": "stream",
                                               "workload.netpipe.sizes_bytes": ",".join(row.arg),
                                               "workload.netpipe.target_ps": SIZES_TARGET}))
        elif row.command == "gamma":
            out = gamma_sweep(row.preset, sets, list(GAMMAS), [row.arg], duration=SUITE_GAMMA_WINDOW)
        elif row.command == "web":
            page, users = row.arg
            out = run_web(row.preset, sets, users=users, page_size=page, duration=SUITE_WEB_WINDOW, warmup=SUITE_WEB_WARMUP)
        else:
            raise ConfigError(f"suite row {row.id}: unknown command {row.command!r}")
        self.runs += 1
        self.cache[key] = out
        return out

    def metric(self, row: SuiteRow) -> float | None:
        if row.command in ("pingpong", "stream", "curve", "hpcbench", "profile"):
            return self.validation_measurer(row.sets).metric(row.preset, row.command, row.metric)
        r = self._run(row)
        if row.command == "hpcsize":
            cpu0 = r["hpcbench"]["processors"]["node1.cpu0"]
            return {"cpu0_util": cpu0["utilisation"], "cpu0_nic_irq_per_s": cpu0["nic_irq_per_s"],
                    # every interrupt the CPU attends, as Oprofile counted: NIC, IPIs and ticks
                    "cpu0_irq_per_s": cpu0["irq_per_s"] + cpu0.get("timer_irq_per_s", 0.0)}[row.metric]
        if row.command == "sizes":
            return _hit_rate(r, row.metric)
        if row.command == "gamma":
            return _gamma_metric(next(iter(r["sweeps"].values())), next(iter(r["laws"].values())), row.metric)
        return self._web_metric(row, r)

    def _web_metric(self, row: SuiteRow, r: dict) -> float | None:
        figures = {"requests_per_s": lambda w: w["requests_per_s"], "response_time_ms": lambda w: w["response_time_ms"]["mean"],
                   "bandwidth_mbps": lambda w: w["bandwidth_mbps"]}
        if row.metric in figures:
            return figures[row.metric](r["web"])
        name = {"requests_per_s_gain_pct": "requests_per_s", "response_time_gain_pct": "response_time_ms",
                "bandwidth_gain_pct": "bandwidth_mbps"}[row.metric]
        base = self._run(replace(row, preset="ortiz2008-base", sets=(), metric=name))
        b, v = figures[name](base["web"]), figures[name](r["web"])
        if not b or v is None:
            return None
        # Improvement over the base system in percent; a shorter response time is better.
        return (v / b - 1) * 100 * (-1 if name == "response_time_ms" else 1)


def _hit_rate(r: dict, metric: str) -> float | None:
    what, size = metric.split("@")
    from ..units import parse_size

    n = parse_size(size)
    point = min(r["points"], key=lambda p: abs(p["size_bytes"] - n))
    cache = point["processors"]["node1.cpu0"].get("cache", {})
    level = what.split("_", 1)[0]
    return cache.get(level, {}).get("read_hit_rate")


def _gamma_metric(rows: list[dict], laws: dict, metric: str) -> float | None:
    if metric.startswith("delta_b@"):
        g = float(metric.split("@")[1])
        return next(r["delta_b"] for r in rows if math.isclose(r["gamma"], g))
    if metric in ("peak_delta_b", "gamma_at_peak"):
        best = max(rows, key=lambda r: r["delta_b"])
        return best["delta_b"] if metric == "peak_delta_b" else best["gamma"]
    v = laws.get(metric)
    return float(v) if isinstance(v, (int, float)) else None


# --- selecting rows and filling references -------------------------------------------------

def select(rows: list[SuiteRow], only: str | None) -> list[SuiteRow]:
    """Rows whose experiment id is one of `only`'s comma-separated patterns, or whose id
    starts with one; an unknown pattern is an error."""
    if not only:
        return rows
    pats = [p.strip() for p in only.split(",") if p.strip()]
    if not pats:
        raise ConfigError(f"--only {only!r}: give experiment ids (E5) or row-id prefixes (E4.x1), comma-separated")
    out = []
    for p in pats:
        hit = [r for r in rows if r.experiment == p or r.id == p or r.id.startswith(p + ".") or (p[-1] in "._" and r.id.startswith(p))]
        if not hit:
            exps = sorted({r.experiment for r in rows}, key=lambda e: (e[0] != "E", int(e[1:]) if e[1:].isdigit() else 0))
            raise ConfigError(f"--only: {p!r} matches no row; experiments: {', '.join(exps)} (or a row-id prefix such as E4.x1)")
        out += [r for r in hit if r not in out]
    return [r for r in rows if r in out]


def _records(path: str) -> list[dict]:
    return read_records(path, "id,value,tolerance")


def apply_reference(rows: list[SuiteRow], path: str, all_rows: list[SuiteRow]) -> list[SuiteRow]:
    """The rows with the references a user's file gives by id (value and tolerance; other
    columns are taken from the suite's row). Ids of rows not selected by --only are skipped."""
    known = {r.id: r for r in all_rows}
    given: dict[str, tuple[float | None, str, str]] = {}
    for i, rec in enumerate(_records(path), 1):
        rid = str(rec.get("id") or "").strip()
        if not rid:
            raise ConfigError(f"--reference: row {i} has no id; the suite takes rows by id (nicsim validate --suite ortiz2008 lists them)")
        if rid not in known:
            raise ConfigError(f"--reference: row {i}: id {rid!r} is not a row of the suite")
        tol = str(rec.get("tolerance") or "").strip()
        value = reference_value(rec.get("value"), f"row {i} ({rid})")
        if not tol:
            raise ConfigError(f"--reference: row {i} ({rid}) lacks tolerance (e.g. 10%, 0.1, lo:hi, >=x)")
        if parse_tolerance(tol, value) == "order" or known[rid].tolerance == "order":
            raise ConfigError(f"--reference: row {i} ({rid}): ordering rows take no reference and 'order' fits no single row")
        given[rid] = (value, tol, str(rec.get("source") or "reference file"))
    out = []
    for r in rows:
        if r.id in given:
            value, tol, src = given[r.id]
            r = replace(r, reference=value, tolerance=tol, source=src, builtin=None)
        out.append(r)
    return out


# --- evaluating ----------------------------------------------------------------------------

def evaluate(row: SuiteRow, m: SuiteMeasurer) -> dict[str, Any]:
    out: dict[str, Any] = {"id": row.id, "experiment": row.experiment, "table": row.table, "description": row.description,
                           "preset": row.preset, "sets": dict(row.sets), "command": row.command,
                           "arg": list(row.arg) if isinstance(row.arg, tuple) else row.arg, "metric": row.metric,
                           "unit": row.unit, "role": row.role, "source": row.source}
    if row.builtin is not None:
        # A calibration row: validation.py checks it, on the runs the suite shares.
        res = check_row(row.builtin, m.validation_measurer(()))
        out.update({k: res[k] for k in ("model", "reference", "tolerance", "error", "passed")})
        out.update({k: res[k] for k in ("low", "high") if k in res})
        return out
    x = m.metric(row)
    out.update(model=x, reference=row.reference, tolerance=row.tolerance or None, error=None, passed=None)
    if row.tolerance:
        lo, hi = parse_tolerance(row.tolerance, row.reference)
        if x is not None and row.reference:
            out["error"] = (x - row.reference) / row.reference
        out.update(low=lo, high=hi, passed=bool(x is not None and lo <= x <= hi))
    return out


def run_suite(name: str = "ortiz2008", only: str | None = None, reference: str | None = None,
              sets: dict | None = None) -> dict[str, Any]:
    """The suite's JSON document (docs/output.md)."""
    if name not in SUITES:
        raise ConfigError(f"--suite {name!r}: unknown suite; known: {', '.join(SUITES)}")
    every = catalogue(name)
    rows = select(every, only)
    if reference:
        rows = apply_reference(rows, reference, every)
    m = SuiteMeasurer(dict(sets or {}))
    t = time.perf_counter()
    results = [evaluate(r, m) for r in rows]
    checked = [r for r in results if r["passed"] is not None]
    return {"suite": name, "only": only, "reference_file": reference, "rows": results,
            "checked": len(checked), "passed": sum(bool(r["passed"]) for r in checked), "total": len(results),
            "held_out_unchecked": sum(r["passed"] is None for r in results),
            "runs": m.runs + sum(len(v.cache) for v in m.by_sets.values()), "wall_s": time.perf_counter() - t}


# --- text ----------------------------------------------------------------------------------

def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, dict):
        return " ".join(f"{k.replace('ortiz2008-', '')}={v:.3g}" for k, v in x.items())
    if isinstance(x, bool):
        return str(x)
    return f"{x:.4g}"


def _result(r: dict) -> str:
    return "-" if r["passed"] is None else ("pass" if r["passed"] else "FAIL")


def table(doc: dict[str, Any]) -> str:
    """One table per thesis table or figure, in catalogue order, with the table's title."""
    groups: dict[str, list[dict]] = {}
    for r in doc["rows"]:
        groups.setdefault(f"{r['experiment']} | {r['table']}", []).append(r)
    width = max([len(r["id"]) for r in doc["rows"]] + [4])
    lines = []
    for title, rows in groups.items():
        lines += ["", f"== {title}"]
        head = f"{'id':<{width}} {'metric':<24} {'unit':<12} {'model':>14} {'reference':>10} {'error':>8} {'role':<9} result"
        lines += [head, "-" * len(head)]
        for r in rows:
            ref = _fmt(r["reference"]) if r["reference"] is not None else (r["tolerance"] or "-")
            err = f"{100 * r['error']:+.1f}%" if r.get("error") is not None else "-"
            lines.append(f"{r['id']:<{width}} {r['metric']:<24} {r['unit']:<12} {_fmt(r['model']):>14} {ref:>10} {err:>8} {r['role']:<9} {_result(r)}")
    lines.append("")
    lines.append(f"{doc['passed']} of {doc['checked']} rows with a reference pass; {doc['held_out_unchecked']} held-out rows "
                 f"have no reference (give one with --reference FILE); {doc['runs']} runs in {doc['wall_s']:.1f} s")
    return "\n".join(lines)
