"""`nicsim netperf`: many connections and clients against one server (issue 11)."""
import json

from nicsim.api import results_only
import subprocess
import sys

import pytest

from nicsim import api
from nicsim.errors import ConfigError
from nicsim.netperf import ci95, run_netperf

SHORT = {"workload.netperf.duration_ps": "200 ms", "workload.netperf.warmup_ps": "50 ms"}


def cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "nicsim", *args], capture_output=True, text=True, timeout=timeout)


def test_one_connection_streams_as_fast_as_netpipe_and_eight_not_much_faster():
    one = run_netperf("ortiz2008-base", SHORT, msg_size="1 MiB")["netperf"]
    pipe = api.run("ortiz2008-base", {"workload.netpipe.sizes_bytes": "1 MiB", "workload.netpipe.target_ps": "200 ms"})
    np_mbps = pipe["points"][-1]["throughput_mbps"]
    # Within 0.4% at a 500 ns I/O APIC; at the fitted 2.9 us (issue 45) netperf's stream runs
    # 6.6% faster (223 -> 237 Mb/s) while NetPIPE's does not move (222.5 -> 222.2): not yet
    # explained, reported in issue 45's closing note.
    assert one["aggregate"]["throughput_mbps"] == pytest.approx(np_mbps, rel=0.08)
    eight = run_netperf("ortiz2008-base", SHORT, msg_size="1 MiB", connections=8)["netperf"]
    # One CPU-bound receiver: more connections cannot buy much (a little: one stream leaves
    # the receiving CPU a few percent idle between windows, eight keep it busy).
    assert eight["aggregate"]["throughput_mbps"] <= 1.10 * one["aggregate"]["throughput_mbps"]
    assert 1 / 8 <= eight["fairness_jain"] <= 1
    assert len(eight["per_connection"]) == 8


def test_request_response_over_four_clients_reports_latency_and_every_processor():
    out = run_netperf("ortiz2008-base", SHORT, test="TCP_RR", connections=16, clients=4)
    n = out["netperf"]
    assert n["test"] == "TCP_RR" and n["clients"] == 4 and n["server"] == "node4"
    lat = n["latency_us"]
    assert 0 < lat["p50"] <= lat["p90"] <= lat["p99"]
    assert lat["count"] == pytest.approx(n["aggregate"]["transactions_per_s"] * n["window_s"], abs=1)
    assert set(out["processors"]) == {f"node{i}.cpu0" for i in range(5)}
    server = out["processors"]["node4.cpu0"]
    assert server["context_switches_per_s"] > 0 and server["irq_per_s"] > 0
    assert set(out["switch"]) == {f"to_node{i}" for i in range(5)}


def test_same_seed_same_bytes_and_replications_give_a_confidence_interval():
    a = run_netperf("ortiz2008-base", SHORT, test="TCP_RR", connections=8, seed=3)
    b = run_netperf("ortiz2008-base", SHORT, test="TCP_RR", connections=8, seed=3)
    assert json.dumps(results_only(a), sort_keys=True) == json.dumps(results_only(b), sort_keys=True)
    r = run_netperf("ortiz2008-base", SHORT, replications=3, test="TCP_RR", connections=8, seed=3)
    assert [x["seed"] for x in r["replications"]] == [3, 4, 5]
    s = r["summary"]["aggregate.transactions_per_s"]
    vals = [x["aggregate.transactions_per_s"] for x in r["replications"]]
    assert s["n"] == 3 and s["mean"] == pytest.approx(sum(vals) / 3)
    assert s["ci95_half_width"] >= 0


def test_connect_request_response_close_shows_setup_and_teardown_in_the_cpu_time():
    out = run_netperf("ortiz2008-base", SHORT, test="TCP_CRR", connections=64, clients=4)
    n = out["netperf"]
    assert n["test"] == "TCP_CRR" and n["aggregate"]["transactions_per_s"] > 0
    server = out["processors"]["node4.cpu0"]
    assert server["busy"]["conn"] > 0.02
    srv = out["nodes"]["node4"]["connections"]
    opened = sum(out["nodes"][f"node{i}"]["connections"]["opened"] for i in range(4))
    # In the window: the server accepts what the clients open, to within those in flight.
    assert abs(srv["accepted"] - opened) <= 64 and srv["closed"] > 0.9 * srv["accepted"]
    # One connection per transaction costs more than a kept-alive connection's transaction.
    rr = run_netperf("ortiz2008-base", SHORT, test="TCP_RR", connections=64, clients=4)["netperf"]
    assert n["aggregate"]["transactions_per_s"] < 0.7 * rr["aggregate"]["transactions_per_s"]


