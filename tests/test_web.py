"""`nicsim web`: a static web server under closed-loop users (issue 14, first slice)."""
import json
import subprocess
import sys

import pytest

from nicsim import api
from nicsim.netperf import run_netperf
from nicsim.web import run_web

# The request path's mechanisms are checked with users that ask again as soon as they have
# read (no line-rate limit), as they were written before the limit.
SHORT = {"workload.web.duration_ps": "300 ms", "workload.web.warmup_ps": "100 ms", "workload.web.user_rate_bps": "0"}


def cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "nicsim", *args], capture_output=True, text=True, timeout=timeout)


def test_one_user_keep_alive_costs_a_request_response_plus_the_servers_own_work():
    sizes = {"workload.web.page_size_bytes": "200 B", "workload.web.request_bytes": "200 B",
             "workload.web.requests_per_connection": "0"}
    web = run_web("ortiz2008-base", {**SHORT, **sizes}, users=1, think="5 ms", keep_alive=True, clients=1)
    w = web["web"]
    rr = run_netperf("ortiz2008-base", {"workload.netperf.duration_ps": "300 ms", "workload.netperf.warmup_ps": "100 ms"},
                     test="TCP_RR", msg_size="200 B")["netperf"]
    extra_ms = w["response_time_ms"]["mean"] - rr["latency_us"]["mean"] / 1000
    # The server's application work per request (Apache's parsing, lookup, logging).
    app_ms = web["processors"]["node1.cpu0"]["busy"]["app"] * w["window_s"] / w["response_time_ms"]["count"] * 1000
    assert extra_ms == pytest.approx(app_ms, rel=0.1)
    assert web["processors"]["node1.cpu0"]["busy"]["conn"] == 0  # one connection, opened before the window


def test_a_connection_per_request_adds_the_connection_setup_netperf_measures():
    sizes = {**SHORT, "workload.web.page_size_bytes": "200 B", "workload.web.request_bytes": "200 B",
             "workload.web.requests_per_connection": "0"}
    one = dict(users=1, think="5 ms", clients=1)
    kept = run_web("ortiz2008-base", sizes, keep_alive=True, **one)["web"]["response_time_ms"]["mean"]
    fresh = run_web("ortiz2008-base", sizes, **one)["web"]["response_time_ms"]["mean"]
    window = {"workload.netperf.duration_ps": "300 ms", "workload.netperf.warmup_ps": "100 ms"}
    lat = {t: run_netperf("ortiz2008-base", window, test=t, msg_size="200 B")["netperf"]["latency_us"]["mean"] / 1000
           for t in ("TCP_RR", "TCP_CRR")}
    # Connection setup as netperf sees it: a TCP_CRR transaction less a TCP_RR one. Within
    # 10%: TCP_CRR's back-to-back transactions also meet the previous connection's teardown,
    # which the web client's think time keeps off the response.
    assert fresh - kept == pytest.approx(lat["TCP_CRR"] - lat["TCP_RR"], rel=0.1)


def test_a_connection_per_request_pays_setup_and_teardown():
    ka = run_web("ortiz2008-base", SHORT, users=1, think="5 ms", keep_alive=True, clients=1)["web"]
    out = run_web("ortiz2008-base", SHORT, users=1, think="5 ms", clients=1)
    w = out["web"]
    assert w["response_time_ms"]["mean"] > ka["response_time_ms"]["mean"]
    assert w["connections_per_s"] == pytest.approx(w["requests_per_s"], rel=0.05)
    assert out["processors"]["node1.cpu0"]["busy"]["conn"] > 0
    for d in out["conservation"].values():
        assert d["sent_bytes"] == d["delivered_bytes"] + d["in_flight_bytes"] + d["dropped_bytes"]


@pytest.mark.parametrize("preset", ["ortiz2008-base", "ortiz2008-offload", "ortiz2008-onload", "ortiz2008-hybrid"])
def test_every_placement_serves_and_the_default_client_is_not_the_bottleneck(preset):
    w = run_web(preset, SHORT)["web"]
    assert w["requests_per_s"] > 0 and w["bandwidth_mbps"] > 0
    assert all(c["busiest_utilisation"] < 0.9 for c in w["clients"])


def test_vs_base_reports_the_improvement_and_replications_a_confidence_interval():
    out = run_web("ortiz2008-offload", SHORT, users=200, vs_base=True, replications=2)
    v = out["vs_base"]["requests_per_s"]
    assert v["improvement_percent"] == pytest.approx((v["this"] / v["base"] - 1) * 100)
    assert out["summary"]["requests_per_s"]["n"] == 2


