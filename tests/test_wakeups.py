"""Per-message kernel behaviour (issue 34 item 1): a reader is woken once per batch, never while
it is runnable; context switches are counted as sar counts them; Linux 2.6's prequeue runs TCP
input in the waiting reader's context."""
import pytest

from nicsim import api

STREAM = {"workload.netpipe.target_ps": "20 ms", "workload.netpipe.sizes_bytes": "1 MiB", "workload.netpipe.mode": "stream"}
PING = {"workload.netpipe.target_ps": "20 ms", "workload.netpipe.sizes_bytes": "1 B", "workload.netpipe.mode": "pingpong"}


def point(preset, sets):
    out = api.run(preset, sets)
    for direction in out["conservation"].values():
        assert direction["sent_bytes"] == direction["delivered_bytes"] + direction["in_flight_bytes"] + direction["dropped_bytes"]
    return out["points"][-1]


def segments_in_per_s(pt):
    """Data segments node1 took in over the point's window, from the bytes it received."""
    mss = 8948
    return pt["throughput_mbps"] * 1e6 / 8 / mss


def test_a_runnable_reader_is_not_woken_again():
    # The base receiver is saturated: segments arrive while its reader is runnable or running,
    # and only the first of each batch wakes it.
    pt = point("ortiz2008-base", STREAM)
    wakes = pt["nodes"]["node1"]["wakeups_per_s"]
    assert 0 < wakes < 0.2 * segments_in_per_s(pt)


def test_a_reader_that_sleeps_on_an_idle_cpu_counts_two_switches_per_wake():
    # Ping-pong: each message wakes the sleeping reader on an otherwise idle CPU: a switch to
    # idle when it sleeps and one back when it wakes, as sar's cswch/s counts them.
    pt = point("ortiz2008-base", PING)
    cpu = pt["processors"]["node1.cpu0"]
    wakes = pt["nodes"]["node1"]["wakeups_per_s"]
    assert wakes > 0
    assert cpu["context_switches_per_s"] == pytest.approx(2 * wakes, rel=0.02)


def test_prequeue_runs_tcp_input_in_the_readers_context():
    # Onload: the softirq on cpu1, the reader on cpu0. With the prequeue, TCP input follows the
    # reader to cpu0, one wake-up per batch of queued segments.
    off = point("ortiz2008-onload", {**STREAM, "tcp.prequeue": "false"})
    on = point("ortiz2008-onload", {**STREAM, "tcp.prequeue": "true"})
    assert off["nodes"]["node1"]["prequeued_per_s"] == 0
    queued = on["nodes"]["node1"]["prequeued_per_s"]
    assert queued > 0.9 * segments_in_per_s(on)
    assert on["nodes"]["node1"]["wakeups_per_s"] < 0.2 * queued
    tcpip = lambda pt, cpu: pt["processors"][f"node1.{cpu}"]["busy"]["tcpip"]
    assert tcpip(off, "cpu0") == 0 and tcpip(on, "cpu0") > 0.2
    assert tcpip(on, "cpu1") < 0.1 * tcpip(off, "cpu1")


def test_a_nic_processor_running_tcp_has_no_prequeue():
    # Offload: TCP runs on the NIC processor, which cannot queue for a host thread.
    pt = point("ortiz2008-offload", {**STREAM, "tcp.prequeue": "true"})
    assert pt["nodes"]["node1"]["prequeued_per_s"] == 0


def test_locks_rank_by_spin_time_or_by_conflicts_as_lockstat_does():
    from nicsim.netperf import ranked_locks

    locks = {"a": {"acquisitions": 10, "conflicts": 9, "spin_us": 1.0},
             "b": {"acquisitions": 10, "conflicts": 2, "spin_us": 50.0},
             "idle": {"acquisitions": 0, "conflicts": 0, "spin_us": 0.0},
             "socket": {"backlogged": 3}}
    assert [k for k, _ in ranked_locks(locks)] == ["b", "a"]
    assert [k for k, _ in ranked_locks(locks, by="conflicts")] == ["a", "b"]


def test_a_receive_low_water_mark_batches_the_readers_wake_ups():
    # SO_RCVLOWAT: the sleeping reader waits until 32 KiB can be read, so it is woken fewer
    # times for the same bytes than at Linux's default of one byte.
    sets = {**STREAM, "tcp.prequeue": "false"}
    one = point("ortiz2008-onload", sets)
    low = point("ortiz2008-onload", {**sets, "tcp.rcvlowat_bytes": "32 KiB"})
    per_mb = lambda pt: pt["nodes"]["node1"]["wakeups_per_s"] / pt["throughput_mbps"]
    assert per_mb(low) < 0.5 * per_mb(one)
