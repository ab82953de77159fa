"""The parameter declarations (params.py) and the core's config (config.rs) cannot drift: every
preset resolves and the core accepts it; the core rejects a document missing any declared key
or carrying an extra one; every declared parameter, changed, changes the core's field; the Rust
test fixture is what Python resolves."""
import json
from pathlib import Path

import pytest

from nicsim import _core, physics
from nicsim.config import preset_names, resolve
from nicsim.params import BY_KEY, PARAMS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_is_accepted_by_the_core(preset):
    _core.validate(resolve(preset).to_json())


def _paths(d, prefix=""):
    for k, v in d.items():
        if isinstance(v, dict):
            yield from _paths(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}"


def test_core_requires_every_declared_key():
    doc = resolve(None).core
    for path in _paths({k: v for k, v in doc.items() if k not in ("placements",)}):
        broken = json.loads(json.dumps(doc))
        d = broken
        *parents, leaf = path.split(".")
        for p in parents:
            d = d[p]
        del d[leaf]
        with pytest.raises(ValueError, match=leaf):
            _core.validate(json.dumps(broken))


def test_core_rejects_undeclared_keys():
    doc = resolve(None).core
    doc["nic"]["undeclared_knob"] = 1
    with pytest.raises(ValueError, match="undeclared_knob"):
        _core.validate(json.dumps(doc))


# ---- every declared parameter reaches the core ------------------------------------------
# For each parameter: set it to another valid value and read the field back from the
# configuration *as the core parsed it* (`_core.parsed_config`). A parameter the resolver drops,
# crosses with another, or fills from a constant shows up as a field that did not move.

# Parameters that reach the core through another field: (context overrides, value, core field,
# expected value there). The context makes the value valid (e.g. a second CPU for placement on cpu1).
TWO = {"cpu.count": 2}
INDIRECT = {
    "placement.preset": (TWO, "onload", "placements.1.name", "onload"),
    "placement.driver": (TWO, "cpu1", "placements.1.driver", "cpu1"),
    "placement.protocol": (TWO, "cpu1", "placements.1.protocol", "cpu1"),
    "placement.comm_thread": (TWO, "cpu1", "placements.1.comm_thread", "cpu1"),
    "placement.app": (TWO, "cpu1", "placements.1.app", "cpu1"),
    "placement.irq_path": ({}, "direct", "placements.1.irq_path", "direct"),
    "placement.rx_mode": ({}, "ring_accumulate", "placements.1.rx_mode", "ring_accumulate"),
    "placement.sender": (TWO, "onload", "placements.0.name", "onload"),
    # More clients need the switch, and add one placement per client.
    "topology.clients": ({"switch.present": True}, 2, "topology.clients", 2),
    # Without local flow control the transmit queue must be bounded.
    "tx.local_flow_control": ({"tx.queue_frames": 50}, False, "tx.local_flow_control", False),
    # A flood runs beside netperf's TCP_STREAM.
    "workload.netperf.udp_flood_flows": ({"workload.kind": "netperf"}, 2, "workload.netperf.udp_flood_flows", 2),
    # Only netperf's TCP tests run over loopback.
    "topology.loopback": ({"workload.kind": "netperf"}, True, "topology.loopback", True),
    # An organisation's name brings its file's settings; org.ilp its fused copy's costs.
    "org.name": ({}, "bsd", "org.buffers", "bsd_mbuf"),
    "org.ilp": ({"org.name": "bsd"}, True, "costs.tx_copy.ipc", 0.453),
    # The trace file is read into two arrays (value and expectation filled in by `_plan`).
    "workload.packet_gen.trace_file": ({"workload.kind": "packet_gen"}, None, "workload.packet_gen.trace_frame_bytes", [100, 200]),
    "workload.web.trace_file": ({"workload.kind": "web"}, None, "workload.web.trace_responses", [[100, 200]]),
    # A capture is read into the same arrays: two frames of 96 bytes captured (+ the FCS).
    "workload.packet_gen.pcap": ({"workload.kind": "packet_gen"}, None, "workload.packet_gen.trace_frame_bytes", [100, 100]),
}
# costs.profile reaches the core as the stages' costs, not as a field of its own; each
# profile's content reaching the core is checked in test_the_cost_profile_reaches_the_core.
UNCHANGEABLE = {"costs.profile"}
# Auto values ("0 = auto") that legitimately follow another parameter.
FOLLOWERS = {
    "nic.mtu_bytes": {"nic.rx_ring_entries", "nic.ring_flush_idle_ps", "tcp.initial_window_segments"},
    "link.rate_bps": {"nic.ring_flush_idle_ps"},
    "tcp.timestamps": {"tcp.initial_window_segments"},
}


