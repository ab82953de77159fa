"""What the commands share: the parser that makes every mistake one line, the options several
commands take, and how a result is printed."""
from __future__ import annotations

import argparse
import math

from ..errors import ConfigError
from ..paths import out_file, out_plot


class UsageError(ConfigError):
    """A command line that does not parse: what is wrong (`message`), said as one line that
    names the command it was given to."""

    def __init__(self, message: str, prog: str = "nicsim"):
        self.message = message
        where = prog.removeprefix("nicsim").strip()
        super().__init__(f"{where}: {message}" if where else f"{message} (see nicsim --help)")


class Parser(argparse.ArgumentParser):
    """The parser of every command, those that parse their own arguments included: a mistake
    is a UsageError (one line, exit 2), never a usage dump."""

    def error(self, message):
        raise UsageError(message, self.prog)


def bounded(option: str, lo: float, hi: float, lo_open: bool = False):
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


def config_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", nargs="?", default="ortiz2008-base", help="preset name or TOML file (default ortiz2008-base)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a parameter (repeatable)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    record_options(p)


def record_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pcap-out", metavar="FILE.pcap", type=out_file(".pcap"), help="write the frames that crossed the server's MAC (run.pcap_node) as a pcap capture (headers, true lengths, simulated time)")
    p.add_argument("--trace-out", metavar="FILE.json", type=out_file(".json"), help="write a Chrome/Perfetto trace of the window run.trace_from_ps + run.trace_span_ps (default the first 10 ms)")
    p.add_argument("--series", metavar="INTERVAL", help="a time series of the whole run in intervals of INTERVAL, e.g. 1ms (throughput, utilisation per processor, queue lengths): the JSON document's series")
    p.add_argument("--series-plot", metavar="FILE", type=out_plot(), help="with --series: plot it to this image file")


def yes_option(p: argparse.ArgumentParser) -> None:
    from .confirm import CONFIRM_RUNS

    p.add_argument("--yes", action="store_true", help=f"run more than {CONFIRM_RUNS:,} --replications")


def dumps(obj) -> str:
    """A result as the JSON document `--json` prints (api.dumps, imported only when asked)."""
    from .. import api

    return api.dumps(obj)


def set_items(args) -> list[str]:
    return list(args.set)


def whole_line(sub, name: str, main, **kw) -> argparse.ArgumentParser:
    """A command that parses its own line (`main(argv)`, argv after the command's name): it is
    listed in --help and handed the rest of the line as it was given."""
    p = sub.add_parser(name, add_help=False, prefix_chars="\0", **kw)
    p.add_argument("argv", nargs=argparse.REMAINDER)
    p.set_defaults(run=lambda args: main(args.argv), own_line=True)
    return p
