"""The UDP flood of stacks.md §B.8 beside one TCP connection on a saturated Ethernet, with and
without local flow control (roca1996-flood): each flow's sent and received rates and what the
sender's full transmit queue dropped."""
import subprocess
import sys

import pytest

from nicsim import api

SHORT = {"workload.netperf.duration_ps": "300 ms", "workload.netperf.warmup_ps": "100 ms"}


def test_flow_controlled_udp_never_drops_at_the_sender_and_uncontrolled_udp_starves_tcp():
    # The preset is BSD's organisation: no local flow control. The key alone turns it on.
    fc = api.run("roca1996-flood", {**SHORT, "tx.local_flow_control": True})["netperf"]
    bsd = api.run("roca1996-flood", SHORT)["netperf"]
    f, g = fc["udp_flood"], bsd["udp_flood"]
    assert f["sender_dropped_mbps"] == 0 and fc["per_connection"][0]["sender_dropped_mbps"] == 0
    # Flow-controlled, the flood sends what the link takes (10 Mb/s shared with TCP).
    assert f["sent_mbps"] == pytest.approx(f["received_mbps"], rel=0.05) and f["sent_mbps"] < 10
    # Without it the sender never sleeps: it sends several times the link, the queue drops the rest.
    assert g["sent_mbps"] > 2 * 10 and g["sender_dropped_mbps"] > 0.5 * g["sent_mbps"]
    assert g["received_mbps"] < 10
    # TCP's segments meet the full queue too.
    assert bsd["per_connection"][0]["sender_dropped_mbps"] > 0
    assert bsd["aggregate"]["throughput_mbps"] < fc["aggregate"]["throughput_mbps"]


@pytest.mark.parametrize("args,message", [
    (["--set", "tx.queue_frames=0"], "tx.local_flow_control = false needs a bounded"),
    (["--test", "TCP_RR"], "workload.netperf.udp_flood_flows"),
])
def test_bad_flood_settings_get_one_line(args, message):
    r = subprocess.run([sys.executable, "-m", "nicsim", "netperf", "roca1996-flood", *args], capture_output=True, text=True)
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_the_demux_stacks_cc_blocking_is_its_local_flow_control_and_bsds_drops():
    demux = api.run("roca1996-flood", {**SHORT, "org.name": "streams-demux"})["netperf"]
    bsd = api.run("roca1996-flood", {**SHORT, "org.name": "bsd"})["netperf"]
    assert demux["udp_flood"]["sender_dropped_mbps"] == 0 and demux["aggregate"]["throughput_mbps"] > 0.5
    assert bsd["udp_flood"]["sender_dropped_mbps"] > 10
