"""The connection-handoff NIC (handoff.md): `nicsim handoff NAME`, its name scheme, the study's
metrics, selection, the memory bound on the hard limit, and the sweep report's section."""
import json
import subprocess
import sys

import pytest

from nicsim import resolve, api
from nicsim.errors import ConfigError
from nicsim.handoff import canonical, parse_name, run_handoff

SHORT = ["workload.web.duration_ps=30 ms", "workload.web.warmup_ps=20 ms", "workload.web.start_spread_ps=10 ms"]


@pytest.mark.parametrize("name,canon", [
    ("W-1024-P-L-FCFS-400", "W-1024-P-L-FCFS-400"),
    ("I-16-N-N-FCFS-600", "I-16-N-N-FCFS-600"),
    ("D-2048-N-L-T4-800", "D-2048-N-L-T4-800"),
    ("S-4096-P-N-T16-400", "S-4096-P-N-T16-400"),
    ("W- 256-P-L-FCFS-400", "W-256-P-L-FCFS-400"),
    (" S -  64 - P - L - T2 - 600 ", "S-64-P-L-T2-600"),
    # Without handoff the policy fields have no effect and print as N-N-FCFS (§10).
    ("W-0-P-L-T4-600", "W-0-N-N-FCFS-600"),
    ("S-   0-N-N-FCFS-800", "S-0-N-N-FCFS-800"),
])
def test_every_form_of_the_name_scheme_parses_to_its_canonical_name(name, canon):
    assert canonical(parse_name(name)) == canon


@pytest.mark.parametrize("name,field", [
    ("X-1024-P-L-FCFS-400", "workload"),
    ("W-ten-P-L-FCFS-400", "maxconns"),
    ("W--1-P-L-FCFS-400", "fields"),
    ("W-1024-Q-L-FCFS-400", "priority"),
    ("W-1024-P-Y-FCFS-400", "loadcontrol"),
    ("W-1024-P-L-T0-400", "selection"),
    ("W-1024-P-L-LIFO-400", "selection"),
    ("W-1024-P-L-FCFS-0", "MIPS"),
    ("W-1024-P-L-FCFS", "fields"),
])
def test_a_malformed_name_names_the_bad_field_and_what_is_allowed(name, field):
    with pytest.raises(ConfigError) as e:
        parse_name(name)
    msg = str(e.value)
    assert field in msg and "\n" not in msg
    assert "allowed" in msg or "expected" in msg


