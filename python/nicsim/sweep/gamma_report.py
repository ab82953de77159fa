"""The Hpcbench section of a sweep report: throughput against γ, δb against the original LAWS
curve, and the receiver's busy time."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..config.placements import gain
from ..io.plot import colour, plt
from .figures import RECEIVER, _bars, _finish, _grouped_curves


def _gamma_rows(df: pd.DataFrame, params: dict, results: dict) -> list[dict]:
    rows = []
    for _, row in df[(df.status == "ok") & (df.benchmark == "hpcbench")].iterrows():
        res = results.get(row.key)
        pr = params[row.key]
        if not res or "gamma" not in pr:
            continue
        others = tuple((k, v) for k, v in pr.items() if k not in ("gamma", "placement"))
        rows.append({"key": row.key, "placement": row.placement, "gamma": float(pr["gamma"]), "others": others,
                     "mbps": res["hpcbench"]["throughput_mbps"], "laws": res.get("laws", {}), "res": res})
    return rows


def _gamma_curves(rows: list[dict]):
    return _grouped_curves(rows, "gamma")


def fig_gamma_throughput(rows: list[dict]) -> Any:
    fig, ax = plt.subplots(figsize=(7.0, 4.4))
    for pl, lab, ls, rs in _gamma_curves(rows):
        ax.plot([r["gamma"] for r in rs], [r["mbps"] for r in rs], linestyle=ls, marker="o", ms=3, color=colour(pl), label=lab)
    ax.set(xlabel="application ratio γ = a/o (dimensionless)", ylabel="Hpcbench throughput (Mbps, 10⁶ bit/s)",
           title="Hpcbench throughput against application load")
    _finish(ax)
    fig.tight_layout()
    return fig


def gamma_table(rows: list[dict]) -> list[dict]:
    """δb per (placement, other keys, γ) against the base point with the same other keys."""
    base = {(r["others"], r["gamma"]): r for r in rows if r["placement"] == "base"}
    out = []
    for r in rows:
        if r["placement"] == "base":
            continue
        b = base.get((r["others"], r["gamma"]))
        if b is None or b["mbps"] <= 0:
            continue
        out.append({**r, "delta_b": gain(r["mbps"], b["mbps"])})
    return out


def fig_delta_b(table: list[dict]) -> Any:
    from ..analytic.laws import laws_prediction

    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    for pl, lab, ls, rs in _gamma_curves(table):
        g = np.array([r["gamma"] for r in rs])
        ax.plot(g, [r["delta_b"] for r in rs], linestyle="none", marker="o", ms=5, color=colour(pl), label=f"{lab} (simulated)")
        q = rs[0]["laws"]  # LAWS parameters measured at the smallest γ, as `nicsim gamma-sweep` does
        if all(isinstance(q.get(k), (int, float)) and math.isfinite(q[k]) for k in ("p", "alpha", "beta", "sigma")) and q["p"] > 0:
            gg = np.linspace(0.0, max(float(g.max()), 0.1), 200)
            pred = laws_prediction(q["p"], q["alpha"], q["beta"], q["sigma"], gg)
            ax.plot(gg, pred, linestyle=ls, color=colour(pl), lw=1.4, alpha=0.85,
                    label=f"{lab}: LAWS (p={q['p']:.2f}, α={q['alpha']:.2f}, β={q['beta']:.2f}, σ={q['sigma']:.2f})")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(xlabel="application ratio γ = a/o (dimensionless)", ylabel="throughput improvement over base δb (fraction)",
           title="δb against γ: simulation (markers) and LAWS (lines)")
    _finish(ax)
    fig.tight_layout()
    return fig


def fig_busy_hpcbench(rows: list[dict]) -> Any:
    rows = sorted(rows, key=lambda r: (r["placement"] != "base", r["placement"], r["others"], r["gamma"]))
    if len(rows) > 16:  # keep the chart readable: an even subsample
        rows = [rows[i] for i in np.linspace(0, len(rows) - 1, 16).round().astype(int)]
    groups = []
    for r in rows:
        procs = {k: v for k, v in r["res"]["hpcbench"]["processors"].items() if k.startswith(RECEIVER)}
        groups.append((f"{r['placement']}\nγ={r['gamma']:g}", r["placement"], procs))
    return _bars(groups, "Receiver (node1) busy time by category (Hpcbench)", "busy time (fraction of the measured window)")
