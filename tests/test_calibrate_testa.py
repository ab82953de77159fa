"""Test A, the zabaljauregui family's calibration row (docs/calibration.md §6): the frozen
placeholders still meet it, and the pieces the fit rests on behave as stated."""
import pytest

from nicsim import api, calibrate_testa as ta


@pytest.fixture(scope="module")
def test_a():
    return ta.measure(ta.current())


def test_the_frozen_placeholders_meet_test_a(test_a):
    rows = ta.rows(test_a)
    assert [r["figure"] for r in rows if not r["passed"]] == []
    assert {r["figure"] for r in rows if r["fitted"]} == {"throughput_mbps", "idle_percent", "profile weight: locks"}


def test_the_profile_weights_are_shares_of_the_listed_classes(test_a):
    w = test_a["profile_weights"]
    assert set(w) == set(ta.SAMPLES) and sum(w.values()) == pytest.approx(1.0)
    assert sum(ta.TARGET_WEIGHTS.values()) == pytest.approx(1.0)
    # §A.11: __copy_to_user_ll is 18.24% of event 1, the eleven rows 58.93%.
    assert ta.TARGET_WEIGHTS["copy to user"] == pytest.approx(18.2416 / 58.93, rel=2e-3)


SHORT = {"workload.netperf.duration_ps": "40 ms", "workload.netperf.warmup_ps": "10 ms"}


def test_uncontended_locks_are_paid_only_by_an_smp_kernel():
    on = api.run("zabaljauregui-A", SHORT)["processors"]["node2.cpu0"]["busy_by_stage"]
    off = api.run("zabaljauregui-A", {**SHORT, "smp.spinlocks": False})["processors"]["node2.cpu0"]["busy_by_stage"]
    assert on["spin_lock"] > 0 and "spin_lock" not in off
    # One CPU: nothing can hold a lock another processor wants.
    assert "lock_spin" not in on


def test_the_spin_lock_cost_grows_with_the_stages_lock_counts():
    base = api.run("zabaljauregui-A", SHORT)["processors"]["node2.cpu0"]["busy_by_stage"]["spin_lock"]
    more = api.run("zabaljauregui-A", {**SHORT, "costs.rx_tcp.locks": 3})["processors"]["node2.cpu0"]["busy_by_stage"]["spin_lock"]
    assert more > base * 1.2


def test_the_senders_clock_is_theirs_alone():
    slow = api.run("zabaljauregui-A", SHORT)
    same = api.run("zabaljauregui-A", {**SHORT, "topology.client_clock_hz": "0"})
    # Senders as fast as the server fill both links; test A's slower senders do not.
    assert same["netperf"]["aggregate"]["throughput_mbps"] > 1.2 * slow["netperf"]["aggregate"]["throughput_mbps"]
    assert same["processors"]["node0.cpu0"]["utilisation"] < slow["processors"]["node0.cpu0"]["utilisation"]


def test_a_bad_lock_count_names_the_key():
    from nicsim.config import resolve
    from nicsim.errors import ConfigError

    with pytest.raises(ConfigError, match="costs.rx_tcp.locks"):
        resolve("zabaljauregui-A", {"costs.rx_tcp.locks": "1.5"})