def test_the_cli_refuses_a_malformed_name_in_one_line():
    r = subprocess.run([sys.executable, "-m", "nicsim", "handoff", "W-1024-P-Z-FCFS-400"], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "loadcontrol" in r.stderr and "'Z'" in r.stderr


def test_a_named_run_reports_the_studys_metrics_and_carries_its_canonical_name():
    out = run_handoff("W- 256-P-L-FCFS-400", sets=SHORT)
    h = out["handoff"]
    assert h["name"] == "W-256-P-L-FCFS-400"
    assert "stand-in" in h["workload"]
    assert h["requests_per_s"] > 0 and h["connections_per_s"] > 0
    assert 0 <= h["nic_idle_percent"] <= 100
    assert sum(h["host_profile_percent"].values()) == pytest.approx(100)
    assert all(v >= -1e-9 for v in h["host_profile_percent"].values())
    p = h["packets_per_s"]
    assert p["total"] == pytest.approx(p["rx"] + p["tx"])
    assert p["rx_nic"] > 0 and p["rx_host"] > 0, "both roles of the NIC ran"
    c = h["connections"]
    assert 0 < c["handoffs"] <= c["attempts"] and c["max_owned_run"] <= c["hard_limit"] == 256
    for cls in ("host", "nic"):
        d = h["nic_delay_us"][cls]["rx"]
        assert d["count"] > 0 and 0 < d["p50_us"] <= d["p99_us"]
    # The NIC's MIPS rating sets its speed against the 2 GHz host.
    assert out["config"]["nic_cpu"]["speed_fraction"] == pytest.approx(0.2)


def test_with_the_presets_warm_up_the_nic_holds_its_limit_of_1024_through_the_window():
    # The check as a user runs it: the study's 1,024-connection limit binds.
    c = run_handoff("W-1024-N-N-FCFS-600")["handoff"]["connections"]
    assert c["max_owned_run"] == c["hard_limit"] == 1024
    assert c["nacks_limit"] > 0 and c["owned"] >= 0.95 * 1024


def test_same_name_and_seed_give_identical_results():
    a = api.dumps(api.results_only(run_handoff("S-64-P-L-T2-600", sets=SHORT, seed=3)))
    b = api.dumps(api.results_only(run_handoff("S-64-P-L-T2-600", sets=SHORT, seed=3)))
    assert a == b


def test_the_threshold_policy_hands_over_only_connections_that_reached_it():
    fcfs = run_handoff("W-1024-P-N-FCFS-600", sets=SHORT)["handoff"]["connections"]
    t4 = run_handoff("W-1024-P-N-T4-600", sets=SHORT)["handoff"]["connections"]
    never = run_handoff("W-1024-P-N-T100000-600", sets=SHORT)["handoff"]["connections"]
    assert 0 < t4["attempts"] < fcfs["attempts"]
    assert never["attempts"] == 0


def test_a_hard_limit_beyond_the_nics_memory_is_refused_in_one_line():
    with pytest.raises(ConfigError) as e:
        run_handoff("W-4096-P-L-FCFS-400", sets=["nic.memory_bytes=8 MiB", *SHORT])
    assert "handoff.max_connections" in str(e.value) and "2048" in str(e.value)


def test_replications_report_confidence_intervals():
    out = run_handoff("W-64-P-L-FCFS-400", sets=SHORT, replications=2)
    assert [r["seed"] for r in out["replications"]] == [1, 2]
    s = out["summary"]["requests_per_s"]
    assert s["n"] == 2 and s["ci95_half_width"] >= 0


def test_a_sweep_over_the_policies_is_one_command_and_its_report_has_a_handoff_section(tmp_path):
    store, rep = tmp_path / "h.sqlite", tmp_path / "rep"
    r = subprocess.run([sys.executable, "-m", "nicsim", "sweep", "kimrixner2006", "--grid", "handoff.max_connections=0,256",
                        "--grid", "handoff.priority=fcfs,host_first", *sum((["--set", s] for s in SHORT), []),
                        "--workers", "1", "--out", str(store), "--no-progress"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "nicsim", "report", str(store), "--out", str(rep)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = (rep / "handoff.csv").read_text().splitlines()
    assert len(rows) == 5 and "nic_idle_percent" in rows[0]
    assert "Connection handoff" in (rep / "report.html").read_text()
    assert (rep / "handoff.png").stat().st_size > 0


def test_json_output_is_one_document():
    r = subprocess.run([sys.executable, "-m", "nicsim", "handoff", "I-32-N-L-FCFS-800", "--json", *sum((["--set", s] for s in SHORT), [])],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["handoff"]["name"] == "I-32-N-L-FCFS-800"


def test_a_name_applies_to_any_base_configuration():
    # The name brings the handoff placement and the web workload with it.
    out = run_handoff("W-16-P-L-FCFS-400", config_source="ortiz2008-base",
                      sets=[*SHORT, "workload.web.users=64", "nic.memory_bytes=32 MiB"])
    assert out["handoff"]["name"] == "W-16-P-L-FCFS-400"
    assert out["config"]["nic_cpu"]["speed_fraction"] == pytest.approx(1.0)  # 400 MIPS on the 400 MHz host
    assert out["handoff"]["connections"]["handoffs"] > 0


def test_frames_the_slow_nic_drops_on_their_way_out_count_for_their_own_direction():
    """At 100 MIPS the handoff NIC's host queue overflows with the server's responses: each is
    a drop of what the server sent (before the fix they were charged to the clients' direction
    and the run aborted with dropped > sent)."""
    out = run_handoff("W-1024-N-N-FCFS-100")
    cons = out["conservation"]
    out_of_server = [v for k, v in cons.items() if k.startswith("node4_to_") and v["sent_bytes"]]
    assert out_of_server and all(v["dropped_bytes"] > 0 for v in out_of_server)
    for v in cons.values():
        assert v["sent_bytes"] == v["delivered_bytes"] + v["in_flight_bytes"] + v["dropped_bytes"]
        assert v["dropped_bytes"] <= v["sent_bytes"]


def test_the_frozen_nic_factor_reproduces_its_one_calibration_row_and_scales_only_the_nics_work():
    # handoff.md §13: no handoff, 400 MIPS, the host saturated, the NIC 62% idle.
    fitted = run_handoff("W-0-N-N-FCFS-400")["handoff"]
    assert fitted["host_profile_percent"]["idle"] < 1
    assert fitted["nic_idle_percent"] == pytest.approx(62, abs=2)
    # At the factor 1 (the host's counts) the NIC is nearly idle and the host's work per
    # request is the same: the factor touches the NIC's instructions only.
    unscaled = run_handoff("W-0-N-N-FCFS-400", sets={"handoff.nic_instruction_factor": 1.0})["handoff"]
    assert unscaled["nic_idle_percent"] > 85
    nic_busy_per_request = lambda h: (100 - h["nic_idle_percent"]) / h["requests_per_s"]
    factor = resolve("kimrixner2006").values["handoff.nic_instruction_factor"]
    assert nic_busy_per_request(fitted) == pytest.approx(factor * nic_busy_per_request(unscaled), rel=0.1)
