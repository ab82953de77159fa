"""`nicsim validate`: reference rows from a user's file, tolerances, verdicts, errors."""
import json

import pytest

from nicsim import cli
from nicsim.errors import ConfigError
from nicsim.validation import Row, load_reference, parse_tolerance, validate


def test_tolerances_become_bands():
    assert parse_tolerance("10%", 68.0) == pytest.approx((61.2, 74.8))
    assert parse_tolerance("0.10", 0.5) == pytest.approx((0.4, 0.6))
    assert parse_tolerance("230:315", None) == (230.0, 315.0)
    assert parse_tolerance(">=0.9", None)[0] == 0.9
    assert parse_tolerance("order", None) == "order"
    with pytest.raises(ConfigError, match="tolerance"):
        parse_tolerance("10%", None)
    with pytest.raises(ConfigError, match="tolerance"):
        parse_tolerance("lots", 3.0)


def test_a_users_csv_is_checked_like_the_builtin_rows(tmp_path):
    f = tmp_path / "mine.csv"
    f.write_text("id,preset,command,metric,value,tolerance\n"
                 "lat,ortiz2008-base,pingpong,latency_us,1000,5%\n"
                 "lat-wide,ortiz2008-base,pingpong,latency_us,,1:1000\n")
    rows = load_reference(str(f))
    res = validate(rows)
    assert [r["passed"] for r in res] == [False, True]
    # One run serves both rows: the same model figure.
    assert res[0]["model"] == res[1]["model"]
    assert res[0]["error"] == pytest.approx(res[0]["model"] / 1000 - 1)


def test_a_users_toml_and_an_ordering_row(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('[[row]]\npreset = "ortiz2008-base<ortiz2008-ideal-bus"\ncommand = "pingpong"\nmetric = "latency_us"\ntolerance = "order"\n')
    (r,) = validate(load_reference(str(f)))
    assert set(r["model"]) == {"ortiz2008-base", "ortiz2008-ideal-bus"}
    vals = list(r["model"].values())
    assert r["passed"] == (vals[0] < vals[1])


@pytest.mark.parametrize("text, needle", [
    ("preset,command,metric,value,tolerance\nortiz2008-base,flood,latency_us,1,5%\n", "command 'flood'"),
    ("preset,command,metric,value,tolerance\nortiz2008-base,pingpong,latency_us,abc,5%\n", "value 'abc'"),
    ("preset,command,metric,value\nortiz2008-base,pingpong,latency_us,1\n", "lacks tolerance"),
    ("", "no rows"),
])
def test_bad_reference_files_get_one_line(tmp_path, capsys, text, needle):
    f = tmp_path / "bad.csv"
    f.write_text(text)
    with pytest.raises(SystemExit) as e:
        cli.main(["validate", "--reference", str(f)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_an_unknown_metric_names_the_allowed_ones():
    with pytest.raises(ConfigError, match="allowed: latency_us"):
        validate([Row("x", "ortiz2008-base", "pingpong", "bandwidth", 1.0, "5%")])


def test_validate_json_lists_every_row(tmp_path, capsys):
    f = tmp_path / "one.csv"
    f.write_text("preset,command,metric,value,tolerance\nortiz2008-base,stream,peak_mbps,,1:2000\n")
    with pytest.raises(SystemExit) as e:
        cli.main(["validate", "--reference", str(f), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert e.value.code == 0 and doc["passed"] == doc["total"] == 1
    assert set(doc["rows"][0]) >= {"id", "reference", "model", "error", "tolerance", "passed"}
