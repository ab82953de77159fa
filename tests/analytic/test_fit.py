"""Fitting the modified LAWS: recovery of known deviations, inputs and errors."""

import json

import numpy as np
import pandas as pd
import pytest

from nicsim.analytic import laws as L
from nicsim.analytic.fit import FitError, fit_modified, fit_modified_split, load_points

# Both branches are sampled, so all three deviations are identifiable (laws.md §3.5):
# the rising branch fixes delta_o through C, the falling branch the two products.
FIXED = dict(p=0.75, alpha=1.0, beta=1.0, sigma=0.5)
TRUE = dict(delta_a=0.1, delta_o=-0.05, tau=0.15)
GAMMAS = np.arange(0.0, 3.5 + 1e-9, 0.05)


def synthetic(noise_sd=0.0, seed=7, gammas=GAMMAS, **devs):
    devs = devs or TRUE
    rng = np.random.default_rng(seed)
    clean = L.delta_b_modified(*FIXED.values(), gammas, **devs)
    return pd.DataFrame({"gamma": gammas, "delta_b": clean + rng.normal(0, noise_sd, gammas.size)})


def test_recovers_known_deviations_from_noisy_points():
    noise_sd = 0.005
    fit = fit_modified(synthetic(noise_sd), **FIXED)
    for name, true in TRUE.items():
        assert getattr(fit, name) == pytest.approx(true, abs=max(4 * fit.stderr[name], 0.01))
        assert 0 < fit.stderr[name] < 0.05
    assert fit.rmse == pytest.approx(noise_sd, rel=0.3)
    assert fit.r2 > 0.999
    assert fit.n_points == GAMMAS.size
    np.testing.assert_allclose(fit.residuals, fit.fitted - fit.delta_b)
    np.testing.assert_allclose(fit.predict(GAMMAS), fit.fitted)


def test_noise_free_fit_is_exact():
    fit = fit_modified(synthetic(0.0), **FIXED)
    assert fit.params == pytest.approx(TRUE, abs=1e-6)
    assert fit.rmse < 1e-8
    assert fit.r2 == pytest.approx(1.0)


def test_zero_deviation_points_fit_to_zero_and_match_laws():
    fit = fit_modified(synthetic(0.0, delta_a=0.0, delta_o=0.0, tau=0.0), **FIXED)
    assert fit.params == pytest.approx({"delta_a": 0, "delta_o": 0, "tau": 0}, abs=1e-6)
    np.testing.assert_allclose(fit.laws, L.laws_prediction(*FIXED.values(), GAMMAS))
    np.testing.assert_allclose(fit.above_laws, 0.0, atol=1e-12)


def test_correlation_matrix_and_dict():
    fit = fit_modified(synthetic(0.005), **FIXED)
    corr = fit.correlation
    np.testing.assert_allclose(corr, corr.T)
    np.testing.assert_allclose(np.diag(corr), 1.0)
    d = fit.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text)["params"]["tau"] == pytest.approx(fit.tau)
    assert d["fixed"] == FIXED
    assert len(d["points"]) == GAMMAS.size
    assert d["points"][3]["above_laws"] == pytest.approx(fit.delta_b[3] - fit.laws[3])


def test_falling_branch_only_is_flagged_unidentifiable():
    df = synthetic(0.0)
    fit = fit_modified(df[df["gamma"] > 0.6], **FIXED)
    # The curve is still reproduced: only products of (1+delta) factors matter there.
    assert fit.rmse < 1e-6
    assert all(np.isinf(v) for v in fit.stderr.values())
    assert any("identifiable" in w for w in fit.warnings)
    d = fit.to_dict()
    assert d["stderr"] == {"delta_a": None, "delta_o": None, "tau": None}
    json.dumps(d, allow_nan=False)


def test_parameter_on_a_bound_is_reported():
    df = synthetic(0.0, delta_a=0.1, delta_o=-0.05, tau=0.5)
    fit = fit_modified(df, **FIXED, bounds=(-0.5, 0.2))
    assert -0.5 <= min(fit.params.values()) and max(fit.params.values()) <= 0.2
    assert fit.tau == pytest.approx(0.2)
    assert any("tau sits on its upper bound 0.2" in w for w in fit.warnings)


