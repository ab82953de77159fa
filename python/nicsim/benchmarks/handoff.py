"""`nicsim handoff NAME`: the connection-handoff study's configurations by their names
(handoff.md §10), `WORKLOAD-MAXCONNS-PRIORITY-LOADCONTROL-SELECTION-MIPS`, run on the
`kimrixner2006` preset with the study's metrics (§11). The simulation is the core's handoff
NIC (`crates/nicsim/src/handoff`); this module maps a name to parameters and groups the
core's per-stage busy time into the study's host-profile categories (presentation only).
"""
from __future__ import annotations

import re
from typing import Any

from .. import api
from ..config import parse_set, resolve
from ..errors import ConfigError
from .netperf import _at, ci95

PRESET = "kimrixner2006"

# §9.1 workloads through the web workload's generators. Neither trace is available, so W and
# I are the lognormal stand-in of §7.5, named as such; D (SPECweb99 with its dynamic mix) is
# run with the static file set, the only SPECweb99 generator built. Keep-alive connections
# carry a lognormal number of requests (mean 4, [N]).
WORKLOADS: dict[str, dict[str, Any]] = {
    "W": {"label": "World Cup (stand-in: lognormal sizes and lifetimes, not the trace)", "users": 2048, "mix": "lognormal"},
    "I": {"label": "IBM (stand-in: lognormal sizes and lifetimes, not the trace)", "users": 2048, "mix": "lognormal"},
    "D": {"label": "SPECweb99 (stand-in: the static file set; the dynamic mix is not built)", "users": 2048, "mix": "specweb99_static"},
    "S": {"label": "SPECweb99 static", "users": 4096, "mix": "specweb99_static"},
}
FIELDS = ("workload", "maxconns", "priority", "loadcontrol", "selection", "MIPS")
ALLOWED = {
    "workload": "W, I, D or S",
    "maxconns": "an integer >= 0 (0: no handoff)",
    "priority": "P (host first) or N (FCFS)",
    "loadcontrol": "L (load control) or N (none)",
    "selection": "FCFS or Tn with n >= 1 (threshold, e.g. T4)",
    "MIPS": "an integer >= 1 (the NIC's instruction rate, millions per second)",
}
PATTERNS = {
    "workload": r"[WIDS]", "maxconns": r"\d+", "priority": r"[PN]", "loadcontrol": r"[LN]",
    "selection": r"FCFS|T[1-9]\d*", "MIPS": r"[1-9]\d*",
}


def parse_name(name: str) -> dict[str, Any]:
    """The fields of a configuration name; spaces around the hyphens are tolerated (printed
    names pad maxconns). A malformed name raises one line naming the bad field."""
    parts = [p.strip() for p in str(name).split("-")]
    if len(parts) != len(FIELDS):
        raise ConfigError(f"handoff name {name!r}: expected {'-'.join(FIELDS)} ({len(FIELDS)} fields), e.g. W-1024-P-L-FCFS-400; got {len(parts)} field(s)")
    for field, value in zip(FIELDS, parts):
        if not re.fullmatch(PATTERNS[field], value):
            raise ConfigError(f"handoff name {name!r}: field {field} is {value!r}; allowed: {ALLOWED[field]}")
    w, maxconns, prio, lc, sel, mips = parts
    out = {"workload": w, "maxconns": int(maxconns), "priority": prio, "loadcontrol": lc, "selection": sel, "mips": int(mips)}
    if out["maxconns"] == 0:  # no handoff: the policy fields have no effect (§10)
        out.update(priority="N", loadcontrol="N", selection="FCFS")
    return out


def canonical(f: dict[str, Any]) -> str:
    return f"{f['workload']}-{f['maxconns']}-{f['priority']}-{f['loadcontrol']}-{f['selection']}-{f['mips']}"


def name_sets(f: dict[str, Any], base: str | None = None) -> dict[str, Any]:
    """The parameters a name stands for. The NIC's rate becomes its speed relative to the
    host's clock at the preset's CPI (the core's processor model takes a speed fraction)."""
    core = resolve(base or PRESET).core
    clock_hz, cpi = core["cpu"]["clock_hz"], core["cpu"]["cpi"]
    w = WORKLOADS[f["workload"]]
    s: dict[str, Any] = {
        # The name describes a handoff NIC under a web workload, whatever the base config.
        "placement.preset": "handoff",
        "placement.sender": "base",
        "nic_cpu.present": True,
        "workload.kind": "web",
        "handoff.max_connections": f["maxconns"],
        "handoff.priority": "host_first" if f["priority"] == "P" else "fcfs",
        "handoff.load_control": f["loadcontrol"] == "L",
        "handoff.selection": "fcfs" if f["selection"] == "FCFS" else "threshold",
        "nic_cpu.speed_fraction": f["mips"] * 1e6 * cpi / clock_hz,
        "workload.web.users": w["users"],
        "workload.web.workers": w["users"],
        "workload.web.mix": w["mix"],
    }
    if f["selection"] != "FCFS":
        s["handoff.threshold_packets"] = int(f["selection"][1:])
    return s


