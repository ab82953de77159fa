"""nicsim: where should a server's network protocol processing run?

A fast discrete-event simulator of the whole host communication path (CPUs, memory, buses,
NIC, link, TCP), NetPIPE and Hpcbench workloads, and the LAWS analytical models.
"""
from __future__ import annotations

import os as _os
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
        import importlib

        return importlib.import_module(".sweep", __name__)
    raise AttributeError(f"module 'nicsim' has no attribute {name!r}")
