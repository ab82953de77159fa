"""The modern presets (nicsim's assumptions, not studied systems) and `nicsim bench --suite`."""
import json
import subprocess
import sys

import pytest

from nicsim import api, resolve

SHORT = {"workload.kind": "netperf", "workload.netperf.duration_ps": "20 ms", "workload.netperf.warmup_ps": "5 ms"}


def test_a_variant_preset_takes_its_base_and_changes_only_what_it_names():
    base, v = resolve("modern-10g").values, resolve("modern-25g").values
    assert v["link.rate_bps"] == 25e9 and base["link.rate_bps"] == 10e9
    # The ring's idle flush time is derived from the link (one maximum frame's wire time).
    assert {k for k in base if base[k] != v[k]} == {"link.rate_bps", "nic.ring_flush_idle_ps"}
    assert resolve("modern-10g-jumbo").values["nic.mtu_bytes"] == 9000
    copy_refs = lambda p: resolve(p).costs["stages"]["rx_copy"]["r_byte"]
    assert copy_refs("modern-10g") < copy_refs("ortiz2008-base")


@pytest.mark.parametrize("preset", ["modern-10g", "modern-10g-jumbo", "modern-25g", "modern-100g"])
def test_modern_presets_stay_below_the_link_and_conserve_bytes(preset):
    out = api.run(preset, SHORT)
    rate = resolve(preset).values["link.rate_bps"]
    mbps = out["netperf"]["aggregate"]["throughput_mbps"]
    assert 0 < mbps <= rate / 1e6
    # One flow is held by the link or by a saturated processor, never by neither.
    busiest = max(p["utilisation"] for p in out["processors"].values())
    assert mbps > 0.9 * rate / 1e6 or busiest > 0.97
    for c in out["conservation"].values():
        assert c["sent_bytes"] == c["delivered_bytes"] + c["in_flight_bytes"] + c["dropped_bytes"]
    assert all(p["utilisation"] <= 1.0 + 1e-9 for p in out["processors"].values())


