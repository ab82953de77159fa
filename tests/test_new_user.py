"""The first hour of a new user (issue 19): every mistake gets one clear line naming the key
or option, never a traceback, a panic, a hang or a silent change of meaning."""
import math
import subprocess
import sys

import pytest

import nicsim
from nicsim import api
from nicsim.config import resolve
from nicsim.errors import ConfigError, SimulationError
from nicsim.hpc import run_hpcbench
from nicsim.params import PARAMS

NUMERIC = [p for p in PARAMS if p.kind in ("int", "float", "size", "rate", "freq", "time")]
GARBAGE = ["nan", "inf", "-inf", "-1", "0", 0, 0.0, "1e30", "abc", "1 furlong", "", None, True, [1],
           float("nan"), float("inf"), -5, 10**30, "-1500 B", "12 parsecs"]


def cli(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "nicsim", *args], capture_output=True, text=True, timeout=timeout)


def test_every_number_has_both_bounds():
    assert [p.key for p in NUMERIC if p.min is None or p.max is None] == []


@pytest.mark.parametrize("p", NUMERIC, ids=lambda p: p.key)
def test_garbage_is_refused_by_name_or_accepted_in_range(p):
    for raw in GARBAGE:
        try:
            v = resolve(None, {p.key: raw}).values[p.key]
        except ConfigError as e:
            assert p.key in str(e), (raw, str(e))
            assert "\n" not in str(e)
            continue
        assert isinstance(v, (int, float)) and math.isfinite(v) and p.min <= v <= p.max, (raw, v)


def test_a_huge_miss_time_names_the_key_instead_of_overflowing_time():
    with pytest.raises(ConfigError, match=r"mem\.miss_cycles.*at most"):
        resolve(None, {"mem.miss_cycles": "1e30"})


def test_extreme_hardware_runs_or_fails_clearly():
    """Every hardware key at both ends of its range: the run completes or stops with a
    simulation error of the model (never an internal error, a panic or a hang)."""
    base = {"workload.netpipe.sizes_bytes": "1 B,4 KiB", "workload.netpipe.target_ps": "1 ms",
            "workload.netpipe.stop_ps": "10 ms"}
    for p in NUMERIC:
        if p.key.startswith("workload."):
            continue
        for v in (p.min, p.max):
            try:
                api.run("ortiz2008-offload", {**base, p.key: v if p.kind == "float" else int(v)})
            except ConfigError as e:
                assert p.key.split(".")[1] in str(e) or "must not exceed" in str(e), str(e)
            except SimulationError as e:
                assert "internal error" not in str(e), (p.key, v, str(e))


def test_negative_sizes_and_bare_rates_read_as_written():
    with pytest.raises(ConfigError, match="negative"):
        resolve(None, {"nic.mtu_bytes": "-1500 B"})
    assert resolve(None, {"link.rate_bps": "1e9"}).values["link.rate_bps"] == 10**9


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "1e30", "x"])
def test_bench_duration_is_checked(value):
    r = cli("bench", "--duration", value, timeout=30)
    assert r.returncode == 2 and "--duration" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_gamma_is_checked_on_the_command_line_and_in_the_api(value):
    r = cli("hpcbench", "--gamma", value, timeout=30)
    assert r.returncode == 2 and "--gamma" in r.stderr and "Traceback" not in r.stderr
    with pytest.raises(ConfigError, match="--gamma"):
        run_hpcbench("ortiz2008-base", gamma=float(value))


def test_demo_into_an_existing_file_is_one_line(tmp_path):
    f = tmp_path / "taken"
    f.write_text("mine")
    r = cli("demo", "--quick", "--out", str(f), timeout=30)
    assert r.returncode == 2 and "--out" in r.stderr and "Traceback" not in r.stderr
    assert f.read_text() == "mine"


def test_version_is_reported():
    assert isinstance(nicsim.__version__, str) and nicsim.__version__[0].isdigit()
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"nicsim {nicsim.__version__}"