@pytest.mark.parametrize("args, names", [
    (["--mix", "specweb99"], "workload.web.mix"),
    (["--trace", "missing.csv"], "workload.web.trace_file"),
    (["--users", "0"], "--users 0"),
    (["--page-size", "-5 KiB"], "workload.web.page_size_bytes"),
    (["--set", "workload.web.pipeline_depth=0"], "workload.web.pipeline_depth"),
    (["--set", "workload.web.pipeline_depth=2"], "workload.web.pipeline_depth = 2"),
])
def test_bad_input_gets_one_line(args, names):
    r = cli("web", "ortiz2008-base", *args)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and names in lines[0], r.stderr


def test_pipelined_requests_go_out_back_to_back_and_the_worker_finds_the_next_one_waiting():
    kw = dict(users=8, think="2 ms", keep_alive=True, clients=1)
    sets = {**SHORT, "workload.web.requests_per_connection": "4"}
    one = run_web("ortiz2008-base", sets, **kw)
    two = run_web("ortiz2008-base", {**sets, "workload.web.pipeline_depth": "2"}, **kw)
    w1, w2 = one["web"], two["web"]

    def wakeups_per_request(out):
        return out["nodes"]["node1"]["wakeups_per_s"] / out["web"]["requests_per_s"]
    # One request at a time, the worker sleeps in recv() before each request but a
    # connection's first (which deferred accept brings); two back to back, before each pair's
    # first only, the second being in its socket when it has answered the first: a wake-up
    # saved per pair, half a wake-up per request.
    assert wakeups_per_request(one) - wakeups_per_request(two) == pytest.approx(0.5, abs=0.1)
    # The second response waits behind the first; one think time per pair, not per request.
    assert w2["response_time_ms"]["mean"] > 1.5 * w1["response_time_ms"]["mean"]
    assert w2["requests_per_s"] > w1["requests_per_s"]
    for w in (w1, w2):
        # Each request is answered with its page, and a connection carries its 4 requests.
        assert w["bandwidth_mbps"] * 1e6 / 8 / w["requests_per_s"] == pytest.approx(5120, rel=0.02)
        assert w["connections_per_s"] * 4 == pytest.approx(w["requests_per_s"], rel=0.1)
    read = {n: two["nodes"][n]["app_bytes_read"] for n in ("node0", "node1")}
    assert read["node0"] / 5120 == pytest.approx(read["node1"] / 200, rel=0.02)
    for d in two["conservation"].values():
        assert d["sent_bytes"] == d["delivered_bytes"] + d["in_flight_bytes"] + d["dropped_bytes"]


def test_specweb99_static_and_lognormal_mixes_draw_sizes_with_their_means():
    spec = run_web("ortiz2008-base", SHORT, users=200, mix="specweb99_static")["web"]
    # Mean size of the class shares and the even choice within a class: about 14.6 KiB.
    mean = spec["bandwidth_mbps"] * 1e6 / 8 / spec["requests_per_s"]
    assert mean == pytest.approx(0.35 * 512 + 0.50 * 5120 + 0.14 * 51200 + 0.01 * 512000, rel=0.35)
    logn = run_web("ortiz2008-base", {**SHORT, "workload.web.page_size_bytes": "8 KiB"}, users=200, mix="lognormal",
                   keep_alive=True)["web"]
    assert "stand-in" in logn["mix"]
    assert logn["bandwidth_mbps"] * 1e6 / 8 / logn["requests_per_s"] == pytest.approx(8192, rel=0.35)


def test_the_command_prints_a_table_and_json():
    r = cli("web", "ortiz2008-base", "--users", "50", "--duration", "100 ms", "--warmup", "50 ms")
    assert r.returncode == 0, r.stderr
    assert "requests/s" in r.stdout and "response time" in r.stdout
    j = json.loads(cli("web", "ortiz2008-base", "--users", "50", "--duration", "100 ms", "--warmup", "50 ms", "--json").stdout)
    assert {"users", "requests_per_s", "response_time_ms", "bandwidth_mbps", "connections_per_s", "clients"} <= set(j["web"])


