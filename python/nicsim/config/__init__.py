"""Configuration: defaults from `params.py`, then a preset, then a TOML file, then `--set`
overrides, each value parsed by its kind and checked, resolved into the complete document the
core receives (base units only). Every error names the key and what is allowed."""
from __future__ import annotations

import copy
import difflib
import math
import hashlib
import json
from pathlib import Path
from typing import Any, Iterable

from . import physics
from .. import units
from ..errors import ConfigError
from .params import BY_KEY, PARAMS, PROCESSORS, Param
from .placements import PLACEMENTS, ROLES
# The files and the cost profile, imported here too: `nicsim.config` is where callers find them.
from .costs import CATEGORIES, COMMUNICATION, COST_DEFAULTS, COST_FIELDS, _costs  # noqa: F401
from .files import ORG_DIR, PRESET_DIR, PROFILE_DIR, is_file_ref, load_file, load_preset, load_profile, org_doc, preset_names  # noqa: F401


def flatten(d: dict, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _unknown(key: str, value: Any = None) -> ConfigError:
    if any(k.startswith(key + ".") for k in BY_KEY):
        return ConfigError(f"{key}: a table of settings is expected here (e.g. [{key}] in TOML, or --set {key}.FIELD=VALUE), got {value!r}")
    near = difflib.get_close_matches(key, list(BY_KEY), n=3)
    hint = f"; did you mean {' or '.join(near)}?" if near else "; run `nicsim params` to list the keys"
    return ConfigError(f"unknown key {key!r}{hint}")


def parse_value(p: Param, raw: Any) -> Any:
    """One value of parameter `p`, as written by a person, into base units."""
    try:
        if p.kind in units.PARSERS:
            v = units.PARSERS[p.kind](raw)
        elif p.kind == "bool":
            if isinstance(raw, str) and raw.lower() in ("true", "false", "1", "0", "on", "off"):
                v = raw.lower() in ("true", "1", "on")
            elif isinstance(raw, bool):
                v = raw
            else:
                raise ValueError
        elif p.kind == "int":
            if isinstance(raw, bool):
                raise ValueError
            v = int(raw) if not isinstance(raw, float) or raw.is_integer() else None
            if v is None:
                raise ValueError
        elif p.kind == "float":
            if isinstance(raw, bool):
                raise ValueError
            v = float(raw)
            if not math.isfinite(v):
                raise ConfigError(f"{p.key}: {raw!r} is not a finite number ({p.description})")
        elif p.kind == "choice":
            v = str(raw)
            if v not in p.choices:
                allowed = ", ".join(repr(c) for c in p.choices if c) + (" or '' (from the preset)" if "" in p.choices else "")
                raise ConfigError(f"{p.key}: {raw!r} is not allowed; choose {allowed}")
        elif p.kind in ("path", "text"):
            v = str(raw)
        elif p.kind == "sizes":
            items = raw if isinstance(raw, list) else [x for x in str(raw).split(",") if x.strip()]
            v = [units.parse_size(x.strip() if isinstance(x, str) else x) for x in items]
        elif p.kind == "procs":
            items = raw if isinstance(raw, list) else [x for x in str(raw).split(",") if x.strip()]
            v = [str(x).strip() for x in items]
            bad = [x for x in v if x not in PROCESSORS]
            if bad:
                raise ConfigError(f"{p.key}: {bad[0]!r} is not a processor; choose from {', '.join(PROCESSORS)}")
        else:  # pragma: no cover - a declaration error
            raise AssertionError(p.kind)
    except units.UnitError as e:
        raise ConfigError(f"{p.key}: {e}") from None
    except (TypeError, ValueError) as e:
        if isinstance(e, ConfigError):
            raise
        raise ConfigError(f"{p.key}: {raw!r} is not a valid {p.kind}") from None
    for bound, ok, word in ((p.min, lambda x, b: x >= b, "at least"), (p.max, lambda x, b: x <= b, "at most")):
        if bound is not None and isinstance(v, (int, float)) and not isinstance(v, bool) and not ok(v, bound):
            raise ConfigError(f"{p.key}: {raw!r} is out of range; must be {word} {bound:g} ({p.description})")
    return v


def parse_set(items: Iterable[str]) -> dict[str, str]:
    out = {}
    for item in items:
        if "=" not in item:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE, e.g. --set nic.mtu_bytes='1500 B'")
        k, v = (x.strip() for x in item.split("=", 1))
        if k in out and out[k] != v:
            raise ConfigError(f"--set {k}={out[k]} and --set {k}={v} give {k} twice; give one of them")
        out[k] = v
    return out


def workload_sets(sets: list[str] | dict | None, kind: str, name: str) -> dict[str, str]:
    """A workload command's `--set` overrides (KEY=VALUE strings or a mapping) with
    `workload.kind` set to the command's `kind`; another kind named there is refused, since
    the command's options mean nothing for it (`name`: what the command runs)."""
    s = dict(parse_set(sets)) if isinstance(sets, list) else dict(sets or {})
    if s.get("workload.kind", kind) != kind:
        raise ConfigError(f"workload.kind = {s['workload.kind']!r}: this command runs {name}; leave the key out, or use nicsim run")
    s["workload.kind"] = kind
    return s


class Resolved:
    """A fully resolved configuration: values in base units, costs, placements."""

    def __init__(self, values: dict[str, Any], costs: dict, name: str, description: str | None = None):
        self.values = values
        self.costs = costs
        self.name = name
        # What the preset or file says it is (placeholders included), for every output.
        self.description = description
        self.core = build_core(values, costs)

    def to_json(self) -> str:
        return json.dumps(self.core, sort_keys=True)

    def hash(self) -> str:
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]


