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
]


def _throughput_mbps(out: dict[str, Any]) -> float | None:
    if "netperf" in out:
        return out["netperf"]["aggregate"]["throughput_mbps"]
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
