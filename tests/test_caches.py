"""Mode B, the detailed caches (host-path §4.3): every placement runs with them, their counts
are consistent, and a hierarchy whose every access costs X matches mode A's X-cycle mean."""
import subprocess
import sys

import pytest

from nicsim import api, resolve

PRESETS = [f"ortiz2008-cache-l1d{l1}-{p}" for l1 in (16, 32) for p in ("base", "offload", "onload", "hybrid")]
PRESETS += ["ortiz2008-cache-l1d16-offload-niclocal", "ortiz2008-cache-l1d32-offload-niclocal"]


def short(mode="pingpong", sizes="1 B,16 KiB", target="4 ms", **extra):
    return {"workload.netpipe.mode": mode, "workload.netpipe.sizes_bytes": sizes,
            "workload.netpipe.target_ps": target, **extra}


def levels(out, proc):
    return out["points"][-1]["processors"][proc]["cache"]


@pytest.mark.parametrize("preset", PRESETS)
def test_every_cache_preset_runs_and_reports_hit_rates_per_host_cpu(preset):
    out = api.run(preset, short())
    assert out["memory_mode"] == "detailed"
    procs = out["points"][-1]["processors"]
    host = [k for k in procs if ".cpu" in k]
    assert host and all("cache" in procs[k] for k in host)
    assert all("cache" not in v for k, v in procs.items() if k.endswith("nic_cpu"))
    for k in host:
        c = procs[k]["cache"]
        for level in ("l1i", "l1d", "l2"):
            rate = c[level]["read_hit_rate"]
            assert rate is None or 0.0 <= rate <= 1.0
        # Per access, as the thesis counted loads and stores: the hits include the words
        # beyond each work item's line accesses, so never below the per-line rate.
        l1d = c["l1d"]
        accesses = l1d["read_hits"] + l1d["read_word_hits"] + l1d["read_misses"]
        if l1d["read_misses"] == 0:
            continue  # a CPU that ran nothing in the window
        assert l1d["read_hit_rate"] == pytest.approx((l1d["read_hits"] + l1d["read_word_hits"]) / accesses)
        assert l1d["read_line_hit_rate"] == pytest.approx(l1d["read_hits"] / (l1d["read_hits"] + l1d["read_misses"]))
        assert l1d["read_hit_rate"] > l1d["read_line_hit_rate"]
        assert c["l2"]["write_hit_rate"] >= c["l2"]["write_line_hit_rate"]
    fetched = lambda k: procs[k]["cache"]["l1i"]["read_hits"] + procs[k]["cache"]["l1i"]["read_misses"]
    assert sum(fetched(k) for k in host if k.startswith("node1")) > 0
    for cons in out["conservation"].values():
        assert cons["sent_bytes"] == cons["delivered_bytes"] + cons["in_flight_bytes"] + cons["dropped_bytes"]


def test_mode_a_states_its_mode_and_reports_no_caches():
    out = api.run("ortiz2008-base", short(sizes="1 B"))
    assert out["memory_mode"] == "mean"
    assert all("cache" not in p for p in out["points"][0]["processors"].values())
    assert "dma_cache" not in out["points"][0]["nodes"]["node0"]


def test_detailed_mode_on_any_preset_is_deterministic():
    sets = short(**{"mem.mode": "detailed"})
    a, b = api.run("ortiz2008-onload", sets), api.run("ortiz2008-onload", sets)
    assert api.dumps(api.results_only(a)) == api.dumps(api.results_only(b))


def test_a_hierarchy_where_every_access_costs_x_matches_mode_a_with_mean_x():
    """Every level's penalty 0 but the L1D's X, memory 0, instruction fetches free: each data
    reference costs X, as in mode A with h = 1 and a hit time of X. Bridge transactions take no
    time in both, so only the pricing differs."""
    x = 7.0
    common = {"nb.transaction_hold_ps": "0 s", "nb.collision_penalty_cycles": 0}
    a = api.run("ortiz2008-base", short(**common, **{"mem.hit_ratio": 1, "mem.hit_cycles": x}))
    b = api.run("ortiz2008-base", short(**common, **{
        "mem.mode": "detailed", "cache.l1i_read_cycles": 0, "cache.l1d_read_cycles": x,
        "cache.l1d_write_cycles": x, "cache.l2_read_cycles": 0, "cache.l2_write_cycles": 0,
        "cache.memory_cycles": 0}))
    for pa, pb in zip(a["points"], b["points"]):
        assert pb["latency_us"] == pytest.approx(pa["latency_us"], rel=1e-6)
        ua = pa["processors"]["node1.cpu0"]["utilisation"]
        assert pb["processors"]["node1.cpu0"]["utilisation"] == pytest.approx(ua, rel=1e-6)


