"""`nicsim run`: the workload a configuration file names."""
from __future__ import annotations

from ..benchmarks.netpipe import print_netpipe
from ..config import CATEGORIES
from .options import config_options, dumps, set_items


def add(sub) -> None:
    r = sub.add_parser("run", help="run the workload a configuration file names")
    config_options(r)
    r.set_defaults(run=cmd_run)


def cmd_run(args) -> int:
    from .. import api

    out = api.run(args.config, set_items(args))
    if args.json:
        print(dumps(out))
    elif "points" in out:
        print_netpipe(out)
    elif "packet_gen" in out:
        print_packet_gen(out)
    elif "netperf" in out:
        from ..benchmarks.netperf import print_netperf

        print_netperf(out, CATEGORIES)
    else:
        from ..benchmarks.hpc import print_hpcbench

        print_hpcbench(out)
    return 0


def print_packet_gen(out: dict) -> None:
    g = out["packet_gen"]
    print(f"offered {g['offered_pps']:,.0f} frames/s, delivered {g['delivered_pps']:,.0f} frames/s over {g['window_s']:.3f} s; "
          f"dropped: ring {g['ring_dropped_frames']:,}, backlog {g['backlog_dropped_frames']:,} (whole run)")
    print(f"{'processor':<14} {'util':>6} {'hardirq':>8} {'softirq':>8} {'process':>8} {'irq/s':>9}")
    for k, pr in g["processors"].items():
        c = pr["busy_by_context"]
        print(f"{k:<14} {pr['utilisation']:>6.3f} {c['hardirq']:>8.3f} {c['softirq']:>8.3f} {c['process']:>8.3f} {pr['irq_per_s']:>9.0f}")
