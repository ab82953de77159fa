"""The suite's report page (`nicsim validate --suite ortiz2008 --report DIR`): index.html with
the tables and one PNG per figure of the model's curves (a curve per series of the rows'
`plot`), with the reference points a file gave drawn over them; and the command's entry point.
"""
from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..paths import output_dir

_CSS = """body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1150px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd}
figure{margin:1.2em 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:.9em;color:#555}
table{border-collapse:collapse;font-size:.8em}td,th{padding:2px 6px;border-bottom:1px solid #eee;text-align:right}
td.l,th.l{text-align:left}.fail{color:#b00}.pass{color:#070}"""


# The x axis of each figure, by the figure name's first words.
XLABELS = {"E1": "message size (B)", "E2": "message size (B)", "E7": "message size (B)", "E4": "Offload x (NIC memory access, cycles)",
           "E5": "NIC processor speed (fraction of the host's)", "E8 alpha": "α = Y/X (1 / NIC speed fraction)", "E10": "γ",
           "E14": "γ", "E12 l1d": "message size (B)", "E12 l2": "message size (B)", "E16": "concurrent users"}


def check_out_dir(path: str) -> Path:
    """The report directory, created and tested for writing before any simulation runs."""
    return output_dir(path, "--report", create=True)


def _x_value(x: Any) -> float | str:
    if isinstance(x, (int, float)):
        return float(x)
    try:
        from ..units import parse_size

        return float(parse_size(x))
    except Exception:
        return str(x)


def figures(rows: list[dict], plots: dict[str, tuple]) -> dict[str, dict[str, list[tuple]]]:
    """figure name → series → [(x, model, reference)], from the rows that have a plot place."""
    out: dict[str, dict[str, list[tuple]]] = {}
    for r in rows:
        where = plots.get(r["id"])
        if where is None or not isinstance(r["model"], (int, float)):
            continue
        fig, series, x = where
        out.setdefault(fig, {}).setdefault(series, []).append((_x_value(x), r["model"], r["reference"], str(x)))
    return out


def draw(name: str, series: dict[str, list[tuple]], unit: str, path: Path) -> None:
    from ..io.plot import colour, plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    numeric = all(isinstance(p[0], float) for pts in series.values() for p in pts)
    labels: list[str] = []
    used: set[str] = set()
    for pts in series.values():
        for p in pts:
            if p[3] not in labels:
                labels.append(p[3])
    for s, pts in series.items():
        pts = sorted(pts, key=lambda p: p[0]) if numeric else pts
        xs = [p[0] if numeric else labels.index(p[3]) for p in pts]
        c = colour(s.split()[-1] if s.split() else s)
        ls = "--" if c in used else "-"  # a second series of one placement (e.g. L1D 32 KB) is dashed
        used.add(c)
        ax.plot(xs, [p[1] for p in pts], marker="o", ls=ls, color=c if c != "#7f7f7f" else None, label=f"{s} (model)")
        ref = [(x, p[2]) for x, p in zip(xs, pts) if p[2] is not None]
        if ref:
            ax.scatter([a for a, _ in ref], [b for _, b in ref], marker="x", s=60, color="black", zorder=5,
                       label=f"{s} (reference)")
    if numeric and len({p[0] for pts in series.values() for p in pts}) > 2:
        xs = [p[0] for pts in series.values() for p in pts]
        if min(xs) > 0 and max(xs) / min(xs) > 50:
            ax.set_xscale("log")
    if not numeric:
        ax.set_xticks(range(len(labels)), labels)
    ax.set_title(name)
    ax.set_xlabel(next((v for k, v in XLABELS.items() if k.split()[0] == name.split()[0] and name.startswith(k)), ""))
    ax.set_ylabel(unit)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _cell(x) -> str:
    from .suite import _fmt

    return html.escape(_fmt(x))


