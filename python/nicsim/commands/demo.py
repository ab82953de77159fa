"""`nicsim demo`: the base system's NetPIPE curves on built-in defaults, a table and a plot."""
from __future__ import annotations

import time

from ..benchmarks.netpipe import print_latency_breakdown, print_netpipe
from ..paths import out_dir, output_dir
from .options import dumps


def add(sub) -> None:
    d = sub.add_parser("demo", help="base-system NetPIPE curves on built-in defaults: table and plot")
    d.add_argument("--out", default="nicsim-demo", type=out_dir(), help="directory for the plot and JSON (default nicsim-demo)")
    d.add_argument("--quick", action="store_true", help="shorter points (0.2 s simulated each)")
    d.add_argument("--tables", action="store_true", help="also print both curves' point-by-point tables (they are in the JSON either way)")
    d.set_defaults(run=cmd_demo)


def cmd_demo(args) -> int:
    from .. import api
    from ..io.plot import plot_netpipe

    folder = output_dir(args.out, create=True)
    extra = {"workload.netpipe.target_ps": "200 ms"} if args.quick else {}
    results = {}
    wall = 0.0
    for mode in ("pingpong", "stream"):
        t = time.perf_counter()
        res = api.run("ortiz2008-base", {"workload.netpipe.mode": mode, **extra})
        wall += time.perf_counter() - t
        if args.tables:
            print(f"== ortiz2008-base, NetPIPE {mode}")
            print_netpipe(res)
            print()
        results[mode] = res
        (folder / f"base-{mode}.json").write_text(dumps(res))
    plot_netpipe({"base": results["stream"]}, folder / "base-netpipe.png", latency=results["pingpong"],
                 title="nicsim demo: preset ortiz2008-base (NetPIPE, built-in defaults)")
    ping, stream = results["pingpong"]["summary"], results["stream"]["summary"]
    print(f"nicsim demo: the base system (preset ortiz2008-base), NetPIPE ping-pong and stream ({wall:.1f} s wall)")
    print(f"latency: {ping['latency_us']:.1f} us one way for a 1-byte message")
    print(f"peak throughput: {stream['peak_throughput_mbps']:.1f} Mbps at {stream['peak_size_bytes']:,} B messages")
    if stream["saturation_bytes"] is not None:
        print(f"saturation point: {stream['saturation_bytes']:,.0f} B ({stream['saturation_estimator']})")
    print_latency_breakdown(results["pingpong"])
    print(f"\nplot: {folder / 'base-netpipe.png'}; every point in {folder}/base-*.json" + ("" if args.tables else " (--tables prints them)"))
    print("next:\n  nicsim netpipe ortiz2008-offload --mode stream   # the same curve with TCP/IP on the NIC's processor"
          "\n  nicsim validate                                 # how the defaults hold up against the thesis's figures")
    return 0
