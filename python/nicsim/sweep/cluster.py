"""Dask clusters on batch schedulers (SLURM, PBS) through dask-jobqueue, configured the way
sweeps want them: each batch job is one node's worth of single-threaded worker processes
(a point is one single-threaded simulation, so threads would only contend for the GIL).

    from nicsim.sweep.cluster import jobqueue_cluster
    cluster = jobqueue_cluster("slurm", cores=32, memory="64GB", walltime="02:00:00",
                               queue="compute", prologue=["module load python", "source ~/nicsim/bin/activate"])
    cluster.scale(jobs=4)                          # four nodes, 128 workers
    nicsim.sweep.sweep("ortiz2008-offload", grid, store="big.sqlite", dask=Client(cluster))

Nothing here talks to a scheduler until `scale()`; `cluster.job_script()` shows the batch script.
"""
from __future__ import annotations

from typing import Any, Sequence

KINDS = ("slurm", "pbs")


def jobqueue_cluster(kind: str, *, cores: int, memory: str, walltime: str, queue: str | None = None,
                     account: str | None = None, prologue: Sequence[str] = (), python: str | None = None,
                     **extra: Any):
    """A dask_jobqueue SLURMCluster or PBSCluster whose jobs each run `cores` worker processes
    of one thread. `prologue` lines run before the worker starts (modules, virtualenv);
    `extra` goes to the cluster class unchanged."""
    from ..errors import ConfigError

    if kind not in KINDS:
        raise ConfigError(f"cluster kind {kind!r}: choose {', '.join(KINDS)}")
    if cores < 1:
        raise ConfigError(f"cores {cores}: must be at least 1")
    import dask_jobqueue

    cls = dask_jobqueue.SLURMCluster if kind == "slurm" else dask_jobqueue.PBSCluster
    opts: dict[str, Any] = dict(cores=cores, processes=cores, memory=memory, walltime=walltime, queue=queue,
                                account=account, job_script_prologue=list(prologue),
                                scheduler_options={"dashboard_address": None})
    if python:
        opts["python"] = python
    opts.update(extra)
    return cls(**opts)
