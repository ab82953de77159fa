"""The placement decisions of issue 45, each shown by its mechanism with the key set one way
and the other (docs/placements.md, "Decisions re-made from all the sources")."""
import pytest

from nicsim import api

STREAM = {"workload.netpipe.mode": "stream", "workload.netpipe.sizes_bytes": "1 MiB",
          "workload.netpipe.target_ps": "30 ms"}
PINGPONG = {"workload.netpipe.mode": "pingpong", "workload.netpipe.sizes_bytes": "1 B",
            "workload.netpipe.target_ps": "10 ms"}


def point(preset, sets):
    return api.run(preset, sets)["points"][0]


@pytest.mark.parametrize("preset", ["ortiz2008-offload", "ortiz2008-hybrid"])
def test_a_toe_runs_the_senders_tcp_output_on_the_nic_processor(preset):
    sender = {"offload": "node0.cpu0", "hybrid": "node0.cpu1"}[preset.split("-")[1]]
    for model, on_host in (("toe", False), ("linux", True)):
        p = point(preset, {**STREAM, "tx.model": model})
        host = p["processors"][sender]["busy_by_stage"]
        nic = p["processors"]["node0.nic_cpu"]["busy_by_stage"]
        assert (host.get("tx_tcp", 0) > 0) == on_host, (model, host)
        assert nic.get("tx_tcp", 0) > 0, "ACK-released output runs on the NIC either way"
        # The host keeps the system call and the copy into the send buffer.
        assert host["tx_copy"] > 0 and host["tx_syscall"] > 0


def test_the_offload_interrupt_reaches_its_target_without_the_io_apics_delay():
    def one_way_us(preset, ioapic):
        return point(preset, {**PINGPONG, "apic.ioapic_latency_ps": ioapic})["latency_us"]
    base = one_way_us("ortiz2008-base", "2500 ns") - one_way_us("ortiz2008-base", "500 ns")
    off = one_way_us("ortiz2008-offload", "2500 ns") - one_way_us("ortiz2008-offload", "500 ns")
    # base's receive interrupt crosses the I/O APIC once per one-way message: +2 µs;
    # offload's goes over the direct path (placement.irq_path) and does not move.
    assert base == pytest.approx(2.0, abs=0.2)
    assert abs(off) < 0.05
    via = point("ortiz2008-offload", {**PINGPONG, "placement.irq_path": "ioapic",
                                      "apic.ioapic_latency_ps": "2500 ns"})["latency_us"]
    assert via - one_way_us("ortiz2008-offload", "2500 ns") == pytest.approx(2.5, abs=0.2), "the whole delay"


def test_the_nic_processors_memory_delay_prices_its_references_not_its_instructions():
    """Q29: 'Offload x' times every data reference of the NIC processor, and none of its
    instructions. Per received byte, the socket copy's instructions stay put as the delay
    doubles, and its stall cycles double."""
    def per_byte(latency):
        p = point("ortiz2008-offload", {**STREAM, "nic_cpu.mem_latency_cycles": latency})
        nic = p["processors"]["node1.nic_cpu"]
        nbytes = p["nodes"]["node1"]["app_bytes_read"]
        cycles = nic["busy_cycles"]["copy"]  # skb_copy is the NIC processor's only copy
        instructions = nic["instructions_by_stage"]["skb_copy"]
        return instructions / nbytes, (cycles - instructions) / nbytes
    i10, stall10 = per_byte(10)
    i20, stall20 = per_byte(20)
    assert i20 == pytest.approx(i10, rel=0.02)
    assert stall20 == pytest.approx(2 * stall10, rel=0.03)
    assert stall10 > 5 * i10, "at the thesis's 10-cycle mean the copy is mostly stall"


def test_the_copy_to_the_application_stays_on_the_host_and_the_checksum_moves():
    p = point("ortiz2008-offload", STREAM)
    cpu0 = p["processors"]["node1.cpu0"]["busy_by_stage"]
    nic = p["processors"]["node1.nic_cpu"]["busy_by_stage"]
    assert cpu0["rx_copy"] > 0 and "rx_copy" not in nic
    assert nic["csum"] > 0 and "csum" not in cpu0