def test_help_describes_every_option():
    assert "laws" in cli("study", "--help").stdout
    for cmd, option in (("netpipe", "--mode"), ("params", "--markdown"), ("bench", "--json")):
        text = cli(cmd, "--help").stdout
        after = text.rsplit(option, 1)[1].split("\n")  # the options list, not the usage line
        line = after[0] + ("" if after[1].strip().startswith("-") else " " + after[1])
        words = [w for w in line.split() if not w.startswith("{")]
        assert len(words) > 2, f"{cmd} {option} has no help: {line!r}"


def test_a_closed_pipe_is_not_a_traceback():
    r = subprocess.run(f"{sys.executable} -m nicsim params | head -1", shell=True, capture_output=True, text=True, timeout=30)
    assert r.stdout.startswith("run.seed") and "Traceback" not in r.stderr


def _types(x):
    if isinstance(x, dict):
        for v in x.values():
            yield from _types(v)
    elif isinstance(x, list):
        for v in x:
            yield from _types(v)
    else:
        yield type(x)


SHORT = {"workload.netpipe.sizes_bytes": "1 B,4 KiB,64 KiB,1 MiB", "workload.netpipe.target_ps": "5 ms"}


def test_run_returns_plain_python_types_and_frames_for_notebooks():
    r = nicsim.run("ortiz2008-base", SHORT)
    assert set(_types(r)) <= {int, float, str, bool, type(None)}
    f = nicsim.frames(r)
    assert list(f["points"]["size_bytes"]) == [1, 4096, 65536, 1048576]
    assert len(f["processors"]) == 4 * 2 and f["processors"]["utilisation"].between(0, 1).all()


