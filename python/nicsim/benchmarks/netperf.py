"""`nicsim netperf`: netperf-style tests over many connections, with replications over seeds.

The simulation (connections, threads, windows, per-connection rates, fairness, latency
percentiles) is the core's `workload::netperf`; this module maps the command's options to
parameters, runs the replications, and summarises them with a 95% confidence interval
(Student's t over the replications' values).
"""
from __future__ import annotations

import math
import sys
from typing import Any

from .. import api
from ..config import resolve, workload_sets
from ..errors import ConfigError

TESTS = {"TCP_STREAM": "tcp_stream", "TCP_RR": "tcp_rr", "TCP_CRR": "tcp_crr", "UDP_STREAM": "udp_stream", "UDP_RR": "udp_rr"}
# What a replication reports, by dotted path into its `netperf` object.
SUMMARISED = ("aggregate.throughput_mbps", "aggregate.sent_mbps", "aggregate.transactions_per_s", "fairness_jain",
              "latency_us.p50", "latency_us.p90", "latency_us.p99")


def netperf_sets(sets: list[str] | dict | None, test=None, connections=None, clients=None, msg_size=None,
                 duration=None, warmup=None, seed=None) -> dict[str, Any]:
    """The parameters the command's options stand for, over `--set` overrides."""
    s = workload_sets(sets, "netperf", "netperf")
    if test is not None:
        if test not in TESTS:
            raise ConfigError(f"--test {test}: allowed {', '.join(TESTS)}")
        s["workload.netperf.test"] = TESTS[test]
    if connections is not None:
        if connections < 1:
            raise ConfigError(f"--connections {connections}: at least 1")
        s["workload.netperf.connections"] = connections
    if clients is not None:
        if clients < 1:
            raise ConfigError(f"--clients {clients}: at least 1")
        s["topology.clients"] = clients
    for key, v in (("msg_bytes", msg_size), ("duration_ps", duration), ("warmup_ps", warmup)):
        if v is not None:
            s[f"workload.netperf.{key}"] = v
    if seed is not None:
        s["run.seed"] = seed
    return s


def _at(doc: dict, path: str):
    for part in path.split("."):
        if not isinstance(doc, dict) or doc.get(part) is None:
            return None
        doc = doc[part]
    return doc


def ci95(values: list[float]) -> dict[str, float]:
    """Mean and the half-width of its 95% confidence interval (Student's t, n − 1 degrees)."""
    from scipy.stats import t

    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return {"mean": mean, "ci95_half_width": math.nan, "n": n}
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return {"mean": mean, "ci95_half_width": float(t.ppf(0.975, n - 1)) * sd / math.sqrt(n), "n": n}


def run_netperf(config_source=None, sets=None, replications: int = 1, **options) -> dict:
    """One run, or `replications` runs on seeds run.seed, run.seed + 1, …: the first run's
    document with `replications` (each run's netperf figures) and `summary` (mean and 95% CI)."""
    if replications < 1:
        raise ConfigError(f"--replications {replications}: at least 1")
    s = netperf_sets(sets, **options)
    if (options.get("clients") or 1) > 1 and "switch.present" not in s:
        # --clients K: a switch joins them, unless each has a server NIC of its own.
        v = resolve(config_source, s).values
        if v["topology.clients"] != v["topology.server_nics"]:
            s["switch.present"] = True
    return replicate(config_source, s, replications, "netperf", SUMMARISED)


def replicate(config_source, sets: dict, replications: int, block: str, summarised: tuple[str, ...]) -> dict:
    """One run, or `replications` runs on seeds run.seed, run.seed + 1, …: the first run's
    document with `replications` (each run's figures from its `block`) and `summary` (mean and
    95% CI of each of `summarised`, dotted paths into `block`)."""
    first = api.run(config_source, sets)
    if replications == 1:
        return first
    seed0 = first["config"]["run"]["seed"]
    runs = [first[block]]
    # A bar on a terminal only: nothing in a pipe or a log, or beside --json to a file.
    from tqdm.auto import tqdm

    with tqdm(total=replications, initial=1, unit="run", desc="replications", file=sys.stderr,
              disable=not sys.stderr.isatty(), dynamic_ncols=True) as bar:
        for r in range(1, replications):
            runs.append(api.run(config_source, {**sets, "run.seed": seed0 + r})[block])
            bar.update(1)
    summary = {}
    for path in summarised:
        vals = [_at(r, path) for r in runs]
        if all(v is not None for v in vals):
            summary[path] = ci95([float(v) for v in vals])
    first["replications"] = [{"seed": seed0 + i, **{p: _at(r, p) for p in summarised if _at(r, p) is not None}} for i, r in enumerate(runs)]
    first["summary"] = summary
    return first


