"""The Python API: resolve a configuration, run it in the core, and add the summaries."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from . import _core, stopping
from .config import Resolved, resolve
from .errors import ConfigError, SimulationError
from .config.physics import derived, hardware_latencies  # noqa: F401  the core's physics (docs/output.md)
from .progress import watching, window_end_ps
from .io.record import deliver
from .io.tables import frames  # noqa: F401  result documents as pandas tables (docs/output.md)

VERSION = _core.__version__
# What a configuration may be given as: a preset name, a TOML path, a dict (nested or dotted
# keys), a resolved configuration, or None for the built-in defaults.
Source = Resolved | str | Path | dict[str, Any] | None
# Overrides: {key: value} or `--set`-style "KEY=VALUE" strings.
Sets = dict[str, Any] | Iterable[str] | None


def _finite(x: Any) -> Any:
    if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    if isinstance(x, np.generic):
        return _finite(x.item())
    return x


def dumps(obj: Any) -> str:
    """Strict JSON (no NaN or Infinity tokens: an undefined number is null), sorted keys."""
    return json.dumps(_finite(obj), sort_keys=True, allow_nan=False)


TIMING_KEYS = ("wall_s", "simulated_per_wall")


def results_only(out: Any) -> Any:
    """`out` without the timing fields of its `simulator` blocks: the wall time and the
    simulated-to-wall ratio measure the machine, not the model, and are the only fields that
    differ between two runs of one configuration and seed (docs/output.md)."""
    if isinstance(out, dict):
        return {k: (results_only(v) if k != "simulator" or not isinstance(v, dict)
                    else {a: b for a, b in v.items() if a not in TIMING_KEYS})
                for k, v in out.items()}
    if isinstance(out, list):
        return [results_only(v) for v in out]
    return out


def as_resolved(cfg: Source, sets: Sets = None) -> Resolved:
    return cfg if isinstance(cfg, Resolved) and not sets else resolve(cfg if not isinstance(cfg, Resolved) else cfg.name, sets)


def run(cfg: Source = None, sets: Sets = None) -> dict[str, Any]:
    """Runs the workload a configuration names; returns the result document."""
    r = as_resolved(cfg, sets)
    try:
        with watching(window_end_ps(r.values)):
            out = json.loads(stopping.call(_core.run, r.to_json()))
    except ValueError as e:
        raise ConfigError(str(e)) from None
    except RuntimeError as e:
        raise SimulationError(str(e)) from None
    if "points" in out:
        out["summary"] = netpipe_summary(out["points"], r.values["workload.netpipe.mode"])
    out["config"] = r.core
    if r.description:
        out["config_description"] = r.description
    out["config_hash"] = r.hash()
    out["nicsim_version"] = VERSION
    deliver(out)
    if "error" in out:
        raise SimulationError(out.pop("error"), partial=out)
    return out


def knee_bytes(sizes: np.ndarray, times_s: np.ndarray, t0_s: float) -> tuple[float, float]:
    """NetPIPE saturation point `t0 × R∞` (host-path §7.2): R∞ from a straight-line fit of
    t(n) = t0 + n/R∞ to the largest sizes (the top quarter, at least three points)."""
    k = max(3, len(sizes) // 4)
    n, t = sizes[-k:], times_s[-k:]
    slope = float(np.polyfit(n, t, 1)[0])
    r_inf = 1.0 / slope if slope > 0 else float("inf")
    return float(t0_s) * r_inf, r_inf


def netpipe_summary(points: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    if not points:
        return {}
    sizes = np.array([p["size_bytes"] for p in points], dtype=float)
    times = np.array([p["time_us"] for p in points]) * 1e-6
    thr = [p["throughput_mbps"] for p in points]
    i_peak = int(np.argmax(thr))
    # Too few points for the asymptote: reported as null (JSON has no NaN).
    knee, r_inf = knee_bytes(sizes, times, times[0]) if len(points) >= 3 else (None, None)
    peak = points[i_peak]
    return {
        "mode": mode,
        "latency_us": points[0]["latency_us"],
        "latency_size_bytes": points[0]["size_bytes"],
        "peak_throughput_mbps": thr[i_peak],
        "peak_throughput_netpipe_mbps": peak["throughput_netpipe_mbps"],
        "peak_size_bytes": peak["size_bytes"],
        "asymptotic_throughput_mbps": r_inf * 8 / 1e6 if r_inf is not None else None,
        "saturation_bytes": knee,
        "saturation_estimator": "t0 x R_inf (Hockney n_1/2), R_inf fitted to the top quarter of sizes",
        "peak_processors": {k: round(v["utilisation"], 6) for k, v in peak["processors"].items()},
    }