def resolve(source: str | Path | dict | None = None, sets: dict[str, Any] | Iterable[str] | None = None) -> Resolved:
    """Defaults ← preset ← file ← overrides. `source` is a preset name, a TOML path, a dict
    (nested or dotted keys), or None for the built-in defaults."""
    raw: dict[str, Any] = {}
    name = "defaults"
    description = None
    if isinstance(source, dict):
        layer = dict(source)
        if "preset" in layer:
            base_name = str(layer.pop("preset"))
            if is_file_ref(base_name):  # a file, relative to the working folder
                doc, preset = load_file(Path(base_name))
                raw.update(flatten(_without_meta(load_preset(preset))) if preset else {})
                raw.update(flatten(_without_meta(doc)))
            else:
                raw.update(flatten(load_preset(base_name)))
        raw.update(flatten(layer))
        name = "dict"
    elif source is not None:
        s = str(source)
        path = Path(s)
        if s.endswith(".toml") or path.exists():
            doc, preset = load_file(path)
            if preset is not None:
                base = load_preset(preset)
                description = base.get("description")
                raw.update(flatten(_without_meta(base)))
            description = doc.pop("description", description)
            raw.update(flatten(doc))
            name = path.stem
        else:
            preset = load_preset(s)
            description = preset.get("description")
            raw.update(flatten(_without_meta(preset)))
            name = s
    given = (sets if isinstance(sets, dict) else parse_set(sets)) if sets else {}
    # An organisation's settings go over the preset and file, under what is set explicitly.
    raw.update(org_settings(given.get("org.name", raw.get("org.name", "")), given.get("org.ilp", raw.get("org.ilp", False))))
    raw.update(given)
    values = {p.key: parse_value(p, p.default) for p in PARAMS}
    cost_over: dict[str, Any] = {}
    for k, v in raw.items():
        if k.startswith("costs.") and k != "costs.profile":
            cost_over[k] = v
        elif k in BY_KEY:
            values[k] = parse_value(BY_KEY[k], v)
        elif k not in ("description",):
            raise _unknown(k, v)
    costs = _costs(values["costs.profile"], cost_over)
    _derive(values)
    _check(values)
    return Resolved(values, costs, name, description)


# Keys that choose other keys' values (an organisation's file) and reach the core through them.
ORG_SWITCHES = ("org.name", "org.ilp")



