"""`nicsim report STORE --out DIR`: a self-contained HTML page (figures inlined as base64 PNG,
no external files or scripts) plus every figure as PNG and SVG, and the point tables as CSV and
Parquet.

Figures, each drawn only when the store holds what it needs:

* NetPIPE throughput and one-way time per message against message size, one curve per
  configuration, coloured by placement;
* the NetPIPE signature graph (throughput against transfer time);
* per-processor busy time of the receiving node, stacked by category, at each curve's peak;
* interrupts per second on the receiving node's processors against message size;
* Hpcbench throughput against γ, and δb against γ with the original LAWS curve
  (`nicsim.analytic.laws.laws_prediction`) when the store holds a γ sweep with base points;
* stack organisations: throughput and round trip against TSDU size when `org.name` is swept
  (`orgs_report.py`), and stacks on SMP when `cpu.count` is swept (`smp_report.py`).

A placement has the same colour and name in every figure (`nicsim.plot.COLOURS`); the other
swept keys of a curve set its line style.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..config import CATEGORIES
from ..plot import COLOURS, colour, plt  # plt is matplotlib.pyplot on the Agg backend
from .orgs_report import fig_orgs, orgs_table
from .smp_report import fig_smp, smp_table
from .store import Store

# Category colours, chosen apart from the placement colours so the two never read alike.
CAT_COLOURS = {"copy": "#8c564b", "tcpip": "#ff7f0e", "driver": "#17becf", "os": "#bcbd22", "app": "#e377c2", "conn": "#7f7f7f"}
PROC_STYLES = {"cpu0": "-", "cpu1": "--", "nic_cpu": ":"}
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))]
RECEIVER = "node1."


def _short(key: str) -> str:
    return key.rsplit(".", 1)[-1]


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


def _load(store: str | Path):
    with Store(store, readonly=True) as st:
        df = st.frame()
        params = dict(st.conn.execute("SELECT key, params FROM points").fetchall())
        results = dict(st.results())
        runs = st.runs()
    params = {k: json.loads(v) for k, v in params.items()}
    return df, params, results, runs


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


def _finish(ax, legend=True):
    ax.grid(True, which="both", alpha=0.3)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best")


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
    from ..cachereport import COLUMNS

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


# --- Hpcbench / γ ----------------------------------------------------------------------------

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
        out.append({**r, "delta_b": r["mbps"] / b["mbps"] - 1.0})
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


# --- web server -------------------------------------------------------------------------------

WEB_X = "workload.web.users"


def _web_rows(df: pd.DataFrame, params: dict, results: dict) -> list[dict]:
    rows = []
    for _, row in df[(df.status == "ok") & (df.benchmark == "web")].iterrows():
        res = results.get(row.key)
        if not res:
            continue
        pr = params[row.key]
        w = res["web"]
        others = tuple((k, v) for k, v in pr.items() if k not in (WEB_X, "placement"))
        rows.append({"placement": row.placement, "users": w["users"], "others": others,
                     "rps": w["requests_per_s"], "rt": w["response_time_ms"]["mean"], "mbps": w["bandwidth_mbps"]})
    return rows


def fig_web(rows: list[dict], y: str, label: str) -> Any:
    fig, ax = plt.subplots(figsize=(7.0, 4.4))
    for pl, lab, ls, rs in _grouped_curves(rows, "users"):
        ax.plot([r["users"] for r in rs], [r[y] for r in rs], linestyle=ls, marker="o", ms=3, color=colour(pl), label=lab)
    ax.set(xlabel="concurrent users", ylabel=label, title=f"Web server: {label.split(' (')[0]} against users")
    _finish(ax)
    fig.tight_layout()
    return fig


# --- netperf, in the style of the study's tools (stacks.md §A.10) -------------------------------

def netperf_table(df: pd.DataFrame, params: dict, results: dict) -> pd.DataFrame:
    """One row per netperf point: the swept values, the aggregate rate, the server's sar-like
    figures and its oprofile-like profile per CPU (the same figures `nicsim netperf` prints)."""
    from ..netperf import profile, sar

    rows = []
    for _, row in df[(df.status == "ok") & (df.benchmark == "netperf")].iterrows():
        res = results.get(row.key)
        if not res:
            continue
        n, server = res["netperf"], res["netperf"]["server"]
        r = {"placement": row.placement, **params[row.key], **n["aggregate"], "fairness_jain": n["fairness_jain"]}
        s = sar(res, server) or {}
        for cpu, v in s.get("idle_percent", {}).items():
            r[f"%idle {cpu}"] = v
        r.update({k: v for k, v in s.items() if k != "idle_percent"})
        for cpu, classes in profile(res, server).items():
            r.update({f"{cpu} {c} %": v for c, v in classes.items()})
        rows.append(r)
    return pd.DataFrame(rows)


# --- interrupts against polling under overload (stacks.md §A.1, host-path §7.9) ----------------

def livelock_table(df: pd.DataFrame, params: dict, results: dict) -> pd.DataFrame:
    """One row per packet-generator point: the swept values, offered and delivered frame
    rates, and the receiver's intrusion factor (`inf` in livelock)."""
    rows = []
    for _, row in df[(df.status == "ok") & (df.benchmark == "packet_gen")].iterrows():
        res = results.get(row.key)
        if not res:
            continue
        g = res["packet_gen"]
        rows.append({"placement": row.placement, **params[row.key], "offered_pps": g["offered_pps"],
                     "delivered_pps": g["delivered_pps"], "fi_cpu": g["nodes"]["node1"]["fi_cpu"]})
    return pd.DataFrame(rows)


