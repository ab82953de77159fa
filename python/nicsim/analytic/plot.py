"""Plots of the LAWS models: delta_b against gamma for families of parameters,
and a fitted modified LAWS over its points.  Files only (Agg backend)."""

from __future__ import annotations

import os
import sys

import matplotlib

# Headless unless the notebook or program chose a backend first (see nicsim/plot.py).
if "matplotlib.pyplot" not in sys.modules and "MPLBACKEND" not in os.environ:
    matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

from .laws import delta_b_modified, peak_modified

GAMMA_LABEL = "application ratio γ = a/o  (dimensionless)"
DELTA_B_LABEL = "peak-throughput improvement δb  (fraction; 0.5 = +50 %)"
_CURVE_POINTS = 600


def family_label(fam: dict) -> str:
    """Short legend text for one parameter family, listing only what varies or matters."""
    parts = [f"α={fam['alpha']:g}", f"β={fam['beta']:g}", f"σ={fam['sigma']:g}",
             f"p={fam['p']:g}"]
    for key, sym in (("delta_a", "δa"), ("delta_o", "δo"), ("tau", "τ")):
        if fam.get(key, 0.0):
            parts.append(f"{sym}={fam[key]:g}")
    return ", ".join(parts)


def plot_families(families: list[dict], gamma_max: float, path, title: str | None = None,
                  gamma_min: float = 0.0) -> None:
    """Draw delta_b(gamma) for each family (dict with p, alpha, beta, sigma and
    optional delta_a, delta_o, tau), marking each peak, with LAWS's 1/gamma bound."""
    gamma_max = max(gamma_max, gamma_min + 1e-9)
    gammas = np.linspace(gamma_min, gamma_max, _CURVE_POINTS)
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = ("-", "--", "-.", ":")
    lows, highs = [0.0], [0.0]
    for i, fam in enumerate(families):
        devs = {k: fam.get(k, 0.0) for k in ("delta_a", "delta_o", "tau")}
        args = (fam["p"], fam["alpha"], fam["beta"], fam["sigma"])
        db = delta_b_modified(*args, gammas, **devs)
        colour = colours[i % len(colours)]
        # Distinct dash patterns keep coinciding curves (same c) visible.
        ax.plot(gammas, db, styles[i % len(styles)], color=colour, lw=2.0,
                label=family_label(fam))
        g_pk, v_pk = peak_modified(*args, **devs)
        if gamma_min <= g_pk <= gamma_max:
            ax.plot([g_pk], [v_pk], "o", color=colour, ms=6)
        lows.append(float(np.min(db)))
        highs.append(float(np.max(db[np.isfinite(db)])))
    bound = np.divide(1.0, gammas, out=np.full_like(gammas, np.inf), where=gammas > 0)
    ax.plot(gammas, bound, color="0.45", lw=1.0, ls=":", label="1/γ bound (LAWS, p = 1)")
    ax.axhline(0.0, color="0.3", lw=0.8)
    # Keep the 1/gamma asymptote at gamma -> 0 from squashing the curves.
    span = max(highs) - min(lows)
    ax.set_ylim(min(lows) - 0.08 * span - 0.02, max(highs) + 0.15 * span + 0.02)
    ax.set_xlim(gamma_min, gamma_max)
    ax.set_xlabel(GAMMA_LABEL)
    ax.set_ylabel(DELTA_B_LABEL)
    ax.set_title(title or "LAWS: improvement in peak throughput after externalizing "
                 "(dots: peaks)", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper right", framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_fit(fit, path, title: str | None = None) -> None:
    """Points, fitted modified LAWS and original LAWS for a :class:`ModifiedFit`."""
    g_hi = float(np.max(fit.gamma)) if fit.gamma.size else 1.0
    gammas = np.linspace(0.0, max(g_hi, 1e-9), _CURVE_POINTS)
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    ax.plot(fit.gamma, fit.delta_b, "o", color="k", ms=4, label="measured points")
    ax.plot(gammas, fit.predict(gammas), color="C3", lw=1.8,
            label=(f"modified LAWS fit: δa={fit.delta_a:.3g}, δo={fit.delta_o:.3g}, "
                   f"τ={fit.tau:.3g} (RMSE {fit.rmse:.3g})"))
    laws_curve = delta_b_modified(fit.p, fit.alpha, fit.beta, fit.sigma, gammas)
    ax.plot(gammas, laws_curve, color="C0", lw=1.4, ls="--",
            label=f"original LAWS: p={fit.p:g}, α={fit.alpha:g}, β={fit.beta:g}, "
                  f"σ={fit.sigma:g}")
    ax.axhline(0.0, color="0.3", lw=0.8)
    ax.set_xlabel(GAMMA_LABEL)
    ax.set_ylabel(DELTA_B_LABEL)
    ax.set_title(title or "Modified LAWS fitted to measured improvement", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best", framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
