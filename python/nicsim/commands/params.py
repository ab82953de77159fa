"""`nicsim params`: every parameter with unit, default and source."""
from __future__ import annotations



def add(sub) -> None:
    pp = sub.add_parser("params", help="list every parameter with unit, default and source")
    pp.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/configuration.md)")
    pp.set_defaults(run=cmd_params)


def cmd_params(args) -> int:
    from .. import units
    from ..config.params import PARAMS

    if args.markdown:
        print("| key | unit | default | range | description | source |\n|---|---|---|---|---|---|")
    for p in PARAMS:
        unit = {"size": "bytes", "rate": "bit/s", "freq": "Hz", "time": "ps"}.get(p.kind, p.kind)
        dflt = p.default if p.kind != "choice" else (p.default or "(from preset)")
        if p.kind in units.PARSERS and isinstance(dflt, int) and dflt == 0:
            dflt = "0 (auto)"
        choices = f" ({' | '.join(c for c in p.choices if c)})" if p.choices else ""
        span = f"{p.min:g} to {p.max:g}" if p.min is not None and p.max is not None else ""
        if args.markdown:
            print(f"| `{p.key}` | {unit} | {dflt} | {span} | {p.description}{choices} | {p.source} |")
        else:
            print(f"{p.key:<40} {str(dflt):<12} {span:<16} {p.description}{choices}  {p.source}")
    return 0
