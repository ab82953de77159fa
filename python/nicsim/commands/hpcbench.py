"""`nicsim hpcbench`: streaming with an application-load thread."""
from __future__ import annotations

from .options import bounded, config_options, dumps, set_items


def add(sub) -> None:
    h = sub.add_parser("hpcbench", help="streaming with an application-load thread (sysmon-style report)")
    config_options(h)
    h.add_argument("--gamma", type=bounded("--gamma", 0, 1000), help="application ratio γ = a/o (o measured on the base system), 0 to 1000")
    h.add_argument("--app-work-per-byte", type=bounded("--app-work-per-byte", 0, 1e6), help="load-thread cycles per received byte (a), 0 to 10^6")
    h.add_argument("--msg-size", help="message size, e.g. '256 KiB'")
    h.add_argument("--duration", help="measured window, e.g. '2 s'")
    h.set_defaults(run=cmd_hpcbench)


def cmd_hpcbench(args) -> int:
    from ..benchmarks.hpc import run_hpcbench

    out = run_hpcbench(args.config, set_items(args), gamma=args.gamma, a=args.app_work_per_byte, msg_size=args.msg_size, duration=args.duration)
    print(dumps(out) if args.json else "", end="\n" if args.json else "")
    if not args.json:
        from ..benchmarks.hpc import print_hpcbench

        print_hpcbench(out)
    return 0
