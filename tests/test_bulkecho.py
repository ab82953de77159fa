"""Roca's harness and the BSD organisation on his POWER (stacks.md §B.2, §B.8, §B.9)."""
import subprocess
import sys

import pytest

from nicsim import api
from nicsim.bulkecho import parse_tsdu, run_bulkecho
from nicsim.config import load_profile
from nicsim.errors import ConfigError

CLOCK_HZ = 41.7e6
# §B.9, BSD column: instructions to send one 1024-byte TCP segment, by category.
BSD_1024 = {"user level + access method + low-level OS": 6 + 525 + 761, "protocols": 740, "memory": 618,
            "data manipulation": 1607, "Ethernet": 1102, "interrupt handling": 185, "synchronisation": 464}
SHORT = {"workload.netperf.duration_ps": "300 ms", "workload.netperf.warmup_ps": "50 ms"}


def instructions(stage: str, n_bytes: int, count: int = 1) -> float:
    s = load_profile("roca1996-power")["stages"][stage]
    return s["i_pkt"] * count + s["i_byte"] * n_bytes


def test_the_bsd_send_stages_add_up_to_the_categories_of_a_1024_byte_send():
    n, frame_payload = 1024, 1024
    s = load_profile("roca1996-power")["stages"]
    got = {
        "user level + access method + low-level OS": instructions("tx_syscall", n),
        "protocols": instructions("tx_tcp", n) + instructions("tx_ip", n),
        # A cluster for the data (the rule of §B.2) and tcp_output's two mbufs.
        "memory": instructions("skb_alloc", 0, count=1 + 2),
        # tx_dev's per-byte part is the driver's copy; its per-packet part is Ethernet work.
        "data manipulation": instructions("tx_copy", n) + instructions("tx_csum_fold", n) + s["tx_dev"]["i_byte"] * frame_payload,
        "Ethernet": s["tx_dev"]["i_pkt"] + instructions("tx_complete", 0),
        "interrupt handling": instructions("irq_entry", 0) + instructions("irq_exit", 0),
        # The lock pairs the send's pieces declare: system call, two buffer allocations (the
        # data's, the segment's), TCP, IP, the driver, the completion.
        "synchronisation": s["spin_lock"]["i_pkt"] * sum(s[x]["locks"] for x in (
            "tx_syscall", "skb_alloc", "skb_alloc", "tx_tcp", "tx_ip", "tx_dev", "tx_complete")),
    }
    for cat, want in BSD_1024.items():
        assert got[cat] == pytest.approx(want, abs=1.0), cat
    assert sum(got.values()) == pytest.approx(6008, abs=2)


def test_the_core_counts_each_send_stages_instructions():
    doc = run_bulkecho("roca1996-ethernet", [f"{k}={v}" for k, v in SHORT.items()], tsdu="1024", nodelay=True)
    ins = doc["bulkecho"]["points"][0]["send_instructions"]
    # The call's, TCP and IP's, the checksum and copy's and the driver's are the send's alone
    # (§B.9 BSD column); the sender's other categories also hold its ACK input.
    assert ins["access method, user level, low-level OS"] >= 1292 - 15
    # Copy 312 and checksum 833 (the driver's copy counts with tx_dev, under Ethernet), and up
    # to one ACK's checksum of its header (31) per send.
    assert 0.99 * (312 + 833) <= ins["data manipulation"] <= 1.01 * (312 + 833 + 31.3)
    prof = load_profile("roca1996-power")["stages"]
    out = api.run("roca1996-ethernet", {**SHORT, "workload.netperf.msg_bytes": "1 KiB", "workload.netperf.nodelay": True})
    sends = out["nodes"]["node0"]["app_bytes_sent"] / 1024
    got = out["processors"]["node0.cpu0"]["instructions_by_stage"]
    for stage in ("tx_syscall", "tx_copy", "tx_csum_fold", "tx_tcp", "tx_ip", "tx_dev"):
        assert got[stage] / sends == pytest.approx(instructions(stage, 1024), rel=0.01), stage