# The study's host-profile categories (§11) over the core's stages; presentation only.
# `other` is work of no stage: the application's own work (the web server's per-request
# computation) and IPI sends (a few hundred cycles each), counted as user time.
HOST_PROFILE = {
    "user": ("http_request", "app_message", "other"),
    "socket": ("rx_syscall", "tx_syscall", "rx_copy", "rx_copy_frag", "tx_copy", "tx_csum_fold", "skb_copy", "accept_syscall",
               "connect_syscall", "close_syscall", "epoll_wait"),
    "tcp_ip": ("rx_ip", "rx_tcp", "tx_tcp", "tx_ip", "tx_ack", "csum", "timer", "tcp_syn", "tcp_child", "tcp_teardown",
               "gro_receive", "udp_tx", "udp_rx"),
    "driver": ("rx_poll", "rx_poll_end", "tx_dev", "lo_xmit", "tx_complete", "rx_hardirq", "rx_schedule"),
    "handoff_interface": ("handoff_driver", "handoff_event"),
    "interrupt": ("irq_entry", "irq_exit", "ipi_handler", "softirq_dispatch"),
}


def host_profile(proc: dict) -> dict[str, float]:
    """A host CPU's time by category in percent, `other_os` the rest of its busy time and
    `idle` what is left: together 100."""
    stages = proc.get("busy_by_stage", {})
    out = {cat: 100 * sum(stages.get(s, 0.0) for s in names) for cat, names in HOST_PROFILE.items()}
    out["other_os"] = 100 * proc["utilisation"] - sum(out.values())
    out["idle"] = 100 * (1 - proc["utilisation"])
    return out


def summarise(doc: dict, name: str, label: str) -> dict:
    """The study's metrics for one run (§11): the server is the last node."""
    server = f"node{len(doc['nodes']) - 1}"
    h = doc["nodes"][server]["handoff"]
    pps = h["packets_per_s"]
    web = doc["web"]
    rx, tx = pps["rx_host"] + pps["rx_nic"], pps["tx_host"] + pps["tx_nic"]
    return {
        "name": name,
        "workload": label,
        "requests_per_s": web["requests_per_s"],
        "connections_per_s": web["connections_per_s"],
        "packets_per_s": {"rx": rx, "tx": tx, "total": rx + tx, **pps},
        "host_profile_percent": host_profile(doc["processors"][f"{server}.cpu0"]),
        "nic_idle_percent": 100 * (1 - doc["processors"][f"{server}.nic_cpu"]["utilisation"]),
        "nic_delay_us": h["delay"],
        "connections": {k: h[k] for k in ("attempts", "handoffs", "nacks_limit", "nacks_closed", "released", "restores", "hard_limit",
                                          "soft_limit", "owned", "max_owned_run")},
    }


SUMMARISED = ("requests_per_s", "connections_per_s", "packets_per_s.total", "nic_idle_percent",
              "host_profile_percent.idle", "nic_delay_us.host.rx.mean_us", "nic_delay_us.nic.rx.mean_us")


def run_handoff(name: str, config_source=None, sets=None, replications: int = 1, seed: int | None = None) -> dict:
    """One named configuration (or `replications` runs on consecutive seeds): the run's
    document with a `handoff` block of the study's metrics, and `summary` with 95% CIs."""
    if replications < 1:
        raise ConfigError(f"--replications {replications}: at least 1")
    f = parse_name(name)
    canon = canonical(f)
    over = dict(parse_set(sets)) if isinstance(sets, list) else dict(sets or {})
    s = {**name_sets(f, config_source), **over}
    if seed is not None:
        s["run.seed"] = seed
    label = WORKLOADS[f["workload"]]["label"]
    first = api.run(config_source or PRESET, s)
    first["handoff"] = summarise(first, canon, label)
    if replications > 1:
        seed0 = first["config"]["run"]["seed"]
        runs = [first["handoff"]] + [summarise(api.run(config_source or PRESET, {**s, "run.seed": seed0 + r}), canon, label)
                                     for r in range(1, replications)]
        first["replications"] = [{"seed": seed0 + i, **{p: _at(r, p) for p in SUMMARISED}} for i, r in enumerate(runs)]
        first["summary"] = {p: ci95([float(_at(r, p)) for r in runs]) for p in SUMMARISED
                            if all(_at(r, p) is not None for r in runs)}
    return first


def print_handoff(out: dict) -> None:
    h = out["handoff"]
    print(f"{h['name']}: {h['workload']}")
    pps = h["packets_per_s"]
    print(f"{h['requests_per_s']:,.0f} requests/s, {h['connections_per_s']:,.0f} connections/s, "
          f"{pps['total']:,.0f} packets/s through the NIC (rx {pps['rx']:,.0f}, tx {pps['tx']:,.0f}; "
          f"owned connections' {pps['rx_nic'] + pps['tx_nic']:,.0f})")
    print(f"NIC idle {h['nic_idle_percent']:.1f}%")
    print("host profile (%): " + ", ".join(f"{k} {v:.1f}" for k, v in h["host_profile_percent"].items()))
    for cls in ("host", "nic"):
        d = h["nic_delay_us"][cls]
        cells = [f"{way} mean {d[way]['mean_us']:.2f} p99 {d[way]['p99_us']:.2f}" for way in ("rx", "tx") if d[way]["count"]]
        print(f"NIC delay of {cls} packets (us): " + ("; ".join(cells) or "none"))
    c = h["connections"]
    print(f"handoffs {c['handoffs']} of {c['attempts']} attempts (refused: {c['nacks_limit']} by the limit, "
          f"{c['nacks_closed']} closed), released {c['released']}, restored {c['restores']}; owned {c['owned']} now, at most {c['max_owned_run']}; "
          f"soft limit {c['soft_limit']} of {c['hard_limit']}")
    for path, s in out.get("summary", {}).items():
        print(f"{path}: {s['mean']:,.3f} ± {s['ci95_half_width']:,.3f} (95% CI, {s['n']} seeds)")
