"""Feedback on a long single run: after a few seconds, a bar on stderr (a terminal only) of
the simulated time the core has reached, against the run's end where the workload has a
fixed window. Only the command line turns it on; library calls and sweep workers stay silent."""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Iterator

# A run shorter than this shows nothing; the bar then refreshes at this interval.
AFTER_S = 2.0
EVERY_S = 0.5

enabled = False


def window_end_ps(values: dict) -> int | None:
    """The simulated time a run ends at, where its workload has one window (NetPIPE: None)."""
    kind = values.get("workload.kind")
    warm, dur = values.get(f"workload.{kind}.warmup_ps"), values.get(f"workload.{kind}.duration_ps")
    return int(warm + dur) if warm is not None and dur is not None else None


@contextmanager
def watching(end_ps: int | None) -> Iterator[None]:
    if not enabled or not sys.stderr.isatty():
        yield
        return
    done = threading.Event()

    def show() -> None:
        if done.wait(AFTER_S):
            return
        from tqdm.auto import tqdm

        from . import _core

        total = end_ps / 1e12 if end_ps else None
        # leave=False: the bar clears itself when the run ends, so no stale line stays behind.
        with tqdm(total=total, unit="s", desc="simulated", file=sys.stderr, dynamic_ncols=True, leave=False,
                  bar_format="{desc}: {n:.2f}/{total:.2f} s |{bar}| {elapsed} elapsed, {remaining} left" if total
                  else "{desc}: {n:.2f} s, {elapsed} elapsed") as bar:
            while not done.wait(EVERY_S):
                bar.n = _core.progress() / 1e12
                bar.refresh()

    t = threading.Thread(target=show, daemon=True)
    t.start()
    try:
        yield
    finally:
        done.set()
        t.join()
