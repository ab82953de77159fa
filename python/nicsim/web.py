"""`nicsim web`: a static web server under closed-loop users (host-path §7.8), with
replications over seeds and, with `--vs-base`, the improvement over the base placement on the
same hardware. The simulation is the core's `workload::web`; this module maps the command's
options to parameters and summarises.
"""
from __future__ import annotations

from typing import Any

from .config import parse_set, parse_value
from .params import BY_KEY
from .errors import ConfigError
from .netperf import _at, replicate

# Client nodes `nicsim web` uses unless told: one 400 MHz node saturates before the server
# does at 300 KiB pages or with a faster placement.
CLIENTS = 4
SUMMARISED = ("requests_per_s", "response_time_ms.mean", "response_time_ms.p50", "response_time_ms.p90",
              "response_time_ms.p99", "bandwidth_mbps", "connections_per_s")
# Figures compared with base, and whether higher is better.
VS_BASE = {"requests_per_s": True, "response_time_ms.mean": False, "bandwidth_mbps": True}


def web_sets(sets, users=None, page_size=None, mix=None, trace=None, think=None, duration=None, warmup=None,
             seed=None, clients=None, keep_alive=False) -> dict[str, Any]:
    """The parameters the command's options stand for, over `--set` overrides."""
    s = dict(parse_set(sets)) if isinstance(sets, list) else dict(sets or {})
    if s.get("workload.kind", "web") != "web":
        raise ConfigError(f"workload.kind = {s['workload.kind']!r}: this command runs the web workload; leave the key out, or use nicsim run")
    s["workload.kind"] = "web"
    if trace is not None:
        s["workload.web.trace_file"] = trace
    if mix is not None:
        s["workload.web.mix"] = mix
    if users is not None:
        if users < 1:
            raise ConfigError(f"--users {users}: at least 1")
        s["workload.web.users"] = users
    if clients is not None and clients < 1:
        raise ConfigError(f"--clients {clients}: at least 1")
    # Enough client nodes that they are not the bottleneck (issue 14), on the base placement
    # (host-path §7.8 Q26): the server alone carries the placement under study.
    s.setdefault("topology.clients", clients or CLIENTS)
    if parse_value(BY_KEY["topology.clients"], s["topology.clients"]) > 1:
        s.setdefault("switch.present", True)
    s.setdefault("placement.sender", "base")
    for key, v in (("page_size_bytes", page_size), ("think_ps", think), ("duration_ps", duration), ("warmup_ps", warmup)):
        if v is not None:
            s[f"workload.web.{key}"] = v
    if keep_alive:
        s["workload.web.keep_alive"] = True
    if seed is not None:
        s["run.seed"] = seed
    return s


def run_web(config_source=None, sets=None, replications: int = 1, vs_base: bool = False, **options) -> dict:
    """One run (or replications); with `vs_base`, the same configuration with the base
    placement too, and each figure's improvement over it in percent."""
    if replications < 1:
        raise ConfigError(f"--replications {replications}: at least 1")
    s = web_sets(sets, **options)
    out = replicate(config_source, s, replications, "web", SUMMARISED)
    if vs_base:
        # The same hardware with the base placement: role overrides of the placement go too.
        plain = {k: v for k, v in s.items() if not k.startswith("placement.") or k == "placement.sender"}
        base = replicate(config_source, {**plain, "placement.preset": "base"}, replications, "web", SUMMARISED)
        mean = lambda doc, path: (doc["summary"][path]["mean"] if "summary" in doc else _at(doc["web"], path))
        out["vs_base"] = {}
        for path, higher in VS_BASE.items():
            b, v = mean(base, path), mean(out, path)
            gain = None if not b or v is None else (v / b - 1) * 100 * (1 if higher else -1)
            out["vs_base"][path] = {"base": b, "this": v, "improvement_percent": gain}
    return out


def print_web(out: dict, categories: tuple[str, ...]) -> None:
    w = out["web"]
    rt = w["response_time_ms"]
    print(f"web: {w['users']} users, {w['page_size_bytes']} B pages, keep-alive {'on' if w['keep_alive'] else 'off'}, "
          f"{w['workers']} workers, window {w['window_s']:.3f} s")
    print(f"{w['requests_per_s']:,.1f} requests/s, {w['bandwidth_mbps']:,.1f} Mbps, {w['connections_per_s']:,.1f} connections/s")
    if rt["count"]:
        print(f"response time: mean {rt['mean']:.3f} ms, p50 {rt['p50']:.3f}, p90 {rt['p90']:.3f}, p99 {rt['p99']:.3f} ms")
    h = w.get("health")
    if h and h["stalled_intervals"]:
        print(f"warning: the server idled with users waiting in {h['stalled_intervals']} of {len(h['end_s'])} intervals of "
              f"{h['interval_s'] * 1e3:g} ms ({h['stalled_intervals_in_window']} in the window): see web.health in --json")
    for c in w["clients"]:
        note = "  (near saturation: the client may be the bottleneck)" if c["busiest_utilisation"] > 0.9 else ""
        print(f"client {c['node']}: busiest processor {c['busiest']} at {c['busiest_utilisation']:.3f}{note}")
    print(f"{'processor':<14} {'util':>6} " + " ".join(f"{c:>7}" for c in categories))
    for k, pr in out["processors"].items():
        print(f"{k:<14} {pr['utilisation']:>6.3f} " + " ".join(f"{pr['busy'][c]:>7.3f}" for c in categories))
    from .cachereport import print_caches

    print_caches("caches (mode B, hit rates of reads and writes):", out["processors"], out.get("nodes", {}))
    for path, v in out.get("vs_base", {}).items():
        if v["improvement_percent"] is not None:
            print(f"{path}: {v['this']:,.3f} against base {v['base']:,.3f}: {v['improvement_percent']:+.1f}%")
    for path, s in out.get("summary", {}).items():
        print(f"{path}: {s['mean']:,.3f} ± {s['ci95_half_width']:,.3f} (95% CI, {s['n']} seeds)")
