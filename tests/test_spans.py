"""Spans of chunks (`mem.chunk_spans`, docs/design.md "Spans of chunks") change the number of
events and nothing else: every golden configuration, and runs that exercise what a span must
stop for (several CPUs, EEVDF with its tick, free threads, a web run's health series, the
run series, irqbalance), give the same result document with spans on and off, but for the
event counts. The tolerance is zero."""

import pytest
from _golden_helpers import golden

from nicsim import api

# What a span may change: how many events ran and were pending (and how fast), nothing the model computes.
EVENT_KEYS = ("simulator.events", "simulator.events_per_kib", "simulator.events_by_kind", "simulator.pending_max",
              "simulator.wall_s",
              "simulator.simulated_per_wall", "config.mem.chunk_spans")


def _without_events(table: str) -> str:
    return "\n".join(line for line in table.splitlines() if not line.startswith("simulator.events"))


def test_every_golden_table_is_the_same_with_spans_on_and_off(golden_tables):
    on, off = golden_tables("mem", "chunk_spans", True), golden_tables("mem", "chunk_spans", False)
    for name in on:
        assert _without_events(on[name]) == _without_events(off[name]), name
    # Spans (the default) are the frozen tables; the chunked path takes more events.
    assert on == {name: (golden.GOLDEN / name).read_text() for name in on}
    events = lambda t: int(next(l for l in t.splitlines() if l.startswith("simulator.events")).split()[-1])
    assert sum(events(on[n]) for n in on) < 0.7 * sum(events(off[n]) for n in off)


def _flat(res: dict) -> dict:
    """A run's figures but the simulator's own bookkeeping: its events, and the socket table's
    size at the end, which follows when its sweep of finished connections ran (output.md)."""
    return {k: v for k, v in golden._flatten(api.results_only(res)).items()
            if not k.startswith(EVENT_KEYS) and not (k.startswith("simulator.sockets.") and k.endswith(".slots"))}


@pytest.mark.parametrize("preset, sets", [
    ("ortiz2008-base", {"workload.netpipe.sizes_bytes": "1 MiB", "workload.netpipe.target_ps": "20 ms",
                        "run.series_ps": "1 ms"}),
    ("modern-100g", {"workload.kind": "netperf", "workload.netperf.connections": "16",
                     "workload.netperf.warmup_ps": "200 ms", "workload.netperf.duration_ps": "10 ms"}),
    ("modern-x86-loopback", {"workload.netperf.msg_bytes": "64 B", "workload.netperf.duration_ps": "20 ms",
                             "workload.netperf.warmup_ps": "5 ms"}),
    ("ortiz2008-base", {"workload.kind": "netperf", "workload.netperf.test": "tcp_rr", "workload.netperf.connections": "64",
                        "topology.clients": "4", "switch.present": "true", "workload.netperf.duration_ps": "20 ms",
                        "workload.netperf.warmup_ps": "5 ms"}),
    ("ortiz2008-two-nics", {"workload.kind": "netperf", "workload.netperf.connections": "2",
                            "workload.netperf.duration_ps": "20 ms", "workload.netperf.warmup_ps": "5 ms",
                            "topology.server_nic_irq": "periodic_rebalance",
                            "topology.irq_rebalance_interval_ps": "2 ms"}),
    ("zabaljauregui-D", {"workload.kind": "netperf", "workload.netperf.test": "tcp_rr",
                         "workload.netperf.duration_ps": "20 ms", "workload.netperf.warmup_ps": "5 ms"}),
    ("ortiz2008-cache-l1d16-onload", {"workload.netpipe.sizes_bytes": "64 KiB", "workload.netpipe.target_ps": "5 ms"}),
    ("roca1996-smp", {"workload.kind": "netperf", "workload.netperf.duration_ps": "20 ms",
                      "workload.netperf.warmup_ps": "5 ms", "workload.netperf.connections": "4"}),
    ("ortiz2008-base", {"workload.kind": "web", "workload.web.users": "200", "workload.web.duration_ps": "50 ms",
                        "workload.web.warmup_ps": "20 ms", "workload.web.health_interval_ps": "5 ms"}),
])
def test_runs_that_cut_spans_are_the_same_with_spans_on_and_off(preset, sets):
    on = api.run(preset, sets | {"mem.chunk_spans": "true"})
    off = api.run(preset, sets | {"mem.chunk_spans": "false"})
    a, b = _flat(on), _flat(off)
    assert a == b, [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)][:10]
    assert on["simulator"]["events"] <= off["simulator"]["events"]