# oprofile-like symbol classes (stacks.md §A.11) over the core's stages; presentation only.
SYMBOL_CLASSES = {
    "copy to user": ("rx_copy", "rx_copy_frag", "tx_copy", "skb_copy", "csum", "tx_csum_fold"),
    "interrupt handling": ("irq_entry", "irq_exit", "rx_hardirq", "rx_schedule", "ipi_handler", "timer_tick"),
    "TCP receive": ("softirq_dispatch", "rx_poll", "rx_poll_end", "poll_empty", "gro_receive", "rx_ip", "rx_tcp",
                    "tx_ack", "udp_rx"),
    "transmit queueing": ("tx_tcp", "tx_ip", "tx_dev", "lo_xmit", "udp_tx", "cpu_net_handover"),
    "locks": ("lock_spin", "spin_lock"),
    "scheduling": ("context_switch", "rx_wake", "epoll_wait"),
    "system calls": ("rx_syscall", "tx_syscall"),
    "buffer freeing": ("skb_free", "skb_free_frag", "gro_free_head", "tx_complete"),
    "buffer allocation": ("skb_alloc",),
}


def profile(out: dict, server: str) -> dict[str, dict[str, float]]:
    """Per CPU of node `server`, its busy time by symbol class as a percentage of its busy time
    (what oprofile's samples would show), from the core's per-stage accounting."""
    rows = {}
    for k, p in out["processors"].items():
        stages = p.get("busy_by_stage", {})
        busy = sum(stages.values())
        if not k.startswith(server + ".") or busy <= 0:
            continue
        named = {c: sum(stages.get(s, 0.0) for s in ss) for c, ss in SYMBOL_CLASSES.items()}
        named["other"] = busy - sum(named.values())
        rows[k.split(".")[1]] = {c: 100.0 * v / busy for c, v in named.items()}
    return rows


def print_profile(out: dict) -> None:
    rows = profile(out, out["netperf"]["server"])
    if rows:
        classes = list(SYMBOL_CLASSES) + ["other"]
        print("profile (% of each CPU's busy time): " + "; ".join(
            f"{k}: " + ", ".join(f"{c} {v[c]:.1f}" for c in classes if v[c] >= 0.05) for k, v in rows.items()))


def sar(out: dict, server: str) -> dict | None:
    """Node `server`'s host CPUs as sar would show them (stacks.md §A.10): %idle per CPU and
    averaged (CPU-NET's under its `cpu_net.idle_accounting`), context switches per second over
    all CPUs, and interrupts per second by kind; `sar` intr/s is device interrupts plus one
    global timer at sched.tick_hz (local timer ticks and IPIs excluded, as /proc/stat counts
    them on i386 2.6)."""
    cpus = {k.split(".")[1]: p for k, p in out["processors"].items()
            if k.startswith(server + ".") and not k.endswith("nic_cpu")}
    if not cpus:
        return None
    idle = {k: 100.0 * (p["polling"]["sar_idle"] if "polling" in p else 1.0 - p["utilisation"]) for k, p in cpus.items()}
    dev = sum(p["nic_irq_per_s"] for p in cpus.values())
    return {
        "idle_percent": idle,
        "general_idle_percent": sum(idle.values()) / len(idle),
        "cswch_per_s": sum(p["context_switches_per_s"] for p in cpus.values()),
        "intr_device_per_s": dev,
        "intr_local_timer_per_s": sum(p.get("timer_irq_per_s", 0.0) for p in cpus.values()),
        "intr_ipi_per_s": sum(p["ipi_per_s"] for p in cpus.values()),
        "intr_sar_per_s": dev + out["config"]["sched"]["tick_hz"],
    }


def print_sar(out: dict) -> None:
    server = out["netperf"]["server"]
    s = sar(out, server)
    if s is None:
        return
    print(f"sar ({server}): %idle " + ", ".join(f"{k} {v:.2f}" for k, v in s["idle_percent"].items())
          + f", general {s['general_idle_percent']:.2f}; cswch/s {s['cswch_per_s']:,.0f}; intr/s device "
          f"{s['intr_device_per_s']:,.0f}, local timer {s['intr_local_timer_per_s']:,.0f}, IPI {s['intr_ipi_per_s']:,.0f}, "
          f"sar {s['intr_sar_per_s']:,.0f}")


def ranked_locks(locks: dict, by: str = "spin") -> list[tuple[str, dict]]:
    """A node's locks that were taken, the most contended first: by time spun, then conflicts
    (`by="spin"`), or by conflicts, as Roca's lockstat ranks them (`by="conflicts"`). §B.7
    asks for both: conflicts alone under-weight long-held locks."""
    taken = [(k, v) for k, v in locks.items() if "spin_us" in v and v["acquisitions"] > 0]
    first = {"spin": lambda v: (-v["spin_us"], -v["conflicts"]), "conflicts": lambda v: (-v["conflicts"], -v["spin_us"])}[by]
    return sorted(taken, key=lambda kv: (*first(kv[1]), -kv[1]["acquisitions"], kv[0]))


