"""Dask: `--dask local` gives the same numbers as the local pool; the dask-jobqueue batch
configuration of docs/sweeps.md, checked through its job script (no scheduler is contacted)."""
from __future__ import annotations

import sqlite3
import zlib

import pytest
from _sweep_helpers import GRID_2x4

from nicsim.sweep.cli import main_sweep

pytest.importorskip("distributed")


def _results(path) -> dict[str, bytes]:
    with sqlite3.connect(path) as c:
        return {k: zlib.decompress(b) for k, b in c.execute("SELECT key, result FROM points WHERE status='ok'")}


def test_dask_local_matches_local_pool_point_for_point(tmp_path, netpipe_store):
    grid = [a for k, v in GRID_2x4.items() for a in ("--grid", f"{k}={v}")]
    common = ["sweep", "ortiz2008-offload", *grid, "--set", "workload.netpipe.target_ps=5 ms", "--workers", "2", "--no-progress"]
    assert main_sweep([*common, "--dask", "local", "--out", str(tmp_path / "dask.sqlite")]) == 0
    local = {k: v for k, v in _results(netpipe_store).items()}
    dask = _results(tmp_path / "dask.sqlite")
    assert len(dask) == 8
    assert all(dask[k] == local[k] for k in dask)  # the whole result document, byte for byte


def test_unreachable_scheduler_is_one_line(tmp_path, capsys):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        rc = main_sweep(["sweep", "ortiz2008-base", "--grid", "cpu.count=1", "--set", "workload.netpipe.target_ps=5 ms",
                         "--dask", "tcp://127.0.0.1:9", "--no-progress", "--out", str(tmp_path / "x.sqlite")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("kind, lines", [
    ("slurm", ["#SBATCH -p compute", "#SBATCH -A nicsim-proj", "#SBATCH --cpus-per-task=32", "#SBATCH -t 02:00:00",
               "module load python/3.11", "source ~/nicsim-venv/bin/activate", "--nworkers 32", "--nthreads 1",
               "/home/me/nicsim-venv/bin/python -m distributed.cli.dask_worker"]),
    ("pbs", ["#PBS -q compute", "#PBS -A nicsim-proj", "#PBS -l select=1:ncpus=32", "#PBS -l walltime=02:00:00",
             "module load python/3.11", "--nworkers 32", "--nthreads 1"]),
])
def test_jobqueue_cluster_job_script(kind, lines):
    pytest.importorskip("dask_jobqueue")
    from nicsim.sweep.cluster import jobqueue_cluster

    cluster = jobqueue_cluster(kind, cores=32, memory="64GB", walltime="02:00:00", queue="compute", account="nicsim-proj",
                               prologue=["module load python/3.11", "source ~/nicsim-venv/bin/activate"],
                               python="/home/me/nicsim-venv/bin/python")
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    for line in lines:
        assert line in script, (line, script)


def test_jobqueue_cluster_rejects_unknown_kind():
    from nicsim.errors import ConfigError
    from nicsim.sweep.cluster import jobqueue_cluster

    with pytest.raises(ConfigError, match="slurm, pbs"):
        jobqueue_cluster("lsf", cores=1, memory="1GB", walltime="00:10:00")