def fig_livelock(table: pd.DataFrame) -> Any:
    """Delivered frames/s and the intrusion factor against offered frames/s, a curve per other
    setting; livelock (nothing delivered, FI infinite) is marked at the top of the FI axis."""
    fig, (ax, fx) = plt.subplots(1, 2, figsize=(10.0, 4.2), sharex=True)
    others = [k for k in table.columns if k not in ("placement", "offered_pps", "delivered_pps", "fi_cpu")
              and "." in k and k != "workload.packet_gen.rate_pps"]
    keys = (["placement"] if table["placement"].nunique() > 1 else []) + others
    groups = table.groupby(keys, dropna=False) if keys else [((), table)]
    finite = [float(v) for v in table["fi_cpu"] if isinstance(v, (int, float)) and v is not None and math.isfinite(v)]
    top = max(finite, default=1.0) * 1.3
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{_short(k)}={v}" for k, v in zip(keys, key)) or "all points"
        g = g.sort_values("offered_pps")
        line, = ax.plot(g["offered_pps"], g["delivered_pps"], marker="o", ms=3, label=label)
        fi = [top if v == "inf" else float(v) if isinstance(v, (int, float)) else float("nan") for v in g["fi_cpu"]]
        fx.plot(g["offered_pps"], fi, marker="o", ms=3, color=line.get_color(), label=label)
    fx.axhline(top, color="#b00", lw=0.6, ls=":")
    fx.text(0.01, top, " livelock (FI = inf)", color="#b00", fontsize=8, va="bottom", transform=fx.get_yaxis_transform())
    ax.plot(ax.get_xlim(), ax.get_xlim(), color="#999", lw=0.6, ls="--")
    ax.set(xlabel="offered frames/s", ylabel="delivered frames/s", title="Delivered against offered")
    fx.set(xlabel="offered frames/s", ylabel="FI (CPU time / useful CPU time)", title="OS intrusion factor")
    for a in (ax, fx):
        _finish(a)
    fig.tight_layout()
    return fig


# --- connection handoff (handoff.md §11) ---------------------------------------------------------

HANDOFF_X = "handoff.max_connections"


