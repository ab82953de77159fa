"""Calibration of the default cost profile (calibration.md §4): four category scales (copy,
TCP/IP, driver, OS) fitted to the base-system targets T1 (latency 68 µs), T2 (peak streaming
throughput, centre of the 230–315 Mbps band), T4 (receiving cpu0 at least 90% busy at the
peak) and T5 (the real-machine category ratios, weakly weighted; only their order is a
target). Nothing else is fitted and no externalized run is looked at.

Objective: weighted squared log errors, minimised by Nelder–Mead from all-ones in log space."""
from __future__ import annotations

import json
import math
import re
from importlib import resources

import numpy as np
from scipy.optimize import minimize

from . import api
from .config import resolve

T1_US = 68.0
T2_MBPS = (230.0 + 315.0) / 2
T2_BAND = (230.0, 315.0)
T4_MIN = 0.90
T5_RATIOS = {"copy/tcpip": 20.3 / 7.2, "tcpip/os": 7.2 / 5.89, "os/driver": 5.89 / 2.82}
WEIGHTS = {"t1": 4.0, "t2": 4.0, "t4": 50.0, "t5": 0.25}
SCALES = ("copy", "tcpip", "driver", "os")

LATENCY_RUN = {"workload.netpipe.mode": "pingpong", "workload.netpipe.sizes_bytes": "1 B", "workload.netpipe.target_ps": "50 ms"}
STREAM_RUN = {"workload.netpipe.mode": "stream", "workload.netpipe.sizes_bytes": "512 KiB,1 MiB,2 MiB", "workload.netpipe.target_ps": "200 ms"}
PROFILE_RUN = {"workload.netpipe.target_ps": "200 ms"}


def _with(scales: dict[str, float], extra: dict) -> dict:
    return {**{f"costs.scale.{k}": str(v) for k, v in scales.items()}, **extra}


def measure(scales: dict[str, float]) -> dict[str, float]:
    """The calibration figures for a set of scales."""
    lat = api.run(resolve("ortiz2008-base", _with(scales, LATENCY_RUN)))
    st = api.run(resolve("ortiz2008-base", _with(scales, STREAM_RUN)))
    prof = api.run(resolve("ortiz2008-real-profile", _with(scales, PROFILE_RUN)))
    peak = max(st["points"], key=lambda p: p["throughput_mbps"])
    busy = prof["points"][-1]["processors"]["node1.cpu0"]["busy"]
    shares = {c: busy[c] for c in ("copy", "tcpip", "os", "driver")}
    total = sum(shares.values())
    return {
        "t1_latency_us": lat["summary"]["latency_us"],
        "t2_peak_mbps": peak["throughput_mbps"],
        "t2_peak_netpipe_mbps": peak["throughput_netpipe_mbps"],
        "t4_node1_cpu0_util": peak["processors"]["node1.cpu0"]["utilisation"],
        "t4_node0_cpu0_util": peak["processors"]["node0.cpu0"]["utilisation"],
        **{f"t5_share_{c}": v / total for c, v in shares.items()},
    }


def objective(m: dict[str, float]) -> float:
    s = m
    e = WEIGHTS["t1"] * math.log(s["t1_latency_us"] / T1_US) ** 2
    e += WEIGHTS["t2"] * math.log(s["t2_peak_mbps"] / T2_MBPS) ** 2
    e += WEIGHTS["t4"] * max(0.0, T4_MIN + 0.02 - s["t4_node1_cpu0_util"]) ** 2
    r = {
        "copy/tcpip": s["t5_share_copy"] / s["t5_share_tcpip"],
        "tcpip/os": s["t5_share_tcpip"] / s["t5_share_os"],
        "os/driver": s["t5_share_os"] / s["t5_share_driver"],
    }
    e += WEIGHTS["t5"] * sum(math.log(r[k] / T5_RATIOS[k]) ** 2 for k in r)
    return e


def passes(m: dict[str, float]) -> dict[str, bool]:
    sh = [m["t5_share_copy"], m["t5_share_tcpip"], m["t5_share_os"], m["t5_share_driver"]]
    return {
        "T1": 61.0 <= m["t1_latency_us"] <= 75.0,
        "T2": T2_BAND[0] <= m["t2_peak_mbps"] <= T2_BAND[1],
        "T4": m["t4_node1_cpu0_util"] > T4_MIN,
        "T5": sh == sorted(sh, reverse=True),
    }


def current_scales() -> dict[str, float]:
    return dict(resolve("ortiz2008-base").costs["scale"])


def fit() -> tuple[dict[str, float], dict[str, float], int]:
    evals = 0

    def f(x):
        nonlocal evals
        evals += 1
        return objective(measure(dict(zip(SCALES, np.exp(x)))))

    res = minimize(f, np.zeros(4), method="Nelder-Mead", options={"xatol": 0.005, "fatol": 1e-5, "maxfev": 200, "initial_simplex": np.vstack([np.zeros(4), 0.3 * np.eye(4)])})
    scales = {k: round(float(v), 3) for k, v in zip(SCALES, np.exp(res.x))}
    return scales, measure(scales), evals


def write_scales(scales: dict[str, float]) -> None:
    path = resources.files("nicsim").joinpath("profiles", "ortiz2008.toml")
    text = path.read_text()
    for k, v in scales.items():
        text = re.sub(rf"(?m)^{k} = [0-9.]+$", f"{k} = {v}", text, count=1)
    with open(str(path), "w") as f:
        f.write(text)


def main_calibrate(write: bool, check: bool) -> int:
    if check:
        scales, m, evals = current_scales(), measure(current_scales()), 1
    else:
        scales, m, evals = fit()
        if write:
            write_scales(scales)
    print(json.dumps({"scales": scales, "figures": m, "passes": passes(m), "objective": objective(m), "evaluations": evals}, indent=2))
    return 0 if all(passes(m).values()) else 1
