"""Processes of a local sweep end when their parent dies, however it died (KILL included):
the kernel's parent-death signal (Linux prctl PR_SET_PDEATHSIG). The pool's fork server takes
it from the sweep by importing `forkserver_preload`, and each worker from the fork server by
the pool's initializer."""
from __future__ import annotations

import os

PARENT_ENV = "NICSIM_SWEEP_PARENT"


def die_with_parent() -> None:
    """On Linux, have the kernel kill this process when the one that started it dies; one
    that finds itself already orphaned exits at once. Elsewhere nothing (the runner's own
    clean-up on Ctrl-C and TERM is all there is)."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the runner's own clean-up is all there is
        return
    # Orphaned before the call took effect: adopted by init. (A sweep that is itself init,
    # as in a container, says so in NICSIM_SWEEP_PARENT and its fork server stays.)
    if os.getppid() == 1 and os.environ.get(PARENT_ENV) != "1":
        os._exit(0)
