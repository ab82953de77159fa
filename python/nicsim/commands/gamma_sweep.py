"""`nicsim gamma-sweep`: δb(γ) of a placement against base."""
from __future__ import annotations

import sys

from ..paths import out_plot
from .options import config_options, dumps, set_items


def add(sub) -> None:
    g = sub.add_parser("gamma-sweep", help="δb(γ) for a placement against base")
    config_options(g)
    g.add_argument("--gammas", default="0:3.5:0.25", help="γ values: list or start:stop:step")
    g.add_argument("--msg-size", action="append", help="message size (repeatable; default 2 Mbit and 8 Kbit)")
    g.add_argument("--duration", default="2 s", help="measured window per run (default 2 s, the thesis's)")
    g.add_argument("--plot", type=out_plot(), help="write δb(γ) plot to this file")
    g.set_defaults(run=cmd_gamma_sweep)


def cmd_gamma_sweep(args) -> int:
    from ..benchmarks.hpc import gamma_sweep, parse_grid

    out = gamma_sweep(args.config, set_items(args), gammas=parse_grid(args.gammas, "--gammas"), msg_sizes=args.msg_size or ["2 Mbit", "8 Kbit"], duration=args.duration)
    if args.json:
        print(dumps(out))
    else:
        for size, rows in out["sweeps"].items():
            print(f"message {size} B: {out['placement']} vs base")
            print(f"{'gamma':>6} {'realised':>8} {'base Mbps':>10} {'placed Mbps':>11} {'db':>8}")
            for r in rows:
                print(f"{r['gamma']:>6.2f} {r['gamma_realised']:>8.3f} {r['base_mbps']:>10.1f} {r['placed_mbps']:>11.1f} {r['delta_b']:>+8.3f}")
    if args.plot:
        from ..io.plot import plot_gamma

        plot_gamma(out, args.plot)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0
