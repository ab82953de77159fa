"""Interrupt distribution per interrupt (stacks.md §A.9 note 1, test B): round robin over the
host CPUs, or to the least busy one; the softirq follows the interrupt."""
from nicsim import api

RR = {"workload.kind": "netperf", "workload.netperf.test": "tcp_rr", "workload.netperf.connections": 2,
      "workload.netperf.duration_ps": "50 ms", "workload.netperf.warmup_ps": "10 ms"}


def server_irqs(out):
    return [out["processors"][f"node2.cpu{k}"]["nic_irq_per_s"] for k in (0, 1)]


def conserved(out):
    return all(c["sent_bytes"] == c["delivered_bytes"] + c["in_flight_bytes"] + c["dropped_bytes"]
               for c in out["conservation"].values())


def test_round_robin_alternates_every_interrupt_over_the_host_cpus():
    out = api.run("ortiz2008-two-nics", {**RR, "topology.server_nic_irq": "round_robin"})
    a, b = server_irqs(out)
    assert a > 1000 and b > 1000
    assert abs(a - b) <= 0.01 * (a + b) + 2 / 0.05, "alternation, up to the window's edges"
    soft = [out["processors"][f"node2.cpu{k}"]["busy_by_context"]["softirq"] for k in (0, 1)]
    assert min(soft) > 0, "the softirq follows the interrupt"
    assert conserved(out)


def test_lowest_priority_sends_interrupts_to_the_cpu_not_running_the_servers():
    same = api.run("ortiz2008-two-nics", {**RR, "topology.server_nic_irq": "same"})
    out = api.run("ortiz2008-two-nics", {**RR, "topology.server_nic_irq": "lowest_priority"})
    # Under `same` every interrupt goes to cpu0, where the netperf servers run (the base
    # placement's comm_thread); the least busy CPU is then usually cpu1.
    assert server_irqs(same)[1] == 0
    a, b = server_irqs(out)
    assert b > a and b > 1000
    assert conserved(out)


def test_an_explicit_affinity_wins_over_the_distribution_policy():
    out = api.run("ortiz2008-two-nics", {**RR, "topology.server_nic_irq": "round_robin",
                                         "topology.server_nic_cpus": "cpu1,cpu1"})
    a, b = server_irqs(out)
    assert a == 0 and b > 0


def test_periodic_rebalance_starts_on_one_cpu_and_spreads_the_devices_at_its_first_pass():
    """irqbalance (note 1): every interrupt on cpu0 until the first pass; from it, the busier
    device stays on cpu0 and the other goes to cpu1, at its next interrupt."""
    rb = {**RR, "topology.server_nic_irq": "periodic_rebalance"}
    before = api.run("ortiz2008-two-nics", {**rb, "topology.irq_rebalance_interval_ps": "10 s"})
    assert server_irqs(before)[1] == 0 and "irq_rebalance" not in before["simulator"]["events_by_kind"]
    out = api.run("ortiz2008-two-nics", {**rb, "topology.irq_rebalance_interval_ps": "5 ms"})
    a, b = server_irqs(out)
    assert a > 1000 and b > 1000
    assert out["simulator"]["events_by_kind"]["irq_rebalance"] >= 10
    soft = [out["processors"][f"node2.cpu{k}"]["busy_by_context"]["softirq"] for k in (0, 1)]
    assert min(soft) > 0, "each device's softirq follows its interrupt"
    assert conserved(out)
    # Balanced passes move nothing: the devices stay one per CPU, so the split is steady.
    assert abs(a - b) < 0.2 * (a + b)