def handoff_table(df: pd.DataFrame, params: dict, results: dict) -> pd.DataFrame:
    """One row per web point whose server has a handoff NIC: the swept values and the study's
    metrics (the core's counters, grouped as `nicsim handoff` prints them)."""
    from ..handoff import summarise

    rows = []
    for _, row in df[(df.status == "ok") & (df.benchmark == "web")].iterrows():
        res = results.get(row.key)
        server = f"node{len(res['nodes']) - 1}" if res else None
        if not res or "handoff" not in res["nodes"][server]:
            continue
        h = summarise(res, "", "")
        d = h["nic_delay_us"]
        c = h["connections"]
        rows.append({**params[row.key], "requests_per_s": h["requests_per_s"], "connections_per_s": h["connections_per_s"],
                     "packets_per_s": h["packets_per_s"]["total"], "nic_idle_percent": h["nic_idle_percent"],
                     "host_idle_percent": h["host_profile_percent"]["idle"],
                     "nic_delay_rx_host_us": d["host"]["rx"]["mean_us"], "nic_delay_rx_nic_us": d["nic"]["rx"]["mean_us"],
                     "nic_delay_tx_host_us": d["host"]["tx"]["mean_us"], "nic_delay_tx_nic_us": d["nic"]["tx"]["mean_us"],
                     "handoffs": c["handoffs"], "refused": c["nacks_limit"], "max_owned": c["max_owned_run"]})
    return pd.DataFrame(rows)


