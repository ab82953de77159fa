"""A single run stops within a second of SIGTERM or Ctrl-C. The core runs in a thread of its
own while the main thread waits, so Python's signal handlers run at once (they run only in
the main thread, between bytecodes, never while it is inside the core); on the signal the core
is asked to stop (`_core.stop`, read where it publishes progress) and the signal's exception
(KeyboardInterrupt, or Terminated for SIGTERM) goes on to the command line's one line and its
exit status (130 or 143). Only the command line turns this on; library calls run directly."""
from __future__ import annotations

import threading
from typing import Any, Callable

enabled = False
# How long a stopped run is given to return before the command exits without it.
GRACE_S = 0.8
WAIT_S = 0.05
_running: list[threading.Event] = []  # set when the core's thread has returned


def call(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)` (a call into the core), stoppable by a signal when enabled."""
    if not enabled or threading.current_thread() is not threading.main_thread():
        return fn(*args)
    from . import _core

    _core.stop(False)
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # handed to the main thread as it was raised
            box["error"] = e
        finally:
            done.set()

    # An Event, not Thread.join: a join that a signal interrupts can leave the thread looking
    # finished while it runs on (CPython 3.11).
    _running.append(done)
    threading.Thread(target=work, name="nicsim-core", daemon=True).start()
    try:
        while not done.wait(WAIT_S):
            pass
    except BaseException:
        _core.stop(True)
        done.wait(GRACE_S)
        raise
    finally:
        if done.is_set():
            _running.remove(done)
    if "error" in box:
        raise box["error"]
    return box["value"]


def exit(code: int) -> None:
    """Exits with `code`; without the interpreter's shutdown while a stopped run has not yet
    returned (a thread inside the core cannot be finalised; the process would abort)."""
    import os
    import sys

    if _running and not all(d.is_set() for d in _running):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
