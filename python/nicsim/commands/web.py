"""`nicsim web`: a static web server under closed-loop users."""
from __future__ import annotations

import sys

from ..config import CATEGORIES
from ..errors import ConfigError, SimulationError
from ..paths import out_plot
from .options import config_options, dumps, set_items, yes_option


def add(sub) -> None:
    wb = sub.add_parser("web", help="a static web server under many closed-loop users (requests/s, response time, bandwidth)")
    config_options(wb)
    wb.add_argument("--users", metavar="N[,N...]", help="concurrent users (default 100), or a comma-separated list such as 100,500,1000: one run per count and a table against users")
    wb.add_argument("--page-size", help="response size, e.g. '5 KiB' or '300 KiB' (default 5 KiB)")
    wb.add_argument("--mix", help="response sizes: specweb99_static, or lognormal (a heavy-tailed stand-in); default fixed at --page-size")
    wb.add_argument("--trace", help="a request trace to replay: CSV of connection_id, request_index, response_bytes[, arrival_ns]")
    wb.add_argument("--think", help="mean think time between requests, e.g. '10 ms' (default none)")
    wb.add_argument("--keep-alive", action="store_true", help="users keep their connection across requests")
    wb.add_argument("--clients", type=int, help="client nodes the users are spread over (default the preset's)")
    wb.add_argument("--duration", help="measured window, e.g. '1 s'")
    wb.add_argument("--warmup", help="unmeasured warm-up, e.g. '200 ms'")
    wb.add_argument("--seed", type=int, help="run.seed (think times, start offsets)")
    wb.add_argument("--replications", type=int, default=1, help="runs on consecutive seeds, summarised with a 95%% confidence interval")
    yes_option(wb)
    wb.add_argument("--vs-base", action="store_true", help="also run the base placement on the same hardware and report the improvement")
    wb.add_argument("--plot", metavar="FILE", type=out_plot(), help="with a list of --users: write requests/s and response time against users to this image file")
    wb.set_defaults(run=cmd_web)


def cmd_web(args) -> int:
    from ..benchmarks.web import parse_users, print_web, print_web_users, run_web, run_web_users

    users = parse_users(args.users)
    options = dict(replications=args.replications, vs_base=args.vs_base, page_size=args.page_size, mix=args.mix,
                   trace=args.trace, think=args.think, duration=args.duration, warmup=args.warmup, seed=args.seed,
                   clients=args.clients, keep_alive=args.keep_alive)
    if users is None or len(users) == 1:
        if args.plot:
            raise ConfigError("--plot draws requests/s and response time against users: give --users a list, e.g. --users 100,500,1000")
        out = run_web(args.config, set_items(args), users=users[0] if users else None, **options)
        if args.json:
            print(dumps(out))
        else:
            print_web(out, CATEGORIES)
        return 0
    # A recording is of one run: which of the list's would be a guess.
    for arg, v in (("--pcap-out", args.pcap_out), ("--trace-out", args.trace_out), ("--series", args.series)):
        if v:
            raise ConfigError(f"{arg} records one run: give --users one count, not a list")
    try:
        sweep = run_web_users(args.config, set_items(args), users=users, **options)
    except SimulationError as e:
        if e.partial and not args.json:
            # The table of the counts measured, then the error (main prints the JSON otherwise).
            print_web_users(e.partial, args.config)
            raise SimulationError(str(e)) from None
        raise
    if args.json:
        print(dumps(sweep))
    else:
        print_web_users(sweep, args.config)
    if args.plot:
        from ..io.plot import plot_web_users
        from ..benchmarks.web import users_rows

        first = sweep["users_sweep"][0]["result"]
        plot_web_users(users_rows(sweep), args.plot, first["config"]["placements"][-1]["name"], title=f"nicsim web {args.config}")
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0