def test_dma_invalidates_what_the_copy_then_misses_and_allocation_keeps_it_in_the_l2():
    run = lambda policy: api.run("ortiz2008-cache-l1d16-base", short(
        mode="stream", sizes="64 KiB", **{"cache.dma_policy": policy}))
    inv, alloc = run("invalidate"), run("allocate")
    node = lambda out: out["points"][0]["nodes"]["node1"]["dma_cache"]
    assert node(inv)["invalidations"] > 0 and node(inv)["allocations"] == 0
    assert node(alloc)["allocations"] > 0
    l2 = lambda out: levels(out, "node1.cpu0")["l2"]
    assert l2(alloc)["read_hit_rate"] > l2(inv)["read_hit_rate"]


def test_a_shared_l2_counts_coherence_between_the_two_host_cpus():
    out = api.run("ortiz2008-cache-l1d16-onload", short(mode="stream", sizes="64 KiB"))
    procs = out["points"][0]["processors"]
    moved = sum(procs[f"node1.cpu{k}"]["coherence"]["transfers"] for k in (0, 1))
    assert moved > 0
    assert levels(out, "node1.cpu0")["l2"] == levels(out, "node1.cpu1")["l2"], "one shared L2"


def test_the_nic_local_memory_variant_speeds_up_the_offloaded_protocol():
    lat = lambda p: api.run(p, short(sizes="1 B"))["points"][0]["latency_us"]
    assert lat("ortiz2008-cache-l1d16-offload-niclocal") < lat("ortiz2008-cache-l1d16-offload")


def test_a_bad_memory_mode_gets_one_line_naming_the_key():
    r = subprocess.run([sys.executable, "-m", "nicsim", "netpipe", "ortiz2008-base", "--set", "mem.mode=fast"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "mem.mode" in lines[0] and "detailed" in lines[0]


def test_cache_geometry_that_is_not_a_power_of_two_is_refused_with_the_key_named():
    with pytest.raises(Exception) as e:
        api.run("ortiz2008-cache-l1d16-base", short(sizes="1 B", **{"cache.l2_size_bytes": "1036288 B"}))
    assert "cache.l2" in str(e.value)


def test_the_profile_gives_every_stage_that_runs_code_a_footprint():
    stages = resolve("ortiz2008-base").costs["stages"]
    runs = {k: s for k, s in stages.items() if s["i_pkt"] > 0 or s["i_byte"] > 0}
    assert len(runs) >= len(stages) - 1  # wake_activate: counted inside rx_wake in Linux 2.6
    assert all(s["code_bytes"] > 0 for s in runs.values())


@pytest.mark.parametrize("kind,sets,where", [
    ("hpcbench", {"workload.hpcbench.duration_ps": "20 ms", "workload.hpcbench.warmup_ps": "5 ms"}, "hpcbench"),
    ("netperf", {"workload.netperf.duration_ps": "20 ms", "workload.netperf.warmup_ps": "5 ms"}, "netperf"),
    ("web", {"workload.web.duration_ps": "40 ms", "workload.web.warmup_ps": "10 ms", "workload.web.users": 20}, "web"),
])
def test_every_workload_runs_in_mode_b_and_reports_caches(kind, sets, where):
    out = api.run("ortiz2008-cache-l1d16-onload", {"workload.kind": kind, **sets})
    assert out["memory_mode"] == "detailed"
    procs = out[where]["processors"] if "processors" in out[where] else out["processors"]
    assert any("cache" in p for p in procs.values())
    for cons in out["conservation"].values():
        assert cons["sent_bytes"] == cons["delivered_bytes"] + cons["in_flight_bytes"] + cons["dropped_bytes"]
