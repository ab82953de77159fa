"""The frozen default profile against the research: calibration.md T1, T2, T4 and T5, and
only these (no other configuration's number is asserted anywhere)."""
import pytest

from nicsim.calibrate import current_scales, measure


@pytest.fixture(scope="module")
def figures():
    return measure(current_scales())


def test_t1_small_message_latency_is_68_us_within_10_percent(figures):
    assert 61.0 <= figures["t1_latency_us"] <= 75.0


def test_t2_peak_streaming_throughput_is_in_the_230_to_315_mbps_band(figures):
    assert 230.0 <= figures["t2_peak_mbps"] <= 315.0


def test_t4_receiving_cpu0_is_above_90_percent_at_the_peak(figures):
    assert figures["t4_node1_cpu0_util"] > 0.90


def test_t5_real_profile_category_order_is_copy_tcpip_os_driver(figures):
    s = [figures[f"t5_share_{c}"] for c in ("copy", "tcpip", "os", "driver")]
    assert s == sorted(s, reverse=True)
