"""`nicsim bench`: engine speed, or with --suite every speed figure."""
from __future__ import annotations

from .options import bounded, dumps


def add(sub) -> None:
    b = sub.add_parser("bench", help="engine speed on the reference M/D/1 tandem scenario; --suite: every speed figure")
    b.add_argument("--json", action="store_true", help="print one JSON document")
    b.add_argument("--suite", action="store_true", help="the engine beside a bare-heap loop, then whole-model scenarios (base 1 MiB stream, modern-10g, modern-10g-jumbo, modern-100g TCP_STREAM): events/s, events per KiB, simulated-to-wall ratio")
    b.add_argument("--duration", type=bounded("--duration", 0, 100, lo_open=True), default=1.0, help="simulated seconds, above 0 and at most 100 (default 1)")
    b.set_defaults(run=cmd_bench)


def cmd_bench(args) -> int:
    from .. import _core

    if args.suite:
        from ..benchmarks.bench import print_suite, suite

        doc = suite(args.duration)
        print(dumps(doc)) if args.json else print_suite(doc)
        return 0

    events, packets, soj, pred, wall = _core.bench(args.duration, 1)
    res = {
        "events": events,
        "events_per_s": events / wall,
        "packets": packets,
        "mean_sojourn_us": soj,
        "predicted_sojourn_us": pred,
        "sojourn_error": soj / pred - 1,
        "wall_s": wall,
        "simulated_s": args.duration,
    }
    if args.json:
        print(dumps(res))
    else:
        print(f"{events:,} events in {wall:.3f} s: {events / wall / 1e6:.1f} M events/s")
        print(f"{packets:,} packets, mean sojourn {soj:.3f} us (M/D/1 predicts {pred:.3f} us, {100 * (soj / pred - 1):+.2f}%)")
    return 0
