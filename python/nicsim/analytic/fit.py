"""Least-squares fit of the modified LAWS deviations to (gamma, delta_b) points.

laws.md §4.3: p, alpha, beta and sigma are held fixed; delta_a, delta_o and
tau are fitted with bounds by a bounded trust-region solver from a
deterministic grid of starts, because the min() terms put kinks in the
objective.  Standard errors come from the Jacobian at the optimum; parameters
the points cannot constrain (laws.md §3.5) are reported with an infinite
standard error and a warning instead of a spurious number.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

from .laws import delta_b_modified, laws_prediction

PARAMS = ("delta_a", "delta_o", "tau")
DEFAULT_BOUNDS = (-0.9, 10.0)
MIN_POINTS = len(PARAMS) + 1  # one residual degree of freedom for the error estimate
MIN_DISTINCT_GAMMAS = 3
CORRELATION_WARN = 0.95
_START_GRID = (-0.5, 0.0, 0.5, 2.0)


class FitError(ValueError):
    """The points cannot be fitted (too few, degenerate, malformed)."""


def load_points(points) -> pd.DataFrame:
    """Points as a DataFrame with float columns gamma, delta_b and weight.

    *points* is a DataFrame or a path to a .csv or .parquet file with columns
    ``gamma`` and ``delta_b`` and an optional positive ``weight`` (default 1).
    """
    if isinstance(points, (str, Path)):
        path = Path(points)
        if not path.is_file():
            raise FitError(f"points file not found: {path}")
        try:
            if path.suffix.lower() in (".parquet", ".pq"):
                df = pd.read_parquet(path)
            elif path.suffix.lower() == ".csv":
                df = pd.read_csv(path)
            else:
                raise FitError(f"points file must be .csv or .parquet, got {path.name}")
        except FitError:
            raise
        except Exception as exc:  # pandas raises many types for unreadable files
            raise FitError(f"cannot read points file {path}: {exc}") from exc
    elif isinstance(points, pd.DataFrame):
        df = points
    else:
        raise FitError(f"points must be a DataFrame or a file path, got {type(points).__name__}")

    missing = [c for c in ("gamma", "delta_b") if c not in df.columns]
    if missing:
        raise FitError(f"points need columns gamma and delta_b; missing {', '.join(missing)} "
                       f"(found: {', '.join(map(str, df.columns)) or 'none'})")
    out = pd.DataFrame({"gamma": pd.to_numeric(df["gamma"], errors="coerce"),
                        "delta_b": pd.to_numeric(df["delta_b"], errors="coerce")})
    out["weight"] = pd.to_numeric(df["weight"], errors="coerce") if "weight" in df.columns else 1.0
    out = out.astype(float).reset_index(drop=True)
    if not np.all(np.isfinite(out.to_numpy())):
        raise FitError("points contain missing or non-numeric values")
    if (out["gamma"] < 0).any():
        raise FitError("gamma must be >= 0 in every point")
    if (out["weight"] <= 0).any():
        raise FitError("weight must be > 0 in every point")
    return out


@dataclass
class ModifiedFit:
    """Result of :func:`fit_modified`.

    Arrays are per point.  ``laws`` is the original-LAWS delta_b at each gamma
    and ``above_laws`` the point's distance above it (negative below).
    ``stderr`` is inf for a parameter the points do not constrain.
    """

    delta_a: float
    delta_o: float
    tau: float
    stderr: dict
    correlation: np.ndarray
    rmse: float
    r2: float
    p: float
    alpha: float
    beta: float
    sigma: float
    bounds: tuple
    gamma: np.ndarray
    delta_b: np.ndarray
    fitted: np.ndarray
    laws: np.ndarray
    warnings: list = field(default_factory=list)
    relative: bool = False
    gamma_range: tuple | None = None

    @property
    def n_points(self) -> int:
        return int(self.gamma.size)

    @property
    def params(self) -> dict:
        return {"delta_a": self.delta_a, "delta_o": self.delta_o, "tau": self.tau}

    @property
    def residuals(self) -> np.ndarray:
        return self.fitted - self.delta_b

    @property
    def above_laws(self) -> np.ndarray:
        return self.delta_b - self.laws

    def predict(self, gammas) -> np.ndarray:
        """Modified-LAWS delta_b at *gammas* with the fitted deviations."""
        return np.atleast_1d(delta_b_modified(self.p, self.alpha, self.beta, self.sigma,
                                              np.asarray(gammas, dtype=float), **self.params))

    def to_dict(self) -> dict:
        """JSON-ready dict; non-finite numbers (e.g. an unconstrained stderr) become None."""
        return _jsonable({
            "model": "modified LAWS (multiplicative deviations, corrected CP term)",
            "params": self.params,
            "stderr": self.stderr,
            "correlation": {"names": list(PARAMS), "matrix": self.correlation.tolist()},
            "rmse": self.rmse,
            "r2": self.r2,
            "n_points": self.n_points,
            "fixed": {"p": self.p, "alpha": self.alpha, "beta": self.beta, "sigma": self.sigma},
            "bounds": list(self.bounds),
            "relative": self.relative,
            "gamma_range": list(self.gamma_range) if self.gamma_range else None,
            "warnings": list(self.warnings),
            "points": [
                {"gamma": g, "delta_b": d, "fitted": f, "residual": f - d, "laws": law,
                 "above_laws": d - law}
                for g, d, f, law in zip(self.gamma, self.delta_b, self.fitted, self.laws)
            ],
        })


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, float, np.integer, np.floating)):
        return float(x) if np.isfinite(x) else None
    return x


def fit_modified(points, p, alpha, beta, sigma, *, bounds=DEFAULT_BOUNDS,
                 relative=False, relative_floor=1e-2, gamma_range=None) -> ModifiedFit:
    """Fit delta_a, delta_o and tau of the modified LAWS to measured points.

    points: DataFrame or .csv/.parquet path (see :func:`load_points`).
    p, alpha, beta, sigma: fixed LAWS parameters (alpha = Y/X, laws.md §2.3).
    bounds: (low, high) for every deviation, low > -1.
    relative: minimise errors relative to max(|delta_b|, relative_floor)
      instead of absolute ones; the floor keeps delta_b = 0 points usable.
    gamma_range: (low, high) inclusive, to fit only part of the curve.
    The objective is sum(weight * error**2).  RMSE and R^2 are unweighted
    absolute figures so fits with different options stay comparable.
    """
    low, high = (float(b) for b in bounds)
    if not (-1.0 < low < high):
        raise FitError(f"bounds must satisfy -1 < low < high; got ({low:g}, {high:g})")
    df = load_points(points)
    if gamma_range is not None:
        g_lo, g_hi = gamma_range
        df = df[(df["gamma"] >= g_lo) & (df["gamma"] <= g_hi)].reset_index(drop=True)
    n = len(df)
    if n < MIN_POINTS:
        where = f" with gamma in [{gamma_range[0]:g}, {gamma_range[1]:g}]" if gamma_range else ""
        raise FitError(f"need at least {MIN_POINTS} points{where} to fit 3 parameters "
                       f"with an error estimate; got {n}")
    if df["gamma"].nunique() < MIN_DISTINCT_GAMMAS:
        raise FitError(f"degenerate point set: need at least {MIN_DISTINCT_GAMMAS} distinct "
                       f"gamma values, got {df['gamma'].nunique()}")

    gamma = df["gamma"].to_numpy()
    observed = df["delta_b"].to_numpy()
    laws = laws_prediction(p, alpha, beta, sigma, gamma)  # also validates p, alpha, beta, sigma
    scale = np.maximum(np.abs(observed), relative_floor) if relative else np.ones(n)
    sqrt_w = np.sqrt(df["weight"].to_numpy()) / scale

    def model(x):
        return np.atleast_1d(delta_b_modified(p, alpha, beta, sigma, gamma, *x))

    def residuals(x):
        return sqrt_w * (model(x) - observed)

    # Starts sit strictly inside the bounds; the solver rejects starts on them.
    inset = 1e-6 * (high - low)
    best = None
    for x0 in itertools.product(_START_GRID, repeat=len(PARAMS)):
        x0 = np.clip(x0, low + inset, high - inset)
        res = least_squares(residuals, x0, bounds=(low, high), method="trf")
        if best is None or res.cost < best.cost - 1e-15:
            best = res

    x = best.x
    fitted = model(x)
    jac = best.jac
    col_norm = np.linalg.norm(jac, axis=0)
    if np.all(col_norm <= 1e-10):
        raise FitError("degenerate point set: none of delta_a, delta_o, tau changes the model "
                       "at these gammas (e.g. all points where the link caps both throughputs)")

    stderr, corr, warns = _uncertainty(jac, residuals(x), n, x, (low, high), best.active_mask)
    err = fitted - observed
    ss_tot = float(np.sum((observed - observed.mean()) ** 2))
    return ModifiedFit(
        delta_a=float(x[0]), delta_o=float(x[1]), tau=float(x[2]),
        stderr=stderr, correlation=corr,
        rmse=float(np.sqrt(np.mean(err ** 2))),
        r2=float(1.0 - np.sum(err ** 2) / ss_tot) if ss_tot > 0 else float("nan"),
        p=float(p), alpha=float(alpha), beta=float(beta), sigma=float(sigma),
        bounds=(low, high), gamma=gamma, delta_b=observed, fitted=fitted, laws=laws,
        warnings=warns, relative=bool(relative),
        gamma_range=tuple(map(float, gamma_range)) if gamma_range is not None else None,
    )


def _uncertainty(jac, resid, n, x, bounds, active_mask):
    """Covariance-based standard errors, correlations and identifiability warnings."""
    k = len(PARAMS)
    warns = []
    _, sv, vt = np.linalg.svd(jac, full_matrices=False)
    tol = max(sv.max(), 1e-300) * 1e-7
    null = vt[sv <= tol]
    # A parameter is unconstrained if it has a component along a direction the
    # points cannot see (laws.md §3.5: on the falling branch only products of
    # (1+delta) factors matter, so the Jacobian loses rank).
    unconstrained = np.any(np.abs(null) > 1e-6, axis=0) if null.size else np.zeros(k, bool)
    s2 = float(resid @ resid) / (n - k)
    cov = s2 * np.linalg.pinv(jac.T @ jac, rcond=1e-12)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    se[unconstrained] = np.inf
    stderr = {name: float(v) for name, v in zip(PARAMS, se)}
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(np.sqrt(np.diag(cov)), np.sqrt(np.diag(cov)))
    corr[unconstrained, :] = np.nan
    corr[:, unconstrained] = np.nan

    col_norm = np.linalg.norm(jac, axis=0)
    for i, name in enumerate(PARAMS):
        if col_norm[i] <= 1e-10:
            warns.append(f"{name} does not affect the model at these points: it is unconstrained "
                         f"(value left at {x[i]:.4g})")
        elif unconstrained[i]:
            warns.append(f"{name} is not separately identifiable from the other deviations on "
                         f"these points (laws.md §3.5); only a combination is constrained")
        if active_mask[i] != 0:
            side = "lower" if active_mask[i] < 0 else "upper"
            warns.append(f"{name} sits on its {side} bound {bounds[0 if side == 'lower' else 1]:g}")
    for i, j in itertools.combinations(range(k), 2):
        if np.isfinite(corr[i, j]) and abs(corr[i, j]) > CORRELATION_WARN:
            warns.append(f"{PARAMS[i]} and {PARAMS[j]} are strongly correlated "
                         f"(r = {corr[i, j]:+.3f})")
    return stderr, corr, warns


def fit_modified_split(points, p, alpha, beta, sigma, gamma_split, **kwargs):
    """The thesis's two-set mode: fits for gamma <= gamma_split and gamma > gamma_split."""
    df = load_points(points)
    low = fit_modified(df[df["gamma"] <= gamma_split], p, alpha, beta, sigma, **kwargs)
    high = fit_modified(df[df["gamma"] > gamma_split], p, alpha, beta, sigma, **kwargs)
    return low, high
