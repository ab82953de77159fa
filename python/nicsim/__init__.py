"""nicsim: where should a server's network protocol processing run?

A fast discrete-event simulator of the whole host communication path (CPUs, memory, buses,
NIC, link, TCP), NetPIPE and Hpcbench workloads, and the LAWS analytical models.
"""
from __future__ import annotations

import importlib as _importlib
import importlib.abc as _abc
import importlib.util as _util
import os as _os
import sys as _sys
from pathlib import Path as _Path
from typing import TYPE_CHECKING as _TYPE_CHECKING, Any as _Any, Iterable as _Iterable

# NumPy's OpenBLAS starts a thread per core that spins after every call; the small fits here
# gain nothing from it, and on a two-core machine it takes the core a second simulation (a
# sweep worker) needs. A value the user set is kept.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")

from ._core import __version__  # noqa: E402
from .config import resolve  # noqa: E402
from .config import Resolved as _Resolved  # noqa: E402
from .errors import ConfigError, SimulationError  # noqa: E402

if _TYPE_CHECKING:
    import pandas as pd


# Module paths from before the package was grouped into rooms (issue 47), kept working without
# a file each: `import nicsim.validation` gives the module `nicsim.check.validation` itself (one
# module object under both names, so a patch through either is seen by both). A finder rather
# than shim files keeps the top level at the few modules docs/design.md lists.
_MOVED = {
    "bench": "benchmarks.bench",
    "bulkecho": "benchmarks.bulkecho",
    "handoff": "benchmarks.handoff",
    "hpc": "benchmarks.hpc",
    "netperf": "benchmarks.netperf",
    "web": "benchmarks.web",
    "cachereport": "io.cachereport",
    "plot": "io.plot",
    "record": "io.record",
    "tables": "io.tables",
    "params": "config.params",
    "physics": "config.physics",
    "placements": "config.placements",
    "tomlfile": "config.tomlfile",
    "trace": "config.replay",
    "hostfacts": "host.hostfacts",
    "perfshare": "host.perfshare",
    "probe": "host.probe",
    "calibrate": "check.calibrate",
    "calibrate_testa": "check.calibrate_testa",
    "reffit": "check.reffit",
    "suite": "check.suite",
    "suite_report": "check.suite_report",
    "suite_rows": "check.suite_rows",
    "validation": "check.validation",
    "cli": "commands",
    "confirm": "commands.confirm",
    "study": "commands.study",
    "twice": "commands.twice",
    "analytic.cli": "commands.laws",
    "sweep.cli": "commands.sweep",
}


class _OldPath(_abc.MetaPathFinder, _abc.Loader):
    """Imports an old module path as the module at its new one."""

    def find_spec(self, fullname, path, target=None):
        new = _MOVED.get(fullname.removeprefix(__name__ + ".")) if fullname.startswith(__name__ + ".") else None
        return _util.spec_from_loader(fullname, self, origin=f"{__name__}.{new}") if new else None

    def create_module(self, spec):
        module = _importlib.import_module(spec.origin)
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module):
        # The import system has just given the module the old path's spec; it keeps its own.
        module.__spec__ = module.__spec__.loader_state


_sys.meta_path.insert(0, _OldPath())

__all__ = ["resolve", "run", "frames", "sweep", "ConfigError", "SimulationError", "__version__"]


def run(cfg: _Resolved | str | _Path | dict[str, _Any] | None = None,
        sets: dict[str, _Any] | _Iterable[str] | None = None) -> dict[str, _Any]:
    """Runs a preset name, TOML path or dict configuration (with `sets` overrides, a dict or
    "KEY=VALUE" strings); returns the result document."""
    from .api import run as _run

    return _run(cfg, sets)


def frames(result: dict[str, _Any]) -> dict[str, pd.DataFrame]:
    """Any command's result document as pandas DataFrames keyed by table name (NetPIPE:
    'points', 'processors', ...; docs/output.md lists every command's tables). A document of
    another shape raises ValueError."""
    from .api import frames as _frames

    return _frames(result)


def __getattr__(name: str) -> _Any:
    # `nicsim.sweep(...)` without importing the sweep package first (it pulls in pandas and
    # Dask only when asked for); the sweep module is callable.
    if name == "sweep":
        return _importlib.import_module(".sweep", __name__)
    raise AttributeError(f"module 'nicsim' has no attribute {name!r}")
