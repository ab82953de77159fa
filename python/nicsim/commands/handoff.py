"""`nicsim handoff NAME`: a connection-handoff configuration by its study name."""
from __future__ import annotations

from .options import dumps, record_options, set_items, yes_option


def add(sub) -> None:
    ho = sub.add_parser("handoff", help="a connection-handoff configuration by its study name, e.g. W-1024-P-L-FCFS-400 (handoff.md §10)")
    ho.add_argument("name", help="WORKLOAD-MAXCONNS-PRIORITY-LOADCONTROL-SELECTION-MIPS")
    ho.add_argument("--config", default=None, help="preset or TOML file the name applies to (default kimrixner2006)")
    ho.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a parameter (repeatable)")
    ho.add_argument("--json", action="store_true", help="print one JSON document")
    ho.add_argument("--seed", type=int, help="run.seed (start offsets, response sizes, lifetimes)")
    ho.add_argument("--replications", type=int, default=1, help="runs on consecutive seeds, summarised with a 95%% confidence interval")
    yes_option(ho)
    record_options(ho)
    ho.set_defaults(run=cmd_handoff)


def cmd_handoff(args) -> int:
    from ..benchmarks.handoff import print_handoff, run_handoff

    out = run_handoff(args.name, args.config, set_items(args), replications=args.replications, seed=args.seed)
    if args.json:
        print(dumps(out))
    else:
        print_handoff(out)
    return 0
