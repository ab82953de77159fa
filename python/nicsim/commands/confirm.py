"""How many runs a command may start without being asked: above CONFIRM_RUNS, at a second or
more a run, it would take hours before anything else was said, so the command says how many
and runs only with --yes. One rule for a sweep's grid and a command's --replications."""
from __future__ import annotations

from ..errors import ConfigError

CONFIRM_RUNS = 10_000


def confirm_runs(n: int, yes: bool, what: str, narrow: str) -> None:
    """Refuses `n` runs above CONFIRM_RUNS without `yes`; `what` names them ("the grid has"),
    `narrow` says how to ask for fewer."""
    if n > CONFIRM_RUNS and not yes:
        raise ConfigError(f"{what} {n:,} points (above {CONFIRM_RUNS:,}); add --yes to run it, or {narrow}")


def replications(args) -> None:
    """`--replications`: at least 1, and above CONFIRM_RUNS only with --yes."""
    n = getattr(args, "replications", None)
    if n is None:
        return
    if n < 1:
        raise ConfigError(f"--replications {n}: at least 1")
    if n > CONFIRM_RUNS and not getattr(args, "yes", False):
        raise ConfigError(f"--replications {n:,} is {n:,} runs (above {CONFIRM_RUNS:,}); add --yes to run them, or ask for fewer")
