"""The local timer tick (`sched.tick_hz`): OS intrusion on every host CPU, counted apart from
device interrupts, and the sar-like line of `nicsim netperf`."""
import subprocess
import sys

import pytest

from nicsim import api

SHORT = {"workload.kind": "netperf", "workload.netperf.duration_ps": "100 ms", "workload.netperf.warmup_ps": "10 ms"}


def test_every_host_cpu_ticks_at_hz_and_an_idle_cpu_pays_only_the_tick():
    out = api.run("ortiz2008-two-nics", {**SHORT, "sched.tick_hz": 250})
    procs = out["processors"]
    for k, p in procs.items():
        assert p["timer_irq_per_s"] == pytest.approx(250, abs=1 / 0.1), k
    idle = procs["node2.cpu1"]  # one connection: NIC 1 and cpu1 carry nothing
    assert idle["nic_irq_per_s"] == 0
    assert 0 < idle["utilisation"] < 0.01
    assert idle["busy"]["os"] == pytest.approx(idle["utilisation"])


def test_without_a_tick_nothing_is_counted_or_reported():
    out = api.run("ortiz2008-two-nics", SHORT)
    assert all("timer_irq_per_s" not in p for p in out["processors"].values())
    assert out["processors"]["node2.cpu1"]["utilisation"] == 0


def test_netperf_prints_a_sar_like_line_with_interrupts_by_kind():
    r = subprocess.run([sys.executable, "-m", "nicsim", "netperf", "ortiz2008-two-nics", "--set", "sched.tick_hz=1000",
                        "--set", "workload.netperf.duration_ps=20 ms", "--set", "workload.netperf.warmup_ps=5 ms"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    sar = [line for line in r.stdout.splitlines() if line.startswith("sar (node2)")]
    assert len(sar) == 1 and "local timer 2,000" in sar[0] and "general" in sar[0]
    profile = [line for line in r.stdout.splitlines() if line.startswith("profile (")]
    assert len(profile) == 1 and "copy to user" in profile[0] and "interrupt handling" in profile[0]


def test_busy_time_by_stage_adds_up_to_utilisation_and_names_the_stages():
    out = api.run("ortiz2008-two-nics", {**SHORT, "sched.tick_hz": 250})
    for k, p in out["processors"].items():
        assert sum(p["busy_by_stage"].values()) == pytest.approx(p["utilisation"], abs=1e-9), k
    server = out["processors"]["node2.cpu0"]["busy_by_stage"]
    assert {"rx_copy", "rx_tcp", "irq_entry", "timer_tick"} <= set(server)
    assert set(out["processors"]["node2.cpu1"]["busy_by_stage"]) == {"ipi_handler", "timer_tick"}


def test_spinning_on_a_lock_is_its_own_line_of_the_profile():
    from test_locks import TWO_CPUS_ONE_NIC, WEB

    out = api.run("ortiz2008-two-nics", {**WEB, **TWO_CPUS_ONE_NIC})
    spin_s = sum(p["busy_by_stage"].get("lock_spin", 0.0) for k, p in out["processors"].items()
                 if k.startswith("node1")) * out["web"]["window_s"]
    assert spin_s * 1e6 == pytest.approx(out["nodes"]["node1"]["locks"]["dev_queue"]["spin_us"], rel=1e-6)
