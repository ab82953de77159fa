"""The engine's queue (`run.event_queue`, docs/benchmarks.md "The engine's queue at the runs'
pending sizes") changes how fast events are found, never which runs next: keys (time, insertion
sequence) are unique, so the adaptive queue, the radix heap and the binary heap execute the same
events in the same order. Every golden table, and runs whose pending set passes the adaptive
queue's threshold (a web run with 2,500 users, 512 TCP_RR connections), are identical on all three.
The Rust side checks a randomized workload (`engine::tests::every_queue_executes_the_same_order`)."""
import json

import pytest
from _golden_helpers import golden

from nicsim import api

QUEUES = ("adaptive", "radix", "binary_heap")


def test_every_golden_table_is_the_same_on_every_queue(golden_tables):
    frozen = {name: (golden.GOLDEN / name).read_text() for name in golden.runs()}
    for q in QUEUES:
        assert golden_tables("run", "event_queue", q) == frozen, q


def _same(docs: dict[str, dict]) -> None:
    def flat(d):
        r = api.results_only(d)
        r.pop("config_hash", None)
        r["config"]["run"].pop("event_queue")
        return json.dumps(r, sort_keys=True)

    first = flat(docs["binary_heap"])
    for q, d in docs.items():
        assert flat(d) == first, q


@pytest.mark.parametrize("preset, sets", [
    ("ortiz2008-base", {"workload.kind": "web", "workload.web.users": "2500", "workload.web.page_size_bytes": "5 KiB",
                        "workload.web.warmup_ps": "100 ms", "workload.web.duration_ps": "300 ms"}),
    ("modern-10g", {"workload.kind": "netperf", "workload.netperf.test": "tcp_rr", "workload.netperf.connections": "512",
                    "workload.netperf.duration_ps": "20 ms", "workload.netperf.warmup_ps": "5 ms"}),
])
def test_runs_past_the_adaptive_threshold_are_the_same_on_every_queue(preset, sets):
    docs = {q: api.run(preset, sets | {"run.event_queue": q}) for q in QUEUES}
    assert docs["adaptive"]["simulator"]["pending_max"] > 2048, "the run crosses into the radix heap"
    _same(docs)


def test_an_unknown_queue_is_refused():
    with pytest.raises(Exception):
        api.run("ortiz2008-base", {"run.event_queue": "calendar"})
