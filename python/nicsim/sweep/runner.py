"""Running points: on a local process pool or a Dask cluster. Both call `worker.run_point`
on the same plain-data task, so a point's numbers do not depend on where it ran.

Each finished point goes straight to `on_done(point, record, attempts)`, which stores it.

Worker death. On the local pool at most `2 × workers` points are in flight, so when a worker
process dies (segfault, OOM killer, `kill -9`) and the pool breaks, the suspects are known: the
pool is rebuilt and each suspect is run alone in a one-process pool, up to `retries` more times;
a point that still kills its worker is recorded as failed and the sweep goes on. On Dask the
scheduler reschedules a task whose worker died (`distributed.scheduler.allowed-failures`,
3 by default); a task that exhausts that is recorded as failed (`KilledWorker`).
"""
from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import sys
import types
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable

from .parentdeath import PARENT_ENV, die_with_parent
from .worker import run_point

OnDone = Callable[[Any, dict, int], None]


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _context():
    # forkserver: workers start from a clean, single-threaded server with nicsim imported, so
    # they start fast and never inherit the parent's threads (the progress bar, Dask).
    if sys.platform.startswith("linux"):
        ctx = mp.get_context("forkserver")
        os.environ[PARENT_ENV] = str(os.getpid())
        ctx.set_forkserver_preload(["nicsim.sweep.forkserver_preload", "nicsim.sweep.worker", "nicsim.api"])
        return ctx
    return mp.get_context("spawn")  # pragma: no cover


@contextlib.contextmanager
def _main_hidden():
    """Worker processes start by importing the parent's `__main__` (multiprocessing's safe-
    importing rule), which re-runs a script that calls `sweep` without an `if __name__ ==
    "__main__":` guard, or fails on `python -` and `python -c`. Workers need nothing from
    `__main__` (a task is plain data for `worker.run_point`), so while the pool starts them
    the main module is a bare one."""
    real = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = real


def _died(point, attempts: int, why: str) -> dict:
    return {"key": point.key, "status": "failed", "result": None, "summary": {},
            "error": f"WorkerDied: the worker process died running this point {attempts} time(s) ({why})", "wall_s": None}


def run_local(points: list, workers: int, on_done: OnDone, retries: int = 2) -> None:
    """Runs `points` on `workers` processes, calling `on_done` as each finishes."""
    with _main_hidden():
        _run_local(points, workers, on_done, retries)


def _run_local(points: list, workers: int, on_done: OnDone, retries: int) -> None:
    ctx = _context()
    queue = list(reversed(points))  # pop() from the end keeps grid order
    suspects: list = []
    window = 2 * workers
    while queue:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=die_with_parent)
        inflight: dict = {}
        broken = False
        try:
            while queue or inflight:
                while queue and len(inflight) < window and not broken:
                    p = queue.pop()
                    try:
                        inflight[pool.submit(run_point, p.task())] = p
                    except BrokenProcessPool:
                        queue.append(p)
                        broken = True
                if not inflight:
                    break
                done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for f in done:
                    p = inflight.pop(f)
                    try:
                        rec = f.result()
                    except BrokenProcessPool:
                        suspects.append(p)
                        broken = True
                        continue
                    on_done(p, rec, 1)
                if broken:  # every point still in flight fails the same way; collect them
                    for f, p in list(inflight.items()):
                        try:
                            rec = f.result()
                        except BrokenProcessPool:
                            suspects.append(p)
                        else:
                            on_done(p, rec, 1)
                    inflight.clear()
                    break
        except BaseException:
            # Interrupted (Ctrl-C) or failing: stop now. Finished points are already stored;
            # the running ones are killed rather than waited for and thrown away.
            procs = list((getattr(pool, "_processes", None) or {}).values())
            for proc in procs:
                proc.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
            # The executor's manager thread ends as soon as it sees the killed workers. Joining it
            # here closes a race in CPython's exit hook, which otherwise may write to the wake-up
            # pipe while that thread closes it and print a traceback after our one line.
            manager = getattr(pool, "_executor_manager_thread", None)
            if manager is not None:
                manager.join(timeout=5)
            for proc in procs:
                proc.join(timeout=1)
            raise
        pool.shutdown(wait=True)
        # Suspects run alone: only the point that kills its worker is charged with it.
        for p in suspects:
            _run_alone(p, ctx, on_done, retries)
        suspects.clear()


def _run_alone(p, ctx, on_done: OnDone, retries: int) -> None:
    attempts = 1  # the run that broke the shared pool
    while True:
        attempts += 1
        with ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=die_with_parent) as solo:
            try:
                rec = solo.submit(run_point, p.task()).result()
            except BrokenProcessPool as e:
                if attempts > retries:
                    on_done(p, _died(p, attempts, str(e) or "pool broken"), attempts)
                    return
                continue
        on_done(p, rec, attempts)
        return


def dask_client(address: Any, workers: int):
    """A distributed.Client for `address`: 'local' starts a LocalCluster of `workers`
    single-threaded processes; a Client or an address string ('tcp://host:8786') connects."""
    from distributed import Client, LocalCluster

    if hasattr(address, "submit"):
        return address, None
    if address == "local":
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(address), None  # waits distributed.comm.timeouts.connect (30 s by default)
    except (OSError, ValueError) as e:
        from ..errors import ConfigError

        raise ConfigError(f"--dask {address}: cannot connect to the scheduler: {e}") from None


def run_dask(points: list, client, on_done: OnDone) -> None:
    """Runs `points` on a Dask cluster through `client`, calling `on_done` as each finishes."""
    from distributed import as_completed

    by_future = {}
    for p in points:
        fut = client.submit(run_point, p.task(), key=f"nicsim-point-{p.key}", pure=False)
        by_future[fut] = p
    for fut in as_completed(list(by_future)):
        p = by_future[fut]
        try:
            rec = fut.result()
        except Exception as e:  # KilledWorker after the scheduler's retries, or a lost cluster
            rec = {"key": p.key, "status": "failed", "result": None, "summary": {},
                   "error": f"{type(e).__name__}: {e}", "wall_s": None}
        on_done(p, rec, 1)
        fut.release()
