"""NIC features and knobs, each exercised through the whole model: jumbo frames, checksum
offload, the NIC processor's speed and memory delay, ideal against realistic buses."""
import pytest

from nicsim import api

STREAM = {"workload.netpipe.mode": "stream", "workload.netpipe.sizes_bytes": "1 MiB", "workload.netpipe.target_ps": "50 ms"}
PING = {"workload.netpipe.mode": "pingpong", "workload.netpipe.sizes_bytes": "1 B", "workload.netpipe.target_ps": "20 ms"}


def point(preset, sets):
    return api.run(preset, sets)["points"][-1]


def test_jumbo_frames_cut_per_packet_work_and_interrupts():
    jumbo = point("ortiz2008-base", STREAM)
    std = point("ortiz2008-base", {**STREAM, "nic.mtu_bytes": "1500 B"})
    assert jumbo["throughput_mbps"] > std["throughput_mbps"]
    j, s = jumbo["processors"]["node1.cpu0"], std["processors"]["node1.cpu0"]
    assert j["busy"]["tcpip"] < s["busy"]["tcpip"]
    # One interrupt per frame (NAPI off): jumbo frames mean fewer interrupts per byte. Under
    # NAPI a saturated receiver polls with interrupts masked, so the count is not monotonic.
    irq = {"nic.rx_notify": "interrupt"}
    j = point("ortiz2008-base", {**STREAM, **irq})
    s = point("ortiz2008-base", {**STREAM, **irq, "nic.mtu_bytes": "1500 B"})
    per_mb = lambda p: p["processors"]["node1.cpu0"]["nic_irq_per_s"] / p["throughput_mbps"]
    assert per_mb(j) < per_mb(s) / 3


def test_software_checksum_adds_per_byte_tcpip_work():
    on = point("ortiz2008-base", {**STREAM, "nic.csum_offload": "true"})["processors"]["node1.cpu0"]["busy"]["tcpip"]
    off = point("ortiz2008-base", {**STREAM, "nic.csum_offload": "false"})["processors"]["node1.cpu0"]["busy"]["tcpip"]
    assert off > 2 * on


@pytest.mark.parametrize("knob,slow,fast", [("nic_cpu.speed_fraction", "0.25", "1"), ("nic_cpu.mem_latency_cycles", "10", "1")])
def test_a_slower_nic_processor_lengthens_offloaded_latency(knob, slow, fast):
    t_slow = point("ortiz2008-offload", {**PING, knob: slow})["latency_us"]
    t_fast = point("ortiz2008-offload", {**PING, knob: fast})["latency_us"]
    assert t_slow > t_fast


def test_ideal_buses_remove_collisions_and_raise_throughput():
    real = point("ortiz2008-base", STREAM)
    ideal = point("ortiz2008-ideal-bus", STREAM)
    assert ideal["nodes"]["node1"]["north_bridge_collisions"] == 0 < real["nodes"]["node1"]["north_bridge_collisions"]
    assert ideal["throughput_mbps"] > real["throughput_mbps"]


def test_interrupt_coalescing_switch_from_configuration():
    napi_off = {**STREAM, "nic.rx_notify": "interrupt", "nic.mtu_bytes": "1500 B"}
    one = point("ortiz2008-base", napi_off)["processors"]["node1.cpu0"]["nic_irq_per_s"]
    coalesced = point("ortiz2008-base", {**napi_off, "nic.rx_coalesce_frames": "8", "nic.rx_coalesce_ps": "1 ms"})["processors"]["node1.cpu0"]["nic_irq_per_s"]
    assert coalesced < 0.5 * one


def _delivered(rate, notify):
    out = api.run("ortiz2008-base", {"workload.kind": "packet_gen", "workload.packet_gen.rate_pps": str(rate), "nic.rx_notify": notify,
                                     "nic.mtu_bytes": "1500 B", "workload.packet_gen.duration_ps": "50 ms"})
    g = out["packet_gen"]
    for c in out["conservation"].values():
        assert c["sent_bytes"] == c["delivered_bytes"] + c["in_flight_bytes"] + c["dropped_bytes"]
    return g["delivered_pps"], g["processors"]["node1.cpu0"]["busy_by_context"]["hardirq"]


def test_receive_livelock_without_napi_and_a_plateau_with_it():
    """host-path §2.3: with NAPI and coalescing off, an open-loop flood of small frames makes
    the CPU spend everything in hard interrupts; NAPI keeps delivering at its capacity."""
    rates = [20_000, 400_000, 1_400_000]
    per_irq = [_delivered(r, "interrupt") for r in rates]
    napi = [_delivered(r, "napi") for r in rates]
    assert per_irq[0][0] == pytest.approx(20_000, rel=0.02) and napi[0][0] == pytest.approx(20_000, rel=0.02)
    assert per_irq[-1][0] < 0.05 * max(d for d, _ in per_irq) and per_irq[-1][1] > 0.95
    # NAPI holds a plateau near its peak, which lies well above the lowest offered rate.
    assert napi[-1][0] > 0.8 * max(d for d, _ in napi) > 2 * rates[0]


def test_generator_rate_above_the_link_is_refused():
    from nicsim import ConfigError, resolve

    with pytest.raises(ConfigError, match="workload.packet_gen.rate_pps.*exceeds the link"):
        resolve(None, {"workload.kind": "packet_gen", "workload.packet_gen.rate_pps": "2e6"})


