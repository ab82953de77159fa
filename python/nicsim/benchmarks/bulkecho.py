"""`nicsim bulkecho`: Roca's bench/benchd harness (stacks.md §B.8) over the core's netperf
workload. One process per connection at each end; bulk mode streams TSDUs (throughput), echo
mode sends each TSDU back (round-trip time); a TSDU sweep runs one simulation per size. An
organisation (`python/nicsim/orgs/NAME.toml`) is data: the profile and the mechanism keys it
sets. `--ilp` adds the fused copy+checksum access method (§B.6), and prints its cost model.

Per TSDU, each end's busy time per send and per receive is the core's per-stage time divided
by the TSDUs sent or received, grouped into §B.9's categories (presentation only).
"""
from __future__ import annotations

from ..analytic import ilp as ilp_model
from ..config import org_doc, parse_set, resolve
from ..config.params import MAX_HOST_CPUS
from ..errors import ConfigError
from .netperf import ranked_locks, run_netperf
from ..units import parse_size as parse_bytes

ORGS_BUILT = ("bsd", "streams", "streams-demux", "user_level_tcp", "linux")
# §B.9's categories and the stages carrying each (roca1996-power's header says how).
CATEGORIES = {
    "access method, user level, low-level OS": ("tx_syscall", "rx_syscall", "context_switch", "rx_wake", "epoll_wait"),
    "protocols": ("tx_tcp", "tx_ip", "rx_tcp", "rx_ip", "tx_ack", "udp_tx", "udp_rx", "timer"),
    "memory": ("skb_alloc", "skb_free", "skb_free_frag", "gro_free_head"),
    "data manipulation": ("tx_copy", "rx_copy", "rx_copy_frag", "tx_csum_fold", "csum", "skb_copy"),
    "Ethernet": ("tx_dev", "tx_complete", "rx_poll", "rx_poll_end", "rx_hardirq", "lo_xmit"),
    "interrupt handling": ("irq_entry", "irq_exit", "rx_schedule", "softirq_dispatch", "ipi_handler"),
    "synchronisation": ("spin_lock", "lock_spin"),
}


def load_org(name: str) -> dict:
    if name not in ORGS_BUILT:
        raise ConfigError(f"--org {name!r}: choose {', '.join(ORGS_BUILT)}")
    return org_doc(name)


def org_of(config, sets: dict) -> str | None:
    """The configuration's organisation: its org.name, else the built one whose mechanism keys
    and profile it already has."""
    v = resolve(config, sets).values
    if v["org.name"]:
        return v["org.name"]
    for name in ORGS_BUILT:
        keys = {k: x for k, x in load_org(name)["set"].items() if not k.startswith("costs.") or k == "costs.profile"}
        if all(str(v.get(k)) == str(x) for k, x in keys.items()):
            return name
    return None


def parse_tsdu(spec: str) -> list[int]:
    """`1:65536` (every power of two from 1 to 65536) or a list, `1,1 KiB,16KiB`."""
    try:
        if ":" in spec:
            lo, hi = (parse_bytes(x.strip()) for x in spec.split(":"))
            if not 1 <= lo <= hi:
                raise ValueError
            sizes, n = {lo, hi}, 1
            while n <= hi:
                sizes.update([n] if n >= lo else [])
                n *= 2
            return sorted(sizes)
        sizes = [parse_bytes(x.strip()) for x in spec.split(",") if x.strip()]
        if not sizes or min(sizes) < 1:
            raise ValueError
        return sizes
    except (ValueError, ConfigError):
        raise ConfigError(f"--tsdu {spec!r}: give LO:HI (powers of two between, e.g. 1:65536) or sizes such as 1,1KiB,16KiB, each at least 1 B") from None


def _breakdown(out: dict, node: str, tsdus: float) -> tuple[dict[str, float], dict[str, float]] | tuple[None, None]:
    """Per TSDU on `node` (all its CPUs), by §B.9 category: µs (from the core's per-stage busy
    time) and instructions (the core's per-stage count)."""
    if not tsdus or tsdus <= 0:
        return None, None
    window_s = out["netperf"]["window_s"]
    where = {s: c for c, ss in CATEGORIES.items() for s in ss}
    us, ins = ({c: 0.0 for c in [*CATEGORIES, "other"]} for _ in range(2))
    for k, p in out["processors"].items():
        if k.split(".")[0] != node:
            continue
        for stage, share in p.get("busy_by_stage", {}).items():
            us[where.get(stage, "other")] += share * window_s * 1e6 / tsdus
        for stage, n in p.get("instructions_by_stage", {}).items():
            ins[where.get(stage, "other")] += n / tsdus
    return us, ins


