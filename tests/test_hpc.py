import pytest

from nicsim import ConfigError
from nicsim.hpc import gamma_sweep, parse_grid, parse_msg_size, run_hpcbench

SHORT = {"workload.hpcbench.warmup_ps": "50 ms"}


def test_message_sizes_read_binary_bits():
    assert parse_msg_size("2 Mbit") == 262_144 and parse_msg_size("8 Kbit") == 1024
    assert parse_msg_size("64 KiB") == 65536
    with pytest.raises(ConfigError, match="--msg-size"):
        parse_msg_size("2 parsecs")


def test_grid_syntax():
    assert parse_grid("0:1:0.25", "--gammas") == [0, 0.25, 0.5, 0.75, 1.0]
    assert parse_grid("0,2", "--gammas") == [0.0, 2.0]
    with pytest.raises(ConfigError, match="--gammas"):
        parse_grid("1:0:1", "--gammas")


def test_realised_gamma_follows_nominal_and_load_lowers_throughput():
    r0 = run_hpcbench("ortiz2008-base", SHORT, gamma=0.0, duration="0.5 s")
    r2 = run_hpcbench("ortiz2008-base", SHORT, gamma=2.0, duration="0.5 s")
    assert r2["laws"]["gamma_realised"] == pytest.approx(2.0, rel=0.1)
    assert r2["hpcbench"]["throughput_mbps"] < 0.6 * r0["hpcbench"]["throughput_mbps"]
    # The base system keeps all communication on cpu0: p ≈ 0.
    assert r0["laws"]["p"] < 0.05
    busy = r2["hpcbench"]["processors"]["node1.cpu0"]["busy"]
    assert busy["app"] > 0.4


def test_offload_moves_part_of_the_work_and_reports_laws_quantities():
    r = run_hpcbench("ortiz2008-offload", SHORT, gamma=0.5, duration="0.5 s")
    q = r["laws"]
    assert 0 < q["p"] < 1 and q["beta"] > 0 and q["alpha"] == 1.0
    assert q["sigma"] > 0 and q["o"] > 0
    slow = run_hpcbench("ortiz2008-offload", {**SHORT, "nic_cpu.speed_fraction": "0.5"}, gamma=0.5, duration="0.3 s")
    assert slow["laws"]["alpha"] == 2.0


def test_gamma_sweep_rows():
    out = gamma_sweep("ortiz2008-onload", SHORT, [0.0, 1.0], ["8 Kbit"], duration="0.3 s")
    rows = out["sweeps"]["1024"]
    assert [r["gamma"] for r in rows] == [0.0, 1.0]
    for r in rows:
        assert r["delta_b"] == pytest.approx(r["placed_mbps"] / r["base_mbps"] - 1)
    assert rows[1]["base_mbps"] < rows[0]["base_mbps"]


def test_gamma_and_a_are_exclusive():
    with pytest.raises(ConfigError, match="exclusive"):
        run_hpcbench("ortiz2008-base", SHORT, gamma=1.0, a=5.0)


def test_study_laws_reports_table_fit_and_violations(tmp_path):
    from nicsim.study import main_study

    plot = tmp_path / "s.png"
    import contextlib
    import io
    import json

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main_study(["ortiz2008-offload", "--gammas", "0:3:0.5", "--duration", "0.3 s", "--msg-size", "8 Kbit", "--json", "--plot", str(plot), "--set", "workload.hpcbench.warmup_ps=50 ms"])
    assert rc == 0 and plot.stat().st_size > 10_000
    out = json.loads(buf.getvalue())
    assert len(out["rows"]) == 7 and "violations" in out
    assert set(out["modified_laws_fit"]["params"]) >= {"delta_a", "delta_o", "tau"}
    # Every listed violation really is above its bound.
    assert all(v["simulated_mbps"] > v["laws_bound_mbps"] for v in out["violations"])
