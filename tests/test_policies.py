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