def test_bench_suite_reports_every_scenario_from_the_cores_own_counts():
    r = subprocess.run([sys.executable, "-m", "nicsim", "bench", "--suite", "--json", "--duration", "0.05"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    rows = {x["scenario"]: x for x in json.loads(r.stdout)["suite"]}
    assert set(rows) == {"engine-md1-tandem", "base-1MiB-stream", "modern-10g-tcp-stream",
                         "modern-10g-jumbo-tcp-stream", "modern-25g-tcp-stream", "modern-100g-tcp-stream",
                         "modern-100g-16flows-tcp-stream", "modern-x86-loopback-64B-tcp-stream", "modern-x86-veth-tcp-stream", "modern-10g-tcp-rr-4096",
                         "engine-hold-18", "engine-hold-9820", "engine-hold-19845", "engine-hold-100000",
                         "engine-hold-1000000"}
    for name in [n for n in rows if n.startswith("engine-")]:
        e = rows.pop(name)
        assert e["ratio_to_bare_heap"] == pytest.approx(e["events_per_s"] / e["bare_heap_events_per_s"])
        assert e.get("pending", 0) == int(name.rsplit("-", 1)[1]) if "hold" in name else True
    for x in rows.values():
        assert sum(x["events_by_kind"].values()) == x["events"]
        assert x["simulated_per_wall"] == pytest.approx(x["simulated_s"] / x["wall_s"])
        assert x["events_per_kib"] > 0 and x["throughput_mbps"] > 0
    # Jumbo frames move the same bytes with fewer frames: fewer events per KiB.
    assert rows["modern-10g-jumbo-tcp-stream"]["events_per_kib"] < rows["modern-10g-tcp-stream"]["events_per_kib"]


def test_loopback_at_its_mtu_of_65536_sends_64_kib_segments():
    from nicsim import api, physics, resolve

    r = resolve("modern-x86-loopback", {"workload.netperf.msg_bytes": "1 MiB", "workload.netperf.duration_ps": "50 ms",
                                        "workload.netperf.warmup_ps": "10 ms"})
    mss = physics.derived(r)["mss_bytes"]
    assert 65_000 < mss < 65_536
    node = api.run(r)["nodes"]["node1"]
    # Each 1 MiB send leaves as 16 full segments and a short one: almost every segment is 64 KiB.
    assert node["app_bytes_sent"] / node["data_segments_sent"] > 0.9 * mss


def test_a_veth_pair_at_mtu_1500_carries_gso_segments_of_up_to_64_kib():
    from nicsim import api, physics, resolve

    sets = {"workload.netperf.msg_bytes": "64 KiB", "workload.netperf.duration_ps": "30 ms",
            "workload.netperf.warmup_ps": "5 ms"}
    r = resolve("modern-x86-veth", sets)
    mss = physics.derived(r)["mss_bytes"]
    assert mss < 1500
    gso = api.run(r)
    node = gso["nodes"]["node1"]
    # veth offers GSO: each segment carries many MSS, and the receiver acknowledges each such
    # segment once (data_segments_sent counts MSS, as the wire would carry them).
    assert node["app_bytes_read"] / node["acks_sent"] > 5 * mss
    # Without it the receiver sees one MSS a segment and acknowledges every second one, and the
    # per-segment work costs throughput.
    per_mss = api.run(resolve("modern-x86-veth", {**sets, "nic.tso": False}))
    n = per_mss["nodes"]["node1"]
    assert n["app_bytes_read"] / n["acks_sent"] < 3 * mss
    assert gso["netperf"]["aggregate"]["throughput_mbps"] > 2 * per_mss["netperf"]["aggregate"]["throughput_mbps"]


def test_over_veth_the_reader_pays_per_gso_segment_it_holds_not_per_mss():
    from nicsim import api

    sets = {"workload.netperf.msg_bytes": "64 KiB", "workload.netperf.duration_ps": "30 ms",
            "workload.netperf.warmup_ps": "5 ms"}

    def per_byte(preset, stage, extra=None):
        out = api.run(preset, {**sets, **(extra or {})})
        busy = sum(p["busy_by_stage"].get(stage, 0) for p in out["processors"].values())
        return busy / out["nodes"]["node1"]["app_bytes_read"]

    # The same 64 KiB sk_buffs reach the reader at either MTU: about the same work per byte to
    # free them (the stage also frees the ACKs' sk_buffs, whose count per byte follows how far
    # each 128 KiB recv opens the window, so not exactly the same). Without GSO every MSS is an
    # sk_buff of its own and freeing costs many times more.
    lo, veth = per_byte("modern-x86-loopback", "skb_free"), per_byte("modern-x86-veth", "skb_free")
    assert veth == pytest.approx(lo, rel=0.4)
    assert per_byte("modern-x86-veth", "skb_free", {"nic.tso": False}) > 5 * veth



def test_bbr_paces_at_the_bottleneck_and_keeps_its_queue_short_where_cubic_fills_the_buffer():
    # One flow from a 10 Gb/s NIC through a switch port of 1 Gb/s with a deep buffer: loss-based
    # CUBIC grows its window until the socket buffer stops it, and the bottleneck's queue holds
    # megabytes; BBR's window is twice its bandwidth-delay estimate plus three bursts.
    sets = {"workload.kind": "netperf", "workload.netperf.duration_ps": "300 ms",
            "switch.present": "true", "switch.port_rate_bps": "1 Gbps", "switch.buffer_bytes": "16 MiB"}
    runs = {cc: api.run("modern-10g", {**sets, "tcp.congestion": cc}) for cc in ("cubic", "bbr")}
    queue = {cc: r["switch"]["to_node1"]["max_queue_bytes"] for cc, r in runs.items()}
    rate = {cc: r["netperf"]["aggregate"]["throughput_mbps"] for cc, r in runs.items()}
    assert queue["cubic"] > 2 * 2**20 and queue["bbr"] < 400 * 2**10, queue
    # Both fill the bottleneck (941 Mb/s of payload at MTU 1500).
    assert all(900 < r <= 1000 for r in rate.values()), rate
    assert all(r["switch"]["to_node1"]["dropped_frames"] == 0 for r in runs.values())


def test_a_bad_congestion_control_is_refused_in_one_line():
    with pytest.raises(Exception, match=r"tcp.congestion.*newreno.*cubic.*bbr"):
        resolve("modern-10g", {"tcp.congestion": "vegas"})


def test_with_a_wake_list_the_woken_idle_processor_activates_the_reader_itself():
    # Loopback 64 KiB stream: the sender's CPU runs the receive softirq and wakes the reader
    # sleeping on the other CPU. Linux 6.x queues it on that CPU's wake list (it runs no
    # thread), which enqueues it; Linux 2.6 enqueued it from the waker.
    sets = {"workload.netperf.msg_bytes": "64 KiB", "workload.netperf.duration_ps": "100 ms"}
    where = {}
    for on in ("true", "false"):
        out = api.run("modern-x86-loopback", {**sets, "sched.wake_list": on})
        procs = out["processors"]
        assert out["nodes"]["node1"]["wakeups_per_s"] > 1000
        where[on] = {p: procs[p]["busy_by_stage"].get("wake_activate", 0) for p in ("node1.cpu0", "node1.cpu1")}
        # The reader's CPU (the one that is not saturated by the sender and its softirq).
        reader = min(procs, key=lambda p: procs[p]["utilisation"] if p.startswith("node1") else 2)
        where[on]["reader"] = reader
    r_on, r_off = where["true"]["reader"], where["false"]["reader"]
    sender = lambda r: "node1.cpu0" if r == "node1.cpu1" else "node1.cpu1"
    assert where["true"][r_on] > 0 and where["true"][sender(r_on)] == 0
    assert where["false"][sender(r_off)] > 0 and where["false"][r_off] == 0


def _lo_64b_stream(extra=None):
    sets = {"cpu.count": 1, "workload.netperf.msg_bytes": "64 B", "workload.netperf.duration_ps": "40 ms",
            "workload.netperf.warmup_ps": "10 ms", **(extra or {})}
    out = api.run("modern-x86-loopback", sets)
    writes_per_s = out["netperf"]["aggregate"]["throughput_mbps"] * 1e6 / 8 / 64
    window_s = out["netperf"]["window_s"]
    segments_per_s = out["nodes"]["node1"]["data_segments_sent"] / window_s
    switches_per_s = out["processors"]["node1.cpu0"]["context_switches_per_s"]
    return writes_per_s, segments_per_s, switches_per_s


def test_linux6_small_writes_on_one_cpu_join_segments_and_do_not_switch_per_write():
    # Linux 6.x (EEVDF, Minshall's Nagle, netserver's 128 KiB recv): the writer keeps its CPU
    # for its slice and its 64-byte writes join the unsent skb behind a short segment in flight.
    writes, segments, switches = _lo_64b_stream()
    assert segments < writes / 4, (writes, segments)
    assert switches < writes / 2, (writes, switches)
    # The thesis-era rules (a return queues the thread behind the reader, every message read
    # whole) send every write as a segment of its own and switch twice per write.
    old = {"sched.policy": "classes", "tcp.nagle": "rfc896", "workload.netperf.recv_bytes": "0 B"}
    writes, segments, switches = _lo_64b_stream(old)
    assert segments == pytest.approx(writes, rel=0.05)
    assert switches == pytest.approx(2 * writes, rel=0.05)
    # TCP_NODELAY: Nagle holds nothing back, so far more segments leave than with it.
    _, nodelay_segments, _ = _lo_64b_stream({"workload.netperf.nodelay": True})
    assert nodelay_segments > 2 * _lo_64b_stream()[1]


def test_autocorking_holds_short_nodelay_writes_while_an_earlier_send_is_in_the_ring():
    # TCP_NODELAY turns Nagle off; tcp_autocorking still joins 64-byte writes while an earlier
    # send of the socket waits in the NIC's ring, and the ring's reclaim pushes them.
    def segments_per_kib(autocork):
        out = api.run("modern-10g", {**SHORT, "workload.netperf.msg_bytes": "64 B", "workload.netperf.nodelay": True,
                                     "tcp.autocork": autocork})
        return out["nodes"]["node0"]["data_segments_sent"] / (out["nodes"]["node1"]["app_bytes_read"] / 1024)

    corked, uncorked = segments_per_kib(True), segments_per_kib(False)
    assert uncorked > 10, uncorked  # nearly a segment a write: 16 a KiB
    assert corked < uncorked / 4, (corked, uncorked)
    # Loopback never corks: loopback_xmit orphans the skb, so nothing of the socket stays below.
    lo = {"workload.netperf.msg_bytes": "64 B", "workload.netperf.nodelay": True, "workload.netperf.duration_ps": "20 ms",
          "workload.netperf.warmup_ps": "5 ms", "cpu.count": 1}
    a, b = (api.run("modern-x86-loopback", {**lo, "tcp.autocork": v})["nodes"]["node1"]["data_segments_sent"] for v in (True, False))
    assert a == b


def test_a_wake_up_of_a_polling_idle_cpu_sends_no_ipi_and_a_halted_one_gets_one():
    sets = {"workload.netperf.test": "tcp_rr", "workload.netperf.msg_bytes": "1 B", "workload.netperf.duration_ps": "20 ms",
            "workload.netperf.warmup_ps": "5 ms"}

    def run(poll):
        out = api.run("modern-x86-loopback", {**sets, "sched.idle_poll": poll})
        ipis = sum(p["ipi_per_s"] for k, p in out["processors"].items() if k.startswith("node1."))
        return ipis / out["netperf"]["aggregate"]["transactions_per_s"], out["netperf"]["aggregate"]["transactions_per_s"]

    (halted_ipis, halted_rate), (polled_ipis, polled_rate) = run(False), run(True)
    # Each transaction wakes the other end on the other CPU: an IPI each way when it halts.
    assert halted_ipis > 1.5, halted_ipis
    assert polled_ipis < 0.05, polled_ipis
    assert polled_rate > halted_rate


def test_probe_reads_whether_the_host_idles_by_polling(tmp_path):
    from nicsim.hostfacts import cpuidle, idle_polls

    def host(driver, poll_ns=None):
        (tmp_path / "devices/system/cpu/cpuidle").mkdir(parents=True, exist_ok=True)
        (tmp_path / "devices/system/cpu/cpuidle/current_driver").write_text(driver + "\n")
        if poll_ns is not None:
            (tmp_path / "module/haltpoll/parameters").mkdir(parents=True, exist_ok=True)
            (tmp_path / "module/haltpoll/parameters/guest_halt_poll_ns").write_text(f"{poll_ns}\n")
        return idle_polls(cpuidle(str(tmp_path)))

    assert host("intel_idle") is True
    assert host("haltpoll", 0) is False and host("haltpoll", 200000) is True
    assert host("acpi_idle") is None
    assert idle_polls(cpuidle(str(tmp_path / "nowhere"))) is False
