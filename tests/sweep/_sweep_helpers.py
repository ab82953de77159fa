"""Helpers shared by the sweep tests (importable because pytest puts this directory on sys.path)."""
from __future__ import annotations

import os
import subprocess
import sys

FAST = {"workload.netpipe.target_ps": "5 ms", "workload.netpipe.max_bytes": "64 KiB"}
# The 2 x 4 example: NIC processor speed x message size, one size per point.
GRID_2x4 = {"nic_cpu.speed_fraction": "0.25,1", "workload.netpipe.sizes_bytes": "1KiB;4KiB;16KiB;64KiB"}


def cli(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """`python -m nicsim ARGS` in a fresh process."""
    e = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "nicsim", *args], capture_output=True, text=True, env=e, timeout=timeout)
