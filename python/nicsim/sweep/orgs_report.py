"""The stack-organisation section of a sweep report (stacks.md Part B, docs/stacks.md): for a
netperf sweep that varies `org.name`, bulk throughput and echo round trip against TSDU size,
a curve per organisation (and any other swept setting)."""
from __future__ import annotations

from typing import Any

import pandas as pd

from ..io.plot import plt

TSDU = "workload.netperf.msg_bytes"


def orgs_table(df: pd.DataFrame, params: dict, results: dict) -> pd.DataFrame:
    """One row per netperf point whose organisation was swept: its settings, the TSDU, bulk
    throughput or echo transactions and mean round trip."""
    rows = []
    for _, row in df[(df.status == "ok") & (df.benchmark == "netperf")].iterrows():
        res, p = results.get(row.key), params[row.key]
        if not res or "org.name" not in p:
            continue
        n = res["netperf"]
        cfg = res["config"]
        r = {**p, "org.name": p["org.name"], "tsdu_bytes": n["msg_bytes"], "test": n["test"]}
        if n["test"] == "TCP_RR":
            r.update(transactions_per_s=n["aggregate"]["transactions_per_s"], rtt_us=n["latency_us"]["mean"])
        else:
            r["throughput_mbps"] = n["aggregate"]["throughput_mbps"]
        r["link_mbps"] = cfg["link"]["rate_bps"] / 1e6
        rows.append(r)
    return pd.DataFrame(rows)


def fig_orgs(table: pd.DataFrame) -> Any:
    """Throughput (bulk) and round trip (echo) against TSDU size, log-scaled, a curve per
    organisation and other swept setting."""
    panels = [(y, label) for y, label in (("throughput_mbps", "throughput (Mb/s)"), ("rtt_us", "round trip (µs)"))
              if y in table.columns and table[y].notna().any()]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    keys = [k for k in table.columns if "." in k and k not in (TSDU, "org.name")]
    for ax, (y, label) in zip(axes[0], panels):
        t = table[table[y].notna()]
        for key, g in t.groupby(["org.name", *keys], dropna=False):
            key = key if isinstance(key, tuple) else (key,)
            name = ", ".join([str(key[0])] + [f"{k.split('.')[-1]}={v}" for k, v in zip(keys, key[1:])])
            g = g.sort_values("tsdu_bytes")
            ax.plot(g["tsdu_bytes"], g[y], marker="o", ms=3, label=name)
        if y == "throughput_mbps":
            ax.axhline(t["link_mbps"].max(), color="#999", lw=0.6, ls="--", label="link rate")
        ax.set(xscale="log", xlabel="TSDU (bytes)", ylabel=label, title=label.split(" (")[0].capitalize() + " against TSDU")
        if y == "rtt_us":
            ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig
