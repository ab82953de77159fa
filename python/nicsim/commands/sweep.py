"""`nicsim sweep` and `nicsim report`. Every error is one line on stderr naming the argument,
with exit status 2; a sweep whose points all ran returns 0, one with failed points 1."""
from __future__ import annotations

import argparse
import sys

from .confirm import CONFIRM_RUNS, confirm_runs
from ..errors import ConfigError, Terminated
from ..paths import in_store, out_dir, out_store
from .options import Parser, UsageError, whole_line

EPILOG = """VALUES: a list 100MHz,200MHz (';' separates values that hold commas), a linear range
START:STOP:STEP (0:3.5:0.25, stop included), or a log range log:START:STOP:N (log:1KiB:1MiB:11).
`placement` takes preset or placement names; with --benchmark hpcbench, `gamma` is a grid key.
See docs/sweeps.md."""


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--workers {text!r}: expected a whole number of processes") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"--workers {text!r}: must be at least 1")
    return n


def sweep_parser() -> argparse.ArgumentParser:
    ap = Parser(prog="nicsim sweep", description="Run a grid of configurations into a result store.",
                 epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("config", help="preset name or TOML file the grid varies")
    ap.add_argument("--grid", action="append", default=[], metavar="KEY=VALUES", help="a swept key (repeatable: cartesian product)")
    ap.add_argument("--zip", action="store_true", help="pair the --grid lists value by value instead of taking their product")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a fixed override for every point (repeatable)")
    ap.add_argument("--benchmark", choices=("netpipe", "hpcbench", "web", "netperf", "packet_gen"), help="default: the configuration's workload.kind")
    ap.add_argument("--workers", type=_workers, help="local processes (default: every core)")
    ap.add_argument("--dask", metavar="ADDRESS|local", help="run on a Dask cluster at ADDRESS, or on a local one")
    ap.add_argument("--retries", type=int, default=2, help="runs of a point whose worker died before it is recorded as failed (default 2)")
    ap.add_argument("--out", required=True, metavar="STORE", type=out_store(), help="result store (SQLite file; created or resumed)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--yes", action="store_true", help=f"run a grid of more than {GRID_CONFIRM:,} points")
    return ap


# Above this many points a sweep says how big it is and runs only with --yes (confirm.py).
GRID_CONFIRM = CONFIRM_RUNS


def _grid_size(grid: dict[str, str], zip_: bool, benchmark: str | None) -> int:
    from math import prod

    from ..sweep.grid import parse_values

    sizes = []
    for k, v in grid.items():
        try:
            sizes.append(len(parse_values(k, v, benchmark or "netpipe")))
        except ConfigError as e:
            raise ConfigError(f"--grid {k}={v}: {e}") from None
    return max(sizes) if zip_ else prod(sizes)


def report_parser() -> argparse.ArgumentParser:
    ap = Parser(prog="nicsim report", description="HTML report, PNG and SVG figures, CSV and Parquet tables of a sweep store.")
    ap.add_argument("store", type=in_store(), help="result store written by nicsim sweep")
    ap.add_argument("--out", required=True, metavar="DIR", type=out_dir(), help="directory for report.html, figures and tables")
    return ap


def add(sub) -> None:
    whole_line(sub, "sweep", lambda argv: main_sweep(["sweep", *argv]), help="design-space sweep into a result store (see nicsim sweep --help)")
    whole_line(sub, "report", lambda argv: main_sweep(["report", *argv]), help="HTML, PNG and SVG report of a result store")


def main_sweep(argv: list[str]) -> int:
    """Entry point for `nicsim sweep ...` and `nicsim report ...` (argv[0] is the command)."""
    cmd = argv[0] if argv else "sweep"
    try:
        if cmd == "report":
            return _report(report_parser().parse_args(argv[1:]))
        return _sweep(sweep_parser().parse_args(argv[1:]))
    except UsageError as e:
        print(f"nicsim {cmd}: {e.message}", file=sys.stderr)
        return 2
    except ConfigError as e:
        print(f"nicsim {cmd}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"nicsim {cmd}: interrupted; finished points are stored, run the same command again to resume", file=sys.stderr)
        return 130
    except Terminated:
        print(f"nicsim {cmd}: terminated (SIGTERM); finished points are stored, run the same command again to resume", file=sys.stderr)
        return 143
    except OSError as e:  # unwritable store or output directory, unreachable scheduler
        print(f"nicsim {cmd}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a bug: still one line, with where it happened
        import traceback

        tb = traceback.extract_tb(e.__traceback__)
        where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
        print(f"nicsim {cmd}: internal error {type(e).__name__}: {e}{where} (please report it)", file=sys.stderr)
        return 1


def _sweep(args) -> int:
    from ..config import parse_set
    from ..sweep import run_sweep

    if not args.grid:
        raise ConfigError("--grid: give at least one KEY=VALUES (e.g. --grid nic_cpu.speed_fraction=0.5,1)")
    if args.retries < 0:
        raise ConfigError(f"--retries {args.retries}: must be at least 0")
    grid: dict[str, str] = {}
    for g in args.grid:
        if "=" not in g:
            raise ConfigError(f"--grid {g!r}: expected KEY=VALUES, e.g. --grid nic_cpu.speed_fraction=0.25,0.5,1")
        k, v = (s.strip() for s in g.split("=", 1))
        if k in grid:
            raise ConfigError(f"--grid {g!r}: {k} is already swept by another --grid")
        grid[k] = v
    sets = parse_set(args.set)
    for k in grid:
        if k in sets:
            raise ConfigError(f"--grid {k}={grid[k]} and --set {k}={sets[k]} both give {k}; give one of them")
    n = _grid_size(grid, args.zip, args.benchmark)
    confirm_runs(n, args.yes, "the grid has", "narrow --grid")
    if args.dask is not None and args.dask != "local":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise ConfigError("--dask: the distributed package is not installed (pip install 'dask[distributed]')") from None
    try:
        out = run_sweep(args.config, grid, args.out, zip=args.zip, benchmark=args.benchmark, sets=sets,
                        workers=args.workers, dask=args.dask, progress=not args.no_progress and sys.stderr.isatty(), retries=args.retries,
                        spec_extra={"argv": ["nicsim", "sweep", *sys.argv[2:]] if sys.argv[1:2] == ["sweep"] else None})
    except ConfigError as e:
        msg = str(e)
        # name the argument: a grid key's error already starts with "point N (...)" or "grid K=..."
        if msg.startswith("grid "):
            msg = "--" + msg
        raise ConfigError(msg) from None
    print(f"{len(out.points)} points: {out.skipped} already stored, {out.ran} ran ({out.ok} ok, {out.failed} failed) "
          f"in {out.wall_s:.1f} s; store {args.out}")
    if out.failed:
        print(f"nicsim sweep: {out.failed} point(s) failed; their errors are in the store (nicsim report {args.out} --out DIR)", file=sys.stderr)
        return 1
    return 0


def _report(args) -> int:
    from ..sweep.report import write_report

    path = write_report(args.store, args.out)
    print(f"report: {path}")
    return 0