def lock_table(out: dict) -> list[dict]:
    """Every lock some node took, the most contended first (`ranked_locks`)."""
    rows = [{"node": node, "lock": name, **{k: v[k] for k in ("acquisitions", "conflicts", "spin_us", "hold_us")}}
            for node, n in out["nodes"].items() for name, v in ranked_locks(n.get("locks", {}))]
    return sorted(rows, key=lambda r: (-r["spin_us"], -r["conflicts"], -r["acquisitions"], r["node"], r["lock"]))


def parse_cpus(cpus: int | str | None) -> list[int | None]:
    """`--cpus`: one count or a list (`1,2,4,8`), each 1 to MAX_HOST_CPUS and given once; [None]
    keeps the configuration's."""
    if cpus is None:
        return [None]
    allowed = f"1 to {MAX_HOST_CPUS} host CPUs per node, one count or a list such as 1,2,4,8"
    try:
        counts = [int(x) for x in str(cpus).split(",")]
    except ValueError:
        raise ConfigError(f"--cpus {cpus}: {allowed}") from None
    if not counts or any(not 1 <= c <= MAX_HOST_CPUS for c in counts) or len(set(counts)) != len(counts):
        raise ConfigError(f"--cpus {cpus}: {allowed}")
    return counts


def run_bulkecho(config, sets, org=None, mode="bulk", proto="tcp", connections=1, tsdu="1024", nodelay=False,
                 use_ilp=False, seed=None, replications=1, cpus: int | str | None = None) -> dict:
    if mode not in ("bulk", "echo"):
        raise ConfigError(f"--mode {mode!r}: choose bulk or echo")
    if proto not in ("tcp", "udp"):
        raise ConfigError(f"--proto {proto!r}: choose tcp or udp")
    if connections < 1:
        raise ConfigError(f"--connections {connections}: at least 1")
    counts = parse_cpus(cpus)
    sizes = parse_tsdu(tsdu)
    base = parse_set(sets or [])
    name = org or org_of(config, base)
    if name is None:
        raise ConfigError("--org: the configuration matches no built organisation; choose " + " or ".join(ORGS_BUILT))
    org_doc = load_org(name)
    if use_ilp and "ilp" not in org_doc:
        raise ConfigError(f"--ilp: the fused method's costs are the POWER's (§B.9); organisation {name} has none (use bsd or streams-demux)")
    s = {**base, "org.name": name, "org.ilp": str(use_ilp).lower()}
    if nodelay:
        s["workload.netperf.nodelay"] = "true"
    if seed is not None:
        s["run.seed"] = str(seed)
    test = f"{proto}_{'stream' if mode == 'bulk' else 'rr'}"
    points = []
    rate = "throughput_mbps" if mode == "bulk" else "transactions_per_s"
    # Each count's setting and the CPU count it resolves to (the configuration's for None).
    cpu_sets = [{} if c is None else {"cpu.count": str(c)} for c in counts]
    resolved = [resolve(config, {**s, **on}).values["cpu.count"] for on in cpu_sets]
    for n, on, n_cpus in ((n, on, k) for n in sizes for on, k in zip(cpu_sets, resolved)):
        def run(extra: dict, n: int = n) -> dict:
            return run_netperf(config, {**s, "workload.netperf.msg_bytes": str(n), **extra},
                               replications=replications, test=test.upper(), connections=connections)

        out = run(on)
        np_ = out["netperf"]
        client, server = np_["per_connection"][0]["client"], np_["server"]
        nodes = out["nodes"]
        point = {"tsdu_bytes": n, "connections": np_["connections"]}
        if mode == "bulk":
            point["throughput_mbps"] = np_["aggregate"]["throughput_mbps"]
            sent = nodes[client]["app_bytes_sent"] / n if proto == "tcp" else None
            read = nodes[server]["app_bytes_read"] / n if proto == "tcp" else None
        else:
            point["transactions_per_s"] = np_["aggregate"]["transactions_per_s"]
            point["rtt_us"] = np_["latency_us"]["mean"]
            sent = read = np_["aggregate"]["transactions_per_s"] * np_["window_s"]
        if client == server:
            # Over loopback one host runs both ends: its work per TSDU, both halves together.
            point["send_us"] = point["send_instructions"] = point["receive_us"] = point["receive_instructions"] = None
            point["host_us"], point["host_instructions"] = _breakdown(out, server, read)
        else:
            point["send_us"], point["send_instructions"] = _breakdown(out, client, sent)
            point["receive_us"], point["receive_instructions"] = _breakdown(out, server, read)
        # The same run on one CPU per node gives the speedup (§B.8's SMP runs); a list that
        # holds 1 has run it already.
        point["cpus"] = n_cpus
        single = next((p for p in points if p["tsdu_bytes"] == n and p["cpus"] == 1), None)
        one = (np_["aggregate"][rate] if n_cpus == 1 else single[rate] if single
               else run({"cpu.count": "1"})["netperf"]["aggregate"][rate])
        point["speedup"] = np_["aggregate"][rate] / one if one > 0 else None
        point["cpu_utilisation"] = {k: p["utilisation"] for k, p in out["processors"].items()}
        point["locks"] = lock_table(out)
        if "summary" in out:
            # Replications on consecutive seeds: each figure's mean and 95% interval.
            point["summary"] = {k: v for k, v in out["summary"].items() if k != "fairness_jain"}
        point["conservation_ok"] = all(c["sent_bytes"] == c["delivered_bytes"] + c["in_flight_bytes"] + c["dropped_bytes"]
                                       for c in out["conservation"].values())
        points.append(point)
        cfg_hash, description = out.get("config_hash"), out.get("config_description")
    doc = {"bulkecho": {"config": config, "org": name, "org_description": org_doc["description"], "mode": mode,
                        "proto": proto, "ilp": use_ilp, "nodelay": nodelay, "points": points},
           "config_hash": cfg_hash, "config_description": description}
    if use_ilp:
        doc["bulkecho"]["ilp_model"] = {"break_even_bytes": ilp_model.break_even_bytes(),
                                        "rows": ilp_model.table(sizes, max_buffer_bytes=4096)}
    return doc


