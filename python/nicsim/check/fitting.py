"""The one fitting routine of the calibrations (`calibrate.py`, `calibrate_testa.py`,
`reffit.py`): a simulation's figures against reference figures, by an objective each caller
writes. Every fitted value is positive, so the search runs over their logs (a step is a
ratio, and no value can cross zero); it starts from the values given, with an initial simplex
of one step per value, and stops at its tolerances or after `max_evals` evaluations. The
optimiser is named here and nowhere else: Nelder–Mead, which needs no gradient (each
evaluation is a run of the model, with no derivative to give)."""
from __future__ import annotations

from typing import Callable

import numpy as np
from scipy.optimize import minimize


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