def test_a_packet_trace_replays_deterministically(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("time_ns,length_bytes\n0,64\n13000,1518\n26000,590\n40000,64\n")
    sets = {"workload.kind": "packet_gen", "nic.mtu_bytes": "1500 B", "workload.packet_gen.trace_file": str(trace), "workload.packet_gen.duration_ps": "20 ms"}
    a, b = api.run("ortiz2008-base", sets), api.run("ortiz2008-base", sets)
    assert api.dumps(api.results_only(a)) == api.dumps(api.results_only(b))
    # Four frames per 40 µs + one mean gap (13.3 µs) between replays: 75,000 frames/s.
    assert a["packet_gen"]["offered_pps"] == pytest.approx(4 / 53.333e-6, rel=0.01)
    assert a["config"]["workload"]["packet_gen"]["trace_frame_bytes"] == [64, 1518, 590, 64]


def test_a_trace_faster_than_the_link_names_the_line(tmp_path):
    from nicsim import ConfigError, resolve

    trace = tmp_path / "fast.csv"
    trace.write_text("interval_ns,length_bytes\n1000,1518\n1000,64\n")
    with pytest.raises(ConfigError, match=r"trace_file.*line 3.*faster than the 1 Gbps link"):
        resolve(None, {"workload.kind": "packet_gen", "nic.mtu_bytes": "1500 B", "workload.packet_gen.trace_file": str(trace)})


def _per_byte_sent(point, count):
    """A count taken over a point's transfers, per byte the sender sent (utilisations are
    rates and go per Mbps instead)."""
    return count / point["nodes"]["node0"]["app_bytes_sent"]


def test_gro_merges_frames_so_tcp_runs_and_acks_once_per_merged_segment():
    # TCP input in the softirq, so frames queue in the ring while it runs and GRO finds
    # several to merge (with the prequeue the softirq drains the ring faster and merges fewer).
    std = {**STREAM, "nic.mtu_bytes": "1500 B", "tcp.prequeue": "false"}
    off = point("ortiz2008-base", std)
    on = point("ortiz2008-base", {**std, "nic.gro": "true"})
    cpu_off, cpu_on = off["processors"]["node1.cpu0"], on["processors"]["node1.cpu0"]
    # Per byte: less TCP/IP work and fewer ACKs; the freed receiver moves more.
    per_mb = lambda p, x: x / p["throughput_mbps"]
    assert per_mb(on, cpu_on["busy"]["tcpip"]) < 0.85 * per_mb(off, cpu_off["busy"]["tcpip"])
    acks = lambda p: _per_byte_sent(p, p["nodes"]["node1"]["acks_sent"])
    assert acks(on) < 0.5 * acks(off)
    assert on["throughput_mbps"] > off["throughput_mbps"]


def test_a_merged_frame_is_released_at_the_merge_and_read_as_one_fragment_of_its_sk_buff():
    # Give GRO's release of a merged frame and recv's copy of a further fragment one and the
    # same cost: every frame merged in the softirq is read later as one fragment, so over a
    # stream the two take the same time; recv's per-sk_buff copy runs once per merged segment.
    same = {"i_pkt": "1000", "i_byte": "0", "r_pkt": "0", "r_byte": "0", "category": "os"}
    sets = {**STREAM, "nic.mtu_bytes": "1500 B", "tcp.prequeue": "false", "nic.gro": "true",
            **{f"costs.{s}.{k}": v for s in ("gro_free_head", "rx_copy_frag") for k, v in same.items()},
            "costs.rx_copy.i_byte": "0", "costs.rx_copy.r_byte": "0"}
    run_on = point("ortiz2008-base", sets)
    on = run_on["processors"]["node1.cpu0"]["busy_by_stage"]
    assert on["gro_free_head"] > 0.005
    assert on["rx_copy_frag"] == pytest.approx(on["gro_free_head"], rel=0.03)
    run_off = point("ortiz2008-base", {**sets, "nic.gro": "false"})
    off = run_off["processors"]["node1.cpu0"]["busy_by_stage"]
    assert off.get("rx_copy_frag", 0) == 0 and off.get("gro_free_head", 0) == 0
    # Without merging, each frame is an sk_buff of its own and pays rx_copy's per-call work
    # (its per-byte copy set to nothing here): per byte received, far more of it.
    per_mb = lambda run, b: b["rx_copy"] / run["throughput_mbps"]
    assert per_mb(run_on, on) < 0.7 * per_mb(run_off, off)


def test_tso_passes_a_send_through_tcp_ip_and_the_driver_once_and_the_wire_still_carries_mss_frames():
    std = {**STREAM, "nic.mtu_bytes": "1500 B"}
    off = point("ortiz2008-base", std)
    on = point("ortiz2008-base", {**std, "nic.tso": "true"})
    per_mb = lambda p, x: x / p["throughput_mbps"]
    snd_off, snd_on = off["processors"]["node0.cpu0"]["busy"], on["processors"]["node0.cpu0"]["busy"]
    # The sender's per-packet work falls; its per-byte copy does not.
    assert per_mb(on, snd_on["tcpip"]) < 0.7 * per_mb(off, snd_off["tcpip"])
    assert per_mb(on, snd_on["driver"]) < 0.7 * per_mb(off, snd_off["driver"])
    assert per_mb(on, snd_on["copy"]) == pytest.approx(per_mb(off, snd_off["copy"]), rel=0.05)
    # The receiver still gets MSS frames: it acknowledges about every other one, as without
    # TSO (within 10%: the sender's bursts of a size goal change when delayed ACKs fire), not
    # once per send, which would be about one ACK per 30 frames here.
    acks = lambda p: _per_byte_sent(p, p["nodes"]["node1"]["acks_sent"])
    assert acks(on) == pytest.approx(acks(off), rel=0.1)
    # One descriptor and one DMA request per send: fewer I/O transactions per byte.
    io = lambda p: _per_byte_sent(p, p["nodes"]["node0"]["io_transactions"])
    assert io(on) < io(off)