def test_a_section_given_a_value_says_a_table_is_expected(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("nic = 5\n")
    with pytest.raises(ConfigError, match=r"nic: a table of settings is expected"):
        resolve(str(bad))


def test_stream_mode_does_not_call_its_first_time_a_latency():
    r = cli("netpipe", "--set", "workload.netpipe.sizes_bytes=1 B,4 KiB", "--set", "workload.netpipe.target_ps=5 ms")
    assert r.returncode == 0 and "time per message" in r.stdout and "latency (first point" not in r.stdout


def test_the_latency_breakdown_never_shows_negative_bus_waits():
    for preset in ("ortiz2008-base", "ortiz2008-offload", "ortiz2008-onload", "ortiz2008-hybrid"):
        r = cli("netpipe", preset, "--mode", "pingpong", "--set", "workload.netpipe.sizes_bytes=1 B", "--set", "workload.netpipe.target_ps=5 ms")
        for line in r.stdout.splitlines():
            if "bus waits" in line:
                assert float(line.split()[-1]) >= 0, line


def test_the_demo_figure_names_its_preset(tmp_path, monkeypatch):
    import nicsim.plot as plot
    from nicsim import cli as nc

    seen = {}
    monkeypatch.setattr(plot, "plot_netpipe", lambda *a, **k: seen.update(k))
    with pytest.raises(SystemExit) as e:
        nc.main(["demo", "--quick", "--out", str(tmp_path / "demo")])
    assert e.value.code == 0 and "ortiz2008-base" in seen.get("title", "")


def test_report_of_a_missing_store_makes_nothing(tmp_path):
    out = tmp_path / "report"
    r = cli("report", str(tmp_path / "missing.sqlite"), "--out", str(out))
    assert r.returncode == 2 and "not found" in r.stderr and not out.exists()


def test_a_sweep_into_a_missing_folder_is_refused_not_created(tmp_path):
    target = tmp_path / "no" / "such" / "x.sqlite"
    r = cli("sweep", "ortiz2008-base", "--grid", "nic_cpu.speed_fraction=0.5,1", "--out", str(target))
    assert r.returncode == 2 and "does not exist" in r.stderr and not (tmp_path / "no").exists()


def test_store_rows_come_in_grid_order(tmp_path):
    from nicsim.sweep import sweep

    # The first point is the slowest, so with two workers it finishes after the second.
    sizes = ["256 KiB", "1 KiB", "2 KiB"]
    df = sweep("ortiz2008-base", {"workload.netpipe.max_bytes": sizes}, store=tmp_path / "s.sqlite",
               sets={"workload.netpipe.target_ps": "20 ms"}, workers=2, progress=False)
    from nicsim.sweep.store import Store

    again = Store(tmp_path / "s.sqlite", readonly=True).frame()
    want = [256 * 1024, 1024, 2048]
    assert list(again["workload.netpipe.max_bytes"]) == want == list(df["workload.netpipe.max_bytes"])


def test_study_laws_plot_draws_the_fitted_modified_laws_curve(tmp_path, monkeypatch):
    import nicsim.plot as plot
    from nicsim.study import main_study

    drawn = {}
    real = plot.plot_gamma

    def spy(sweep, path, fit=None):
        drawn["fit"] = fit
        real(sweep, path, fit=fit)

    monkeypatch.setattr(plot, "plot_gamma", spy)
    png = tmp_path / "study.png"
    assert main_study(["ortiz2008-offload", "--gammas", "0,0.5,1,2,3", "--duration", "20 ms", "--plot", str(png)]) == 0
    assert drawn["fit"] is not None and png.stat().st_size > 0
    assert drawn["fit"].predict([0.0, 1.0]).shape == (2,)


@pytest.mark.parametrize("args, option", [
    (["gamma-sweep", "--gammas", "nan"], "--gammas"),
    (["gamma-sweep", "--gammas", "0:inf:1"], "--gammas"),
    (["gamma-sweep", "--gammas", "0:1e9:0.001"], "--gammas"),
    (["study", "laws", "ortiz2008-offload", "--gammas", "nan"], "--gammas"),
    (["netpipe", "--max-size", "nan"], "max_bytes"),
    (["hpcbench", "--duration", "inf"], "duration"),
    (["hpcbench", "--msg-size", "-1 B"], "--msg-size"),
    (["laws", "fit", "/nonexistent/points.csv"], "points file not found"),
    (["hpcbench", "--app-work-per-byte", "nan"], "--app-work-per-byte"),
    (["hpcbench", "--app-work-per-byte", "-3"], "--app-work-per-byte"),
    (["hpcbench", "--gamma", "1e9"], "--gamma"),
    (["sweep", "ortiz2008-base", "--grid", "nic.mtu_bytes=1500B", "--workers", "-2", "--out", "/tmp/x.sqlite"], "--workers"),
    (["sweep", "ortiz2008-base", "--grid", "nic.mtu_bytes=1500B", "--retries", "-1", "--out", "/tmp/x.sqlite"], "--retries"),
    (["laws", "--alpha", "nan", "--beta", "0.4", "--gamma", "0:1:0.1", "--sigma", "0.2"], "--alpha"),
])
def test_numeric_options_refuse_garbage_in_one_line(args, option):
    r = cli(*args, timeout=60)
    assert r.returncode != 0 and option in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_laws_fit_help_names_what_is_required():
    text = cli("laws", "fit", "--help").stdout
    assert "Required" in text and "--p" in text.split("Required", 1)[1]


def test_the_demo_prints_its_summary_first_and_two_next_commands(tmp_path):
    r = cli("demo", "--quick", "--out", str(tmp_path / "d"), timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("nicsim demo:") and lines[1].startswith("latency:") and "peak throughput" in lines[2]
    assert "size B" not in r.stdout, "the point tables only on request"
    nxt = lines.index("next:")
    assert all(line.strip().startswith("nicsim ") for line in lines[nxt + 1:nxt + 3])
    tables = cli("demo", "--quick", "--tables", "--out", str(tmp_path / "t"), timeout=120)
    assert tables.stdout.count("size B") == 2