def test_the_simulated_send_path_costs_its_instructions_at_their_ipc():
    out = api.run("roca1996-ethernet", {**SHORT, "workload.netperf.msg_bytes": "1 KiB", "workload.netperf.nodelay": True})
    sends = out["nodes"]["node0"]["app_bytes_sent"] / 1024
    stages = out["processors"]["node0.cpu0"]["busy_by_stage"]
    window_s = out["netperf"]["window_s"]
    prof = load_profile("roca1996-power")["stages"]
    # Per send: the call, the copy and checksum, the data cluster and the segment's two mbufs,
    # TCP, IP and the driver, each at its own IPC (one segment per send: 1024 B < MSS).
    for stage in ("tx_syscall", "tx_copy", "tx_csum_fold", "tx_tcp", "tx_ip", "tx_dev"):
        per_send_s = stages[stage] * window_s / sends
        want_s = instructions(stage, 1024) / prof[stage]["ipc"] / CLOCK_HZ
        assert per_send_s == pytest.approx(want_s, rel=0.01), stage
    # Buffers: the segment's two mbufs per send, a data cluster unless the send list's last
    # one has room (tail append), and one for each acknowledgement received. BSD's ACK comes
    # when reads open the window by two segments (every third 1 KiB send), so the send list
    # is rarely empty and its cluster takes the next sends; with an ACK for every segment
    # (Linux's rule) every send finds it empty and allocates all three.
    one = instructions("skb_alloc", 0) / prof["skb_alloc"]["ipc"] / CLOCK_HZ
    per_send = lambda o: o["processors"]["node0.cpu0"]["busy_by_stage"]["skb_alloc"] * o["netperf"]["window_s"] / (o["nodes"]["node0"]["app_bytes_sent"] / 1024) / one
    assert 2.0 <= per_send(out) < 3.0
    linux_acks = api.run("roca1996-ethernet", {**SHORT, "workload.netperf.msg_bytes": "1 KiB", "workload.netperf.nodelay": True, "tcp.ack_policy": "linux"})
    assert 3.0 <= per_send(linux_acks) <= 3.55
    assert out["nodes"]["node1"]["acks_sent"] < 0.5 * linux_acks["nodes"]["node1"]["acks_sent"]


def test_bsd_allocates_fewer_buffers_than_one_per_write_for_small_writes():
    def alloc_per_send(buffers):
        out = api.run("roca1996-ethernet", {**SHORT, "workload.netperf.msg_bytes": "100 B", "org.buffers": buffers,
                                            "org.segment_buffers": 0})
        sends = out["nodes"]["node0"]["app_bytes_sent"] / 100
        return out["processors"]["node0.cpu0"]["busy_by_stage"]["skb_alloc"] * out["netperf"]["window_s"] / sends
    one_each = instructions("skb_alloc", 0) / 0.443 / CLOCK_HZ
    # One per write (and a few for the acknowledgements received: Nagle fills each segment
    # with about 14 writes).
    assert one_each <= alloc_per_send("skb") < 1.1 * one_each
    # A 236-byte mbuf takes two 100-byte writes, and a third allocates again: about 1/2.
    assert 0.3 * one_each < alloc_per_send("bsd_mbuf") < 0.7 * one_each


def test_a_bulk_sweep_rises_to_the_link_and_stays_there():
    doc = run_bulkecho("roca1996-ethernet", [f"{k}={v}" for k, v in SHORT.items()], tsdu="1:4096")
    pts = doc["bulkecho"]["points"]
    assert [p["tsdu_bytes"] for p in pts] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
    rates = [p["throughput_mbps"] for p in pts]
    assert all(r <= 10.0 for r in rates) and rates[-1] > 9.0
    assert rates[0] < 0.2 and rates[0] < rates[4] < rates[8]
    assert all(p["conservation_ok"] for p in pts)
    assert doc["bulkecho"]["org"] == "bsd"


