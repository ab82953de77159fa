"""The web server at the thesis's scale (issue 37): 2,500 users against Apache's 256 workers
and Linux 2.6's 128-entry accept queue, long runs, and the run's health series."""
import pytest

from nicsim.web import run_web

AT_SCALE = {"workload.web.warmup_ps": "9 s", "workload.web.duration_ps": "1 s", "workload.web.page_size_bytes": "5 KiB"}


def health(defer_accept: bool) -> dict:
    out = run_web("ortiz2008-onload", {**AT_SCALE, "workload.web.defer_accept": defer_accept}, users=2500)
    return out["web"]


def test_without_deferred_accept_workers_block_on_requests_the_full_queue_dropped_and_the_server_stalls():
    # Every worker accepted a connection whose bare ACK got in after its request was dropped,
    # and waits for the client's backed-off retransmission: seconds with the server idle.
    w = health(False)
    h = w["health"]
    assert h["stalled_intervals"] >= 10
    stalled = [i for i, (r, u) in enumerate(zip(h["requests_per_s"], h["server_busiest_utilisation"])) if r == 0 and u < 0.05]
    assert len(stalled) == h["stalled_intervals"]


def test_apaches_deferred_accept_keeps_2500_users_served_at_the_servers_capacity():
    w = health(True)
    h = w["health"]
    assert h["stalled_intervals"] == 0
    # In steady state the server's busiest processor is saturated in every interval after the ramp.
    steady = [u for t, u in zip(h["end_s"], h["server_busiest_utilisation"]) if t > 1.0]
    assert min(steady) > 0.9
    assert w["requests_per_s"] > 2500
    assert len(h["requests_per_s"]) == round(10 / h["interval_s"])


def test_a_run_past_65535_connections_keeps_going_in_a_socket_table_the_size_of_the_connections_open():
    # About 3,200 connections a second for 22 s: flow ids are 32-bit, ports are freed as
    # connections retire (TIME_WAIT sits on the server, which closes first), and so is each
    # finished connection's slot in its node's socket table.
    out = run_web("ortiz2008-onload", {"workload.web.warmup_ps": "21 s", "workload.web.duration_ps": "1 s",
                                       "tcp.time_wait_ps": "5 s"}, users=500)
    server = out["nodes"]["node4"]["connections"]
    assert out["web"]["requests_per_s"] > 2500
    assert server["accepted"] > 0
    assert out["web"]["health"]["end_s"][-1] == pytest.approx(22.0)
    total = sum(r * out["web"]["health"]["interval_s"] for r in out["web"]["health"]["requests_per_s"])
    assert total > 65535
    sockets = out["simulator"]["sockets"]
    assert sockets["node4"]["opened"] > 65535
    for node, s in sockets.items():
        # Slots follow the connections open at once (the server's 5 s of TIME_WAIT, a client's
        # users), with the finished ones a sweep waits for, not the connections opened.
        assert s["slots"] <= s["peak_open"] + max(64, s["slots"] // 8), (node, s)
        assert s["opened"] > 3 * s["slots"], (node, s)
    assert sockets["node4"]["peak_open"] == pytest.approx(5 * 3200, rel=0.1)
