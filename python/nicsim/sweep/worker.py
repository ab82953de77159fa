"""What runs on a worker: one point in, one plain-data record out. Errors of the point itself
(a configuration the core refuses, a run that breaks an invariant, anything else raised) come
back as a failed record; only the death of the worker process is left to the runner."""
from __future__ import annotations

import json
import os
import time
import traceback
from pathlib import Path
from typing import Any

from .grid import CORE_RUN

# Fault injection for the tests (and for anyone checking a deployment): NICSIM_SWEEP_FAULT is
# "die:I" (the worker running point I exits at once, every time) or "die-once:I:PATH" (it exits
# only if PATH does not exist yet, and creates it first). Nothing else reads it.
FAULT_ENV = "NICSIM_SWEEP_FAULT"


def _fault(index: int) -> None:
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return
    parts = spec.split(":", 2)
    if parts[0] == "die" and int(parts[1]) == index:
        os._exit(70)
    if parts[0] == "die-once" and int(parts[1]) == index:
        marker = Path(parts[2])
        if not marker.exists():
            marker.write_text("died once\n")
            os._exit(70)


def summarise(benchmark: str, out: dict[str, Any]) -> dict[str, Any]:
    """The scalar outputs shown beside the swept keys."""
    if benchmark == "netpipe":
        s = dict(out.get("summary", {}))
        s.pop("peak_processors", None)
        s.pop("saturation_estimator", None)
        s["events"] = out.get("simulator", {}).get("events")
        s["simulated_s"] = out.get("simulator", {}).get("simulated_s")
        return s
    if benchmark == "web":
        w = out.get("web", {})
        s = {k: v for k, v in w.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        for k, v in (w.get("response_time_ms") or {}).items():
            s[f"response_time_ms.{k}"] = v
        return s
    if benchmark == "netperf":
        n = out.get("netperf", {})
        s = {k: v for k, v in (n.get("aggregate") or {}).items() if isinstance(v, (int, float))}
        s["fairness_jain"] = n.get("fairness_jain")
        return s
    if benchmark == "packet_gen":
        g = out.get("packet_gen", {})
        s = {k: v for k, v in g.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        fi = g.get("nodes", {}).get("node1", {}).get("fi_cpu")
        # A column of numbers: livelock (FI infinite, the core's "inf") is its own column.
        s["livelock"] = fi == "inf"
        s["fi_cpu"] = None if fi == "inf" else fi
        return s
    h = out.get("hpcbench", {})
    s = {k: v for k, v in h.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)}
    for k, v in (out.get("laws") or {}).items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            s[f"laws.{k}"] = v
    return s


def run_point(task: dict[str, Any]) -> dict[str, Any]:
    """Runs one point; returns {key, status, result (JSON text), summary, error, wall_s}."""
    _fault(task["index"])
    t0 = time.perf_counter()
    try:
        from ..api import results_only

        if task["benchmark"] in CORE_RUN:
            from ..api import run

            out = run(task["resolved"])
        else:
            from ..benchmarks.hpc import run_hpcbench

            out = run_hpcbench(task["source"], dict(task["sets"]), **task["bench_args"])
        return {
            "key": task["key"],
            "status": "ok",
            # The store keeps results only (its own wall_s times the point): byte-identical anywhere.
            "result": json.dumps(results_only(out), sort_keys=True),
            "summary": summarise(task["benchmark"], out),
            "error": None,
            "wall_s": time.perf_counter() - t0,
        }
    except Exception as e:  # the point failed; the sweep goes on
        from ..errors import ConfigError, SimulationError

        if isinstance(e, (ConfigError, SimulationError)):
            err = f"{type(e).__name__}: {e}"
        else:
            tb = traceback.extract_tb(e.__traceback__)
            where = f" (at {Path(tb[-1].filename).name}:{tb[-1].lineno})" if tb else ""
            err = f"{type(e).__name__}: {e}{where}"
        return {"key": task["key"], "status": "failed", "result": None, "summary": {}, "error": err,
                "wall_s": time.perf_counter() - t0}