def org_settings(name: str, ilp: Any) -> dict[str, Any]:
    """The settings of stack organisation `name` (`nicsim/orgs/NAME.toml`), with its fused
    copy+checksum ones when `ilp`; nothing for no name."""
    use_ilp = parse_value(BY_KEY["org.ilp"], ilp)
    if not name:
        if use_ilp:
            raise ConfigError("org.ilp: needs org.name, an organisation with fused copy+checksum costs (bsd or streams-demux)")
        return {}
    parse_value(BY_KEY["org.name"], name)
    doc = org_doc(name)
    if use_ilp and "ilp" not in doc:
        raise ConfigError(f"org.ilp: organisation {name} has no fused copy+checksum costs (they are the POWER's, §B.9); use bsd or streams-demux")
    return {**doc["set"], **(doc["ilp"] if use_ilp else {})}


def _without_meta(d: dict) -> dict:
    d = dict(d)
    d.pop("description", None)
    return d



def _derive(v: dict) -> None:
    """Fills the parameters whose default is derived from others (0 = auto). The physical
    ones (the RFC 3390 window from the MSS, one full frame's wire time) come from the core."""
    if v["nic.rx_ring_entries"] == 0:
        v["nic.rx_ring_entries"] = 100 if v["nic.mtu_bytes"] > 1500 else 200
    if v["nic.ring_flush_idle_ps"] == 0 or v["tcp.initial_window_segments"] == 0:
        d = physics.defaults(v["nic.mtu_bytes"], v["tcp.timestamps"], v["link.rate_bps"])
        if v["nic.ring_flush_idle_ps"] == 0:
            v["nic.ring_flush_idle_ps"] = d["max_frame_wire_ps"]
        if v["tcp.initial_window_segments"] == 0:
            v["tcp.initial_window_segments"] = d["initial_window_segments"]


def placement_table(v: dict, preset: str, overrides: bool) -> dict[str, str]:
    t = dict(PLACEMENTS[preset])
    if overrides:
        for f in ROLES:
            if v[f"placement.{f}"]:
                t[f] = v[f"placement.{f}"]
    t["irq_target"] = t["driver"]
    # The row's own output rule (CPU-NET's test E queues process-context sends to its CPU);
    # the core decides with tx.model and the organisation who runs output in the end.
    t.setdefault("tx_output", "thread")
    t["name"] = preset if not any(v[f"placement.{f}"] for f in ROLES) or not overrides else f"{preset}+custom"
    return t


def node_placements(v: dict) -> list[dict[str, str]]:
    """One placement per node: the clients (placement.sender), then the server."""
    server = placement_table(v, v["placement.preset"], True)
    sender = v["placement.sender"]
    client = server if sender == "same" else placement_table(v, sender, False)
    return [dict(client) for _ in range(v["topology.clients"])] + [dict(server)]


