"""Figures of simulated curves. Colours and names for a placement are the same everywhere."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import matplotlib

# Headless by default: figures are written to files. A notebook or program that chose its
# backend first (pyplot already imported, as `%matplotlib inline` does, or MPLBACKEND set)
# keeps it, or importing nicsim would stop its figures from showing.
if "matplotlib.pyplot" not in sys.modules and "MPLBACKEND" not in os.environ:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"base": "#1f77b4", "offload": "#d62728", "onload": "#2ca02c", "hybrid": "#9467bd"}


def colour(name: str) -> str:
    return COLOURS.get(name.split("+")[0], "#7f7f7f")


def plot_netpipe(results: dict[str, dict], path, latency: dict | None = None, title: str | None = None) -> None:
    """Throughput against message size per placement, and the signature graph; with
    `latency`, a third panel of the ping-pong one-way time; `title` heads the figure."""
    panels = 3 if latency else 2
    fig, axes = plt.subplots(1, panels, figsize=(5.2 * panels, 4.2))
    for name, out in results.items():
        pts = out["points"]
        sizes = [p["size_bytes"] for p in pts]
        thr = [p["throughput_mbps"] for p in pts]
        t = [p["time_us"] for p in pts]
        axes[0].semilogx(sizes, thr, "-", color=colour(name), label=name, lw=1.6)
        axes[1].semilogx(t, thr, "-", color=colour(name), label=name, lw=1.6)
    axes[0].set(xlabel="message size (bytes)", ylabel="throughput (Mbps, 10^6 bit/s)", title="NetPIPE streaming throughput")
    axes[1].set(xlabel="transfer time (µs)", ylabel="throughput (Mbps, 10^6 bit/s)", title="Signature graph")
    if latency:
        pts = latency["points"]
        axes[2].loglog([p["size_bytes"] for p in pts], [p["time_us"] for p in pts], "-", color=colour("base"), label="ping-pong")
        axes[2].set(xlabel="message size (bytes)", ylabel="one-way time (µs)", title="Ping-pong latency")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(Path(path), dpi=110)
    plt.close(fig)


def plot_gamma(sweep: dict, path, fit=None) -> None:
    """δb against γ for each message size, with the original LAWS prediction when present and,
    with `fit` (an `analytic.fit.ModifiedFit`), the fitted modified-LAWS curve."""
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    styles = ["-", "--", ":"]
    for i, (size, rows) in enumerate(sweep["sweeps"].items()):
        g = [r["gamma"] for r in rows]
        ax.plot(g, [r["delta_b"] for r in rows], styles[i % 3] + "o", color=colour(sweep["placement"]), ms=3, label=f"{sweep['placement']}, {size} B (simulated)")
        if rows and "laws_delta_b" in rows[0]:
            ax.plot(g, [r["laws_delta_b"] for r in rows], styles[i % 3], color="black", lw=1, label=f"LAWS, {size} B")
    if fit is not None:
        g = np.linspace(0.0, max(float(np.max(fit.gamma)), 1e-9), 200)
        ax.plot(g, fit.predict(g), "-.", color="C1", lw=1.6,
                label=f"modified LAWS fit (δa={fit.delta_a:.3g}, δo={fit.delta_o:.3g}, τ={fit.tau:.3g})")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(xlabel="application ratio γ = a/o", ylabel="improvement over base δb (fraction)", title=f"{sweep['placement']} against base")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(Path(path), dpi=110)
    plt.close(fig)


def plot_series(series: dict, path) -> None:
    """A run over time: each node's throughput in, each processor's utilisation, and the
    queues, one panel each (`series` of a result, docs/output.md)."""
    cols, rows = series["columns"], np.array(series["rows"], dtype=float).reshape(-1, len(series["columns"]))
    t_ms = rows[:, 0] * 1e3 if len(rows) else np.array([])
    panels = (("_mbps", "Mb/s"), (".utilisation", "utilisation"), (("_frames", "_threads"), "frames, threads"))
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 8), sharex=True)
    for ax, (suffix, label) in zip(axes, panels):
        for j, c in enumerate(cols):
            if c.endswith(suffix) and (len(rows) == 0 or rows[:, j].any()):
                ax.plot(t_ms, rows[:, j], label=c, linewidth=1)
        ax.set_ylabel(label)
        if ax.lines:
            ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("simulated time (ms)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_web_users(rows: list[dict], path, placement: str, title: str | None = None) -> None:
    """Requests/s and response time (mean solid, p99 dotted) against users, one point per count
    of `nicsim web --users A,B,...` (`web.users_rows`); with --vs-base, base's curves beside."""
    rows = sorted(rows, key=lambda r: r["users"])
    users = [r["users"] for r in rows]
    def nan(v):
        return np.nan if v is None else v
    fig, (rps, rt) = plt.subplots(1, 2, figsize=(10.4, 4.2))
    rps.plot(users, [nan(r["requests_per_s"]) for r in rows], "-o", color=colour(placement), ms=3, label=placement)
    rt.plot(users, [nan(r["response_mean_ms"]) for r in rows], "-o", color=colour(placement), ms=3, label=f"{placement}, mean")
    rt.plot(users, [nan(r["response_p99_ms"]) for r in rows], ":o", color=colour(placement), ms=3, label=f"{placement}, p99")
    if "base_requests_per_s" in rows[0]:
        rps.plot(users, [nan(r["base_requests_per_s"]) for r in rows], "--s", color=colour("base"), ms=3, label="base")
        rt.plot(users, [nan(r["base_response_mean_ms"]) for r in rows], "--s", color=colour("base"), ms=3, label="base, mean")
    rps.set(xlabel="concurrent users", ylabel="requests per second (1/s)", title="Requests/s against users")
    rt.set(xlabel="concurrent users", ylabel="response time (ms)", title="Response time against users")
    for ax in (rps, rt):
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(Path(path), dpi=110)
    plt.close(fig)
