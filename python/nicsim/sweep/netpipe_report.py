"""The NetPIPE section of a sweep report: a curve per configuration (throughput, latency, the
signature graph, interrupts), the receiver's busy time at each curve's peak, and mode B's caches."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

import pandas as pd

from ..io.plot import colour, plt
from .figures import LINESTYLES, RECEIVER, _bars, _finish, _short


PROC_STYLES = {"cpu0": "-", "cpu1": "--", "nic_cpu": ":"}


class _Curve:
    """The NetPIPE points of one configuration (rows that differ only in which sizes ran are
    joined into one curve)."""

    def __init__(self, placement: str, label_items: tuple):
        self.placement = placement
        self.label_items = label_items
        self.points: dict[int, dict] = {}

    @property
    def label(self) -> str:
        rest = ", ".join(f"{_short(k)}={v}" for k, v in self.label_items)
        return f"{self.placement}, {rest}" if rest else self.placement

    def sorted_points(self) -> list[dict]:
        return [self.points[s] for s in sorted(self.points)]


def _curves(df: pd.DataFrame, params: dict, results: dict) -> list[_Curve]:
    curves: dict[tuple, _Curve] = {}
    for _, row in df[(df.status == "ok") & (df.benchmark == "netpipe")].iterrows():
        res = results.get(row.key)
        if not res or "points" not in res:
            continue
        # Every swept key makes its own series (a swept max_bytes too), except an explicit list
        # of sizes: points that differ only in which sizes they measured form one curve.
        items = tuple((k, v) for k, v in params[row.key].items() if k != "workload.netpipe.sizes_bytes" and k != "placement")
        placement = row.placement
        given = str(params[row.key].get("placement", placement))
        if given != placement and not given.endswith("-" + placement):  # e.g. a preset named otherwise
            items = (("preset", given),) + items
        cid = (placement, items)
        c = curves.setdefault(cid, _Curve(placement, items))
        for p in res["points"]:
            c.points.setdefault(p["size_bytes"], p)
    return list(curves.values())


def _styles(curves: list[_Curve]) -> dict[int, dict]:
    """Colour from the placement, line style from the curve's rank within its placement."""
    rank: dict[str, int] = defaultdict(int)
    out = {}
    for i, c in enumerate(curves):
        r = rank[c.placement]
        rank[c.placement] += 1
        out[i] = {"color": colour(c.placement), "ls": LINESTYLES[r % len(LINESTYLES)],
                  "marker": "o" if len(c.points) < 6 else None}
    return out


def fig_netpipe(curves: list[_Curve], y: str) -> Any:
    st = _styles(curves)
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for i, c in enumerate(curves):
        pts = c.sorted_points()
        ax.plot([p["size_bytes"] for p in pts], [p[y] for p in pts], linestyle=st[i]["ls"], color=st[i]["color"],
                marker=st[i]["marker"], ms=4, lw=1.6, label=c.label)
    ax.set_xscale("log", base=2)
    if y == "throughput_mbps":
        ax.set(xlabel="message size (bytes)", ylabel="throughput (Mbps, 10⁶ bit/s)", title="NetPIPE throughput against message size")
    else:
        ax.set_yscale("log")
        ax.set(xlabel="message size (bytes)", ylabel="time per message, one way (µs)", title="NetPIPE latency against message size")
    _finish(ax)
    fig.tight_layout()
    return fig


def fig_signature(curves: list[_Curve]) -> Any:
    st = _styles(curves)
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for i, c in enumerate(curves):
        pts = c.sorted_points()
        ax.plot([p["time_us"] for p in pts], [p["throughput_mbps"] for p in pts], linestyle=st[i]["ls"], color=st[i]["color"],
                marker=st[i]["marker"], ms=4, lw=1.6, label=c.label)
    ax.set_xscale("log")
    ax.set(xlabel="transfer time per message (µs)", ylabel="throughput (Mbps, 10⁶ bit/s)", title="NetPIPE signature graph")
    _finish(ax)
    fig.tight_layout()
    return fig


def fig_busy_netpipe(curves: list[_Curve]) -> Any:
    groups = []
    for c in curves:
        pts = c.sorted_points()
        peak = max(pts, key=lambda p: p["throughput_mbps"])
        procs = {k: v for k, v in peak["processors"].items() if k.startswith(RECEIVER)}
        groups.append((f"{c.label}\n@ {peak['size_bytes']} B", c.placement, procs))
    return _bars(groups, "Receiver (node1) busy time by category at each curve's peak throughput",
                 "busy time (fraction of the measured window)")


def cache_table(curves: list[_Curve]) -> pd.DataFrame:
    """Mode B: the receiver's hit rates per level at each curve's peak throughput (empty when
    no curve ran with caches)."""
    from ..io.cachereport import COLUMNS

    rows = []
    for c in curves:
        peak = max(c.sorted_points(), key=lambda p: p["throughput_mbps"])
        for k, pr in peak["processors"].items():
            if k.startswith(RECEIVER) and "cache" in pr:
                l2 = pr["cache"]["l2"]
                rows.append({"configuration": c.label, "size_bytes": peak["size_bytes"], "processor": k,
                             **{name: pr["cache"][lvl].get(key) for name, lvl, key in COLUMNS},
                             "L2 misses": l2["read_misses"] + l2["write_misses"], "L2 write-backs": l2["writebacks"],
                             "coherence transfers": pr.get("coherence", {}).get("transfers", 0)})
    return pd.DataFrame(rows)


def fig_interrupts(curves: list[_Curve]) -> Any:
    st = _styles(curves)
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for i, c in enumerate(curves):
        pts = c.sorted_points()
        procs = sorted({k for p in pts for k in p["processors"] if k.startswith(RECEIVER)})
        for proc in procs:
            ys = [p["processors"].get(proc, {}).get("irq_per_s", 0.0) for p in pts]
            if max(ys) <= 0:
                continue
            name = proc.split(".", 1)[1]
            ax.plot([p["size_bytes"] for p in pts], ys, linestyle=PROC_STYLES.get(name, "-"), color=st[i]["color"],
                    marker=st[i]["marker"] or ".", ms=4, lw=1.5, alpha=1.0 if st[i]["ls"] == "-" else 0.65, label=f"{c.label}: {name}")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="message size (bytes)", ylabel="interrupts per second (1/s)",
           title="Interrupts taken by receiver (node1) processors\n(line style: cpu0 solid, cpu1 dashed, nic_cpu dotted)")
    ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 3))
    _finish(ax)
    fig.tight_layout()
    return fig