def _check(v: dict) -> None:
    have = [f"cpu{k}" for k in range(v["cpu.count"])] + (["nic_cpu"] if v["nic_cpu.present"] else [])
    for i, t in enumerate(node_placements(v)):
        where = "placement" if i == v["topology.clients"] or v["placement.sender"] == "same" else "placement.sender"
        for role in ("driver", "protocol", "comm_thread", "app"):
            proc = t[role]
            if proc not in have:
                fix = "set nic_cpu.present = true" if proc == "nic_cpu" else f"set cpu.count = {int(proc[3:]) + 1}"
                raise ConfigError(f"{where}.{role} = {proc}, but node{i} has no {proc} ({fix}); this node has {', '.join(have)}")
        for role in ("comm_thread", "app"):
            if t[role] == "nic_cpu":
                raise ConfigError(f"{where}.{role} = nic_cpu: threads cannot run on the NIC processor, which runs only protocol work; choose {', '.join(p for p in have if p != 'nic_cpu')}")
    if not v["tx.local_flow_control"] and v["tx.queue_frames"] == 0:
        raise ConfigError("tx.local_flow_control = false needs a bounded transmit queue: set tx.queue_frames (e.g. 50, BSD's ifq) so that what a sender that never sleeps sends can be dropped")
    if v["workload.netperf.udp_flood_flows"] and (v["workload.kind"] != "netperf" or v["workload.netperf.test"] != "tcp_stream" or v["topology.loopback"]):
        raise ConfigError("workload.netperf.udp_flood_flows: a UDP flood runs beside netperf's tcp_stream between hosts "
                          f"(workload.kind = {v['workload.kind']}, workload.netperf.test = {v['workload.netperf.test']}, "
                          f"topology.loopback = {str(v['topology.loopback']).lower()})")
    if v["topology.loopback"] and (v["workload.kind"] != "netperf" or v["workload.netperf.test"] not in ("tcp_stream", "tcp_rr")):
        raise ConfigError(f"topology.loopback = true: only netperf's tcp_stream and tcp_rr run over loopback (workload.kind = "
                          f"{v['workload.kind']}, workload.netperf.test = {v['workload.netperf.test']}); set topology.loopback = false")
    if v["workload.netpipe.max_bytes"] < v["workload.netpipe.start_bytes"]:
        raise ConfigError("workload.netpipe.max_bytes must be at least workload.netpipe.start_bytes")
    if v["workload.kind"] == "packet_gen":
        framing = _framing(v)
        frame_bytes = v["workload.packet_gen.frame_bytes"]
        wire_bits = (max(frame_bytes, framing["min_frame_bytes"]) + framing["wire_overhead_bytes"]) * 8
        line_pps = v["link.rate_bps"] / wire_bits
        if v["workload.packet_gen.rate_pps"] > line_pps:
            raise ConfigError(f"workload.packet_gen.rate_pps: {v['workload.packet_gen.rate_pps']:g} frames/s exceeds the link's {line_pps:,.0f} frames/s for {frame_bytes}-byte frames")
        if frame_bytes > framing["max_frame_bytes"]:
            raise ConfigError(f"workload.packet_gen.frame_bytes = {frame_bytes}: exceeds a full frame at nic.mtu_bytes = {v['nic.mtu_bytes']} "
                              f"({framing['max_frame_bytes']} bytes with the Ethernet header and FCS)")
    if v["workload.kind"] == "netperf" and v["workload.netperf.start_spread_ps"] > v["workload.netperf.warmup_ps"]:
        raise ConfigError("workload.netperf.start_spread_ps must not exceed workload.netperf.warmup_ps: every connection starts before the window")
    if v["io.dma_chunk_bytes"] > v["nic.memory_bytes"]:
        raise ConfigError("io.dma_chunk_bytes must not exceed nic.memory_bytes")


def _trace(v: dict) -> tuple[list[int], list[int]]:
    """The packet trace the generator replays, read only when the workload uses it."""
    path, capture = v["workload.packet_gen.trace_file"], v["workload.packet_gen.pcap"]
    if not (path or capture) or v["workload.kind"] != "packet_gen":
        return [], []
    from .replay import PCAP_KEY, load_trace

    if path and capture:
        raise ConfigError("workload.packet_gen.trace_file and workload.packet_gen.pcap: give one trace, not both")
    if capture:
        return load_trace(capture, _framing(v), v["link.rate_bps"], key=PCAP_KEY)
    return load_trace(path, _framing(v), v["link.rate_bps"])


def _framing(v: dict) -> dict:
    """The core's Ethernet framing at this MTU (frame bounds and the wire's per-frame extra)."""
    return physics.defaults(v["nic.mtu_bytes"], v["tcp.timestamps"], v["link.rate_bps"])


def _web_trace(v: dict) -> tuple[list[list[int]], list[int]]:
    """The web request trace the workload replays, read only when the workload uses it."""
    path = v["workload.web.trace_file"]
    if not path or v["workload.kind"] != "web":
        return [], []
    from .replay import load_web_trace

    return load_web_trace(path)


def build_core(v: dict, costs: dict) -> dict:
    """The nested document the Rust core deserialises (every field, base units)."""
    core: dict[str, Any] = {}
    for p in PARAMS:
        if p.key.startswith(("placement.", "costs.")) or p.kind == "path" or p.key in ORG_SWITCHES:
            continue
        parts = p.key.split(".")
        d = core
        for part in parts[:-1]:
            d = d.setdefault(part, {})
        d[parts[-1]] = v[p.key]
    core["placements"] = node_placements(v)
    gaps, lengths = _trace(v)
    core["workload"]["packet_gen"].update(trace_gaps_ps=gaps, trace_frame_bytes=lengths)
    sizes, arrivals = _web_trace(v)
    core["workload"]["web"].update(trace_responses=sizes, trace_arrivals_ps=arrivals)
    core["costs"] = {"scale": dict(costs["scale"]), **{k: dict(s) for k, s in costs["stages"].items()}}
    return copy.deepcopy(core)
