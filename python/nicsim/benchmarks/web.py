"""`nicsim web`: a static web server under closed-loop users (host-path §7.8), with
replications over seeds, with `--vs-base` the improvement over the base placement on the
same hardware, and with `--users A,B,...` one run per user count (requests/s and response time
against users, issue 37). The simulation is the core's `workload::web`; this module maps the
command's options to parameters and summarises.
"""
from __future__ import annotations

from typing import Any

from ..config import parse_value, workload_sets
from ..config.placements import base_of, gain
from ..config.params import BY_KEY
from ..errors import ConfigError, SimulationError
from .netperf import _at, replicate

# Client nodes `nicsim web` uses unless told: one 400 MHz node saturates before the server
# does at 300 KiB pages or with a faster placement.
CLIENTS = 4
SUMMARISED = ("requests_per_s", "time_per_request_ms", "response_time_ms.mean", "response_time_ms.p50", "response_time_ms.p90",
              "response_time_ms.p99", "bandwidth_mbps", "connections_per_s")
# Figures compared with base, and whether higher is better.
VS_BASE = {"requests_per_s": True, "response_time_ms.mean": False, "bandwidth_mbps": True}
# At most this many counts in one `--users` list: a list is run one count after another.
MAX_USER_COUNTS = 64
USERS_ALLOWED = (f"give one user count of at least 1, or a comma-separated list of up to {MAX_USER_COUNTS} "
                 "distinct counts, e.g. 100,500,1000")


def parse_users(text: str | None) -> list[int] | None:
    """`--users`: one count, or a list of them (run in the order given). Checked before
    anything runs, so a typo costs one line and no simulation."""
    if text is None:
        return None
    shown = text if text.strip() else repr(text)
    if len(shown) > 40:
        shown = shown[:36] + " ..."
    items = [s.strip() for s in text.split(",")]
    if len(items) > MAX_USER_COUNTS:
        raise ConfigError(f"--users {shown}: {len(items)} counts; {USERS_ALLOWED}")
    counts = []
    for s in items:
        if not s:
            raise ConfigError(f"--users {shown}: an empty count; {USERS_ALLOWED}")
        try:
            n = int(s)
        except ValueError:
            raise ConfigError(f"--users {shown}: {s!r} is not a whole number; {USERS_ALLOWED}") from None
        if n < 1:
            raise ConfigError(f"--users {shown}: {n} is below 1; {USERS_ALLOWED}")
        if n in counts:
            raise ConfigError(f"--users {shown}: {n} appears twice; {USERS_ALLOWED}")
        counts.append(n)
    return counts


def web_sets(sets, users=None, page_size=None, mix=None, trace=None, think=None, duration=None, warmup=None,
             seed=None, clients=None, keep_alive=False) -> dict[str, Any]:
    """The parameters the command's options stand for, over `--set` overrides."""
    s = workload_sets(sets, "web", "the web workload")
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
        # The clients keep their placement: they are the load, and only the server is compared.
        base = replicate(config_source, {**base_of(s), "placement.sender": s["placement.sender"]}, replications, "web", SUMMARISED)
        out["vs_base"] = {}
        for path, higher in VS_BASE.items():
            b, v = figure(base, path), figure(out, path)
            change = None if not b or v is None else gain(v, b) * 100 * (1 if higher else -1)
            out["vs_base"][path] = {"base": b, "this": v, "improvement_percent": change}
    return out


def figure(doc: dict, path: str) -> float | None:
    """A web figure by dotted path: the mean over replications when there are any (null when
    a replication had none), else the run's."""
    if "summary" in doc:
        return (doc["summary"].get(path) or {}).get("mean")
    return _at(doc["web"], path)


def run_web_users(config_source=None, sets=None, users: list[int] | None = None, replications: int = 1,
                  vs_base: bool = False, **options) -> dict:
    """One `run_web` per user count, in the order given, with the same options and seed: the
    points of requests/s and response time against users (docs/output.md, `users_sweep`)."""
    if not users:
        raise ConfigError(f"--users: no counts; {USERS_ALLOWED}")
    sweep: dict = {"command": "web", "users_sweep": []}
    for n in users:
        try:
            out = run_web(config_source, sets, replications=replications, vs_base=vs_base, users=n, **options)
        except SimulationError as e:
            # The counts measured before the failure are kept, and the failing one named.
            raise SimulationError(f"at --users {n}: {e}", partial=sweep if sweep["users_sweep"] else None) from None
        sweep["users_sweep"].append({"users": n, "result": out})
    return sweep


def users_rows(sweep: dict) -> list[dict]:
    """One row per user count of a `run_web_users` document: what its table and plot show."""
    rows = []
    for point in sweep["users_sweep"]:
        doc = point["result"]
        h = doc["web"].get("health") or {}
        server = doc["web"]["server"]
        row = {"users": point["users"], "requests_per_s": figure(doc, "requests_per_s"),
               "response_mean_ms": figure(doc, "response_time_ms.mean"), "response_p99_ms": figure(doc, "response_time_ms.p99"),
               "time_per_request_ms": figure(doc, "time_per_request_ms"),
               "server_busiest": server["busiest"], "server_busiest_utilisation": server["busiest_utilisation"],
               "server_utilisation": {k.split(".", 1)[1]: v["utilisation"] for k, v in doc["processors"].items()
                                      if k.startswith(server["node"] + ".")},
               "stalled_intervals": h.get("stalled_intervals", 0), "intervals": len(h.get("end_s") or []),
               "clients_busiest_utilisation": max((c["busiest_utilisation"] for c in doc["web"]["clients"]), default=0.0)}
        if "vs_base" in doc:
            vb = doc["vs_base"]
            row.update(base_requests_per_s=vb["requests_per_s"]["base"], base_response_mean_ms=vb["response_time_ms.mean"]["base"],
                       requests_vs_base_percent=vb["requests_per_s"]["improvement_percent"],
                       response_vs_base_percent=vb["response_time_ms.mean"]["improvement_percent"])
        rows.append(row)
    return rows


