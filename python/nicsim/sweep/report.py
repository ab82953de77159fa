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
from pathlib import Path

import pandas as pd

from ..io.plot import colour, plt  # plt is matplotlib.pyplot on the Agg backend
from .gamma_report import _gamma_rows, fig_busy_hpcbench, fig_delta_b, fig_gamma_throughput, gamma_table
from .netpipe_report import _curves, cache_table, fig_busy_netpipe, fig_interrupts, fig_netpipe, fig_signature
from .orgs_report import fig_orgs, orgs_table
from .server_report import _web_rows, fig_handoff, fig_livelock, fig_web, handoff_table, livelock_table, netperf_table
from .smp_report import fig_smp, smp_table
from .store import Store


def _load(store: str | Path):
    with Store(store, readonly=True) as st:
        df = st.frame()
        params = dict(st.conn.execute("SELECT key, params FROM points").fetchall())
        results = dict(st.results())
        runs = st.runs()
    params = {k: json.loads(v) for k, v in params.items()}
    return df, params, results, runs


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
        "<h1>nicsim sweep report</h1>",
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
