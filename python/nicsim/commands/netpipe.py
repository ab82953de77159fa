"""`nicsim netpipe`: a NetPIPE streaming or ping-pong curve."""
from __future__ import annotations

import sys
import time

from ..benchmarks.netpipe import print_netpipe
from ..paths import out_plot
from .options import config_options, dumps, set_items


def add(sub) -> None:
    n = sub.add_parser("netpipe", help="NetPIPE streaming or ping-pong curve")
    config_options(n)
    n.add_argument("--mode", choices=("stream", "pingpong"), help="stream (bandwidth, the default) or pingpong (latency)")
    n.add_argument("--max-size", help="largest message, e.g. '64 KiB'")
    n.add_argument("--plot", type=out_plot(), help="write the throughput and latency plot to this file")
    n.set_defaults(run=cmd_netpipe)


def cmd_netpipe(args) -> int:
    from .. import api
    from ..config import parse_set

    sets = dict(parse_set(set_items(args)))
    if getattr(args, "mode", None):
        sets["workload.netpipe.mode"] = args.mode
    if getattr(args, "max_size", None):
        sets["workload.netpipe.max_bytes"] = args.max_size
    sets.setdefault("workload.kind", "netpipe")
    t = time.perf_counter()
    out = api.run(args.config, sets)
    wall = time.perf_counter() - t
    if args.json:
        print(dumps(out))
    else:
        print_netpipe(out)
        print(f"\n{out['simulator']['simulated_s']:.1f} s simulated in {wall:.1f} s wall ({out['simulator']['events']:,} events)")
    if getattr(args, "plot", None):
        from ..io.plot import plot_netpipe

        plot_netpipe({out["config"]["placements"][1]["name"]: out}, args.plot, title=f"nicsim netpipe {args.config}")
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0
