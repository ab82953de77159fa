"""`nicsim bench --suite`: the speed figures issue-style targets are stated in, each scenario run
once in this process, side by side. Every figure comes from the core's own `simulator` block
(events, events per KiB, simulated-to-wall ratio) or its engine benchmarks; nothing is timed
here but the two engine loops, which the core times itself."""
from __future__ import annotations

from typing import Any

from .. import _core
from ..api import run

# (name, preset, settings): whole-model scenarios, each a single run of the core.
SCENARIOS: list[tuple[str, str, dict[str, str]]] = [
    ("base-1MiB-stream", "ortiz2008-base",
     {"workload.netpipe.mode": "stream", "workload.netpipe.sizes_bytes": "1 MiB"}),
    ("modern-10g-tcp-stream", "modern-10g", {"workload.kind": "netperf"}),
    ("modern-10g-jumbo-tcp-stream", "modern-10g-jumbo", {"workload.kind": "netperf"}),
    ("modern-25g-tcp-stream", "modern-25g", {"workload.kind": "netperf"}),
    ("modern-100g-tcp-stream", "modern-100g", {"workload.kind": "netperf"}),
    ("modern-100g-16flows-tcp-stream", "modern-100g", {"workload.kind": "netperf", "workload.netperf.connections": "16"}),
    ("modern-x86-loopback-64B-tcp-stream", "modern-x86-loopback", {"workload.netperf.msg_bytes": "64 B"}),
    ("modern-x86-veth-tcp-stream", "modern-x86-veth", {}),
    ("modern-10g-tcp-rr-4096", "modern-10g",
     {"workload.kind": "netperf", "workload.netperf.test": "tcp_rr", "workload.netperf.connections": "4096"}),
]


# (pending events, the run that had them): the hold model's sizes. The high-water marks are
# each run's `simulator.pending_max` (docs/benchmarks.md, "The engine's queue at the runs'
# pending sizes"); 10^5 is also the web run at the thesis's scale (2,500 users, 25 s: 104,531).
HOLD_SIZES: list[tuple[int, str]] = [
    (18, "nicsim netpipe ortiz2008-base --mode stream, 1 MiB"),
    (9_820, "nicsim web ortiz2008-base --users 2500 --page-size 5KiB"),
    (19_845, "nicsim netperf modern-10g --test TCP_RR --connections 4096"),
    (100_000, "10^5"),
    (1_000_000, "10^6"),
]


def hold_row(pending: int, steps: int, source: str) -> dict[str, Any]:
    """The hold model at `pending` events on the engine's queue (default, then the binary heap it
    replaced) and on a bare binary heap, in turn twice; the fastest of each's two runs."""
    walls: dict[str, list[float]] = {"adaptive": [], "binary_heap": [], "bare": []}
    sums = set()
    for _ in range(2):
        for q in ("adaptive", "binary_heap"):
            s, w = _core.bench_hold(pending, steps, 1, q)
            walls[q].append(w)
            sums.add(s)
        s, w = _core.bench_hold_bare(pending, steps, 1)
        walls["bare"].append(w)
        sums.add(s)
    assert len(sums) == 1, "every queue pops the same events"
    rate = {k: steps / min(v) for k, v in walls.items()}
    return {
        "scenario": f"engine-hold-{pending}",
        "pending": pending,
        "pending_from": source,
        "events": steps,
        "events_per_s": rate["adaptive"],
        "bare_heap_events_per_s": rate["bare"],
        "ratio_to_bare_heap": rate["adaptive"] / rate["bare"],
        "binary_heap_queue_ratio_to_bare_heap": rate["binary_heap"] / rate["bare"],
        "wall_s": min(walls["adaptive"]),
    }


def _throughput_mbps(out: dict[str, Any]) -> float | None:
    if "netperf" in out:
        n = out["netperf"]
        if "throughput_mbps" in n["aggregate"]:
            return n["aggregate"]["throughput_mbps"]
        # Request/response: a request and a response of msg_bytes each per transaction.
        return n["aggregate"]["transactions_per_s"] * 2 * n["msg_bytes"] * 8 / 1e6
    if out.get("points"):
        return out["points"][-1]["throughput_mbps"]
    return None


def suite(engine_s: float = 1.0) -> dict[str, Any]:
    """Runs every scenario; returns the suite's JSON document (docs/output.md)."""
    events, _, _, _, wall = _core.bench(engine_s, 1)
    bare_events, bare_wall = _core.bench_bare_heap(engine_s, 1)
    rows: list[dict[str, Any]] = [{
        "scenario": "engine-md1-tandem",
        "events": events,
        "events_per_s": events / wall,
        "bare_heap_events_per_s": bare_events / bare_wall,
        "ratio_to_bare_heap": (events / wall) / (bare_events / bare_wall),
        "simulated_s": engine_s,
        "wall_s": wall,
    }]
    steps = max(20_000, int(2_000_000 * min(engine_s, 1.0)))
    rows += [hold_row(n, steps, src) for n, src in HOLD_SIZES]
    for name, preset, sets in SCENARIOS:
        out = run(preset, sets)
        sim = out["simulator"]
        rows.append({
            "scenario": name,
            "preset": preset,
            "throughput_mbps": _throughput_mbps(out),
            "events": sim["events"],
            "events_per_s": sim["events"] / sim["wall_s"] if sim["wall_s"] > 0 else None,
            "events_per_kib": sim["events_per_kib"],
            "events_by_kind": sim["events_by_kind"],
            "simulated_s": sim["simulated_s"],
            "wall_s": sim["wall_s"],
            "simulated_per_wall": sim["simulated_per_wall"],
        })
    return {"suite": rows}


def print_suite(doc: dict[str, Any]) -> None:
    print(f"{'scenario':<30} {'Mbps':>9} {'events':>11} {'M ev/s':>7} {'ev/KiB':>7} {'sim/wall':>8}")
    def fmt(v, spec):
        return "" if v is None else format(v, spec)
    for r in doc["suite"]:
        print(f"{r['scenario']:<30} {fmt(r.get('throughput_mbps'), '9.1f'):>9} {r['events']:>11,} "
              f"{r['events_per_s'] / 1e6:7.1f} {fmt(r.get('events_per_kib'), '7.2f'):>7} "
              f"{fmt(r.get('simulated_per_wall'), '8.2f'):>8}")
    e = doc["suite"][0]
    print(f"engine against a bare binary-heap loop of the same scenario: {e['ratio_to_bare_heap']:.2f}x "
          f"({e['bare_heap_events_per_s'] / 1e6:.1f} M events/s bare)")
    for r in doc["suite"]:
        if "pending" in r:
            print(f"hold model, {r['pending']:,} pending: engine {r['ratio_to_bare_heap']:.2f}x the bare heap "
                  f"(its binary-heap queue {r['binary_heap_queue_ratio_to_bare_heap']:.2f}x; {r['pending_from']})")
