"""Hpcbench with the application-load thread, the γ sweep, and the LAWS quantities measured
from the model's own cycle accounting (laws.md §4.4, host-path §7.4)."""
from __future__ import annotations

import math

import re
from typing import Any

import numpy as np

from .. import api, units
from ..config import CATEGORIES, COMMUNICATION, Resolved, parse_set, physics, resolve, workload_sets
from ..config.placements import base_of, gain
from ..errors import ConfigError



def parse_msg_size(text: str) -> int:
    """'2 Mbit' and '8 Kbit' in the binary reading (Q19: 262,144 and 1,024 bytes), or a size."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*([KMG])bit\s*", str(text))
    if m:
        bits = float(m.group(1)) * {"K": 2**10, "M": 2**20, "G": 2**30}[m.group(2)]
        return int(bits // 8)
    try:
        return units.parse_size(text)
    except units.UnitError as e:
        raise ConfigError(f"--msg-size: {e}; or write e.g. '2 Mbit', '8 Kbit'") from None


MAX_GRID = 1000


def parse_grid(text: str, arg: str, lo: float = 0.0, hi: float = 1000.0) -> list[float]:
    """'0:3.5:0.25' (inclusive) or '0,0.5,1': finite values in [lo, hi], at most MAX_GRID."""
    try:
        if ":" in text:
            a, b, s = (float(x) for x in text.split(":"))
            if not all(math.isfinite(x) for x in (a, b, s)) or s <= 0 or b < a:
                raise ValueError
            n = int(np.floor((b - a) / s + 1e-9)) + 1
            if n > MAX_GRID:
                raise ConfigError(f"{arg}: {text!r} makes {n} values; at most {MAX_GRID}")
            out = [round(a + i * s, 10) for i in range(n)]
        else:
            out = [float(x) for x in text.split(",") if x.strip()]
        if not out or not all(math.isfinite(x) for x in out):
            raise ValueError
    except ConfigError:
        raise
    except ValueError:
        raise ConfigError(f"{arg}: {text!r} is not a list 'a,b,c' or a range 'start:stop:step' of finite numbers with step > 0") from None
    bad = [x for x in out if not lo <= x <= hi]
    if bad:
        raise ConfigError(f"{arg}: {bad[0]:g} is out of range; values go from {lo:g} to {hi:g}")
    return out


def _sets(sets) -> dict[str, Any]:
    if sets is None:
        return {}
    return dict(sets) if isinstance(sets, dict) else parse_set(sets)


def _proc_cycles(res: dict, key: str, cats=COMMUNICATION) -> float:
    pr = res["hpcbench"]["processors"].get(key)
    return sum(pr["busy_cycles"][c] for c in cats) if pr else 0.0


def measured_o(base: dict) -> float:
    """Communication cycles on node1.cpu0 per delivered bit in a base run (laws.md §4.4)."""
    bits = base["hpcbench"]["received_bytes"] * 8
    if bits <= 0:
        raise ConfigError("the base run delivered no data; lengthen workload.hpcbench.duration_ps")
    return _proc_cycles(base, "node1.cpu0") / bits


def laws_quantities(r: Resolved, res: dict, o: float | None) -> dict[str, Any]:
    """a, o, X, Y, B, p, β, α, γ, σ from one run (and o from its base run)."""
    d = physics.derived(r)
    procs = d["processors"]
    x_s = 1.0 / r.values["cpu.clock_hz"]
    pl = r.core["placements"][1]
    cp = pl["protocol"] if pl["protocol"] != "cpu0" else None
    # The CP's speed as the core builds it (α = Y/X = 1/speed_fraction; kept as Y/X so the
    # reported figures are bit-for-bit those of earlier releases).
    speed = procs[cp]["speed_fraction"] if cp else 1.0
    y_s = x_s / speed
    link_payload_bps = d["link_payload_bps"]
    bits = res["hpcbench"]["received_bytes"] * 8
    q: dict[str, Any] = {"X_s": x_s, "Y_s": y_s, "alpha": y_s / x_s, "B_bps": link_payload_bps, "cp": cp}
    if bits <= 0:
        return q
    q["a"] = _proc_cycles(res, "node1.cpu0", ("app",)) / bits
    if o is None:
        return q
    q["o"] = o
    q["sigma"] = 1.0 / (o * x_s * link_payload_bps)
    q["gamma_realised"] = q["a"] / o
    left = _proc_cycles(res, "node1.cpu0") / bits
    q["p"] = min(1.0, max(0.0, 1.0 - left / o))
    # CP cycles counted in the CP's own cycles: busy time over Y (α carries the speed).
    cps = {}
    for k in res["hpcbench"]["processors"]:
        node, name = k.split(".", 1)
        if node == "node1" and name != "cpu0":
            c = _proc_cycles(res, k) / bits * procs[name]["speed_fraction"]
            if c > 0:
                cps[name] = c
    q["c_cp"] = cps
    if len(cps) == 1 and q["p"] > 0:
        q["beta"] = next(iter(cps.values())) / (q["p"] * o)
    q["model_bound_before_bps"] = min(link_payload_bps, 1.0 / ((q["a"] + o) * x_s))
    return q


def _hpc_sets(source, sets: dict, msg_size, duration, a_cycles_per_bit: float | None) -> dict:
    """Hpcbench settings; `a_cycles_per_bit` is the load's total work, so the instructions
    are what remains after the expected stalls of its memory pass (realised γ ≈ nominal)."""
    out = workload_sets(sets, "hpcbench", "Hpcbench")
    if msg_size is not None:
        out["workload.hpcbench.message_bytes"] = str(parse_msg_size(msg_size)) if not isinstance(msg_size, int) else msg_size
    if duration is not None:
        out["workload.hpcbench.duration_ps"] = duration
    if a_cycles_per_bit is not None:
        r = resolve(source, out)
        t_mean = physics.derived(r)["mem_mean_access_cycles"]
        if a_cycles_per_bit > 0:
            stall_per_byte = r.values["workload.hpcbench.app_refs_per_byte"] * t_mean
            out["workload.hpcbench.app_cycles_per_byte"] = repr(max(0.0, 8.0 * a_cycles_per_bit - stall_per_byte))
        else:
            # γ = 0: the load thread takes the messages and does no work on their bytes.
            out["workload.hpcbench.app_cycles_per_byte"] = "0"
            out["workload.hpcbench.app_refs_per_byte"] = "0"
    return out


def run_hpcbench(config_source=None, sets=None, gamma=None, a=None, msg_size=None, duration=None) -> dict:
    """One Hpcbench run. With `gamma`, o is first measured on the base system of the same
    hardware and the load thread does a = γ·o cycles per bit; `a` sets cycles per byte directly."""
    sets = _sets(sets)
    if gamma is not None and a is not None:
        raise ConfigError("--gamma and --app-work-per-byte are exclusive; give one")
    if gamma is not None and not (math.isfinite(gamma) and gamma >= 0):
        raise ConfigError(f"--gamma: {gamma} must be a finite number, at least 0")
    if a is not None and not (math.isfinite(a) and a >= 0):
        raise ConfigError(f"--app-work-per-byte: {a} must be a finite number, at least 0")
    # o always comes from the base run: every report carries the LAWS quantities.
    o = measured_o(api.run(resolve(config_source, _hpc_sets(config_source, base_of(sets), msg_size, duration, 0.0))))
    a_bit = gamma * o if gamma is not None else (a / 8.0 if a is not None else None)
    r = resolve(config_source, _hpc_sets(config_source, sets, msg_size, duration, a_bit))
    res = api.run(r)
    res["laws"] = laws_quantities(r, res, o)
    if gamma is not None:
        res["laws"]["gamma_nominal"] = gamma
    return res


def gamma_sweep(config_source, sets, gammas, msg_sizes, duration="1 s") -> dict:
    """δb(γ) of the configuration's placement against base, per message size (laws.md §4.4)."""
    sets = _sets(sets)
    placement = resolve(config_source, sets).core["placements"][1]["name"]
    out: dict[str, Any] = {"placement": placement, "sweeps": {}, "laws": {}}
    for ms in msg_sizes:
        size = parse_msg_size(ms) if not isinstance(ms, int) else ms
        b0 = api.run(resolve(config_source, _hpc_sets(config_source, base_of(sets), size, duration, 0.0)))
        o = measured_o(b0)
        rows = []
        for g in gammas:
            rb = resolve(config_source, _hpc_sets(config_source, base_of(sets), size, duration, g * o))
            rp = resolve(config_source, _hpc_sets(config_source, sets, size, duration, g * o))
            base, placed = api.run(rb), api.run(rp)
            qb = laws_quantities(rb, base, o)
            qp = laws_quantities(rp, placed, o)
            tb, tp = base["hpcbench"]["throughput_mbps"], placed["hpcbench"]["throughput_mbps"]
            rows.append({
                "gamma": g,
                "gamma_realised": qb.get("gamma_realised", float("nan")),
                "base_mbps": tb,
                "placed_mbps": tp,
                "delta_b": gain(tp, tb) if tb > 0 else float("nan"),
                "base_laws": qb,
                "placed_laws": qp,
                "base_cpu0_util": base["hpcbench"]["processors"]["node1.cpu0"]["utilisation"],
                "placed_cpu0_util": placed["hpcbench"]["processors"]["node1.cpu0"]["utilisation"],
            })
        out["sweeps"][str(size)] = rows
        out["laws"][str(size)] = {k: rows[0]["placed_laws"].get(k) for k in ("p", "beta", "alpha", "sigma", "o", "X_s", "Y_s", "B_bps", "c_cp")}
    return out


def print_hpcbench(out: dict) -> None:
    h = out["hpcbench"]
    print(f"message {h['message_bytes']} B, window {h['window_s']:.2f} s: throughput {h['throughput_mbps']:.1f} Mbps")
    print(f"{'processor':<14} {'util':>6} " + " ".join(f"{c:>7}" for c in CATEGORIES) + f" {'irq/s':>8} {'ipi/s':>8}")
    for k, pr in h["processors"].items():
        print(f"{k:<14} {pr['utilisation']:>6.3f} " + " ".join(f"{pr['busy'][c]:>7.3f}" for c in CATEGORIES) + f" {pr['nic_irq_per_s']:>8.0f} {pr['ipi_per_s']:>8.0f}")
    from ..io.cachereport import print_caches

    print_caches("caches (mode B, hit rates of reads and writes):", h["processors"], h.get("nodes", {}))
    if "laws" in out:
        print("LAWS quantities: " + ", ".join(f"{k}={v:.4g}" for k, v in out["laws"].items() if isinstance(v, (int, float))))
