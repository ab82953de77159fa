"""`nicsim bulkecho`: Roca's bench/benchd harness per stack organisation."""
from __future__ import annotations

from .options import dumps, record_options, yes_option


def add(sub) -> None:
    be = sub.add_parser("bulkecho", help="Roca's bench/benchd harness: bulk throughput or echo RTT against TSDU size, per stack organisation (stacks.md §B.8)")
    be.add_argument("config", help="preset or TOML file, e.g. roca1996-ethernet")
    be.add_argument("--org", help="stack organisation: bsd, streams, streams-demux, user_level_tcp or linux; default: the configuration's")
    be.add_argument("--mode", default="bulk", help="bulk (throughput) or echo (round-trip time)")
    be.add_argument("--proto", default="tcp", help="tcp or udp: bulk runs TCP_STREAM or UDP_STREAM, echo TCP_RR or UDP_RR; a UDP TSDU is one datagram and must fit one frame; no UDP over loopback")
    be.add_argument("--connections", type=int, default=1, help="connections, one process each at both ends")
    be.add_argument("--tsdu", default="1 KiB", help="TSDU sizes: LO:HI (every power of two between, e.g. 1:65536) or a list such as 1,1KiB,16KiB")
    be.add_argument("--cpus", help="host CPUs per node (cpu.count, 1 to 16), or a list such as 1,2,4,8: each TSDU runs at each count; "
                    "above 1, the speedup over the same TSDU on one CPU")
    be.add_argument("--nodelay", action="store_true", help="TCP_NODELAY on every connection")
    be.add_argument("--ilp", action="store_true", help="the fused copy+checksum access method, with its cost model and break-even (§B.6)")
    be.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a parameter (repeatable)")
    be.add_argument("--seed", type=int, help="run.seed (the connections' start offsets)")
    be.add_argument("--replications", type=int, default=1, help="runs per TSDU on consecutive seeds, summarised with a 95%% confidence interval")
    yes_option(be)
    be.add_argument("--json", action="store_true", help="print one JSON document")
    record_options(be)
    be.set_defaults(run=cmd_bulkecho)


def cmd_bulkecho(args) -> int:
    from ..benchmarks.bulkecho import print_bulkecho, run_bulkecho

    out = run_bulkecho(args.config, args.set, org=args.org, mode=args.mode, proto=args.proto, connections=args.connections,
                       tsdu=args.tsdu, nodelay=args.nodelay, use_ilp=args.ilp, seed=args.seed, replications=args.replications,
                       cpus=args.cpus)
    if args.json:
        print(dumps(out))
    else:
        print_bulkecho(out)
    return 0
