from __future__ import annotations

"""The two errors a user can meet: a configuration we refuse, and a run that broke an invariant."""


class ConfigError(ValueError):
    """Bad input. The message names the offending key or argument and what is allowed."""


class SimulationError(RuntimeError):
    """A run broke conservation, a physical bound, or stalled. `partial` holds the result
    document with the points measured before the failure, when there are any."""

    def __init__(self, message: str, partial: dict | None = None):
        super().__init__(message)
        self.partial = partial


class Terminated(BaseException):
    """SIGTERM (what timeout, systemd and SLURM send) arrived: stopped like Ctrl-C. A
    BaseException, as KeyboardInterrupt is, so nothing that catches Exception swallows it."""


def terminate_on_sigterm() -> None:
    """Turns SIGTERM into `Terminated` in the main thread, so the usual clean-up runs."""
    import signal

    def handler(signum, frame):
        raise Terminated()

    signal.signal(signal.SIGTERM, handler)
