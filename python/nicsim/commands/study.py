"""`nicsim study laws CONFIG`: the simulator's γ sweep for base and the configuration's
placement, the original LAWS curve from the LAWS parameters measured in the same runs, a fit
of the modified LAWS to the simulated points, and every run compared with its own LAWS
peak-throughput bound (laws.md §4.4). A run above its bound is listed, never hidden."""
from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from ..paths import out_plot
from .options import Parser


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="nicsim study laws", description="LAWS against the simulator for one placement.")
    p.add_argument("config", help="preset or TOML file naming the placement (e.g. ortiz2008-offload)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--msg-size", default="2 Mbit", help="message size (default 2 Mbit = 262,144 B)")
    p.add_argument("--gammas", default="0:3.5:0.25", help="γ grid (default 0:3.5:0.25)")
    p.add_argument("--duration", default="2 s", help="measured window per run (default 2 s)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--plot", type=out_plot(), help="write δb(γ) with LAWS and the fitted modified LAWS to this file")
    return p


def bound_violations(rows: list[dict]) -> list[dict]:
    """Runs whose simulated throughput exceeds their own LAWS peak-throughput bound."""
    from ..analytic.laws import throughput_after_abs, throughput_before_abs

    out = []
    for r in rows:
        qb, qp = r["base_laws"], r["placed_laws"]
        if "a" not in qb:
            # A run that moved nothing in its window measured no LAWS quantities: no bound.
            continue
        b_before = float(throughput_before_abs(qb["a"], qb["o"], qb["X_s"], qb["B_bps"]))
        checks = [("base", r["base_mbps"], b_before / 1e6)]
        if qp.get("beta") is not None and qp.get("p", 0) > 0:
            b_after = float(throughput_after_abs(qp["a"], qp["o"], qp["X_s"], qp["Y_s"], qp["B_bps"], qp["p"], qp["beta"]))
            checks.append(("placement", r["placed_mbps"], b_after / 1e6))
        for run, sim, bound in checks:
            if sim > bound * (1 + 1e-6):
                out.append({"gamma": r["gamma"], "run": run, "simulated_mbps": sim, "laws_bound_mbps": bound, "excess": sim / bound - 1})
    return out


def study(config, sets, msg_size, gammas, duration) -> dict:
    from ..analytic.fit import FitError, fit_modified
    from ..analytic.laws import laws_prediction
    from ..benchmarks.hpc import gamma_sweep

    sweep = gamma_sweep(config, sets, gammas, [msg_size], duration)
    size, rows = next(iter(sweep["sweeps"].items()))
    q = sweep["laws"][size]
    result: dict = {"placement": sweep["placement"], "message_bytes": int(size), "laws_parameters": q, "rows": [], "notes": []}
    p, beta, alpha, sigma = q.get("p"), q.get("beta"), q.get("alpha"), q.get("sigma")
    if beta is None or not p:
        result["notes"].append("a single β is not defined for this placement (more than one communication processor, or p = 0); LAWS overlay and fit skipped")
        pred = [math.nan] * len(rows)
    else:
        pred = list(np.atleast_1d(laws_prediction(p, alpha, beta, sigma, [r["gamma"] for r in rows])))
    for r, lp in zip(rows, pred):
        r["laws_delta_b"] = float(lp)
        result["rows"].append({k: r[k] for k in ("gamma", "gamma_realised", "base_mbps", "placed_mbps", "delta_b", "laws_delta_b")})
    above = [r["gamma"] for r in result["rows"] if not math.isnan(r["laws_delta_b"]) and r["delta_b"] > r["laws_delta_b"] + 1e-9]
    if above:
        result["notes"].append(f"simulated δb sits above the LAWS curve at γ = {above}: δb is a ratio, so it can exceed LAWS when the base run falls short of its own bound")
    if beta is not None and p:
        pts = pd.DataFrame({"gamma": [r["gamma"] for r in rows], "delta_b": [r["delta_b"] for r in rows]})
        # A run that moved nothing in its window has no δb: the fit uses the others, said so.
        bad = pts["delta_b"].isna() | ~np.isfinite(pts["delta_b"].astype(float))
        if bad.any() and (~bad).sum() >= 2:
            result["notes"].append(f"modified-LAWS fit leaves out γ = {pts['gamma'][bad].tolist()}: no δb (a run moved nothing in its window)")
            pts = pts[~bad].reset_index(drop=True)
        try:
            fit = fit_modified(pts, p, alpha, beta, sigma)
            result["modified_laws_fit"] = fit.to_dict()
            result["_fit"] = fit
        except FitError as e:
            result["notes"].append(f"modified-LAWS fit not possible: {e}")
    result["violations"] = bound_violations(rows)
    result["_sweep"] = sweep
    return result


def main_study(argv: list[str]) -> int:
    from ..config import parse_set
    from ..benchmarks.hpc import parse_grid
    from .twice import check_given_twice

    p = parser()
    a = p.parse_args(argv)
    check_given_twice("study laws", a, parse_set(a.set), p)
    res = study(a.config, parse_set(a.set), a.msg_size, parse_grid(a.gammas, "--gammas"), a.duration)
    sweep = res.pop("_sweep")
    fit = res.pop("_fit", None)
    if a.plot:
        from ..io.plot import plot_gamma

        plot_gamma(sweep, a.plot, fit=fit)
    if a.json:
        from ..api import dumps

        print(dumps(res))
        return 0
    q = res["laws_parameters"]
    print(f"{res['placement']} vs base, message {res['message_bytes']} B; measured LAWS: " + ", ".join(f"{k}={v:.4g}" for k, v in q.items() if isinstance(v, (int, float))))
    print(f"{'gamma':>6} {'realised':>8} {'base Mbps':>10} {'placed':>8} {'db sim':>8} {'db LAWS':>8}")
    for r in res["rows"]:
        print(f"{r['gamma']:>6.2f} {r['gamma_realised']:>8.3f} {r['base_mbps']:>10.1f} {r['placed_mbps']:>8.1f} {r['delta_b']:>+8.3f} {r['laws_delta_b']:>+8.3f}")
    if "modified_laws_fit" in res:
        f = res["modified_laws_fit"]
        fitted = {**f["params"], "rmse": f["rmse"], "r2": f["r2"]}
        print("modified LAWS fit: " + ", ".join(f"{k}={v:.4g}" for k, v in fitted.items() if isinstance(v, (int, float))))
    print(f"LAWS-bound violations: {len(res['violations'])}")
    for v in res["violations"]:
        print(f"  γ={v['gamma']:.2f} {v['run']}: {v['simulated_mbps']:.1f} Mbps > bound {v['laws_bound_mbps']:.1f} Mbps (+{100 * v['excess']:.1f}%)")
    for n in res["notes"]:
        print(f"note: {n}")
    return 0
