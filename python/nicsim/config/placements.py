"""The four placements of the thesis as data (host-path §5.2, Table 5.1, Appendix III): which
processor runs the driver, the protocol softirq, the communication thread and the load thread,
how the NIC interrupt travels, and how received frames reach the host."""
from __future__ import annotations

from typing import Any

PLACEMENTS: dict[str, dict[str, str]] = {
    # Everything on cpu0; the NIC interrupt crosses the I/O APIC (§5.4).
    "base": dict(driver="cpu0", protocol="cpu0", comm_thread="cpu0", app="cpu0", irq_path="ioapic", rx_mode="host_ring"),
    # TCP/IP on the NIC processor; driver and copy on cpu0; interrupt direct to cpu0 per
    # flushed burst (variant A of §5.5.4, Q12); frames accumulate in NIC memory.
    "offload": dict(driver="cpu0", protocol="nic_cpu", comm_thread="cpu0", app="cpu0", irq_path="direct", rx_mode="ring_accumulate"),
    # Driver and TCP/IP on cpu1 through the I/O APIC; the copy to the application on cpu0 (§5.6).
    "onload": dict(driver="cpu1", protocol="cpu1", comm_thread="cpu0", app="cpu0", irq_path="ioapic", rx_mode="host_ring"),
    # cpu1 takes interrupts, runs the driver and the copy; TCP/IP on the NIC; cpu0 runs only
    # the application (§5.7, Q27).
    "hybrid": dict(driver="cpu1", protocol="nic_cpu", comm_thread="cpu1", app="cpu0", irq_path="ioapic", rx_mode="ring_accumulate"),
    # The host runs everything it owns as in base; the NIC processor sees every frame first,
    # runs TCP for the connections handed to it and forwards the rest (handoff.md §2).
    "handoff": dict(driver="cpu0", protocol="cpu0", comm_thread="cpu0", app="cpu0", irq_path="ioapic", rx_mode="handoff"),
    # CPU-NET (stacks.md §A.8, §A.9): cpu1 polls the NICs' rings without end, with their
    # interrupt work inline, and runs lower receive; cpu0 (CPU-HOST) runs the processes and
    # upper layers. Test D sends from the calling thread (d_tx_lower = inline); test E queues
    # process-context sends to CPU-NET.
    "cpu_net_d": dict(driver="cpu1", protocol="cpu1", comm_thread="cpu0", app="cpu0", irq_path="ioapic", rx_mode="poll"),
    "cpu_net_e": dict(driver="cpu1", protocol="cpu1", comm_thread="cpu0", app="cpu0", irq_path="ioapic", rx_mode="poll",
                      tx_output="protocol"),
}

# Processors each placement needs, so presets can size the hardware.
NEEDS = {
    "base": dict(cpus=1, nic_cpu=False),
    "offload": dict(cpus=1, nic_cpu=True),
    "onload": dict(cpus=2, nic_cpu=False),
    "hybrid": dict(cpus=2, nic_cpu=True),
    "handoff": dict(cpus=1, nic_cpu=True),
    "cpu_net_d": dict(cpus=2, nic_cpu=False),
    "cpu_net_e": dict(cpus=2, nic_cpu=False),
}

# The roles a placement row decides, each overridable by `placement.ROLE`.
ROLES = ("driver", "protocol", "comm_thread", "app", "irq_path", "rx_mode")


def base_of(sets: dict[str, Any]) -> dict[str, Any]:
    """What every comparison with base compares against (δb, the γ sweep, `--vs-base`, a
    reference row on base): the same configuration, hardware and all, with the base placement
    on every node and no role overridden."""
    out = {**sets, "placement.preset": "base", "placement.sender": "same"}
    out.update({f"placement.{r}": "" for r in ROLES})
    return out


def gain(placed: float, base: float) -> float:
    """How much a placed run's figure exceeds the base run's, as a fraction: δb for
    throughput (laws.md §4.4)."""
    return placed / base - 1
