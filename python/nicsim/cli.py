"""The `nicsim` command. Every error is one line naming what was wrong, with exit status 2."""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

from .errors import ConfigError, SimulationError, Terminated, terminate_on_sigterm
from .paths import out_dir, out_file, out_plot, output_dir

CATS = ("copy", "tcpip", "driver", "os", "app", "conn")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        where = self.prog.removeprefix("nicsim").strip()
        raise ConfigError(f"{where}: {message}" if where else f"{message} (see nicsim --help)")


def _bounded(option: str, lo: float, hi: float, lo_open: bool = False):
    """An argparse type: a finite number within [lo, hi] (or (lo, hi]), else one clear line."""

    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        low_ok = v > lo if lo_open else v >= lo
        if not math.isfinite(v) or not low_ok or v > hi:
            bound = f"above {lo:g}" if lo_open else f"at least {lo:g}"
            raise argparse.ArgumentTypeError(f"{text!r} must be a finite number {bound} and at most {hi:g}")
        return v

    return parse


def _version() -> str:
    from . import __version__

    return __version__


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", nargs="?", default="ortiz2008-base", help="preset name or TOML file (default ortiz2008-base)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a parameter (repeatable)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    _record_options(p)


def _record_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pcap-out", metavar="FILE.pcap", type=out_file(".pcap"), help="write the frames that crossed the server's MAC (run.pcap_node) as a pcap capture (headers, true lengths, simulated time)")
    p.add_argument("--trace-out", metavar="FILE.json", type=out_file(".json"), help="write a Chrome/Perfetto trace of the window run.trace_from_ps + run.trace_span_ps (default the first 10 ms)")
    p.add_argument("--series", metavar="INTERVAL", help="a time series of the whole run in intervals of INTERVAL, e.g. 1ms (throughput, utilisation per processor, queue lengths): the JSON document's series")
    p.add_argument("--series-plot", metavar="FILE", type=out_plot(), help="with --series: plot it to this image file")


def _yes(p: argparse.ArgumentParser) -> None:
    from .confirm import CONFIRM_RUNS

    p.add_argument("--yes", action="store_true", help=f"run more than {CONFIRM_RUNS:,} --replications")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="nicsim", description="Simulate where a server's network protocol processing should run.")
    ap.add_argument("--version", action="version", version=f"nicsim {_version()}")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    d = sub.add_parser("demo", help="base-system NetPIPE curves on built-in defaults: table and plot")
    d.add_argument("--out", default="nicsim-demo", type=out_dir(), help="directory for the plot and JSON (default nicsim-demo)")
    d.add_argument("--quick", action="store_true", help="shorter points (0.2 s simulated each)")
    d.add_argument("--tables", action="store_true", help="also print both curves' point-by-point tables (they are in the JSON either way)")
    n = sub.add_parser("netpipe", help="NetPIPE streaming or ping-pong curve")
    _common(n)
    n.add_argument("--mode", choices=("stream", "pingpong"), help="stream (bandwidth, the default) or pingpong (latency)")
    n.add_argument("--max-size", help="largest message, e.g. '64 KiB'")
    n.add_argument("--plot", type=out_plot(), help="write the throughput and latency plot to this file")
    nf = sub.add_parser("netperf", help="netperf TCP_STREAM, TCP_RR, TCP_CRR, UDP_STREAM or UDP_RR over many connections and clients")
    _common(nf)
    nf.add_argument("--test", help="TCP_STREAM (the default, or the configuration's workload.netperf.test), TCP_RR, TCP_CRR (a new connection per transaction), UDP_STREAM or UDP_RR")
    nf.add_argument("--connections", type=int, help="concurrent connections, spread round-robin over the clients (default 1)")
    nf.add_argument("--clients", type=int, help="client nodes (default the preset's); more than one puts a switch between the nodes (switch.present) unless each has a server NIC of its own (topology.server_nics)")
    nf.add_argument("--msg-size", help="send size (TCP_STREAM) or request/response size (TCP_RR, TCP_CRR), e.g. '1 MiB'")
    nf.add_argument("--duration", help="measured window, e.g. '1 s'")
    nf.add_argument("--warmup", help="unmeasured warm-up, e.g. '200 ms'")
    nf.add_argument("--seed", type=int, help="run.seed (connection start offsets)")
    nf.add_argument("--replications", type=int, default=1, help="runs on consecutive seeds, summarised with a 95%% confidence interval")
    _yes(nf)
    wb = sub.add_parser("web", help="a static web server under many closed-loop users (requests/s, response time, bandwidth)")
    _common(wb)
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
    _yes(wb)
    wb.add_argument("--vs-base", action="store_true", help="also run the base placement on the same hardware and report the improvement")
    wb.add_argument("--plot", metavar="FILE", type=out_plot(), help="with a list of --users: write requests/s and response time against users to this image file")
    ho = sub.add_parser("handoff", help="a connection-handoff configuration by its study name, e.g. W-1024-P-L-FCFS-400 (handoff.md §10)")
    ho.add_argument("name", help="WORKLOAD-MAXCONNS-PRIORITY-LOADCONTROL-SELECTION-MIPS")
    ho.add_argument("--config", default=None, help="preset or TOML file the name applies to (default kimrixner2006)")
    ho.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a parameter (repeatable)")
    ho.add_argument("--json", action="store_true", help="print one JSON document")
    ho.add_argument("--seed", type=int, help="run.seed (start offsets, response sizes, lifetimes)")
    ho.add_argument("--replications", type=int, default=1, help="runs on consecutive seeds, summarised with a 95%% confidence interval")
    _yes(ho)
    _record_options(ho)
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
    _yes(be)
    be.add_argument("--json", action="store_true", help="print one JSON document")
    _record_options(be)
    r = sub.add_parser("run", help="run the workload a configuration file names")
    _common(r)
    h = sub.add_parser("hpcbench", help="streaming with an application-load thread (sysmon-style report)")
    _common(h)
    h.add_argument("--gamma", type=_bounded("--gamma", 0, 1000), help="application ratio γ = a/o (o measured on the base system), 0 to 1000")
    h.add_argument("--app-work-per-byte", type=_bounded("--app-work-per-byte", 0, 1e6), help="load-thread cycles per received byte (a), 0 to 10^6")
    h.add_argument("--msg-size", help="message size, e.g. '256 KiB'")
    h.add_argument("--duration", help="measured window, e.g. '2 s'")
    g = sub.add_parser("gamma-sweep", help="δb(γ) for a placement against base")
    _common(g)
    g.add_argument("--gammas", default="0:3.5:0.25", help="γ values: list or start:stop:step")
    g.add_argument("--msg-size", action="append", help="message size (repeatable; default 2 Mbit and 8 Kbit)")
    g.add_argument("--duration", default="2 s", help="measured window per run (default 2 s, the thesis's)")
    g.add_argument("--plot", type=out_plot(), help="write δb(γ) plot to this file")
    sub.add_parser("presets", help="list the presets")
    pp = sub.add_parser("params", help="list every parameter with unit, default and source")
    pp.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/configuration.md)")
    b = sub.add_parser("bench", help="engine speed on the reference M/D/1 tandem scenario; --suite: every speed figure")
    b.add_argument("--json", action="store_true", help="print one JSON document")
    b.add_argument("--suite", action="store_true", help="the engine beside a bare-heap loop, then whole-model scenarios (base 1 MiB stream, modern-10g, modern-10g-jumbo, modern-100g TCP_STREAM): events/s, events per KiB, simulated-to-wall ratio")
    b.add_argument("--duration", type=_bounded("--duration", 0, 100, lo_open=True), default=1.0, help="simulated seconds, above 0 and at most 100 (default 1)")
    # Commands with parsers of their own, listed here for --help (dispatched before argparse).
    sub.add_parser("laws", help="evaluate LAWS and the modified LAWS; 'laws fit' fits δa, δo, τ (see nicsim laws --help)")
    st = sub.add_parser("study", help="'study laws CONFIG': simulated δb(γ) against LAWS, with a fit and bound violations (see nicsim study laws --help)",
                        description="Studies. laws: simulated δb(γ) of a placement against LAWS and the modified LAWS, with a fit and bound violations; see 'nicsim study laws --help'.")
    st.add_argument("study", choices=("laws",), help="the study to run: laws")
    sub.add_parser("sweep", help="design-space sweep into a result store (see nicsim sweep --help)")
    sub.add_parser("report", help="HTML, PNG and SVG report of a result store")
    sub.add_parser("probe", help="measure this host with netperf or iperf3 over loopback (and veth as root) into a reference file (see nicsim probe --help)")
    v = sub.add_parser("validate", help="the model against the base targets T1-T5 and training rows P1-P3, a table of your own, or (--suite ortiz2008) every thesis experiment")
    v.add_argument("--reference", help="TOML or CSV of rows: preset, command, metric, value, tolerance (docs/validation.md)")
    v.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a parameter in every run (repeatable)")
    v.add_argument("--json", action="store_true", help="print one JSON document")
    v.add_argument("--suite", help="run every experiment of a thesis nicsim can run, in its table layout: ortiz2008 (docs/validation.md)")
    v.add_argument("--only", help="with --suite: comma-separated experiment ids (E5) or row-id prefixes (E4.x1)")
    v.add_argument("--report", metavar="DIR", type=out_dir(), help="with --suite: write index.html and PNG plots of the model's curves into DIR")
    v.add_argument("--config", metavar="FILE", help="a configuration (e.g. from calibrate --out) whose overrides apply to every row")
    c = sub.add_parser("calibrate", help="fit the four category scales to T1-T5 and P1-P3, or the zabaljauregui placeholders to test A (docs/calibration.md)")
    c.add_argument("--family", choices=("ortiz2008", "zabaljauregui"), default="ortiz2008",
                   help="ortiz2008: the profile's category scales; zabaljauregui: test A's fitted placeholders")
    c.add_argument("--write", action="store_true", help="write the fitted scales into the profile")
    c.add_argument("--check", action="store_true", help="only evaluate the current profile (same as nicsim validate)")
    c.add_argument("--candidates", action="store_true", help="fit every structural candidate and report each one's residuals")
    c.add_argument("--ioapic", action="store_true", help="fit the I/O APIC's delivery latency with the scales: each candidate of its cited range with the scales fitted to it, every candidate's residuals (with --write, the best one's scales)")
    c.add_argument("--reference", metavar="FILE", help="fit to your own reference rows instead (with --fit, --train, --out; docs/validation.md)")
    c.add_argument("--fit", metavar="KEY[,KEY...]", help="with --reference: the numeric keys to fit, e.g. costs.scale.copy,costs.scale.tcpip")
    c.add_argument("--train", metavar="ID[,ID...]", help="with --reference: the training rows (default: rows whose role is training)")
    c.add_argument("--out", metavar="CONFIG.toml", type=out_file(".toml", example="fitted"), help="with --reference: write the fitted values as a configuration extending the rows' preset")
    c.add_argument("--config", metavar="FILE", help="with --reference: a configuration (your host's overrides) applied to every row before the fit, and kept in --out")
    c.add_argument("--json", action="store_true", help="with --reference: print one JSON document")
    return ap


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    terminate_on_sigterm()
    try:
        sys.exit(_dispatch(argv))
    except ConfigError as e:
        print(f"nicsim: {e}", file=sys.stderr)
        sys.exit(2)
    except SimulationError as e:
        # What was measured before the failure is still printed, then the error.
        if e.partial and (e.partial.get("points") or e.partial.get("users_sweep")):
            print(_dumps(e.partial))
        print(f"nicsim: simulation failed: {e}", file=sys.stderr)
        sys.exit(3)
    except KeyboardInterrupt:
        from . import stopping

        print("nicsim: interrupted", file=sys.stderr)
        stopping.exit(130)
    except Terminated:
        from . import stopping

        print("nicsim: terminated (SIGTERM)", file=sys.stderr)
        stopping.exit(143)
    except BrokenPipeError:
        # The reader went away (`nicsim params | head`): stop quietly, as Unix tools do.
        sys.stdout = open(os.devnull, "w")
        sys.exit(141)


def _dispatch(argv: list[str]) -> int:
    # Commands owned by other modules parse their own arguments.
    if argv[:1] == ["laws"]:
        from .analytic.cli import main_laws

        return main_laws(argv[1:])
    if argv[:2] == ["study", "laws"]:
        from .study import main_study

        return main_study(argv[2:])
    if argv[:1] in (["sweep"], ["report"]):
        from .sweep.cli import main_sweep

        return main_sweep(argv)
    if argv[:1] == ["probe"]:
        from .probe import main_probe

        return main_probe(argv[1:])
    ap = build_parser()
    args = ap.parse_args(argv)
    from . import progress, stopping
    from .config import parse_set
    from .confirm import replications
    from .record import arm
    from .twice import check_given_twice

    command = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction)).choices[args.cmd]
    check_given_twice(args.cmd, args, parse_set(getattr(args, "set", [])), command)
    replications(args)

    arm(args)
    progress.enabled = stopping.enabled = True
    return COMMANDS[args.cmd](args)


def _dumps(obj) -> str:
    from .api import dumps

    return dumps(obj)


def _sets(args) -> list[str]:
    return list(args.set)


def cmd_netpipe(args) -> int:
    from . import api
    from .config import parse_set

    sets = dict(parse_set(_sets(args)))
    if getattr(args, "mode", None):
        sets["workload.netpipe.mode"] = args.mode
    if getattr(args, "max_size", None):
        sets["workload.netpipe.max_bytes"] = args.max_size
    sets.setdefault("workload.kind", "netpipe")
    t = time.perf_counter()
    out = api.run(args.config, sets)
    wall = time.perf_counter() - t
    if args.json:
        print(_dumps(out))
    else:
        print_netpipe(out)
        print(f"\n{out['simulator']['simulated_s']:.1f} s simulated in {wall:.1f} s wall ({out['simulator']['events']:,} events)")
    if getattr(args, "plot", None):
        from .plot import plot_netpipe

        plot_netpipe({out["config"]["placements"][1]["name"]: out}, args.plot, title=f"nicsim netpipe {args.config}")
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def cmd_run(args) -> int:
    from . import api

    out = api.run(args.config, _sets(args))
    if args.json:
        print(_dumps(out))
    elif "points" in out:
        print_netpipe(out)
    elif "packet_gen" in out:
        print_packet_gen(out)
    elif "netperf" in out:
        from .netperf import print_netperf

        print_netperf(out, CATS)
    else:
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


def print_netpipe(out: dict) -> None:
    pts = out["points"]
    pl = out["config"]["placements"]
    print(f"placement node0={pl[0]['name']} node1={pl[1]['name']}  mode={out['summary']['mode']}  config {out['config_hash']}")
    procs = list(pts[0]["processors"]) if pts else []
    rx = [k for k in procs if k.startswith("node1.")]
    head = f"{'size B':>9} {'reps':>7} {'time us':>10} {'Mbps':>8}" + "".join(f" {k[6:] + ' util':>13} {'irq/s':>8}" for k in rx)
    print(head)
    for p in pts:
        row = f"{p['size_bytes']:>9} {p['repetitions']:>7} {p['time_us']:>10.2f} {p['throughput_mbps']:>8.1f}"
        for k in rx:
            pr = p["processors"][k]
            row += f" {pr['utilisation']:>13.3f} {pr['irq_per_s']:>8.0f}"
        print(row)
    s = out["summary"]
    if s["mode"] == "pingpong":
        print(f"\nlatency (first point, one-way): {s['latency_us']:.2f} us")
    else:
        print(f"\ntime per message at the first point: {s['latency_us']:.2f} us (streaming; run --mode pingpong for latency)")
    print(f"peak throughput: {s['peak_throughput_mbps']:.1f} Mbps SI ({s['peak_throughput_netpipe_mbps']:.1f} NetPIPE Mbps) at {s['peak_size_bytes']} B")
    if s["saturation_bytes"] is not None:
        print(f"saturation point: {s['saturation_bytes']:.0f} B ({s['saturation_estimator']})")
    if s["mode"] == "pingpong":
        print_latency_breakdown(out)
    if pts:
        from .cachereport import print_caches

        last = pts[-1]
        print_caches(f"caches at {last['size_bytes']} B (mode B, hit rates of reads and writes):",
                     last["processors"], last["nodes"])


def print_latency_breakdown(out: dict) -> None:
    """Where the first ping-pong point's one-way time goes (calibration.md T1): CPU time per
    category on each node per one-way transfer, the fixed hardware latencies of the path, and
    the rest (bus waits and collisions, minus CPU work that overlaps the transfer)."""
    p = out["points"][0]
    c = out["config"]
    msgs = 2 * p["repetitions"]
    window_s = p["time_us"] * 1e-6 * msgs
    print(f"\nlatency breakdown of the {p['size_bytes']}-byte message (µs per one-way transfer):")
    cpu_total = 0.0
    for k, pr in p["processors"].items():
        parts = {cat: pr["busy"][cat] * window_s / msgs * 1e6 for cat in CATS}
        cpu = sum(parts.values())
        if cpu > 0:
            cpu_total += cpu
            print(f"  {k:<14} " + "  ".join(f"{cat} {v:6.2f}" for cat, v in parts.items()) + f"   = {cpu:6.2f}")
    hw = _hardware_latencies_us(c, p["size_bytes"])
    for k, v in hw.items():
        print(f"  {k:<40} {v:6.2f}")
    rest = p["time_us"] - cpu_total - sum(hw.values())
    if rest >= 0:
        print(f"  {'bus waits and other time not listed':<40} {rest:6.2f}")
    else:
        # The two nodes' CPU work partly runs at the same time, so the lines above add to more
        # than the one-way time; this line takes the overlap back out.
        print(f"  {'CPU work that ran in parallel (overlap)':<40} {rest:6.2f}")
    print(f"  {'one-way time':<40} {p['time_us']:6.2f}")


def _hardware_latencies_us(c: dict, payload: int) -> dict[str, float]:
    """The core's fixed latencies of one frame of `payload` bytes (docs/output.md), in µs."""
    from .physics import hardware_latencies

    h = hardware_latencies(c, payload)
    return {
        "sender DMA read (descriptor + frame)": h["sender_dma_read_ps"] * 1e-6,
        "wire (serialisation)": h["wire_serialisation_ps"] * 1e-6,
        "link propagation": h["link_propagation_ps"] * 1e-6,
        "receiver DMA write (frame + descriptor + status)": h["receiver_dma_write_ps"] * 1e-6,
        "interrupt delivery": h["interrupt_delivery_ps"] * 1e-6,
    }


def print_hpcbench(out: dict) -> None:
    h = out["hpcbench"]
    print(f"message {h['message_bytes']} B, window {h['window_s']:.2f} s: throughput {h['throughput_mbps']:.1f} Mbps")
    print(f"{'processor':<14} {'util':>6} " + " ".join(f"{c:>7}" for c in CATS) + f" {'irq/s':>8} {'ipi/s':>8}")
    for k, pr in h["processors"].items():
        print(f"{k:<14} {pr['utilisation']:>6.3f} " + " ".join(f"{pr['busy'][c]:>7.3f}" for c in CATS) + f" {pr['nic_irq_per_s']:>8.0f} {pr['ipi_per_s']:>8.0f}")
    from .cachereport import print_caches

    print_caches("caches (mode B, hit rates of reads and writes):", h["processors"], h.get("nodes", {}))
    if "laws" in out:
        print("LAWS quantities: " + ", ".join(f"{k}={v:.4g}" for k, v in out["laws"].items() if isinstance(v, (int, float))))


def cmd_presets(args) -> int:
    from .config import load_preset, preset_names

    for n in preset_names():
        print(f"{n:<26} {load_preset(n).get('description', '')}")
    return 0


def cmd_params(args) -> int:
    from . import units
    from .params import PARAMS

    if args.markdown:
        print("| key | unit | default | range | description | source |\n|---|---|---|---|---|---|")
    for p in PARAMS:
        unit = {"size": "bytes", "rate": "bit/s", "freq": "Hz", "time": "ps"}.get(p.kind, p.kind)
        dflt = p.default if p.kind != "choice" else (p.default or "(from preset)")
        if p.kind in units.PARSERS and isinstance(dflt, int) and dflt == 0:
            dflt = "0 (auto)"
        choices = f" ({' | '.join(c for c in p.choices if c)})" if p.choices else ""
        span = f"{p.min:g} to {p.max:g}" if p.min is not None and p.max is not None else ""
        if args.markdown:
            print(f"| `{p.key}` | {unit} | {dflt} | {span} | {p.description}{choices} | {p.source} |")
        else:
            print(f"{p.key:<40} {str(dflt):<12} {span:<16} {p.description}{choices}  {p.source}")
    return 0


def cmd_bench(args) -> int:
    from . import _core

    if args.suite:
        from .bench import print_suite, suite

        doc = suite(args.duration)
        print(_dumps(doc)) if args.json else print_suite(doc)
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
        print(_dumps(res))
    else:
        print(f"{events:,} events in {wall:.3f} s: {events / wall / 1e6:.1f} M events/s")
        print(f"{packets:,} packets, mean sojourn {soj:.3f} us (M/D/1 predicts {pred:.3f} us, {100 * (soj / pred - 1):+.2f}%)")
    return 0


def cmd_demo(args) -> int:
    from . import api
    from .plot import plot_netpipe

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
        (folder / f"base-{mode}.json").write_text(_dumps(res))
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


def cmd_hpcbench(args) -> int:
    from .hpc import run_hpcbench

    out = run_hpcbench(args.config, _sets(args), gamma=args.gamma, a=args.app_work_per_byte, msg_size=args.msg_size, duration=args.duration)
    print(_dumps(out) if args.json else "", end="\n" if args.json else "")
    if not args.json:
        print_hpcbench(out)
    return 0


def cmd_netperf(args) -> int:
    from .netperf import print_netperf, run_netperf

    out = run_netperf(args.config, _sets(args), replications=args.replications, test=args.test, connections=args.connections,
                      clients=args.clients, msg_size=args.msg_size, duration=args.duration, warmup=args.warmup, seed=args.seed)
    if args.json:
        print(_dumps(out))
    else:
        print_netperf(out, CATS)
    return 0


def cmd_bulkecho(args) -> int:
    from .bulkecho import print_bulkecho, run_bulkecho

    out = run_bulkecho(args.config, args.set, org=args.org, mode=args.mode, proto=args.proto, connections=args.connections,
                       tsdu=args.tsdu, nodelay=args.nodelay, use_ilp=args.ilp, seed=args.seed, replications=args.replications,
                       cpus=args.cpus)
    if args.json:
        print(_dumps(out))
    else:
        print_bulkecho(out)
    return 0


def cmd_web(args) -> int:
    from .web import parse_users, print_web, print_web_users, run_web, run_web_users

    users = parse_users(args.users)
    options = dict(replications=args.replications, vs_base=args.vs_base, page_size=args.page_size, mix=args.mix,
                   trace=args.trace, think=args.think, duration=args.duration, warmup=args.warmup, seed=args.seed,
                   clients=args.clients, keep_alive=args.keep_alive)
    if users is None or len(users) == 1:
        if args.plot:
            raise ConfigError("--plot draws requests/s and response time against users: give --users a list, e.g. --users 100,500,1000")
        out = run_web(args.config, _sets(args), users=users[0] if users else None, **options)
        if args.json:
            print(_dumps(out))
        else:
            print_web(out, CATS)
        return 0
    # A recording is of one run: which of the list's would be a guess.
    for arg, v in (("--pcap-out", args.pcap_out), ("--trace-out", args.trace_out), ("--series", args.series)):
        if v:
            raise ConfigError(f"{arg} records one run: give --users one count, not a list")
    try:
        sweep = run_web_users(args.config, _sets(args), users=users, **options)
    except SimulationError as e:
        if e.partial and not args.json:
            # The table of the counts measured, then the error (main prints the JSON otherwise).
            print_web_users(e.partial, args.config)
            raise SimulationError(str(e)) from None
        raise
    if args.json:
        print(_dumps(sweep))
    else:
        print_web_users(sweep, args.config)
    if args.plot:
        from .plot import plot_web_users
        from .web import users_rows

        first = sweep["users_sweep"][0]["result"]
        plot_web_users(users_rows(sweep), args.plot, first["config"]["placements"][-1]["name"], title=f"nicsim web {args.config}")
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def cmd_handoff(args) -> int:
    from .handoff import print_handoff, run_handoff

    out = run_handoff(args.name, args.config, _sets(args), replications=args.replications, seed=args.seed)
    if args.json:
        print(_dumps(out))
    else:
        print_handoff(out)
    return 0


def cmd_gamma_sweep(args) -> int:
    from .hpc import gamma_sweep, parse_grid

    out = gamma_sweep(args.config, _sets(args), gammas=parse_grid(args.gammas, "--gammas"), msg_sizes=args.msg_size or ["2 Mbit", "8 Kbit"], duration=args.duration)
    if args.json:
        print(_dumps(out))
    else:
        for size, rows in out["sweeps"].items():
            print(f"message {size} B: {out['placement']} vs base")
            print(f"{'gamma':>6} {'realised':>8} {'base Mbps':>10} {'placed Mbps':>11} {'db':>8}")
            for r in rows:
                print(f"{r['gamma']:>6.2f} {r['gamma_realised']:>8.3f} {r['base_mbps']:>10.1f} {r['placed_mbps']:>11.1f} {r['delta_b']:>+8.3f}")
    if args.plot:
        from .plot import plot_gamma

        plot_gamma(out, args.plot)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def cmd_calibrate(args) -> int:
    from .calibrate import main_calibrate

    if args.reference or args.fit or args.train or args.out:
        from .reffit import main_reference

        return main_reference(args)
    if args.family == "zabaljauregui":
        from .calibrate_testa import main

        return main(write_values=args.write, check=args.check)
    if args.check:
        return cmd_validate(argparse.Namespace(reference=None, set=[], json=False, suite=None, only=None, report=None, config=None))
    return main_calibrate(write=args.write, candidates=args.candidates, ioapic=args.ioapic)


def cmd_validate(args) -> int:
    """Exit 0 when every row passes, 1 when some row fails (the table says which)."""
    from . import validation
    from .config import parse_set

    if args.suite:
        from .suite_report import main_suite

        if args.config:
            raise ConfigError("validate: --config goes with --reference or the built-in rows; the suite takes --set")

        return main_suite(args)
    if args.only or args.report:
        raise ConfigError("validate: --only and --report go with --suite (e.g. --suite ortiz2008)")
    from .reffit import config_sets

    rows = validation.load_reference(args.reference) if args.reference else validation.BUILTIN
    results = validation.validate(rows, {**config_sets(args.config), **parse_set(args.set)})
    if args.json:
        print(_dumps({"rows": results, "passed": sum(r["passed"] for r in results), "total": len(results)}))
    else:
        print(validation.table(results))
    return 0 if all(r["passed"] for r in results) else 1


COMMANDS = {
    "demo": cmd_demo,
    "netpipe": cmd_netpipe,
    "netperf": cmd_netperf,
    "web": cmd_web,
    "handoff": cmd_handoff,
    "bulkecho": cmd_bulkecho,
    "run": cmd_run,
    "hpcbench": cmd_hpcbench,
    "gamma-sweep": cmd_gamma_sweep,
    "presets": cmd_presets,
    "params": cmd_params,
    "bench": cmd_bench,
    "calibrate": cmd_calibrate,
    "validate": cmd_validate,
}
