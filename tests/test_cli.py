import json

from nicsim.api import results_only
import subprocess
import sys


def nicsim(*args, timeout=900):
    return subprocess.run([sys.executable, "-m", "nicsim", *args], capture_output=True, text=True, timeout=timeout)


def test_bench_matches_md1_within_2_percent():
    r = nicsim("bench", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["events_per_s"] > 0 and out["packets"] > 600_000
    assert abs(out["mean_sojourn_us"] / 6.65 - 1) < 0.02


def test_netpipe_json_has_the_documented_keys_and_is_repeatable():
    args = ["netpipe", "ortiz2008-base", "--mode", "pingpong", "--json", "--set", "workload.netpipe.target_ps=10 ms", "--max-size", "4 KiB"]
    a, b = nicsim(*args), nicsim(*args)
    assert a.returncode == 0, a.stderr
    # Identical but for the two timing fields, which measure this machine (docs/output.md).
    out, again = json.loads(a.stdout), json.loads(b.stdout)
    assert json.dumps(results_only(out)) == json.dumps(results_only(again))
    assert out["simulator"]["wall_s"] > 0 and out["simulator"]["simulated_per_wall"] > 0
    assert results_only(out)["simulator"].keys() == {"events", "events_by_kind", "events_per_kib", "pending_max", "simulated_s", "sockets"}
    assert sum(out["simulator"]["events_by_kind"].values()) == out["simulator"]["events"]
    p = out["points"][0]
    for k in ("size_bytes", "throughput_mbps", "latency_us"):
        assert k in p
    assert {"node0.cpu0", "node1.cpu0"} <= set(p["processors"])
    assert set(p["processors"]["node1.cpu0"]["busy"]) == {"copy", "tcpip", "driver", "os", "app", "conn"}
    for k in ("latency_us", "peak_throughput_mbps", "saturation_bytes"):
        assert k in out["summary"]
    assert out["config"]["workload"]["netpipe"]["max_bytes"] == 4096
    sizes = [q["size_bytes"] for q in out["points"]]
    assert sizes[:8] == [1, 2, 3, 4, 6, 8, 12, 13]


def test_readable_table_and_latency_breakdown():
    r = nicsim("netpipe", "ortiz2008-base", "--mode", "pingpong", "--set", "workload.netpipe.target_ps=10 ms", "--max-size", "64 B")
    assert r.returncode == 0, r.stderr
    assert "latency breakdown" in r.stdout and "node1.cpu0" in r.stdout


def test_presets_and_params_list():
    r = nicsim("presets")
    assert "ortiz2008-base" in r.stdout and "ortiz2008-hybrid" in r.stdout
    r = nicsim("params")
    assert "cpu.clock_hz" in r.stdout and "400 MHz" in r.stdout


def test_run_executes_the_workload_a_file_names(tmp_path):
    f = tmp_path / "h.toml"
    f.write_text('preset = "ortiz2008-base"\n[workload]\nkind = "hpcbench"\n[workload.hpcbench]\nduration_ps = "100 ms"\nwarmup_ps = "20 ms"\n')
    r = nicsim("run", str(f), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hpcbench"]["throughput_mbps"] > 0


def test_bad_argument_is_one_line_exit_2():
    r = nicsim("netpipe", "--mode", "sideways")
    assert r.returncode == 2 and "--mode" in r.stderr and "Traceback" not in r.stderr