def print_web_users(sweep: dict, config: str) -> None:
    """The table of `nicsim web --users A,B,...`: one line per count, in the order run."""
    rows = users_rows(sweep)
    first = sweep["users_sweep"][0]["result"]
    w = first["web"]
    placement = first["config"]["placements"][-1]["name"]
    print(f"web: {config} ({placement} server), {len(rows)} user count{'s' if len(rows) != 1 else ''}, {w['page_size_bytes']} B pages, "
          f"keep-alive {'on' if w['keep_alive'] else 'off'}, {w['workers']} workers, window {w['window_s']:.3f} s")
    vs = "base_requests_per_s" in rows[0]
    def num(v, spec):
        return "-" if v is None else format(v, spec)

    def pct(v):
        return "-" if v is None else f"{v:+.1f}%"

    print(f"{'users':>6} {'requests/s':>11} {'mean ms':>9} {'p99 ms':>9} {'time/req ms':>11}  {'server busiest':<16} {'util':>5} {'stalled':>9}"
          + (f" {'base req/s':>11} {'req/s':>8} {'resp':>8}" if vs else ""))
    for r in rows:
        print(f"{r['users']:>6} {num(r['requests_per_s'], ',.1f'):>11} {num(r['response_mean_ms'], '.3f'):>9} "
              f"{num(r['response_p99_ms'], '.3f'):>9} {num(r['time_per_request_ms'], '.3f'):>11}  {r['server_busiest']:<16} {r['server_busiest_utilisation']:>5.3f} "
              f"{str(r['stalled_intervals']) + ' of ' + str(r['intervals']):>9}"
              + (f" {num(r['base_requests_per_s'], ',.1f'):>11} {pct(r['requests_vs_base_percent']):>8} "
                 f"{pct(r['response_vs_base_percent']):>8}" if vs else ""))
    for r in rows:
        print(f"{r['users']:>6} users, the server's processors busy: "
              + ", ".join(f"{k} {u:.3f}" for k, u in r["server_utilisation"].items()))
    if vs:
        print("req/s, resp: this placement against base (positive is better: more requests/s, shorter mean response)")
    stalled = [r["users"] for r in rows if r["stalled_intervals"]]
    if stalled:
        print(f"warning: the server idled with users waiting (stalled intervals of {w['health']['interval_s'] * 1e3:g} ms, "
              f"whole run) at {', '.join(map(str, stalled))} users: see web.health in --json")
    busy = [f"{r['users']} ({r['clients_busiest_utilisation']:.3f})" for r in rows if r["clients_busiest_utilisation"] > 0.9]
    if busy:
        print(f"near saturation: a client's busiest processor above 0.9 at {', '.join(busy)} users: the clients may be the bottleneck")
    if "summary" in first:
        print(f"requests/s and response times: means over {first['summary']['requests_per_s']['n']} seeds; "
              "server processor and stalled intervals: the first seed's run")


def print_web(out: dict, categories: tuple[str, ...]) -> None:
    w = out["web"]
    rt = w["response_time_ms"]
    print(f"web: {w['users']} users, {w['page_size_bytes']} B pages, keep-alive {'on' if w['keep_alive'] else 'off'}, "
          f"{w['workers']} workers, window {w['window_s']:.3f} s")
    print(f"{w['requests_per_s']:,.1f} requests/s, {w['bandwidth_mbps']:,.1f} Mbps, {w['connections_per_s']:,.1f} connections/s")
    if rt["count"]:
        print(f"response time: mean {rt['mean']:.3f} ms, p50 {rt['p50']:.3f}, p90 {rt['p90']:.3f}, p99 {rt['p99']:.3f} ms")
    if w.get("time_per_request_ms") is not None:
        print(f"time per request (ApacheBench: users x window / requests): {w['time_per_request_ms']:.3f} ms")
    shared = [(k, v) for k, v in (w.get("sharing") or {}).items() if v["bridge_wait_us_per_request"] is not None]
    if shared:
        print("sharing the server's memory path, per request: " + "; ".join(
            f"{k} waits {v['bridge_wait_us_per_request']:.3f} us at the north bridge"
            + (f", takes {v['coherence_transfers_per_request']:.1f} lines from another cache" if v["coherence_transfers_per_request"] else "")
            for k, v in shared))
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
    from ..io.cachereport import print_caches

    print_caches("caches (mode B, hit rates of reads and writes):", out["processors"], out.get("nodes", {}))
    for path, v in out.get("vs_base", {}).items():
        if v["improvement_percent"] is not None:
            print(f"{path}: {v['this']:,.3f} against base {v['base']:,.3f}: {v['improvement_percent']:+.1f}%")
    for path, s in out.get("summary", {}).items():
        print(f"{path}: {s['mean']:,.3f} ± {s['ci95_half_width']:,.3f} (95% CI, {s['n']} seeds)")
