"""The server sections of a sweep report: the web server against users, netperf with sar and
oprofile figures, interrupts against polling under overload, and connection handoff."""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..io.plot import colour, plt
from .figures import _finish, _grouped_curves, _short


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
    from ..benchmarks.netperf import profile, sar

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
    from ..benchmarks.handoff import summarise

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