def fig_handoff(table: pd.DataFrame) -> Any:
    """Requests/s and NIC idle against the NIC's connection limit, a curve per other setting."""
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 4.2))
    x = HANDOFF_X if HANDOFF_X in table.columns else None
    others = [k for k in table.columns if "." in k and k != x]
    groups = table.groupby(others, dropna=False) if others else [((), table)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{_short(k)}={v}" for k, v in zip(others, key)) or "all points"
        g = g.assign(_x=pd.to_numeric(g[x]) if x else range(len(g))).sort_values("_x")
        for ax, y in zip(axes, ("requests_per_s", "nic_idle_percent")):
            ax.plot(g["_x"], g[y], marker="o", ms=3, label=label)
    axes[0].set(xlabel=_short(x) if x else "point", ylabel="requests per second (1/s)", title="Requests per second")
    axes[1].set(xlabel=_short(x) if x else "point", ylabel="NIC idle (%)", title="NIC processor idle")
    for ax in axes:
        _finish(ax)
    fig.tight_layout()
    return fig


# --- writing -----------------------------------------------------------------------------------

def _save(fig, out: Path, name: str) -> str:
    fig.savefig(out / f"{name}.png", dpi=110)
    fig.savefig(out / f"{name}.svg")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _table(df: pd.DataFrame, max_rows: int = 200) -> str:
    if df.empty:
        return "<p>(none)</p>"
    shown = df.head(max_rows)
    fmt = {c: (lambda x: "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4g}" if isinstance(x, float) else str(x)) for c in shown.columns}
    note = f"<p>First {max_rows} of {len(df)} rows; every row is in points.csv.</p>" if len(df) > max_rows else ""
    table = shown.to_html(index=False, border=0, classes="points", formatters=fmt, na_rep="", escape=True)
    return note + f'<div class="wide">{table}</div>'  # scrolls sideways instead of overflowing


_CSS = """body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1150px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ddd}
figure{margin:1.2em 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:.9em;color:#555}
table.points{border-collapse:collapse;font-size:.8em}table.points td,table.points th{padding:2px 6px;border-bottom:1px solid #eee;text-align:right}
.legend span{display:inline-block;padding:1px 8px;margin-right:6px;border-radius:3px;color:#fff;font-size:.85em}
.failed{color:#b00}.wide{overflow-x:auto;max-width:100%}"""

_JS = """window.addEventListener('error',function(e){document.body.setAttribute('data-js-error',String(e.message))});
window.addEventListener('load',function(){var im=document.querySelectorAll('img.figure'),ok=0;
for(var i=0;i<im.length;i++){if(im[i].complete&&im[i].naturalWidth>0)ok++;}
document.body.setAttribute('data-figures',String(im.length));document.body.setAttribute('data-figures-loaded',String(ok));});"""


def write_report(store: str | Path, out_dir: str | Path) -> Path:
    """Writes report.html, the figures (PNG + SVG) and points.csv/.parquet (+ netpipe_points.csv)
    into `out_dir`; returns the HTML path."""
    from ..api import VERSION
    from . import explode_points

    out = Path(out_dir)
    df, params, results, runs = _load(store)  # a missing store fails before anything is made
    out.mkdir(parents=True, exist_ok=True)
    figs: list[tuple[str, str, str]] = []  # (name, caption, base64 png)

    curves = _curves(df, params, results)
    if curves:
        figs.append(("throughput", "NetPIPE throughput against message size (SI Mbps), one curve per configuration.",
                     _save(fig_netpipe(curves, "throughput_mbps"), out, "throughput")))
        figs.append(("latency", "Time per message (one way) against message size; for ping-pong runs this is the latency.",
                     _save(fig_netpipe(curves, "latency_us"), out, "latency")))
        figs.append(("signature", "NetPIPE signature graph: throughput against the time one transfer takes.",
                     _save(fig_signature(curves), out, "signature")))
        figs.append(("busy", "Where the receiver's processors spend their time, by category, at the message size of each curve's peak throughput; 1.0 is a saturated processor.",
                     _save(fig_busy_netpipe(curves), out, "busy")))
        figs.append(("interrupts", "Interrupts per second taken by each receiver processor (all hard interrupts, including IPIs).",
                     _save(fig_interrupts(curves), out, "interrupts")))
    grows = _gamma_rows(df, params, results)
    if grows:
        figs.append(("gamma_throughput", "Hpcbench throughput against the application ratio γ.",
                     _save(fig_gamma_throughput(grows), out, "gamma_throughput")))
        gt = gamma_table(grows)
        if gt:
            figs.append(("delta_b", "δb = placed/base − 1 at equal γ (markers) against the original LAWS prediction from the p, α, β and σ measured at the smallest γ (lines).",
                         _save(fig_delta_b(gt), out, "delta_b")))
        figs.append(("busy_hpcbench", "Receiver busy time by category in the Hpcbench runs.",
                     _save(fig_busy_hpcbench(grows), out, "busy_hpcbench")))

    wrows = _web_rows(df, params, results)
    if wrows:
        figs.append(("web_requests", "Web server requests per second against concurrent users, one curve per configuration.",
                     _save(fig_web(wrows, "rps", "requests per second (1/s)"), out, "web_requests")))
        figs.append(("web_response", "Mean response time against concurrent users.",
                     _save(fig_web(wrows, "rt", "mean response time (ms)"), out, "web_response")))
    ntable = netperf_table(df, params, results)
    if not ntable.empty:
        ntable.to_csv(out / "netperf.csv", index=False)
    def figure_with_table(name: str, caption: str, table: pd.DataFrame, draw) -> None:
        if not table.empty:
            figs.append((name, caption, _save(draw(table), out, name)))
            table.to_csv(out / f"{name}.csv", index=False)

    figure_with_table("livelock", "Interrupts against polling under overload: delivered frames/s (left) and the receiver's OS-intrusion factor FI = CPU time / application and protocol time (right) against the offered rate, a curve per setting (stacks.md §A.1).",
                      livelock_table(df, params, results), fig_livelock)
    figure_with_table("orgs", "Stack organisations: bulk throughput and echo round trip against TSDU size, a curve per organisation (docs/stacks.md; `orgs.csv`).",
                      orgs_table(df, params, results), fig_orgs)
    figure_with_table("smp", "Stacks on SMP: throughput and speedup over one CPU against the CPU count, a curve per organisation and TSDU, and the server's locks at the most CPUs by spin time (stacks.md §B.7; `smp.csv` ranks every lock per point).",
                      smp_table(df, params, results), fig_smp)
    htable = handoff_table(df, params, results)
    figure_with_table("handoff", "Connection handoff: requests per second and NIC idle against the NIC's connection limit, a curve per other swept setting (handoff.md §11).",
                      htable, fig_handoff)
    df.to_csv(out / "points.csv", index=False)
    df.to_parquet(out / "points.parquet", index=False)
    if curves:
        explode_points(store).to_csv(out / "netpipe_points.csv", index=False)

    ok, failed = int((df.status == "ok").sum()), int((df.status != "ok").sum())
    swept = df.attrs.get("swept", [])
    placements = [p for p in dict.fromkeys(df.placement.dropna())]
    legend = "".join(f'<span style="background:{colour(p)}">{html.escape(p)}</span>' for p in placements)
    show = [c for c in ["placement", *swept, "status", "latency_us", "peak_throughput_mbps", "peak_size_bytes",
                        "saturation_bytes", "asymptotic_throughput_mbps", "throughput_mbps", "laws.gamma_realised", "laws.p", "laws.beta",
                        "wall_s"] if c in df.columns]
    show = list(dict.fromkeys(show))
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>nicsim sweep report: {html.escape(Path(store).name)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>nicsim sweep report</h1>",
        f"<p>Store <code>{html.escape(str(store))}</code>: {len(df)} points, {ok} ok, "
        f"<span class='{'failed' if failed else ''}'>{failed} failed</span>; swept keys: "
        f"{', '.join(f'<code>{html.escape(k)}</code>' for k in swept) or '(none)'}. "
        f"Simulator versions: {', '.join(sorted(set(df.nicsim_version.dropna()))) or VERSION}.</p>",
        f"<p class='legend'>Placements: {legend}</p>",
    ]
    if not figs:
        parts.append("<p>No successful points to plot yet.</p>")
    for name, cap, b64 in figs:
        parts.append(f'<figure id="fig-{name}"><img class="figure" alt="{html.escape(cap)}" src="data:image/png;base64,{b64}">'
                     f"<figcaption>{html.escape(cap)} Files: <code>{name}.png</code>, <code>{name}.svg</code>.</figcaption></figure>")
    parts.append("<h2>Points</h2>" + _table(df[show]))
    caches = cache_table(curves)
    if not caches.empty:
        parts.append("<h2>Caches (mode B)</h2><p>Receiver hit rates of reads and writes per level at each curve's "
                     "peak throughput (counts of that point's window).</p>" + _table(caches))
        caches.to_csv(out / "caches.csv", index=False)
    if not ntable.empty:
        parts.append("<h2>netperf, sar and oprofile</h2><p>Per point: the aggregate rate, the server's %idle per CPU "
                     "and averaged, context switches and interrupts per second, and each CPU's busy time by symbol "
                     "class (% of its busy time; <code>netperf.csv</code>).</p>" + _table(ntable))
    if not htable.empty:
        parts.append("<h2>Connection handoff</h2><p>The study's metrics per point (window counts; delays are means "
                     "in microseconds; <code>handoff.csv</code>).</p>" + _table(htable))
    if failed:
        parts.append("<h2 class='failed'>Failed points</h2>" + _table(df[df.status != "ok"][["placement", *swept, "error", "attempts"]]))
    if not runs.empty:
        parts.append("<h2>Runs of this store</h2>" + _table(runs[["run_id", "started_at", "finished_at", "executor", "n_points", "n_skipped", "n_ran", "n_ok", "n_failed"]]))
    parts.append("<p>Tables: <code>points.csv</code>, <code>points.parquet</code>"
                 + (", <code>netpipe_points.csv</code> (one row per point and message size)" if curves else "") + ".</p>")
    parts.append(f"<script>{_JS}</script></body></html>")
    path = out / "report.html"
    tmp = out / "report.html.tmp"
    tmp.write_text("\n".join(parts), encoding="utf-8")
    tmp.replace(path)
    return path
