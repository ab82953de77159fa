"""The one fitting routine of the calibrations (`calibrate.py`, `calibrate_testa.py`,
`reffit.py`): a simulation's figures against reference figures, by an objective each caller
writes. Every fitted value is positive, so the search runs over their logs (a step is a
ratio, and no value can cross zero); it starts from the values given, with an initial simplex
of one step per value, and stops at its tolerances or after `max_evals` evaluations. The
optimiser is named here and nowhere else: Nelder–Mead, which needs no gradient (each
evaluation is a run of the model, with no derivative to give)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
from scipy.optimize import minimize

from ..errors import ConfigError


def describe(step: float) -> str:
    """The optimiser as a fit's record names it."""
    return f"Nelder-Mead over log values, initial step {step:g}"


def fit_logs(objective: Callable[[dict[str, float]], float], start: dict[str, float], step: float,
             xatol: float, fatol: float, max_evals: int) -> tuple[dict[str, float], int]:
    """The values (keyed as `start`, in its order) that minimise `objective`, and how many
    times it was evaluated. `xatol` is in log units (0.002: values within 0.2%)."""
    keys = list(start)
    evals = 0

    def f(x):
        nonlocal evals
        evals += 1
        return objective(dict(zip(keys, np.exp(x))))

    x0 = np.log([start[k] for k in keys])
    simplex = np.vstack([x0, x0 + step * np.eye(len(keys))])
    res = minimize(f, x0, method="Nelder-Mead", options={"xatol": xatol, "fatol": fatol, "maxfev": max_evals, "initial_simplex": simplex})
    return dict(zip(keys, np.exp(res.x))), evals


def write_config(path: str, preset: str, values: dict[str, Any], notes: list[str], arg: str = "--out") -> None:
    """A fit's result, written the one way fits write: a configuration extending `preset`
    with the fitted values (dotted keys in their tables) and `notes` as comments above.
    `nicsim validate --config FILE` applies it; no shipped preset or profile is edited."""
    tables: dict[str, dict[str, Any]] = {}
    for k, v in values.items():
        table, _, leaf = k.rpartition(".")
        tables.setdefault(table, {})[leaf] = v
    lines = [*(f"# {n}" for n in notes), f'preset = "{preset}"', ""]
    for table, kv in tables.items():
        lines.append(f"[{table}]")
        lines += [f"{leaf} = {_toml(v)}" for leaf, v in kv.items()]
        lines.append("")
    try:
        Path(path).write_text("\n".join(lines))
    except OSError as e:
        raise ConfigError(f"{arg}: {path!r} cannot be written: {e.strerror}") from None


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return '"' + str(v).replace('\\', '\\\\').replace('"', '\\"') + '"'