def test_udp_stream_reports_what_was_sent_and_what_arrived():
    out = run_netperf("ortiz2008-base", SHORT, test="UDP_STREAM", connections=2)
    n = out["netperf"]
    assert n["test"] == "UDP_STREAM" and n["msg_bytes"] == 9000 - 28
    got, sent = n["aggregate"]["throughput_mbps"], n["aggregate"]["sent_mbps"]
    # The 400 MHz receiver cannot keep up with two senders: its sockets overflow.
    assert 0 < got < sent
    assert sum(c["socket_drops"] for c in n["per_connection"]) > 0
    assert all(c["sent_mbps"] >= c["throughput_mbps"] for c in n["per_connection"])
    cons = out["conservation"]
    for d in cons.values():
        assert d["sent_bytes"] == d["delivered_bytes"] + d["in_flight_bytes"] + d["dropped_bytes"]


def test_a_datagram_larger_than_a_frame_is_one_line():
    r = cli("netperf", "ortiz2008-base", "--test", "UDP_STREAM", "--msg-size", "64 KiB", "--duration", "50 ms")
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0 and len(lines) == 1 and "workload.netperf.msg_bytes" in lines[0], r.stderr


def test_a_server_with_two_nics_spreads_their_interrupts_over_its_cpus():
    out = run_netperf("ortiz2008-two-nics", SHORT, connections=2, msg_size="64 KiB")
    assert out["netperf"]["clients"] == 2 and out["netperf"]["server"] == "node2"
    cpu0, cpu1 = out["processors"]["node2.cpu0"], out["processors"]["node2.cpu1"]
    assert cpu0["nic_irq_per_s"] > 0 and cpu1["nic_irq_per_s"] > 0
    assert cpu1["busy"]["tcpip"] > 0
    one = run_netperf("ortiz2008-base", SHORT, msg_size="64 KiB")["netperf"]
    assert out["netperf"]["aggregate"]["throughput_mbps"] > 1.2 * one["aggregate"]["throughput_mbps"]


def test_ephemeral_ports_running_out_is_one_line():
    r = cli("netperf", "ortiz2008-base", "--test", "TCP_CRR", "--duration", "100 ms", "--set", "tcp.ephemeral_ports=10")
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0 and len(lines) == 1 and "tcp.ephemeral_ports = 10" in lines[0], r.stderr


def test_ci95_matches_students_t():
    s = ci95([1.0, 2.0, 3.0])
    # sd = 1, t(0.975, 2) = 4.303
    assert s["mean"] == 2.0 and s["ci95_half_width"] == pytest.approx(4.302653 / 3**0.5, rel=1e-5)


@pytest.mark.parametrize("args, names", [
    (["--test", "SCTP_STREAM"], "--test SCTP_STREAM"),
    (["--connections", "0"], "--connections 0"),
    (["--clients", "0"], "--clients 0"),
    (["--replications", "0"], "--replications 0"),
    (["--clients", "2", "--set", "switch.buffer_bytes=1000 B"], "switch.buffer_bytes"),
    (["--set", "topology.clients=3"], "switch.present"),
])
def test_bad_input_gets_one_line(args, names):
    r = cli("netperf", "ortiz2008-base", *args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and names in lines[0], r.stderr


def test_the_command_prints_a_table_and_documented_json():
    r = cli("netperf", "ortiz2008-base", "--duration", "100 ms", "--warmup", "20 ms", "--connections", "2")
    assert r.returncode == 0, r.stderr
    assert "TCP_STREAM: 2 connection(s)" in r.stdout and "fairness" in r.stdout
    j = json.loads(cli("netperf", "ortiz2008-base", "--duration", "100 ms", "--warmup", "20 ms", "--json").stdout)
    assert {"test", "connections", "clients", "server", "msg_bytes", "window_s", "aggregate", "fairness_jain",
            "latency_us", "per_connection"} <= set(j["netperf"])
    with pytest.raises(ConfigError):
        run_netperf("ortiz2008-base", {**SHORT, "workload.netperf.start_spread_ps": "1 s"})


def test_the_kernels_somaxconn_caps_the_listen_backlog():
    """listen(fd, 128) on a kernel whose net.core.somaxconn is 1 gets a backlog of 1: 64
    connecting clients then overflow it, and the drops are counted."""
    run = lambda som: run_netperf("ortiz2008-base", {"tcp.somaxconn": som, "workload.netperf.duration_ps": "50 ms",
                                                     "workload.netperf.warmup_ps": "10 ms"}, test="TCP_CRR", connections=64)
    assert run(1)["netperf"]["listen_drops_run"] > 0
    assert run(128)["netperf"]["listen_drops_run"] == 0
