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
