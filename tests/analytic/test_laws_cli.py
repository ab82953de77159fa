"""`nicsim laws` and `nicsim laws fit` through main_laws."""

import json

import numpy as np
import pandas as pd
import pytest

from nicsim.analytic import laws as L
from nicsim.analytic.cli import main_laws

ISSUE_EXAMPLE = ["--alpha", "1", "--beta", "0.4", "--gamma", "0:3.5:0.1", "--sigma", "0.2"]


def run_json(capsys, argv):
    assert main_laws(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_issue_example_peak_is_where_the_equations_say(capsys):
    out = run_json(capsys, ISSUE_EXAMPLE)
    gammas = [r["gamma"] for r in out["rows"]]
    assert len(gammas) == 36 and gammas[0] == 0.0 and gammas[-1] == 3.5  # stop is inclusive
    db = np.array([r["delta_b"] for r in out["rows"]])
    # c = max(alpha*beta, sigma) = 0.4: peak 1/c = 2.5 at gamma = 0.4.
    (fam,) = out["families"]
    assert fam["c"] == pytest.approx(0.4)
    assert (fam["gamma_peak"], fam["delta_b_peak"]) == pytest.approx((0.4, 2.5))
    assert fam["slope_before_peak"] == pytest.approx(2.5)
    assert gammas[int(np.argmax(db))] == pytest.approx(0.4)
    assert db.max() == pytest.approx(2.5)
    np.testing.assert_allclose(db, L.delta_b(1, 1, 0.4, 0.2, np.array(gammas)))
    assert out["model"] == "LAWS"
    assert "Y/X" in out["conventions"]["alpha"]
    assert out["rows"][0]["bound_1_over_gamma"] is None  # 1/0 has no JSON number


@pytest.mark.parametrize("spec, values", [
    ("0:1:0.25", [0, 0.25, 0.5, 0.75, 1]),
    ("0:1:0.3", [0, 0.3, 0.6, 0.9]),
    ("0.5", [0.5]),
    ("0,2,0.1:0.3:0.1", [0, 2, 0.1, 0.2, 0.3]),
])
def test_value_list_and_range_syntax(capsys, spec, values):
    out = run_json(capsys, ["--alpha", "1", "--beta", "1", "--sigma", "0.5", "--gamma", spec])
    assert [r["gamma"] for r in out["rows"]] == pytest.approx(values)


def test_ranges_in_several_arguments_give_the_product(capsys):
    out = run_json(capsys, ["--alpha", "1,2", "--beta", "0.5:1:0.5", "--sigma", "0.2",
                            "--p", "0.5,1", "--gamma", "0,1,2"])
    assert len(out["families"]) == 8
    assert len(out["rows"]) == 24
    row = next(r for r in out["rows"]
               if (r["p"], r["alpha"], r["beta"], r["gamma"]) == (0.5, 2, 1, 2))
    assert row["delta_b"] == pytest.approx(L.delta_b(0.5, 2, 1, 0.2, 2.0))


def test_spec_vector_l2_and_offload_hurts_column(capsys):
    out = run_json(capsys, ["--alpha", "2", "--beta", "1", "--sigma", "0.5",
                            "--gamma", "0,0.5,1,2,3.5"])
    np.testing.assert_allclose([r["delta_b"] for r in out["rows"]],
                               [-0.5, -0.25, 0.0, 0.5, 0.2857], atol=5e-5)
    assert [r["offload_hurts"] for r in out["rows"]] == [True, True, False, False, False]


def test_speed_fraction_and_absolute_parameters_match_alpha_sigma(capsys):
    direct = run_json(capsys, ["--alpha", "2", "--beta", "1", "--sigma", "0.5", "--gamma", "0:3:1"])
    frac = run_json(capsys, ["--speed-fraction", "0.5", "--beta", "1", "--sigma", "0.5",
                             "--gamma", "0:3:1"])
    # sigma = 1/(o X B) = 1/(2 cycles/bit * 1 ns * 1 Gbps) = 0.5; alpha = Y/X = 2.
    absolute = run_json(capsys, ["--y", "2e-9", "--x", "1e-9", "--o", "2", "--link-bps", "1e9",
                                 "--beta", "1", "--gamma", "0:3:1"])
    for other in (frac, absolute):
        assert [r["delta_b"] for r in other["rows"]] == pytest.approx(
            [r["delta_b"] for r in direct["rows"]])
    assert frac["families"][0]["speed_fraction"] == 0.5
    assert absolute["families"][0]["sigma"] == pytest.approx(0.5)


def test_modified_evaluation_matches_spec_vector_m1(capsys):
    out = run_json(capsys, ["--p", "0.75", "--alpha", "1", "--beta", "1", "--sigma", "1",
                            "--gamma", "0,0.5,1,2,3.5", "--delta-a", "0.05",
                            "--delta-o=-0.05", "--tau", "0.2"])
    assert out["model"] == "modified LAWS"
    np.testing.assert_allclose([r["delta_b"] for r in out["rows"]],
                               [0.0, 0.5, 0.2945, 0.0695, -0.0415], atol=5e-5)
    fam = out["families"][0]
    assert (fam["gamma_peak"], fam["delta_b_peak"]) == pytest.approx((0.5675, 0.5675), abs=5e-5)
    assert fam["limit_gamma_inf"] == pytest.approx(-0.2063, abs=5e-5)


def test_readable_table_without_json(capsys):
    assert main_laws(["--alpha", "1", "--beta", "0.4", "--gamma", "0:0.8:0.4",
                      "--sigma", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "alpha = Y/X" in out
    lines = out.splitlines()
    header = next(line for line in lines if "delta_b " in line and "gamma " in line)
    assert header.split()[:5] == ["p", "alpha", "beta", "sigma", "gamma"]
    assert any(line.split()[4:5] == ["0.4000"] and "2.5000" in line for line in lines)
    assert "gamma_peak" in out and "slope_before_peak" in out


def test_plot_is_written(tmp_path, capsys):
    path = tmp_path / "laws.png"
    assert main_laws(ISSUE_EXAMPLE + ["--alpha", "1,2", "--plot", str(path)]) == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(path) in capsys.readouterr().out


def test_help_returns_zero(capsys):
    assert main_laws(["--help"]) == 0
    assert "--gamma" in capsys.readouterr().out
    assert main_laws(["fit", "--help"]) == 0
    assert "POINTS" in capsys.readouterr().out.upper()


@pytest.mark.parametrize("argv, names", [
    (["--alpha", "1", "--beta", "1", "--sigma", "0.5", "--gamma", "0:x"], "--gamma"),
    (["--alpha", "1", "--beta", "1", "--sigma", "0.5", "--gamma", "1", "--p", "1.5"], "--p"),
    (["--alpha", "1", "--beta", "1", "--sigma", "0.5", "--gamma", "-1"], "--gamma"),
    (["--alpha", "1", "--beta", "1", "--sigma", "0.5", "--gamma", "0:1:0"], "--gamma"),
    (["--alpha", "1", "--beta", "1", "--sigma", "0.5", "--gamma", "1:0:0.1"], "--gamma"),
    (["--alpha", "0", "--beta", "1", "--sigma", "0.5", "--gamma", "1"], "--alpha"),
    (["--beta", "1", "--sigma", "0.5", "--gamma", "1"], "--alpha"),
    (["--alpha", "1", "--speed-fraction", "0.5", "--beta", "1", "--sigma", "0.5",
      "--gamma", "1"], "--speed-fraction"),
    (["--alpha", "1", "--beta", "1", "--gamma", "1"], "--sigma"),
    (["--alpha", "1", "--beta", "1", "--sigma", "0.5", "--o", "2", "--gamma", "1"], "--sigma"),
    (["--alpha", "1", "--sigma", "0.5", "--gamma", "1"], "--beta"),
    (["--alpha", "1", "--beta", "1", "--sigma", "0.5"], "--gamma"),
    (["--alpha", "1", "--beta", "1", "--sigma", "0.5", "--gamma", "1", "--tau", "-1"], "tau"),
    (["--alpha", "1", "--beta", "1", "--sigma", "0.5", "--gamma", "1", "--bogus"], "--bogus"),
    (["--alpha", "1", "--beta", "1", "--sigma", "0.5", "--gamma", "1", "--plot",
      "/nonexistent-dir/x.png"], "--plot"),
])
def test_bad_input_gives_one_line_and_exit_2(capsys, argv, names):
    assert main_laws(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert names in lines[0]
    assert lines[0].startswith("nicsim laws: error:")
    assert "Traceback" not in captured.err


# --- fit ---------------------------------------------------------------------

FIT_FIXED = ["--p", "0.75", "--alpha", "1", "--beta", "1", "--sigma", "0.5"]
TRUE = {"delta_a": 0.1, "delta_o": -0.05, "tau": 0.15}


@pytest.fixture
def points_csv(tmp_path):
    rng = np.random.default_rng(2024)
    gammas = np.arange(0, 3.5 + 1e-9, 0.05)
    db = L.delta_b_modified(0.75, 1, 1, 0.5, gammas, **TRUE) + rng.normal(0, 0.003, gammas.size)
    path = tmp_path / "points.csv"
    pd.DataFrame({"gamma": gammas, "delta_b": db}).to_csv(path, index=False)
    return str(path)


def test_fit_recovers_parameters(capsys, points_csv):
    out = run_json(capsys, ["fit", points_csv] + FIT_FIXED)
    for name, true in TRUE.items():
        assert out["params"][name] == pytest.approx(true, abs=0.02)
        assert out["stderr"][name] > 0
    assert out["r2"] > 0.999
    assert out["fixed"] == {"p": 0.75, "alpha": 1.0, "beta": 1.0, "sigma": 0.5}


def test_fit_with_absolute_parameters(capsys, points_csv):
    direct = run_json(capsys, ["fit", points_csv] + FIT_FIXED)
    absolute = run_json(capsys, ["fit", points_csv, "--p", "0.75", "--speed-fraction", "1",
                                 "--beta", "1", "--o", "2", "--x", "1e-9", "--link-bps", "1e9"])
    assert absolute["fixed"]["sigma"] == pytest.approx(0.5)
    assert absolute["params"] == pytest.approx(direct["params"])


def test_fit_table_and_split(capsys, points_csv, tmp_path):
    plot = tmp_path / "fit.png"
    assert main_laws(["fit", points_csv, *FIT_FIXED, "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "delta_a" in out and "RMSE" in out and "above_laws" in out
    assert plot.read_bytes()[:4] == b"\x89PNG"
    split = run_json(capsys, ["fit", points_csv, *FIT_FIXED, "--split", "1.5"])
    assert [f["subset"] for f in split["fits"]] == ["gamma <= 1.5", "gamma > 1.5"]
    assert sum(f["n_points"] for f in split["fits"]) == 71


@pytest.mark.parametrize("extra, names", [
    (["--p", "0.5,1"], "--p"),
    (["--bounds", "1:0"], "--bounds"),
    (["--bounds", "-1:1"], "--bounds"),
    (["--gamma-range", "a:b"], "--gamma-range"),
    (["--gamma-range", "3.45:3.5"], "POINTS"),
    (["--split", "1", "--gamma-range", "0:1"], "--split"),
])
def test_fit_bad_input(capsys, points_csv, extra, names):
    assert main_laws(["fit", points_csv, *FIT_FIXED, *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and names in err[0] and err[0].startswith("nicsim laws fit: error:")


def test_fit_missing_inputs(capsys, tmp_path, points_csv):
    assert main_laws(["fit", str(tmp_path / "none.csv"), *FIT_FIXED]) == 2
    assert "not found" in capsys.readouterr().err
    # A missing points file is reported before missing options (it was hidden behind them).
    assert main_laws(["fit", str(tmp_path / "none.csv"), "--alpha", "1", "--beta", "1",
                      "--sigma", "0.5"]) == 2
    assert "not found" in capsys.readouterr().err
    assert main_laws(["fit", points_csv, "--alpha", "1", "--beta", "1", "--sigma", "0.5"]) == 2
    assert "--p" in capsys.readouterr().err
    assert main_laws(["fit", *FIT_FIXED]) == 2
    assert "points" in capsys.readouterr().err
    few = tmp_path / "few.csv"
    few.write_text("gamma,delta_b\n0,0\n1,0.5\n2,0.3\n")
    assert main_laws(["fit", str(few), *FIT_FIXED]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "at least 4 points" in err[0]
