"""`nicsim netperf`: netperf tests over many connections and clients."""
from __future__ import annotations

from ..config import CATEGORIES
from .options import config_options, dumps, set_items, yes_option


def add(sub) -> None:
    nf = sub.add_parser("netperf", help="netperf TCP_STREAM, TCP_RR, TCP_CRR, UDP_STREAM or UDP_RR over many connections and clients")
    config_options(nf)
    nf.add_argument("--test", help="TCP_STREAM (the default, or the configuration's workload.netperf.test), TCP_RR, TCP_CRR (a new connection per transaction), UDP_STREAM or UDP_RR")
    nf.add_argument("--connections", type=int, help="concurrent connections, spread round-robin over the clients (default 1)")
    nf.add_argument("--clients", type=int, help="client nodes (default the preset's); more than one puts a switch between the nodes (switch.present) unless each has a server NIC of its own (topology.server_nics)")
    nf.add_argument("--msg-size", help="send size (TCP_STREAM) or request/response size (TCP_RR, TCP_CRR), e.g. '1 MiB'")
    nf.add_argument("--duration", help="measured window, e.g. '1 s'")
    nf.add_argument("--warmup", help="unmeasured warm-up, e.g. '200 ms'")
    nf.add_argument("--seed", type=int, help="run.seed (connection start offsets)")
    nf.add_argument("--replications", type=int, default=1, help="runs on consecutive seeds, summarised with a 95%% confidence interval")
    yes_option(nf)
    nf.set_defaults(run=cmd_netperf)


def cmd_netperf(args) -> int:
    from ..benchmarks.netperf import print_netperf, run_netperf

    out = run_netperf(args.config, set_items(args), replications=args.replications, test=args.test, connections=args.connections,
                      clients=args.clients, msg_size=args.msg_size, duration=args.duration, warmup=args.warmup, seed=args.seed)
    if args.json:
        print(dumps(out))
    else:
        print_netperf(out, CATEGORIES)
    return 0
