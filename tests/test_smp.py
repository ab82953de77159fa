"""SMP hosts of up to 16 CPUs (stacks.md §B.7): processors by name, the allocator and TCP
module locks as shared resources whose contention emerges from the work, and one free process
per connection at each end (roca1996-smp)."""
import subprocess
import sys

import pytest

from nicsim import api
from nicsim.errors import ConfigError

EIGHT = {"workload.netperf.connections": 8, "workload.netperf.duration_ps": "300 ms",
         "workload.netperf.warmup_ps": "50 ms"}


def locks(out, node="node1"):
    return out["nodes"][node]["locks"]


def throughput(out):
    return out["netperf"]["aggregate"]["throughput_mbps"]


def test_a_node_takes_up_to_sixteen_cpus_and_names_the_count_a_processor_needs():
    out = api.run("roca1996-smp", {**EIGHT, "cpu.count": 16})
    assert sum(1 for k in out["processors"] if k.startswith("node1.cpu")) == 16
    assert "node1.cpu15" in out["processors"]
    with pytest.raises(ConfigError, match=r"cpu.count.*16"):
        api.run("roca1996-smp", {"cpu.count": 17})
    with pytest.raises(ConfigError, match=r"placement.comm_thread = cpu4.*set cpu.count = 5"):
        api.run("roca1996-smp", {"placement.comm_thread": "cpu4"})
    r = subprocess.run([sys.executable, "-m", "nicsim", "netperf", "roca1996-smp", "--set", "cpu.count=17"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "cpu.count" in r.stderr


def test_one_cpu_takes_every_lock_without_conflict_and_more_cpus_contend_and_go_faster():
    one = api.run("roca1996-smp", {**EIGHT, "cpu.count": 1})
    four = api.run("roca1996-smp", {**EIGHT, "cpu.count": 4})
    for name, lock in locks(one).items():
        if "conflicts" in lock:
            assert lock["conflicts"] == 0 and lock["spin_us"] == 0, name
    # Every buffer allocation and free takes the allocator's lock.
    assert locks(one)["allocator"]["acquisitions"] > 1000
    assert locks(four)["allocator"]["conflicts"] > 0 and locks(four)["allocator"]["spin_us"] > 0
    assert throughput(four) > 1.5 * throughput(one)
    for out in (one, four):
        assert all(p["utilisation"] <= 1.0 + 1e-9 for p in out["processors"].values())
        for c in out["conservation"].values():
            assert c["sent_bytes"] == c["delivered_bytes"] + c["in_flight_bytes"] + c["dropped_bytes"]


def test_without_the_allocator_lock_buffers_take_no_shared_lock():
    out = api.run("roca1996-smp", {**EIGHT, "smp.allocator_lock": False})
    assert locks(out)["allocator"]["acquisitions"] == 0


def test_the_tcp_module_lock_serialises_tcp_across_connections_in_place_of_the_sockets():
    per_socket = api.run("roca1996-smp", EIGHT)
    module = api.run("roca1996-smp", {**EIGHT, "smp.tcp_module_lock": True})
    assert locks(per_socket)["tcp_module"]["acquisitions"] == 0
    # TCP input and output both take it; the socket's lock is no longer taken around input.
    assert locks(module)["tcp_module"]["acquisitions"] > locks(per_socket)["socket"]["acquisitions"]
    assert locks(module)["socket"]["acquisitions"] == 0
    # One lock over every connection's TCP conflicts far more than a lock per socket.
    assert locks(module)["tcp_module"]["conflicts"] > 5 * max(1, locks(per_socket)["socket"]["conflicts"])


def test_free_clients_and_spread_client_interrupts_use_every_cpu_of_the_sender():
    out = api.run("roca1996-smp", EIGHT)
    for k in range(4):
        p = out["processors"][f"node0.cpu{k}"]
        assert p["utilisation"] > 0.05 and p["nic_irq_per_s"] > 0
    pinned = api.run("roca1996-smp", {**EIGHT, "workload.netperf.client_threads": "comm",
                                       "topology.client_nic_irq": "same"})
    assert all(pinned["processors"][f"node0.cpu{k}"]["utilisation"] < 0.01 for k in (1, 2, 3))