def test_echo_reports_a_round_trip_that_grows_with_the_tsdu():
    doc = run_bulkecho("roca1996-ethernet", [f"{k}={v}" for k, v in SHORT.items()], mode="echo", tsdu="1,4096", nodelay=True)
    small, large = doc["bulkecho"]["points"]
    # 4096 B each way on 10 Mb/s is at least 6.5 ms of wire time.
    assert small["rtt_us"] < 2000 < 6500 < large["rtt_us"]


def test_ilp_prints_its_cost_model_and_runs_the_fused_copy():
    doc = run_bulkecho("roca1996-ethernet", [f"{k}={v}" for k, v in SHORT.items()], tsdu="1024", use_ilp=True)
    m = doc["bulkecho"]["ilp_model"]
    assert 390 < m["break_even_bytes"] < 400 and m["rows"][0]["fused_wins"]
    with pytest.raises(ConfigError, match="organisation linux has none"):
        run_bulkecho("ortiz2008-base", [], tsdu="1024", use_ilp=True)


@pytest.mark.parametrize("args,message", [
    (["--org", "vms"], "--org 'vms'"),
    (["--tsdu", "0:5"], "--tsdu '0:5'"),
    (["--mode", "ping"], "--mode 'ping'"),
    (["--proto", "sctp"], "--proto 'sctp'"),
    (["--cpus", "17"], "--cpus 17: 1 to 16"),
    (["--cpus", "1,2,2"], "--cpus 1,2,2: 1 to 16"),
    (["--cpus", "1,two"], "--cpus 1,two: 1 to 16"),
])
def test_bad_arguments_get_one_line_naming_them(args, message):
    r = subprocess.run([sys.executable, "-m", "nicsim", "bulkecho", "roca1996-ethernet", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_tsdu_ranges_are_powers_of_two_with_their_ends():
    assert parse_tsdu("1:16") == [1, 2, 4, 8, 16]
    assert parse_tsdu("100:1000") == [100, 128, 256, 512, 1000]
    assert parse_tsdu("1,1 KiB,16KiB") == [1, 1024, 16384]


def org_stages(org: str, ilp: bool = False) -> dict:
    """roca1996-power's stages with an organisation's cost settings (and its ILP ones) applied."""
    import tomllib
    from importlib import resources

    doc = tomllib.loads(resources.files("nicsim").joinpath("orgs", f"{org}.toml").read_text())
    sets = {**doc["set"], **(doc["ilp"] if ilp else {})}
    stages = {k: dict(v) for k, v in load_profile("roca1996-power")["stages"].items()}
    for key, value in sets.items():
        parts = key.split(".")
        if parts[0] == "costs" and len(parts) == 3:
            stages[parts[1]][parts[2]] = value
    return stages, sets


def send_categories(org: str, ilp: bool = False) -> dict[str, float]:
    """A 1024-B send's instructions by §B.9 category on organisation `org`'s stages: the data's
    buffers (the organisation's rule) and the segment's, one segment, one interrupt."""
    s, sets = org_stages(org, ilp)
    n = 1024
    data_buffers = {"bsd_mbuf": 1, "streams_mblk": 2}[sets["org.buffers"]]
    buffers = data_buffers + sets["org.segment_buffers"]
    pieces = ("tx_syscall", "skb_alloc", "skb_alloc", "tx_tcp", "tx_ip", "tx_dev", "tx_complete")
    ins = lambda st, count=1: s[st]["i_pkt"] * count + s[st]["i_byte"] * n
    return {
        "user level + access method + low-level OS": ins("tx_syscall"),
        "protocols": ins("tx_tcp") + ins("tx_ip"),
        "memory": s["skb_alloc"]["i_pkt"] * buffers,
        "data manipulation": ins("tx_copy") + ins("tx_csum_fold") + s["tx_dev"]["i_byte"] * n,
        "Ethernet": s["tx_dev"]["i_pkt"] + ins("tx_complete"),
        "interrupt handling": ins("irq_entry") + ins("irq_exit"),
        "synchronisation": s["spin_lock"]["i_pkt"] * sum(s[p]["locks"] for p in pieces),
    }


# §B.9's demux and demux + ILP columns, grouped as the BSD one above.
DEMUX_1024 = {"user level + access method + low-level OS": 94 + 1234 + 1027, "protocols": 871, "memory": 1776,
              "data manipulation": 2037, "Ethernet": 1266, "interrupt handling": 185, "synchronisation": 1601}
DEMUX_ILP_1024 = {"user level + access method + low-level OS": 148 + 1373 + 993, "protocols": 943, "memory": 1407,
                  "data manipulation": 950, "Ethernet": 1241, "interrupt handling": 185, "synchronisation": 1277}


# Classic Streams has no §B.9 column: demux's, with a service routine's putnext (230) on the
# call, one more on IP's multiplexer per segment, and six more lock pairs (streams.toml).
STREAMS_1024 = {**DEMUX_1024, "user level + access method + low-level OS": 94 + 1234 + 1027 + 230,
                "protocols": 871 + 230, "synchronisation": 1601 + 6 * 177.9}


@pytest.mark.parametrize("org,ilp,want,total", [
    ("bsd", False, BSD_1024, 6008), ("streams-demux", False, DEMUX_1024, 10091), ("streams-demux", True, DEMUX_ILP_1024, 8517),
    ("streams", False, STREAMS_1024, 10091 + 460 + 6 * 177.9)])
def test_each_organisations_send_adds_up_to_its_section_b9_column(org, ilp, want, total):
    got = send_categories(org, ilp)
    for cat, w in want.items():
        assert got[cat] == pytest.approx(w, abs=1.5), cat
    assert sum(got.values()) == pytest.approx(total, abs=3)


def test_the_demux_stack_wakes_the_reader_once_per_completed_call():
    """8 KB calls fill from about six segments: BSD wakes the reader at each (two context
    switches per segment while the call is incomplete, §B.2); the demultiplexed stack once
    the call can complete (§B.4)."""
    def run(org):
        _, sets = org_stages(org)
        return api.run("roca1996-ethernet", {**SHORT, **sets, "workload.netperf.msg_bytes": "8 KiB"})
    for org, lo, hi in (("bsd", 4.0, 7.0), ("streams-demux", 0.9, 1.1)):
        out = run(org)
        server = out["nodes"]["node1"]
        calls = server["app_bytes_read"] / 8192
        assert lo <= server["wakeups_per_s"] * out["netperf"]["window_s"] / calls <= hi, org


def test_an_organisation_is_a_key_its_file_expands_under_explicit_settings():
    from nicsim.config import resolve

    v = resolve("roca1996-ethernet", {"org.name": "streams-demux"})
    assert (v.values["org.buffers"], v.values["org.wakeup"], v.costs["stages"]["tx_syscall"]["i_pkt"]) == ("streams_mblk", "per_call", 2355)
    # An explicit setting wins over the organisation's.
    v = resolve("roca1996-ethernet", {"org.name": "streams-demux", "org.wakeup": "per_segment"})
    assert v.values["org.wakeup"] == "per_segment"
    assert resolve("roca1996-ethernet", {"org.name": "bsd", "org.ilp": True}).costs["stages"]["tx_copy"]["ipc"] == 0.453
    with pytest.raises(ConfigError, match="org.ilp: needs org.name"):
        resolve("roca1996-ethernet", {"org.ilp": True})
    with pytest.raises(ConfigError, match="org.ilp: organisation linux"):
        resolve("ortiz2008-base", {"org.name": "linux", "org.ilp": True})
    with pytest.raises(ConfigError, match="org.name"):
        resolve("roca1996-ethernet", {"org.name": "vms"})


def test_one_sweep_over_organisations_and_tsdu_sizes_reports_both_curves(sweep_report):
    import pandas as pd

    rep = sweep_report("roca1996-ethernet", "--benchmark", "netperf", "--grid", "org.name=bsd,streams-demux",
                       "--grid", "workload.netperf.test=tcp_stream,tcp_rr", "--grid", "workload.netperf.msg_bytes=1,1024",
                       "--set", "workload.netperf.duration_ps=200ms")
    t = pd.read_csv(rep / "orgs.csv")
    assert len(t) == 8 and (rep / "orgs.png").stat().st_size > 0 and "fig-orgs" in (rep / "report.html").read_text()
    at = lambda org, test, n: t[(t["org.name"] == org) & (t.test == test) & (t.tsdu_bytes == n)].iloc[0]
    # §B.9: the demultiplexed stack's send costs more than BSD's: slower small-TSDU streams, longer round trips.
    assert at("streams-demux", "TCP_STREAM", 1).throughput_mbps < at("bsd", "TCP_STREAM", 1).throughput_mbps
    assert at("streams-demux", "TCP_RR", 1).rtt_us > at("bsd", "TCP_RR", 1).rtt_us


def test_on_fddi_the_ring_is_not_the_limit():
    out = api.run("roca1996-fddi", {**SHORT, "workload.netperf.msg_bytes": "4 KiB"})
    assert 20 < out["netperf"]["aggregate"]["throughput_mbps"] < 60
    # Both hosts are busy most of the time, each waiting on the other's window in turn.
    assert all(0.5 < p["utilisation"] < 1.0 for p in out["processors"].values())


def test_replications_report_a_mean_and_interval_per_point():
    doc = run_bulkecho("roca1996-ethernet", [f"{k}={v}" for k, v in SHORT.items()], mode="echo", tsdu="64",
                       nodelay=True, replications=3, seed=5)
    s = doc["bulkecho"]["points"][0]["summary"]["aggregate.transactions_per_s"]
    assert s["n"] == 3 and s["mean"] > 0 and s["ci95_half_width"] >= 0


def test_classic_streams_sends_from_a_service_routine_in_the_software_interrupt():
    def contexts(org):
        out = api.run("roca1996-ethernet", {**SHORT, "org.name": org, "workload.netperf.msg_bytes": "1 KiB"})
        return out["processors"]["node0.cpu0"]["busy_by_context"]
    classic, demux = contexts("streams"), contexts("streams-demux")
    # TCP, IP and the driver's output move from the calling process to the software interrupt.
    assert classic["softirq"] > 3 * demux["softirq"] and classic["process"] < 0.75 * demux["process"]


def test_smp_runs_report_the_speedup_over_one_cpu_and_a_ranked_lock_table():
    sets = ["workload.netperf.duration_ps=300 ms", "workload.netperf.warmup_ps=50 ms"]
    b = run_bulkecho("roca1996-smp", sets, org="streams-demux", tsdu="16KiB", cpus=4, connections=8)["bulkecho"]
    p = b["points"][0]
    one = run_bulkecho("roca1996-smp", sets, org="streams-demux", tsdu="16KiB", cpus=1, connections=8)["bulkecho"]["points"][0]
    assert p["cpus"] == 4 and one["cpus"] == 1 and one["speedup"] == 1.0
    assert p["speedup"] == pytest.approx(p["throughput_mbps"] / one["throughput_mbps"])
    assert p["speedup"] > 1.5
    assert sum(1 for k in p["cpu_utilisation"] if k.startswith("node1.")) == 4
    # Ranked by spin time; on one CPU nothing conflicts.
    spins = [r["spin_us"] for r in p["locks"]]
    assert spins == sorted(spins, reverse=True) and spins[0] > 0
    # Over loopback no device queue is taken, and the demux stack does not serialise IP; its
    # anchor driver walks the TCP context list under its one private TCP lock.
    # The Roca presets' dispatcher is one lock (a global run queue).
    assert {r["lock"] for r in p["locks"]} == {"allocator", "socket", "tcp_contexts", "threads"}
    assert all(r["conflicts"] == 0 and r["spin_us"] == 0 for r in one["locks"])


def stage_instructions(out: dict, node: str) -> dict[str, float]:
    ins: dict[str, float] = {}
    for k, p in out["processors"].items():
        if k.startswith(node + "."):
            for stage, n in p.get("instructions_by_stage", {}).items():
                ins[stage] = ins.get(stage, 0) + n
    return ins


def test_user_level_tcp_runs_tcp_in_the_process_and_pays_the_moved_boundary():
    """§B.5: every segment waits for its process, which fetches it with select and recv; every
    segment sent (ACKs included) is a system call of its own; a send copies twice."""
    sets = {"workload.netperf.msg_bytes": "1 KiB", "workload.netperf.duration_ps": "300 ms"}
    bsd = api.run("roca1996-ethernet", {**sets, "org.name": "bsd"})
    ul = api.run("roca1996-ethernet", {**sets, "org.name": "user_level_tcp"})
    stages = load_profile("roca1996-power")["stages"]
    call = lambda s: stages[s]["i_pkt"]
    # The kernel never runs TCP input for the connection: each segment waits on its socket.
    segments = ul["nodes"]["node1"]["locks"]["socket"]["backlogged"]
    assert segments > 100 and bsd["nodes"]["node1"]["locks"]["socket"]["backlogged"] == 0
    assert ul["nodes"]["node1"]["locks"]["socket"]["acquisitions"] == 0
    rx, rx_bsd = stage_instructions(ul, "node1"), stage_instructions(bsd, "node1")
    tx, tx_bsd = stage_instructions(ul, "node0"), stage_instructions(bsd, "node0")
    # Two receive calls per segment (select, recv) on top of the reads' own.
    assert rx["rx_syscall"] - rx_bsd["rx_syscall"] == pytest.approx(2 * segments * call("rx_syscall"), rel=0.02)
    # The receiver's ACKs each cross into the kernel alone.
    acks = ul["nodes"]["node1"]["acks_sent"]
    assert rx["tx_syscall"] == pytest.approx(acks * call("tx_syscall"), rel=0.02)
    # The sender: a call per segment, and the data copied twice.
    sent = ul["nodes"]["node0"]["data_segments_sent"]
    assert tx["tx_syscall"] - tx_bsd["tx_syscall"] == pytest.approx(sent * call("tx_syscall"), rel=0.02)
    assert tx["tx_copy"] == pytest.approx(2 * tx_bsd["tx_copy"], rel=0.02)
    # The same stream, at a higher cost per send.
    b, u = (run_bulkecho("roca1996-ethernet", [], org=o, tsdu="1024")["bulkecho"]["points"][0] for o in ("bsd", "user_level_tcp"))
    assert sum(u["send_us"].values()) > 1.2 * sum(b["send_us"].values())


def test_bsd_runs_seven_timer_routines_a_second_and_the_demux_stacks_merged_one_four():
    """§B.4: tcp_fasttimo (5 Hz) and tcp_slowtimo (2 Hz) become one 4 Hz routine."""
    sets = {"workload.netperf.duration_ps": "1.5 s", "workload.netperf.warmup_ps": "0.5 s"}
    for org, per_s in (("bsd", 7), ("streams-demux", 4)):
        out = api.run("roca1996-ethernet", {**sets, "org.name": org})
        sim = out["simulator"]
        runs = sim["events_by_kind"]["tcp_timer"] / 2  # two nodes
        assert abs(runs - sim["simulated_s"] * per_s) <= 1
        # Each run walks the connection list on cpu0.
        assert out["processors"]["node1.cpu0"]["busy_by_stage"]["timer"] > 0
    linux = api.run("roca1996-ethernet", {**sets, "org.name": "linux", "costs.profile": "roca1996-power"})
    assert "tcp_timer" not in linux["simulator"]["events_by_kind"]


def test_receive_buffer_strategies_wake_the_reader_per_ack_or_once_the_buffer_fills():
    """§B.4's strategies on the demux stack, 8 KB calls of about 5.6 segments: strategy 1
    (per_ack) wakes at each ACK, every second full segment; strategy 4 (fill_or_push) once the
    buffer fills, or the sender's push flushes it."""
    def wakes_per_call(wakeup):
        out = api.run("roca1996-ethernet", {**SHORT, "org.name": "streams-demux", "org.wakeup": wakeup,
                                            "workload.netperf.msg_bytes": "8 KiB"})
        server = out["nodes"]["node1"]
        return server["wakeups_per_s"] * out["netperf"]["window_s"] / (server["app_bytes_read"] / 8192)
    per_segment, per_ack, fill = (wakes_per_call(w) for w in ("per_segment", "per_ack", "fill_or_push"))
    assert 5 < per_segment < 6.5
    assert 2.3 < per_ack < 3.3, "one per two segments"
    assert 0.9 < fill < 1.1


def test_udp_echo_is_a_datagram_each_way_and_cheaper_than_tcps():
    """bench's echo mode over UDP (netperf UDP_RR): one datagram as request, one as response,
    no ACKs; the round trip is shorter than TCP's with TCP_NODELAY."""
    udp = run_bulkecho("roca1996-ethernet", [], mode="echo", proto="udp", tsdu="1,1024")["bulkecho"]["points"]
    tcp = run_bulkecho("roca1996-ethernet", [], mode="echo", tsdu="1,1024", nodelay=True)["bulkecho"]["points"]
    for u, t in zip(udp, tcp):
        assert u["conservation_ok"] and 0 < u["rtt_us"] < t["rtt_us"]
        # One transaction at a time: the round trip is the inverse of the rate.
        assert u["rtt_us"] == pytest.approx(1e6 / u["transactions_per_s"], rel=0.01)
    assert udp[1]["rtt_us"] > udp[0]["rtt_us"]
    out = api.run("roca1996-ethernet", {"workload.netperf.test": "udp_rr", "workload.netperf.duration_ps": "300 ms"})
    # Neither end ever sends a TCP segment.
    assert all(n["data_segments_sent"] == 0 and n["acks_sent"] == 0 for n in out["nodes"].values())


def test_the_ilp_library_accumulates_small_writes_into_segments_unless_pushed():
    def point(**kw):
        return run_bulkecho("roca1996-ethernet", [], org="streams-demux", tsdu="64", **kw)["bulkecho"]["points"][0]

    def send_us(p):
        return sum(p["send_us"].values())

    plain, held, pushed = point(), point(use_ilp=True), point(use_ilp=True, nodelay=True)
    # 22 writes of 64 B fill a 1,460-byte segment: one call (system call, Stream-Head, its two
    # blocks) per 22 writes, each write paying only the library's copy (§B.6). Nagle already
    # sent full segments without it, so the protocols' share per write stays.
    assert send_us(held) < 0.3 * send_us(plain) and held["throughput_mbps"] > plain["throughput_mbps"]
    call = "access method, user level, low-level OS"
    assert held["send_us"][call] < plain["send_us"][call] / 10
    assert held["send_us"]["memory"] < plain["send_us"]["memory"] / 2
    # TCP_NODELAY stands for PUSH: every write goes at once, as without accumulation.
    assert send_us(pushed) > 0.8 * send_us(plain)


def test_a_cpu_list_runs_each_tsdu_at_each_count_with_its_speedup_over_one_cpu():
    """issue 34's check: --cpus 1,2,4 with two TSDUs; the one-CPU run of the list is the
    speedup's base, and a count alone gives the same figures as in the list."""
    sets = ["workload.netperf.duration_ps=20ms", "workload.netperf.warmup_ps=5ms"]
    doc = run_bulkecho("roca1996-smp", sets, org="bsd", tsdu="256,16KiB", cpus="1,2,4")
    points = doc["bulkecho"]["points"]
    assert [(p["tsdu_bytes"], p["cpus"]) for p in points] == [(256, 1), (256, 2), (256, 4), (16384, 1), (16384, 2), (16384, 4)]
    for p in points:
        one = next(q for q in points if q["tsdu_bytes"] == p["tsdu_bytes"] and q["cpus"] == 1)
        assert p["speedup"] == pytest.approx(p["throughput_mbps"] / one["throughput_mbps"])
        assert p["conservation_ok"]
    # More CPUs carry more at the small TSDU, where per-call work dominates.
    assert points[1]["speedup"] > 1.2
    alone = run_bulkecho("roca1996-smp", sets, org="bsd", tsdu="256", cpus=2)["bulkecho"]["points"][0]
    assert alone["throughput_mbps"] == points[1]["throughput_mbps"] and alone["speedup"] == pytest.approx(points[1]["speedup"])