def print_bulkecho(doc: dict) -> None:
    b = doc["bulkecho"]
    print(f"bulkecho {b['mode']} {b['proto'].upper()}, org {b['org']} ({b['org_description']})"
          + (", ILP" if b["ilp"] else "") + (", TCP_NODELAY" if b["nodelay"] else ""))
    bulk = b["mode"] == "bulk"
    figure = "throughput Mbps" if bulk else "RTT µs"
    # Bulk: each end's busy time per TSDU sent or received; echo: per transaction.
    cols = ("send µs", "receive µs") if bulk else ("client µs", "server µs")
    loopback = any("host_us" in p for p in b["points"])
    if loopback:
        cols = ("host µs", "")
    # A --cpus list runs each TSDU at each count: a column says which.
    many = len({p["cpus"] for p in b["points"]}) > 1
    print(f"{'TSDU B':>8}{' CPUs' if many else ''} {figure:>16} {cols[0]:>10} {cols[1]:>11}".rstrip())
    def total(d, w):
        return f"{sum(d.values()):>{w}.1f}" if d else f"{'-':>{w}}"
    for p in b["points"]:
        value = p["throughput_mbps"] if bulk else p["rtt_us"]
        ends = total(p["host_us"], 10) if loopback else f"{total(p['send_us'], 10)} {total(p['receive_us'], 11)}"
        n_cpus = f" {p['cpus']:>4}" if many else ""
        print(f"{p['tsdu_bytes']:>8}{n_cpus} {value:>16.2f} {ends}")
    last = b["points"][-1] if b["points"] else {}
    # The largest TSDU's breakdown: the host's over loopback, else the sender's.
    end, what = ("host", "over loopback, the host's work per TSDU (send and receive)") if loopback else \
        ("send", "per send" if bulk else "per transaction (client)")
    if last.get(f"{end}_us"):
        us, ins = last[f"{end}_us"], last[f"{end}_instructions"]
        print(f"{what} of {last['tsdu_bytes']} B, µs (instructions) by category: "
              + ", ".join(f"{c} {v:.1f} ({ins[c]:.0f})" for c, v in us.items() if v >= 0.05))
    smp = [p for p in b["points"] if p["cpus"] > 1 or (many and p["locks"])]
    if smp:
        print(f"{'TSDU B':>8} {'CPUs':>5} {'speedup':>8}   busiest locks (µs spun, µs held, conflicts / acquisitions)")
        for p in smp:
            top = "; ".join(f"{r['node']} {r['lock']} {r['spin_us']:,.1f} µs spun, {r['hold_us']:,.1f} µs held, "
                            f"{r['conflicts']:,}/{r['acquisitions']:,}"
                            for r in p["locks"][:3])
            speedup = f"{p['speedup']:8.2f}" if p["speedup"] is not None else f"{'-':>8}"
            print(f"{p['tsdu_bytes']:>8} {p['cpus']:>5} {speedup}   {top or 'no locks modelled (smp.spinlocks = false)'}")
    if "ilp_model" in b:
        m = b["ilp_model"]
        print(f"ILP cost model (§B.6, µs): break-even {m['break_even_bytes']:.0f} B")
        for r in m["rows"]:
            print(f"  {r['tsdu_bytes']:>8} B: separate {r['separate_us']:8.1f}, fused {r['fused_us']:8.1f}"
                  f" ({'fused' if r['fused_wins'] else 'separate'} wins)")
