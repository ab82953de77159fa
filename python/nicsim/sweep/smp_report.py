"""The SMP section of a sweep report (stacks.md §B.7, docs/stacks.md): for a netperf sweep that
varies `cpu.count`, throughput and the speedup over one CPU against the CPU count, a curve per
organisation and TSDU (and any other swept setting), and the server's locks ranked by the time
spent spinning on them."""
from __future__ import annotations

from typing import Any

import pandas as pd

from ..benchmarks.netperf import ranked_locks
from ..io.plot import plt

CPUS = "cpu.count"


def smp_table(df: pd.DataFrame, params: dict, results: dict) -> pd.DataFrame:
    """One row per netperf point of a sweep over `cpu.count`: its settings, throughput (or
    transactions), the speedup over the point with one CPU and otherwise the same settings
    (when the sweep has it), and the server's most contended lock."""
    rows = []
    for _, row in df[(df.status == "ok") & (df.benchmark == "netperf")].iterrows():
        res, p = results.get(row.key), params[row.key]
        if not res or CPUS not in p:
            continue
        n = res["netperf"]
        rate = "throughput_mbps" if "throughput_mbps" in n["aggregate"] else "transactions_per_s"
        r = {**p, "cpus": int(p[CPUS]), "tsdu_bytes": n["msg_bytes"], "rate": n["aggregate"][rate], "rate_key": rate}
        ranked = ranked_locks(res["nodes"][n["server"]].get("locks", {}))
        for k, v in ranked:
            for field in ("spin_us", "hold_us", "conflicts", "acquisitions"):
                r[f"lock.{k}.{field}"] = v[field]
        r["top_lock"] = ranked[0][0] if ranked else None
        rows.append(r)
    t = pd.DataFrame(rows)
    if t.empty:
        return t
    others = [k for k in t.columns if "." in k and not k.startswith("lock.") and k != CPUS]
    def key(r):
        return tuple(str(r[k]) for k in others)
    one = {key(r): r.rate for _, r in t[t.cpus == 1].iterrows()}
    t["speedup"] = [r.rate / one[key(r)] if one.get(key(r)) else float("nan") for _, r in t.iterrows()]
    return t.sort_values([*others, "cpus"], key=lambda c: c.astype(str) if c.name != "cpus" else c).reset_index(drop=True)


def fig_smp(table: pd.DataFrame) -> Any:
    """Throughput and speedup against CPUs (a curve per organisation, TSDU and other swept
    setting), and at the most CPUs the server's spin time per lock."""
    fig, axes = plt.subplots(1, 3, figsize=(15.6, 4.2))
    others = [k for k in table.columns if "." in k and not k.startswith("lock.") and k != CPUS]
    groups = list(table.groupby(others, dropna=False)) if others else [((), table)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        name = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in zip(others, key)) or "run"
        g = g.sort_values("cpus")
        axes[0].plot(g["cpus"], g["rate"], marker="o", ms=3, label=name)
        axes[1].plot(g["cpus"], g["speedup"], marker="o", ms=3, label=name)
    top = table["cpus"].max()
    axes[1].plot([1, top], [1, top], color="#999", lw=0.6, ls="--", label="linear")
    rate = table["rate_key"].iloc[0]
    axes[0].set(xlabel="CPUs", ylabel="throughput (Mb/s)" if rate == "throughput_mbps" else "transactions per second",
                title="Throughput against CPUs")
    axes[1].set(xlabel="CPUs", ylabel="speedup over one CPU", title="Speedup against CPUs")
    at = table[table.cpus == top]
    locks = sorted({c.split(".")[1] for c in table.columns if c.startswith("lock.") and c.endswith(".spin_us")})
    width = 0.8 / max(1, len(at))
    for i, (_, r) in enumerate(at.iterrows()):
        label = ", ".join(f"{k.split('.')[-1]}={r[k]}" for k in others) or "run"
        axes[2].bar([j + i * width for j in range(len(locks))], [r.get(f"lock.{k}.spin_us", 0) / 1e3 for k in locks],
                    width=width, label=label)
    axes[2].set_xticks([j + 0.4 - width / 2 for j in range(len(locks))], locks)
    axes[2].set(ylabel="spin time in the window (ms)", title=f"Locks at {top} CPUs, by spin time")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig
