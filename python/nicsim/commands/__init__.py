"""The `nicsim` command: one module per command here, each with its arguments (`add`) and its
run; this module builds the parser from them, dispatches, and turns every error into one line
with its exit status (2 for a wrong input, 3 for a failed simulation)."""
from __future__ import annotations

import argparse
import os
import sys

from ..errors import ConfigError, SimulationError, Terminated, terminate_on_sigterm
from . import bench, bulkecho, calibrate, demo, gamma_sweep, handoff, hpcbench, netperf, netpipe, params, presets, run, validate, web
from .options import Parser, dumps


def _version() -> str:
    from .._core import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    ap = Parser(prog="nicsim", description="Simulate where a server's network protocol processing should run.")
    ap.add_argument("--version", action="version", version=f"nicsim {_version()}")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    for command in (demo, netpipe, netperf, web, handoff, bulkecho, run, hpcbench, gamma_sweep, presets, params, bench):
        command.add(sub)
    # Commands with parsers of their own, listed here for --help (dispatched before argparse).
    sub.add_parser("laws", help="evaluate LAWS and the modified LAWS; 'laws fit' fits δa, δo, τ (see nicsim laws --help)")
    st = sub.add_parser("study", help="'study laws CONFIG': simulated δb(γ) against LAWS, with a fit and bound violations (see nicsim study laws --help)",
                        description="Studies. laws: simulated δb(γ) of a placement against LAWS and the modified LAWS, with a fit and bound violations; see 'nicsim study laws --help'.")
    st.add_argument("study", choices=("laws",), help="the study to run: laws")
    sub.add_parser("sweep", help="design-space sweep into a result store (see nicsim sweep --help)")
    sub.add_parser("report", help="HTML, PNG and SVG report of a result store")
    sub.add_parser("probe", help="measure this host with netperf or iperf3 over loopback (and veth as root) into a reference file (see nicsim probe --help)")
    validate.add(sub)
    calibrate.add(sub)
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
            print(dumps(e.partial))
        print(f"nicsim: simulation failed: {e}", file=sys.stderr)
        sys.exit(3)
    except KeyboardInterrupt:
        from .. import stopping

        print("nicsim: interrupted", file=sys.stderr)
        stopping.exit(130)
    except Terminated:
        from .. import stopping

        print("nicsim: terminated (SIGTERM)", file=sys.stderr)
        stopping.exit(143)
    except BrokenPipeError:
        # The reader went away (`nicsim params | head`): stop quietly, as Unix tools do.
        sys.stdout = open(os.devnull, "w")
        sys.exit(141)


def _dispatch(argv: list[str]) -> int:
    # Commands owned by other modules parse their own arguments.
    if argv[:1] == ["laws"]:
        from .laws import main_laws

        return main_laws(argv[1:])
    if argv[:2] == ["study", "laws"]:
        from .study import main_study

        return main_study(argv[2:])
    if argv[:1] in (["sweep"], ["report"]):
        from .sweep import main_sweep

        return main_sweep(argv)
    if argv[:1] == ["probe"]:
        from .probe import main_probe

        return main_probe(argv[1:])
    ap = build_parser()
    args = ap.parse_args(argv)
    from .. import progress, stopping
    from ..config import parse_set
    from .confirm import replications
    from ..io.record import arm
    from .twice import check_given_twice

    command = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction)).choices[args.cmd]
    check_given_twice(args.cmd, args, parse_set(getattr(args, "set", [])), command)
    replications(args)

    arm(args)
    progress.enabled = stopping.enabled = True
    return COMMANDS[args.cmd](args)


COMMANDS = {
    "demo": demo.cmd_demo,
    "netpipe": netpipe.cmd_netpipe,
    "netperf": netperf.cmd_netperf,
    "web": web.cmd_web,
    "handoff": handoff.cmd_handoff,
    "bulkecho": bulkecho.cmd_bulkecho,
    "run": run.cmd_run,
    "hpcbench": hpcbench.cmd_hpcbench,
    "gamma-sweep": gamma_sweep.cmd_gamma_sweep,
    "presets": presets.cmd_presets,
    "params": params.cmd_params,
    "bench": bench.cmd_bench,
    "calibrate": calibrate.cmd_calibrate,
    "validate": validate.cmd_validate,
}
