"""Grid parsing, expansion, and validation of every point before anything runs."""
from __future__ import annotations

import pytest

from nicsim.errors import ConfigError
from nicsim.sweep import build_points, expand, parse_grid_arg, parse_values
from nicsim.sweep.cli import main_sweep

from _sweep_helpers import FAST


def test_list_keeps_values_as_written():
    assert parse_values("cpu.clock_hz", "100MHz,200MHz, 400 MHz") == ["100MHz", "200MHz", "400 MHz"]


def test_semicolon_separates_values_that_hold_commas():
    assert parse_values("workload.netpipe.sizes_bytes", "1KiB,4KiB;64KiB") == ["1KiB,4KiB", "64KiB"]


def test_linear_range_includes_stop():
    vals = parse_values("nic_cpu.speed_fraction", "0:3.5:0.25")
    assert len(vals) == 15 and vals[0] == 0 and vals[-1] == 3.5 and vals[1] == 0.25


def test_linear_range_with_units_gives_base_units():
    assert parse_values("cpu.clock_hz", "100MHz:400MHz:100MHz") == [100_000_000, 200_000_000, 300_000_000, 400_000_000]


def test_linear_range_stops_short_when_step_overshoots():
    assert parse_values("mem.hit_ratio", "0.5:1:0.2") == [0.5, 0.7, 0.9]


def test_log_range_of_sizes_is_powers_of_two():
    assert parse_values("workload.netpipe.max_bytes", "log:1KiB:1MiB:11") == [2**k for k in range(10, 21)]


def test_log_range_of_floats():
    vals = parse_values("nic_cpu.speed_fraction", "log:0.25:4:5")
    assert vals == pytest.approx([0.25, 0.5, 1, 2, 4])


@pytest.mark.parametrize("text, words", [
    ("0:1:0", "step must be greater than 0"),
    ("1:0:0.1", "STOP must not be below"),
    ("log:1KiB:1MiB", "log:START:STOP:N"),
    ("log:0:1:3", "greater than 0"),
    ("log:1:2:x", "whole number"),
    ("0.5,,1", "empty value"),
])
def test_bad_values_say_what_is_wrong(text, words):
    with pytest.raises(ConfigError, match=words):
        parse_values("nic_cpu.speed_fraction", text)


def test_range_end_in_the_wrong_unit_is_named():
    with pytest.raises(ConfigError, match="is not a frequency"):
        parse_values("cpu.clock_hz", "1KiB:2KiB:1KiB")


def test_unknown_key_suggests_the_near_one():
    with pytest.raises(ConfigError, match="did you mean nic_cpu.speed_fraction"):
        parse_grid_arg("nic_cpu.sped_fraction=0.5")


def test_gamma_is_a_key_only_for_hpcbench():
    with pytest.raises(ConfigError, match="only with --benchmark hpcbench"):
        parse_values("gamma", "0,1")
    assert parse_values("gamma", "0:1:0.5", "hpcbench") == [0, 0.5, 1]
    assert parse_values("gamma", "0.5,2", "hpcbench") == [0.5, 2.0]


def test_grid_arg_needs_an_equals_sign():
    with pytest.raises(ConfigError, match="expected KEY=VALUES"):
        parse_grid_arg("cpu.clock_hz")


