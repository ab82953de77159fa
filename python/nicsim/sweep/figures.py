"""What every figure of a sweep report shares: category colours, line styles, the receiving node,
short key names, and the stacked busy bars."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from ..config import CATEGORIES
from ..io.plot import colour, plt  # plt is matplotlib.pyplot on the Agg backend


# Category colours, chosen apart from the placement colours so the two never read alike.
CAT_COLOURS = dict(zip(CATEGORIES, ("#8c564b", "#ff7f0e", "#17becf", "#bcbd22", "#e377c2", "#7f7f7f")))
PROC_STYLES = {"cpu0": "-", "cpu1": "--", "nic_cpu": ":"}
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))]
RECEIVER = "node1."


def _short(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def _finish(ax, legend=True):
    ax.grid(True, which="both", alpha=0.3)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best")


def _bars(groups: list[tuple[str, str, dict[str, dict]]], title: str, ylabel: str) -> Any:
    """Stacked busy bars: one bar per (group, processor), stacked by category."""
    bars = []  # (group label, placement, processor, busy dict)
    for label, placement, procs in groups:
        for name, pr in procs.items():
            if pr.get("utilisation", 0) > 0 or any(pr.get("busy", {}).values()):
                bars.append((label, placement, name.split(".", 1)[-1], pr.get("busy", {})))
    width = min(18.0, max(7.0, 0.62 * len(bars) + 2.5))
    fig, ax = plt.subplots(figsize=(width, 5.8))
    x = np.arange(len(bars))
    bottom = np.zeros(len(bars))
    for cat in CATEGORIES:
        h = np.array([b[3].get(cat, 0.0) for b in bars])
        ax.bar(x, h, bottom=bottom, color=CAT_COLOURS[cat], width=0.75, label=cat, edgecolor="white", lw=0.4)
        bottom += h
    ax.set_xticks(x, [b[2] for b in bars], rotation=90 if len(bars) > 12 else 0, fontsize=8)
    # group labels under the processor names, coloured by placement
    starts: dict[str, list[int]] = defaultdict(list)
    for i, b in enumerate(bars):
        starts[b[0]].append(i)
    for label, idx in starts.items():
        pl = bars[idx[0]][1]
        ax.annotate(label.replace(", ", "\n"), xy=(np.mean(idx), 0), xycoords=("data", "axes fraction"), xytext=(0, -30 if len(bars) <= 12 else -48),
                    textcoords="offset points", ha="center", va="top", fontsize=8, color=colour(pl), fontweight="bold",
                    rotation=0 if len(starts) <= 6 else 30)
    ax.set_ylim(0, max(1.0, float(bottom.max()) * 1.05 if len(bars) else 1.0))
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set(ylabel=ylabel, title=title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(title="category", fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def _grouped_curves(rows: list[dict], x: str):
    """One curve per (placement, other swept keys), sorted by `x`: (placement, label, line
    style, rows)."""
    groups: dict[tuple, list] = defaultdict(list)
    for r in rows:
        groups[(r["placement"], r["others"])].append(r)
    rank: dict[str, int] = defaultdict(int)
    for (pl, others), rs in groups.items():
        rs.sort(key=lambda r: r[x])
        ls = LINESTYLES[rank[pl] % len(LINESTYLES)]
        rank[pl] += 1
        lab = pl + ("" if not others else ", " + ", ".join(f"{_short(k)}={v}" for k, v in others))
        yield pl, lab, ls, rs