def _html_table(rows: list[dict]) -> str:
    head = "<tr><th class=l>id</th><th class=l>metric</th><th class=l>unit</th><th>model</th><th>reference</th><th>error</th><th class=l>role</th><th class=l>result</th></tr>"
    body = []
    for r in rows:
        res = "-" if r["passed"] is None else ("pass" if r["passed"] else "FAIL")
        err = f"{100 * r['error']:+.1f}%" if r.get("error") is not None else "-"
        ref = _cell(r["reference"]) if r["reference"] is not None else html.escape(r["tolerance"] or "-")
        body.append(f"<tr><td class=l>{html.escape(r['id'])}</td><td class=l>{html.escape(r['metric'])}</td><td class=l>{html.escape(r['unit'])}</td>"
                    f"<td>{_cell(r['model'])}</td><td>{ref}</td><td>{err}</td><td class=l>{r['role']}</td>"
                    f"<td class='l {res.lower()}'>{res}</td></tr>")
    return f"<table>{head}{''.join(body)}</table>"


def write_report(doc: dict[str, Any], out: Path) -> Path:
    """index.html and one PNG per figure into `out` (already checked writable)."""
    from .suite_rows import catalogue

    plots = {r.id: r.plot for r in catalogue(doc["suite"]) if r.plot}
    unit_of = {}
    for r in doc["rows"]:
        if r["id"] in plots:
            unit_of.setdefault(plots[r["id"]][0], r["unit"])
    figs = figures(doc["rows"], plots)
    by_exp: dict[str, list[str]] = {}
    for name, series in figs.items():
        fname = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in name).strip("_") + ".png"
        draw(name, series, unit_of.get(name, ""), out / fname)
        by_exp.setdefault(name.split()[0], []).append(f"<figure><img src='{fname}' alt='{html.escape(name)}'>"
                                                      f"<figcaption>{html.escape(name)}: the model (lines), reference points (×) where a file gave them.</figcaption></figure>")
    groups: dict[str, list[dict]] = {}
    for r in doc["rows"]:
        groups.setdefault(f"{r['experiment']} | {r['table']}", []).append(r)
    parts = [f"<h1>nicsim validate --suite {html.escape(doc['suite'])}</h1>",
             f"<p>{doc['passed']} of {doc['checked']} rows with a reference pass; {doc['held_out_unchecked']} held-out rows have no reference. "
             f"{doc['runs']} runs in {doc['wall_s']:.1f} s. Rows and how to read them: docs/validation.md.</p>"]
    # An experiment's figures follow the last of its tables.
    last = {rows[0]["experiment"]: title for title, rows in groups.items()}
    for title, rows in groups.items():
        parts.append(f"<h2>{html.escape(title)}</h2>{_html_table(rows)}")
        if last[rows[0]["experiment"]] == title:
            parts += by_exp.get(rows[0]["experiment"], [])
    page = out / "index.html"
    page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>nicsim suite {html.escape(doc['suite'])}</title>"
                    f"<style>{_CSS}</style></head><body>{''.join(parts)}</body></html>")
    return page


def main_suite(args) -> int:
    """`nicsim validate --suite NAME`: exit 0 when every row with a reference passes, 1 when
    one fails, 2 for bad input."""
    from ..api import dumps
    from ..config import parse_set
    from .suite import run_suite, table

    from .suite_rows import SUITES

    if args.suite not in SUITES:
        raise ConfigError(f"--suite {args.suite!r}: unknown suite; known: {', '.join(SUITES)}")
    out = check_out_dir(args.report) if args.report else None
    doc = run_suite(args.suite, only=args.only, reference=args.reference, sets=parse_set(args.set))
    if out is not None:
        page = write_report(doc, out)
        doc["report"] = str(page)
    print(dumps(doc) if args.json else table(doc))
    if out is not None and not args.json:
        print(f"report: {doc['report']}")
    return 0 if all(r["passed"] is not False for r in doc["rows"]) else 1