def test_weights_discount_outliers():
    df = synthetic(0.0)
    df["weight"] = 1.0
    df.loc[[10, 40], "delta_b"] += 0.5
    df.loc[[10, 40], "weight"] = 1e-9
    fit = fit_modified(df, **FIXED)
    assert fit.params == pytest.approx(TRUE, abs=1e-3)


def test_relative_errors_and_gamma_range():
    fit = fit_modified(synthetic(0.0), **FIXED, relative=True)
    assert fit.params == pytest.approx(TRUE, abs=1e-5)
    part = fit_modified(synthetic(0.0), **FIXED, gamma_range=(0.0, 2.0))
    assert part.gamma.max() <= 2.0 and part.n_points == int(np.sum(GAMMAS <= 2.0 + 1e-12))


def test_split_mode_fits_two_sets():
    low, high = fit_modified_split(synthetic(0.0), **FIXED, gamma_split=1.5)
    assert low.gamma.max() <= 1.5 < high.gamma.min()
    assert low.n_points + high.n_points == GAMMAS.size
    assert low.rmse < 1e-6 and high.rmse < 1e-6


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_file_inputs_match_dataframe(tmp_path, suffix):
    df = synthetic(0.005)
    path = tmp_path / f"points.{suffix}"
    getattr(df, f"to_{suffix}")(path, index=False)
    from_file = fit_modified(str(path), **FIXED)
    from_frame = fit_modified(df, **FIXED)
    assert from_file.params == pytest.approx(from_frame.params, abs=1e-12)


def test_too_few_points():
    with pytest.raises(FitError, match="at least 4 points"):
        fit_modified(synthetic(gammas=np.array([0.0, 1.0, 2.0])), **FIXED)
    with pytest.raises(FitError, match=r"gamma in \[3.38, 3.5\] .*; got 3$"):
        fit_modified(synthetic(), **FIXED, gamma_range=(3.38, 3.5))


def test_degenerate_sets():
    repeated = synthetic(gammas=np.array([1.0, 1.0, 2.0, 2.0, 2.0]))
    with pytest.raises(FitError, match="distinct gamma"):
        fit_modified(repeated, **FIXED)
    # Slow link (sigma = 3) and gamma <= 1.5: delta_b = 0 whatever the deviations.
    flat = pd.DataFrame({"gamma": np.linspace(0, 1.5, 8), "delta_b": 0.0})
    with pytest.raises(FitError, match="degenerate"):
        fit_modified(flat, p=1.0, alpha=1.0, beta=1.0, sigma=3.0)


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"gamma": [0, 1, 2, 3]}), "missing delta_b"),
    (pd.DataFrame({"g": [0, 1, 2, 3], "db": [0, 1, 2, 3]}), "missing gamma, delta_b"),
    (pd.DataFrame({"gamma": [0, 1, 2, 3], "delta_b": [0, "x", 1, 2]}), "non-numeric"),
    (pd.DataFrame({"gamma": [0, -1, 2, 3], "delta_b": [0, 1, 1, 2]}), "gamma must be >= 0"),
    (pd.DataFrame({"gamma": [0, 1, 2, 3], "delta_b": [0, 1, 1, 2], "weight": [1, 0, 1, 1]}),
     "weight must be > 0"),
])
def test_malformed_points(frame, message):
    with pytest.raises(FitError, match=message):
        load_points(frame)


def test_bad_paths_and_bounds(tmp_path):
    with pytest.raises(FitError, match="not found"):
        fit_modified(str(tmp_path / "missing.csv"), **FIXED)
    bad = tmp_path / "points.txt"
    bad.write_text("gamma,delta_b\n0,0\n")
    with pytest.raises(FitError, match=".csv or .parquet"):
        fit_modified(str(bad), **FIXED)
    with pytest.raises(FitError, match="bounds"):
        fit_modified(synthetic(), **FIXED, bounds=(-1.0, 1.0))
    with pytest.raises(ValueError, match="sigma"):
        fit_modified(synthetic(), p=1.0, alpha=1.0, beta=1.0, sigma=0.0)