def test_a_sweep_over_users_and_page_sizes_gives_one_report_with_the_curves(tmp_path):
    store = tmp_path / "s.sqlite"
    r = cli("sweep", "ortiz2008-offload", "--benchmark", "web", "--grid", "workload.web.users=50,100",
            "--grid", "workload.web.page_size_bytes=5KiB,300KiB", "--set", "workload.web.duration_ps=100 ms",
            "--set", "workload.web.warmup_ps=50 ms", "--out", str(store), timeout=300)
    assert r.returncode == 0, r.stderr
    r = cli("report", str(store), "--out", str(tmp_path / "rep"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "rep" / "web_requests.png").exists() and (tmp_path / "rep" / "web_response.png").exists()
    import pandas as pd
    points = pd.read_csv(tmp_path / "rep" / "points.csv")
    assert len(points) == 4 and (points.status == "ok").all()


def test_a_trace_is_replayed_connection_by_connection(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("connection_id,request_index,response_bytes\n"
                 "a,1,2000\na,0,1000\nb,0,5000\nc,0,100\nc,1,100\nc,2,100\n")
    w = run_web("ortiz2008-base", SHORT, users=4, trace=str(f))["web"]
    assert w["mix"] == "trace"
    # Per pass: 6 requests on 3 connections, 8,300 bytes.
    assert w["bandwidth_mbps"] * 1e6 / 8 / w["requests_per_s"] == pytest.approx(8300 / 6, rel=0.1)
    assert w["connections_per_s"] == pytest.approx(w["requests_per_s"] / 2, rel=0.1)


def test_a_trace_with_arrivals_holds_each_connection_until_it_arrives(tmp_path):
    f = tmp_path / "t.csv"
    # Ten connections, one every 10 ms: the trace, not the users, sets the pace.
    f.write_text("connection_id,request_index,response_bytes,arrival_ns\n"
                 + "".join(f"{i},0,1000,{i * 10_000_000}\n" for i in range(10)))
    w = run_web("ortiz2008-base", SHORT, users=50, trace=str(f))["web"]
    assert w["requests_per_s"] == pytest.approx(100, rel=0.1)


@pytest.mark.parametrize("text, names", [
    ("connection_id,response_bytes\n1,100\n", "needs columns"),
    ("connection_id,request_index,response_bytes\n1,0,x\n", "line 2"),
    ("connection_id,request_index,response_bytes\n1,0,0\n", "at least 1"),
])
def test_a_bad_trace_is_one_line(tmp_path, text, names):
    f = tmp_path / "t.csv"
    f.write_text(text)
    r = cli("web", "ortiz2008-base", "--trace", str(f))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and names in lines[0] and "workload.web.trace_file" in lines[0], r.stderr


def test_a_common_log_format_access_log_is_replayed_as_connections_per_host(tmp_path):
    from nicsim.trace import load_web_trace

    log = tmp_path / "access.log"
    log.write_text(
        '10.0.0.1 - - [30/Apr/1998:21:30:17 +0000] "GET /index.html HTTP/1.0" 200 5120\n'
        '10.0.0.2 - - [30/Apr/1998:21:30:18 +0000] "GET /a.gif HTTP/1.0" 200 1024\n'
        '10.0.0.1 - - [30/Apr/1998:21:30:20 +0000] "GET /b.gif HTTP/1.0" 304 -\n'
        '10.0.0.1 - - [30/Apr/1998:21:30:40 +0000] "GET /c.html HTTP/1.0" 200 300\n')
    sizes, arrivals = load_web_trace(log)
    # Host 1's second request follows within 15 s (one connection); its third, 20 s later, opens another.
    assert sizes == [[5120, 1], [1024], [300]]
    assert arrivals == [0, 1_000_000_000_000, 23_000_000_000_000]
    busy = tmp_path / "busy.log"
    busy.write_text("".join(f'10.0.{i // 200}.{i % 200} - - [30/Apr/1998:21:30:17 +0000] "GET / HTTP/1.0" 200 2048\n'
                            for i in range(400)))
    out = run_web("ortiz2008-base", {**SHORT, "workload.web.trace_file": str(busy)}, users=20, clients=1)
    assert out["web"]["mix"] == "trace" and out["web"]["requests_per_s"] > 100
    assert out["web"]["bandwidth_mbps"] == pytest.approx(out["web"]["requests_per_s"] * 2048 * 8 / 1e6, rel=0.01)


def test_a_log_line_that_is_not_common_log_format_is_one_line(tmp_path):
    log = tmp_path / "access.log"
    log.write_text('10.0.0.1 - - [30/Apr/1998:21:30:17 +0000] "GET / HTTP/1.0" 200 5120\nnot a log line\n')
    r = cli("web", "--trace", str(log), "--duration", "10 ms")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "line 2: not Common Log Format" in r.stderr


def test_a_workload_acts_at_its_own_time_even_when_no_event_is_pending():
    """One user whose start (seed 1: inside the window, the spread being longer than the
    warm-up) comes while the engine has no event: the window must open at the warm-up's end,
    not at time zero, and the user start at its own time (this broke the utilisation bound)."""
    out = run_web("ortiz2008-base", {"workload.web.warmup_ps": "50 ms", "workload.web.duration_ps": "50 ms"}, users=1)
    client = out["processors"]["node0.cpu0"]
    assert 0 < client["utilisation"] <= 1
    # The user starts in the window, so it is busy for part of it only.
    assert client["utilisation"] < 0.9


def test_a_hybrid_worker_runs_on_a_free_host_cpu_and_an_onload_worker_never_on_cpu1():
    def server(preset, workers):
        out = run_web(preset, {**SHORT, "workload.web.page_size_bytes": "300 KiB", "workload.web.worker_threads": workers},
                      users=200)
        node = f"node{len(out['nodes']) - 1}"
        return out, {k.split(".")[1]: v["utilisation"] for k, v in out["processors"].items() if k.startswith(node + ".")}

    # §5.2.1: the hybrid's CPU1 is not exclusive, so the workers' copies also run on cpu0.
    pinned, p = server("ortiz2008-hybrid", "comm")
    free, f = server("ortiz2008-hybrid", "free")
    assert p["cpu0"] < 0.1 < 0.3 < f["cpu0"], (p, f)
    assert free["web"]["requests_per_s"] > pinned["web"]["requests_per_s"]
    # Onload's CPU1 runs only the protocol: a free worker never moves there.
    a, b = (server("ortiz2008-onload", w)[0] for w in ("comm", "free"))
    assert api.dumps([a["web"], a["processors"]]) == api.dumps([b["web"], b["processors"]])


def test_time_per_request_is_apachebenchs_users_times_window_over_requests():
    w = run_web("ortiz2008-base", SHORT, users=50)["web"]
    requests = round(w["requests_per_s"] * w["window_s"])
    assert w["time_per_request_ms"] == pytest.approx(50 * w["window_s"] * 1e3 / requests, rel=1e-9)
    # Closed loop without think time: each user always waits on one request, so it is at least
    # the mean response time of those that completed (the rest were waiting at the window's end).
    assert w["time_per_request_ms"] >= 0.95 * w["response_time_ms"]["mean"]


def test_a_rated_user_offers_its_line_rate_until_the_server_saturates():
    """workload.web.user_rate_bps (issue 48 item 3): below saturation each user requests at
    its line rate, so requests per second grow with users; without the limit they do not."""
    sets = {**SHORT, "workload.web.page_size_bytes": "5 KiB", "workload.web.duration_ps": "500 ms",
            "workload.web.user_rate_bps": "400 kbps"}
    per_user = 400e3 / (5 * 1024 * 8)
    rates = {n: run_web("ortiz2008-base", sets, users=n)["web"]["requests_per_s"] for n in (20, 40)}
    for n, r in rates.items():
        assert r == pytest.approx(n * per_user, rel=0.1), rates
    free = run_web("ortiz2008-base", {**sets, "workload.web.user_rate_bps": "0"}, users=20)["web"]["requests_per_s"]
    assert free > 3 * rates[20]


def test_sharing_the_memory_path_costs_the_host_cpus_that_share_it():
    """issue 48 item 2: onload's two host CPUs and the NIC's DMA share one north bridge, and
    wait there per request; offload's NIC processor reaches its memory over a connector and
    never does; in mode B an onload connection's state moves between the CPUs' caches."""
    sets = {**SHORT, "workload.web.page_size_bytes": "5 KiB"}
    share = lambda preset: run_web(preset, sets, users=200)["web"]["sharing"]
    onload, offload = share("ortiz2008-onload"), share("ortiz2008-offload")
    assert offload["nic_cpu"]["bridge_wait_us_per_request"] == 0
    assert onload["cpu0"]["bridge_wait_us_per_request"] > 2 * offload["cpu0"]["bridge_wait_us_per_request"] > 0
    cached = share("ortiz2008-cache-l1d16-onload")
    assert cached["cpu0"]["coherence_transfers_per_request"] > 1
    assert onload["cpu0"]["coherence_transfers_per_request"] == 0, "mode A has no coherence (§4.1)"
