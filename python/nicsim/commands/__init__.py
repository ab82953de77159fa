"""The `nicsim` command: one module per command here, each with its arguments (`add`) and its
run; this module builds the parser from them, dispatches, and turns every error into one line
with its exit status (2 for a wrong input, 3 for a failed simulation)."""
from __future__ import annotations

import argparse
import os
import sys

from ..errors import ConfigError, SimulationError, Terminated, terminate_on_sigterm
from . import bench, bulkecho, calibrate, demo, gamma_sweep, handoff, hpcbench, netperf, netpipe, params, presets, probe, run, sweep, validate, web
from .options import Parser, dumps, whole_line


def _version() -> str:
    from .._core import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    ap = Parser(prog="nicsim", description="Simulate where a server's network protocol processing should run.")
    ap.add_argument("--version", action="version", version=f"nicsim {_version()}")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    # Each command's module adds its arguments and what runs it (`run`), in the order --help lists them.
    for command in (demo, netpipe, netperf, web, handoff, bulkecho, run, hpcbench, gamma_sweep, presets, params, bench):
        command.add(sub)
    # laws and study are listed here rather than by their modules, which import the numerics
    # (numpy, pandas, scipy) that --help and every other command should not wait for.
    whole_line(sub, "laws", _laws, help="evaluate LAWS and the modified LAWS; 'laws fit' fits δa, δo, τ (see nicsim laws --help)")
    st = sub.add_parser("study", help="'study laws CONFIG': simulated δb(γ) against LAWS, with a fit and bound violations (see nicsim study laws --help)",
                        description="Studies. laws: simulated δb(γ) of a placement against LAWS and the modified LAWS, with a fit and bound violations; see 'nicsim study laws --help'.")
    st.add_argument("study", choices=("laws",), help="the study to run: laws")
    # The rest of the line is study laws' own; a missing study is the only thing said missing.
    st.add_argument("argv", nargs=argparse.REMAINDER, help=argparse.SUPPRESS).required = False
    st.set_defaults(run=lambda args: _study(args.argv), own_line=True)
    sweep.add(sub)
    probe.add(sub)
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
    """The one dispatch: every command is a subcommand of one parser, and runs what it set."""
    ap = build_parser()
    args = ap.parse_args(argv)
    if not getattr(args, "own_line", False):
        _before_running(args, ap)
    return args.run(args)


def _before_running(args: argparse.Namespace, ap: argparse.ArgumentParser) -> None:
    """What a command line is checked for before anything runs (an option given twice, how
    many runs it starts), the recordings it asks for, and feedback on a long run."""
    from .. import progress, stopping
    from ..config import parse_set
    from ..io.record import arm
    from .confirm import replications
    from .twice import check_given_twice

    command = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction)).choices[args.cmd]
    check_given_twice(args.cmd, args, parse_set(getattr(args, "set", [])), command)
    replications(args)
    arm(args)
    progress.enabled = stopping.enabled = True


def _laws(argv: list[str]) -> int:
    from .laws import main_laws

    return main_laws(argv)


def _study(argv: list[str]) -> int:
    from .study import main_study

    return main_study(argv)
