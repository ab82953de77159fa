"""Shared fixtures for the sweep tests: short NetPIPE points (well under a second each) and
stores, written once per session, that the report tests read."""
from __future__ import annotations

from pathlib import Path

import pytest
from _sweep_helpers import FAST, GRID_2x4

@pytest.fixture(scope="session")
def netpipe_store(tmp_path_factory) -> Path:
    """A store with the 2 x 4 sweep on the offload preset and a four-placement sweep."""
    from nicsim.sweep import run_sweep

    path = tmp_path_factory.mktemp("store") / "netpipe.sqlite"
    run_sweep("ortiz2008-offload", GRID_2x4, path, sets={"workload.netpipe.target_ps": "5 ms"}, workers=2, progress=False)
    run_sweep("ortiz2008-base", {"placement": "ortiz2008-base,ortiz2008-offload,ortiz2008-onload,ortiz2008-hybrid"}, path,
              sets=FAST, workers=2, progress=False)
    return path


@pytest.fixture(scope="session")
def gamma_store(tmp_path_factory) -> Path:
    """A small Hpcbench γ sweep: base and offload at three γ."""
    pytest.importorskip("nicsim.hpc")
    from nicsim.sweep import run_sweep

    path = tmp_path_factory.mktemp("gamma") / "gamma.sqlite"
    run_sweep("ortiz2008-base", {"placement": "base,offload", "gamma": "0:1:0.5"}, path, benchmark="hpcbench",
              sets={"workload.hpcbench.duration_ps": "20 ms", "workload.hpcbench.warmup_ps": "5 ms"}, workers=2, progress=False)
    return path