def test_product_of_two_keys_in_order():
    pts = expand({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(pts) == 6 and pts[0] == {"a": 1, "b": "x"} and pts[-1] == {"a": 2, "b": "z"}


def test_zip_pairs_values_and_needs_equal_lengths():
    assert expand({"a": [1, 2], "b": ["x", "y"]}, zip_=True) == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]
    with pytest.raises(ConfigError, match="same number of values"):
        expand({"a": [1, 2], "b": ["x"]}, zip_=True)


def test_points_resolve_with_swept_values_in_base_units():
    pts = build_points("ortiz2008-offload", {"cpu.clock_hz": ["200 MHz", "400MHz"], "workload.netpipe.max_bytes": ["1 KiB"]}, sets=FAST)
    assert [p.values["cpu.clock_hz"] for p in pts] == [200_000_000, 400_000_000]
    assert pts[0].values["workload.netpipe.max_bytes"] == 1024
    assert pts[0].resolved.values["workload.netpipe.target_ps"] == 5 * 10**9
    assert len({p.key for p in pts}) == 2 and all(len(p.key) == 64 for p in pts)
    assert all(p.placement == "offload" for p in pts)


def test_key_is_content_not_spelling():
    a = build_points("ortiz2008-base", {"cpu.clock_hz": ["400 MHz"]}, sets=FAST)[0]
    b = build_points("ortiz2008-base", {"cpu.clock_hz": ["0.4GHz"]}, sets=FAST)[0]
    assert a.key == b.key


def test_placement_takes_preset_and_placement_names():
    pts = build_points("ortiz2008-base", {"placement": ["ortiz2008-hybrid", "offload", "onload"]}, sets=FAST)
    assert [p.placement for p in pts] == ["hybrid", "offload", "onload"]
    assert pts[1].resolved.values["nic_cpu.present"] is True  # the processor offload needs
    assert pts[2].resolved.values["cpu.count"] == 2


def test_bad_placement_name_lists_the_choices():
    with pytest.raises(ConfigError, match=r"point 1 \(placement=ofload\).*neither a preset.*nor a placement"):
        build_points("ortiz2008-base", {"placement": ["base", "ofload"]}, sets=FAST)


def test_a_bad_point_fails_the_whole_sweep_naming_point_and_key():
    with pytest.raises(ConfigError) as e:
        build_points("ortiz2008-offload", {"cpu.clock_hz": ["400MHz"], "nic_cpu.speed_fraction": ["0.5", "1", "20"]}, sets=FAST)
    msg = str(e.value)
    assert msg.startswith("point 2 (cpu.clock_hz=400MHz, nic_cpu.speed_fraction=20)")
    assert "nic_cpu.speed_fraction" in msg and "at most 10" in msg


def test_cross_key_rule_is_checked_per_point():
    # onload needs cpu1; a grid that turns it off breaks only some points
    with pytest.raises(ConfigError, match=r"point 1 \(cpu.count=1\).*no cpu1"):
        build_points("ortiz2008-onload", {"cpu.count": ["2", "1"]}, sets=FAST)


def test_duplicate_points_are_refused():
    with pytest.raises(ConfigError, match="same configuration as point 0"):
        build_points("ortiz2008-base", {"workload.netpipe.max_bytes": ["1 KiB", "1024 B"]}, sets=FAST)


def test_cli_refuses_a_bad_point_before_running_anything(tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    rc = main_sweep(["sweep", "ortiz2008-offload", "--grid", "nic_cpu.speed_fraction=0.5,1,20",
                     "--set", "workload.netpipe.target_ps=5 ms", "--out", str(store), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "point 2 (nic_cpu.speed_fraction=20)" in err and "nic_cpu.speed_fraction" in err
    assert not store.exists()  # nothing ran, nothing was stored


@pytest.mark.parametrize("argv, named", [
    (["--grid", "cpu.clock_hz"], "--grid 'cpu.clock_hz'"),
    (["--grid", "cpu.clock=1MHz"], "unknown key 'cpu.clock'"),
    (["--grid", "cpu.clock_hz=1:2"], "--grid"),
    (["--grid", "cpu.count=1", "--workers", "0"], "--workers"),
    (["--grid", "cpu.count=1", "--benchmark", "iperf"], "--benchmark"),
    (["--grid", "cpu.count=1", "--set", "nope"], "--set"),
    ([], "--grid"),
])
def test_cli_errors_are_one_line_naming_the_argument(tmp_path, capsys, argv, named):
    rc = main_sweep(["sweep", "ortiz2008-base", *argv, "--out", str(tmp_path / "s.sqlite"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1 and err.startswith("nicsim sweep: ") and "Traceback" not in err
    assert named in err


def test_cli_missing_out_is_named(capsys):
    assert main_sweep(["sweep", "ortiz2008-base", "--grid", "cpu.count=1"]) == 2
    assert "--out" in capsys.readouterr().err


def test_cli_unknown_config_is_named(tmp_path, capsys):
    assert main_sweep(["sweep", "ortiz2008-bse", "--grid", "cpu.count=1", "--out", str(tmp_path / "s")]) == 2
    assert "did you mean 'ortiz2008-base'" in capsys.readouterr().err
