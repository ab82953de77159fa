"""The coordination policies of issue 35, asserted as mechanisms: how a slower NIC processor
is slower (`nic_cpu.speed_model`), and NAPI-like masking of an accumulating NIC's
interrupts (`nic.rx_notify`)."""
import pytest

from nicsim import api

PING = {"workload.netpipe.mode": "pingpong", "workload.netpipe.sizes_bytes": "1 B", "workload.netpipe.target_ps": "5 ms"}
STREAM = {"workload.netpipe.mode": "stream", "workload.netpipe.sizes_bytes": "1 MiB", "workload.netpipe.target_ps": "50 ms"}


def _ps_per_instruction(speed: float, model: str) -> float:
    """Busy host-clock cycles per instruction on the receiving NIC processor, whose memory
    is made slow enough that stalls dominate."""
    out = api.run("ortiz2008-offload", {**PING, "nic_cpu.speed_fraction": speed, "nic_cpu.speed_model": model, "nic_cpu.mem_latency_cycles": 40})
    pr = out["points"][-1]["processors"]["node1.nic_cpu"]
    return sum(pr["busy_cycles"].values()) / sum(pr["instructions_by_stage"].values())


def test_a_half_clock_nic_processor_takes_twice_as_long_for_the_same_stalls():
    full = _ps_per_instruction(1.0, "clock")
    assert _ps_per_instruction(0.5, "clock") == pytest.approx(2 * full, rel=2e-2)
    # Slowing only the instruction rate leaves the stalls in host time: less than twice.
    slower_instructions = _ps_per_instruction(0.5, "instruction_rate")
    assert full * 1.02 < slower_instructions < 1.5 * full
    assert _ps_per_instruction(1.0, "instruction_rate") == pytest.approx(full, rel=1e-9)


def _stream(preset: str, **sets) -> dict:
    return api.run(preset, {**STREAM, **sets})["points"][-1]


@pytest.mark.parametrize("preset", ["ortiz2008-offload", "ortiz2008-hybrid"])
def test_napi_masks_an_accumulating_nic_while_its_poll_has_work(preset):
    masked, per_burst = _stream(preset), _stream(preset, **{"nic.rx_notify": "interrupt"})
    irq = lambda pt: pt["nodes"]["node1"]["nic_irqs_raised"]
    flushes = lambda pt: sum(pt["nodes"]["node1"]["ring_flushes"].values())
    # One interrupt per flushed burst without masking; far fewer with it, same data delivered.
    assert irq(per_burst) >= flushes(per_burst) > 0
    assert irq(masked) < flushes(masked) / 4
    assert masked["nodes"]["node1"]["app_bytes_read"] > 0


def test_device_interrupts_ipis_and_ticks_are_counted_apart():
    pt = _stream("ortiz2008-offload", **{"sched.tick_hz": 250})
    cpu0 = pt["processors"]["node1.cpu0"]
    assert cpu0["irq_per_s"] == pytest.approx(cpu0["nic_irq_per_s"] + cpu0["ipi_per_s"])
    assert cpu0["timer_irq_per_s"] == pytest.approx(250, rel=0.1)
    # The NIC processor's reschedule IPIs reach cpu0 as IPIs, not as device interrupts.
    assert cpu0["ipi_per_s"] > cpu0["nic_irq_per_s"]


def test_no_reschedule_ipi_to_a_cpu_whose_reader_is_running():
    pt = _stream("ortiz2008-onload")
    cpu0, cpu1 = pt["processors"]["node1.cpu0"], pt["processors"]["node1.cpu1"]
    # Only a reader asleep in recv is woken, and each wake-up sends at most one IPI: a reader
    # that is running (or already woken) takes the segments that arrive meanwhile without one.
    assert 0 < cpu0["ipi_per_s"] <= cpu1["wakeups_per_s"] + 1e-9


def test_strict_alternation_leaves_the_receiver_waiting_while_the_load_thread_works():
    from nicsim.hpc import run_hpcbench

    run = lambda coupling: run_hpcbench("ortiz2008-onload", {"workload.hpcbench.coupling": coupling}, gamma=1.0, msg_size="256 KiB", duration="150 ms")["hpcbench"]
    alt, queued = run("alternate"), run("queue")
    cpu0 = lambda h: h["processors"]["node1.cpu0"]["utilisation"]
    # A queue lets receiving and processing overlap on cpu0 until it saturates; alternation
    # idles cpu0 while the receiver waits for data the load thread is not yet working on.
    assert cpu0(queued) > 0.97
    assert cpu0(alt) < cpu0(queued) - 0.05
    assert alt["throughput_mbps"] < queued["throughput_mbps"]


def test_hybrid_web_requests_run_on_the_app_cpu_and_the_copies_on_cpu1():
    sets = {"workload.web.users": 40, "workload.web.duration_ps": "40 ms", "workload.web.warmup_ps": "10 ms"}
    # Workers pinned to cpu1 (workload.web.worker_threads = comm), as Table 5.1's one flow runs;
    # the default lets them move to cpu0 too (§5.2.1, tests/test_web.py).
    run = lambda how: api.run("ortiz2008-hybrid", {**sets, "workload.kind": "web", "workload.web.app_work": how,
                                                    "workload.web.worker_threads": "comm"})
    split, worker = run("app_cpu"), run("worker")
    server = lambda out, cpu: out["processors"][f"node{len(out['processors']) // 3 - 1}.{cpu}"]
    # Table 5.1: cpu0 runs the application (the request's processing), cpu1 the copies.
    assert server(split, "cpu0")["busy"]["app"] > 0.01
    assert server(split, "cpu0")["busy"]["copy"] == 0
    assert server(split, "cpu1")["busy"]["copy"] > 0
    assert server(worker, "cpu0")["utilisation"] < 0.01


def test_a_cross_cpu_wake_latency_lengthens_only_cross_cpu_wake_ups():
    lat = lambda preset, w: api.run(preset, {**PING, "sched.wake_latency_ps": w})["points"][0]["latency_us"]
    # Onload's reader on cpu0 is woken from cpu1 once per one-way trip: 10 µs more each.
    assert lat("ortiz2008-onload", "10 us") - lat("ortiz2008-onload", "0 s") == pytest.approx(10.0, abs=0.5)
    # Base wakes its reader on its own CPU: no IPI, no change.
    assert lat("ortiz2008-base", "10 us") == lat("ortiz2008-base", "0 s")