def _at(doc, field: str):
    for part in field.split("."):
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def _leaves(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_leaves(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def alternative(p):
    """A valid value of `p` other than its default, as a person would write it."""
    from nicsim.config import parse_value

    d = parse_value(p, p.default)
    if p.kind == "bool":
        return not d
    if p.kind == "choice":
        return next(c for c in p.choices if c and c != d)
    if p.kind == "sizes":
        return [1, 2]
    if p.kind == "procs":
        return ["cpu0"]
    if p.kind == "text":
        return "another"
    if p.kind == "float":
        hi = p.max if p.max is not None else d + 1.0
        if d == hi:  # a default at its maximum: half-way down to the minimum
            return (d + p.min) / 2
        return (d + hi) / 2  # short decimals here: exact through JSON
    v = d + 1
    return v if p.max is None or v <= p.max else d - 1


def _plan(p, tmp_path):
    """(context, value, core field, expected) for parameter `p`."""
    from nicsim.config import parse_value

    if p.key in INDIRECT:
        ctx, value, field, expected = INDIRECT[p.key]
        if p.key == "workload.web.trace_file":
            f = tmp_path / "web.csv"
            f.write_text("connection_id,request_index,response_bytes\n7,1,200\n7,0,100\n")
            value = str(f)
        elif p.key == "workload.packet_gen.pcap":
            import dpkt

            f = tmp_path / "cap.pcap"
            with open(f, "wb") as out:
                w = dpkt.pcap.Writer(out)
                for t in (1.0, 1.001):
                    w.writepkt(bytes(96), ts=t)
            value = str(f)
        elif p.kind == "path":
            f = tmp_path / "trace.csv"
            f.write_text("length_bytes,interval_ns\n100,1000\n200,2000\n")
            value = str(f)
        return ctx, value, field, expected
    value = alternative(p)
    return {}, value, p.key, parse_value(p, value)


def unreached(params, tmp_path) -> list[str]:
    """The parameters whose change does not arrive, alone, in the matching core field."""
    problems = []
    for p in params:
        if p.key in UNCHANGEABLE:
            continue
        ctx, value, field, expected = _plan(p, tmp_path)
        before = physics.parsed_config(resolve(None, ctx))
        after = physics.parsed_config(resolve(None, {**ctx, p.key: value}))
        try:
            got, was = _at(after, field), _at(before, field)
        except (KeyError, IndexError):
            problems.append(f"{p.key}: the core has no field {field}")
            continue
        if got != expected or got == was:
            problems.append(f"{p.key} = {value!r}: core field {field} is {got!r} (was {was!r}), expected {expected!r}")
        elif p.key not in INDIRECT:
            a, b = _leaves(after), _leaves(before)
            moved = {k for k in a if a[k] != b.get(k)} - {field} - FOLLOWERS.get(p.key, set())
            if moved:
                problems.append(f"{p.key}: also moved {sorted(moved)}")
    return problems


def test_every_declared_parameter_reaches_the_core(tmp_path):
    core_fields = set(_leaves(physics.parsed_config(resolve(None))))
    unmapped = [p.key for p in PARAMS if p.key not in core_fields and p.key not in INDIRECT and p.key not in UNCHANGEABLE]
    assert not unmapped, f"declared parameters with no core field and no entry in INDIRECT: {unmapped}"
    assert not unreached(PARAMS, tmp_path)


def test_the_check_catches_a_dropped_or_crossed_key(monkeypatch, tmp_path):
    """The check above can fail: a resolver that forgets one key (the core always gets its
    default) and crosses two others is reported, key by key."""
    import nicsim.config as config

    real = config.build_core

    def broken(v, costs):
        core = real(v, costs)
        core["nic"]["descriptor_bytes"] = 16  # a constant instead of v["nic.descriptor_bytes"]
        core["nic"]["rx_coalesce_ps"], core["nic"]["tx_coalesce_ps"] = v["nic.tx_coalesce_ps"], v["nic.rx_coalesce_ps"]
        return core

    monkeypatch.setattr(config, "build_core", broken)
    keys = ("nic.descriptor_bytes", "nic.rx_coalesce_ps", "nic.tx_coalesce_ps", "nic.mtu_bytes")
    problems = unreached([BY_KEY[k] for k in keys], tmp_path)
    assert [m.split(" ")[0].rstrip(":") for m in problems] == list(keys[:3])


@pytest.mark.parametrize("name", BY_KEY["costs.profile"].choices)
def test_the_cost_profile_reaches_the_core(name):
    from nicsim.config import COST_DEFAULTS, COST_FIELDS, load_profile

    prof = load_profile(name)
    costs = physics.parsed_config(resolve(None, {"costs.profile": name}))["costs"]
    assert costs["scale"] == prof["scale"]
    for stage, c in prof["stages"].items():
        assert {f: costs[stage][f] for f in COST_FIELDS} == {f: c.get(f, COST_DEFAULTS.get(f)) for f in COST_FIELDS}, stage


def test_rust_fixture_is_in_sync():
    fixture = json.loads((ROOT / "crates/nicsim/tests/fixtures/base-short.json").read_text())
    r = resolve("ortiz2008-base", {"workload.netpipe.target_ps": "5 ms", "workload.netpipe.sizes_bytes": "1 B,64 KiB"})
    assert fixture == json.loads(r.to_json()), "regenerate the fixture (see tests/it/main.rs)"