def print_locks(out: dict) -> None:
    """With smp.spinlocks: the server's locks, the most contended first (time spun, then
    conflicts), and how often the socket's owner took TCP input over from the softirq."""
    locks = out["nodes"].get(out["netperf"]["server"], {}).get("locks")
    if not locks:
        return
    cells = [f"{k}: {v['acquisitions']:,} acquisitions, {v['conflicts']:,} conflicts, {v['spin_us']:,.1f} µs spun, {v['hold_us']:,.1f} µs held"
             for k, v in ranked_locks(locks)]
    if "socket" in locks:
        cells.append(f"{locks['socket']['backlogged']:,} segments backlogged for their socket's owner")
    print("locks (most contended first): " + "; ".join(cells))
    by_conflicts = [k for k, v in ranked_locks(locks, by="conflicts") if v["conflicts"] > 0]
    if by_conflicts:
        print("locks by conflicts (lockstat): " + ", ".join(by_conflicts))


def print_netperf(out: dict, categories: tuple[str, ...]) -> None:
    n = out["netperf"]
    placeholder = [x.strip() for x in out.get("config_description", "").split(". ") if "PLACEHOLDER" in x]
    for note in placeholder:
        print(f"note: {note.rstrip('.')}.")
    rate_key = "throughput_mbps" if "throughput_mbps" in n["aggregate"] else "transactions_per_s"
    unit = "Mbps" if rate_key == "throughput_mbps" else "transactions/s"
    print(f"{n['test']}: {n['connections']} connection(s) from {n['clients']} client(s) to {n['server']}, "
          f"{n['msg_bytes']} B messages, window {n['window_s']:.3f} s")
    sent = f" received of {n['aggregate']['sent_mbps']:,.1f} Mbps sent" if "sent_mbps" in n["aggregate"] else ""
    print(f"aggregate {n['aggregate'][rate_key]:,.1f} {unit}{sent}; Jain's fairness {n['fairness_jain']:.4f}")
    b = n["aggregate"].get("bound")
    if b and b["by"] == "processor":
        print(f"bound by {b['processor']}, {b['utilisation']:.0%} busy; its largest stage {b['stage']} takes {b['stage_busy']:.0%} of the window")
    elif b:
        print("bound by the link" if b["by"] == "link" else "bound by neither the link nor a saturated processor")
    per = [c[rate_key] for c in n["per_connection"]]
    print(f"per connection: min {min(per):,.1f}, max {max(per):,.1f} {unit}")
    if "sender_dropped_mbps" in n["per_connection"][0]:
        lost = sum(c["sender_dropped_mbps"] for c in n["per_connection"])
        print(f"dropped at the clients' full transmit queues: {lost:,.2f} Mbps of the connections' segments")
    for f in n.get("udp_flood", {}).get("per_flow", []):
        print(f"UDP flood flow {f['flow']} ({f['msg_bytes']} B datagrams from {f['client']}): sent {f['sent_mbps']:,.2f} Mbps, "
              f"received {f['received_mbps']:,.2f}, dropped at the sender {f['sender_dropped_mbps']:,.2f}; "
              f"{f['socket_drops_run']:,} datagrams dropped at the receiving socket in the run")
    stalled = sum(1 for v in per if v == 0)
    if stalled and n["test"] == "TCP_CRR":
        print(f"{stalled} connection(s) made no progress in the window (in the run the server dropped "
              f"{n['ring_drops_run']} frames at its receive ring and {n['listen_drops_run']} SYNs or handshake ACKs at "
              "its full accept queue, workload.netperf.backlog; a dropped SYN waits tcp.rto_initial_ps before it is "
              "sent again: spread the starts with workload.netperf.start_spread_ps, or run longer)")
    elif stalled:
        dropped = sum(p["dropped_frames"] for p in out.get("switch", {}).values())
        print(f"{stalled} connection(s) made no progress in the window ({dropped} frames dropped at the switch in the run; "
              "a segment lost before a connection's first RTT sample waits tcp.rto_initial_ps; TCP_STREAM and TCP_RR "
              "connections open established, without a handshake to take that sample)")
    lat = n.get("latency_us")
    if lat and lat.get("count"):
        print(f"transaction latency: p50 {lat['p50']:.1f} µs, p90 {lat['p90']:.1f} µs, p99 {lat['p99']:.1f} µs ({lat['count']:,} transactions)")
    print(f"{'processor':<14} {'util':>6} " + " ".join(f"{c:>7}" for c in categories) + f" {'irq/s':>9} {'cs/s':>9}")
    for k, pr in out["processors"].items():
        print(f"{k:<14} {pr['utilisation']:>6.3f} " + " ".join(f"{pr['busy'][c]:>7.3f}" for c in categories)
              + f" {pr['irq_per_s']:>9.0f} {pr['context_switches_per_s']:>9.0f}")
    print_sar(out)
    print_profile(out)
    print_locks(out)
    from ..io.cachereport import print_caches

    print_caches("caches (mode B, hit rates of reads and writes):", out["processors"], out.get("nodes", {}))
    for path, s in out.get("summary", {}).items():
        print(f"{path}: {s['mean']:,.3f} ± {s['ci95_half_width']:,.3f} (95% CI, {s['n']} seeds)")
