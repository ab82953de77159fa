"""Physics in one place: the quantities Python reports (LAWS B and α, the load thread's memory
stalls, the latency breakdown, the auto defaults) are the core's, and move exactly as the core
says when the hardware changes. A scan keeps the old re-derivations from coming back."""
import json
import re
from pathlib import Path

import pytest

from nicsim import _core, api, hpc, physics
from nicsim.benchmarks.netpipe import _hardware_latencies_us
from nicsim.config import resolve

PKG = Path(__file__).resolve().parents[1] / "python" / "nicsim"
NO_RUN = {"hpcbench": {"received_bytes": 0, "processors": {}}}


def laws(r):
    """The LAWS quantities that need no run (B, X, Y, α)."""
    return hpc.laws_quantities(r, NO_RUN, None)


class _Core:
    """The real core, with some of `derived`'s answers replaced."""

    def __init__(self, **over):
        self.over = over

    def __getattr__(self, name):
        return getattr(_core, name)

    def derived(self, doc):
        d = json.loads(_core.derived(doc))
        for k, v in self.over.items():
            if k == "processors":
                for name, fields in v.items():
                    d["processors"][name].update(fields)
            else:
                d[k] = v
        return json.dumps(d)


def test_api_exposes_the_core_helpers():
    assert api.derived is physics.derived and api.hardware_latencies is physics.hardware_latencies


@pytest.mark.parametrize("mtu, timestamps, mss", [(9000, True, 8948), (1500, True, 1448), (1500, False, 1460)])
def test_laws_B_is_the_cores_link_payload_rate(mtu, timestamps, mss):
    r = resolve("ortiz2008-offload", {"nic.mtu_bytes": mtu, "tcp.timestamps": timestamps, "link.rate_bps": "1 Gbps"})
    d = physics.derived(r)
    assert d["mss_bytes"] == mss and d["header_bytes"] == mtu - mss
    assert d["link_payload_bps"] == 1e9 * mss / (mtu + d["framing_bytes"])
    assert laws(r)["B_bps"] == d["link_payload_bps"]


def test_laws_follow_the_core_not_python_arithmetic(monkeypatch):
    r = resolve("ortiz2008-offload", {"nic_cpu.speed_fraction": "0.5"})
    q = laws(r)
    assert (q["cp"], q["alpha"]) == ("nic_cpu", 2.0)
    monkeypatch.setattr(physics, "_core", _Core(link_payload_bps=123456.0, processors={"nic_cpu": {"speed_fraction": 0.25}}))
    q = laws(r)
    assert q["B_bps"] == 123456.0
    assert q["alpha"] == 4.0 and q["Y_s"] == q["X_s"] / 0.25


@pytest.mark.parametrize("sets", [{"mem.miss_cycles": "91"}, {"mem.miss_cycles": "191"}, {"mem.hit_ratio": "0.5"}, {"nb.ideal": True}])
def test_load_thread_work_subtracts_the_cores_mean_access(sets):
    a_bit = 3.0
    out = hpc._hpc_sets(None, sets, None, None, a_bit)
    r = resolve(None, {**sets, "workload.kind": "hpcbench"})
    t_mean = physics.derived(r)["mem_mean_access_cycles"]
    refs = r.values["workload.hpcbench.app_refs_per_byte"]
    assert out["workload.hpcbench.app_cycles_per_byte"] == repr(max(0.0, 8.0 * a_bit - refs * t_mean))
    if sets.get("nb.ideal"):
        assert t_mean == 0.0
    if sets.get("mem.miss_cycles") == "191":
        assert t_mean == pytest.approx(0.9 * 1 + 0.1 * 191)


def test_load_thread_work_follows_the_core(monkeypatch):
    monkeypatch.setattr(physics, "_core", _Core(mem_mean_access_cycles=4.0))
    out = hpc._hpc_sets(None, {}, None, None, 3.0)
    refs = resolve(None).values["workload.hpcbench.app_refs_per_byte"]
    assert out["workload.hpcbench.app_cycles_per_byte"] == repr(24.0 - refs * 4.0)


@pytest.mark.parametrize("timestamps, wire_ps", [(True, 728_000), (False, 672_000)])
def test_latency_breakdown_is_the_cores(timestamps, wire_ps):
    # 1 byte at 1 Gb/s: a 53-byte datagram is 91 bytes on the wire; a 41-byte one is padded to 84.
    c = resolve("ortiz2008-base", {"tcp.timestamps": timestamps, "link.rate_bps": "1 Gbps"}).core
    h = physics.hardware_latencies(c, 1)
    assert h["wire_serialisation_ps"] == wire_ps
    shown = _hardware_latencies_us(c, 1)
    assert list(shown.values()) == [h[k] * 1e-6 for k in ("sender_dma_read_ps", "wire_serialisation_ps", "link_propagation_ps", "receiver_dma_write_ps", "interrupt_delivery_ps")]


def test_latency_breakdown_moves_with_the_hardware():
    base = resolve("ortiz2008-base").core
    h0 = physics.hardware_latencies(base, 1000)
    slow_io = resolve("ortiz2008-base", {"io.transaction_overhead_ps": "1 us"}).core
    h1 = physics.hardware_latencies(slow_io, 1000)
    # 1000 + 52 + 14 + 16 = 1082 bytes: three 512-byte transactions, 880 ns more overhead each.
    assert h1["sender_dma_read_bytes"] == 1082
    assert h1["sender_dma_read_ps"] - h0["sender_dma_read_ps"] == 3 * 880_000
    direct = resolve("ortiz2008-base", {"placement.irq_path": "direct"}).core
    ioapic_ps = resolve("ortiz2008-base").values["apic.ioapic_latency_ps"]
    assert (h0["interrupt_delivery_ps"], physics.hardware_latencies(direct, 1000)["interrupt_delivery_ps"]) == (ioapic_ps, 0)


def test_auto_defaults_are_the_cores():
    for mtu, ts, rate in [(9000, True, "1 Gbps"), (1500, False, "1 Gbps"), (1500, True, "10 Gbps")]:
        v = resolve(None, {"nic.mtu_bytes": mtu, "tcp.timestamps": ts, "link.rate_bps": rate}).values
        d = physics.defaults(mtu, ts, v["link.rate_bps"])
        assert v["tcp.initial_window_segments"] == d["initial_window_segments"]
        assert v["nic.ring_flush_idle_ps"] == d["max_frame_wire_ps"]
    assert physics.defaults(9000, True, 10**9) == {"mss_bytes": 8948, "advertised_mss_bytes": 8960, "initial_window_segments": 2, "max_frame_wire_bytes": 9038, "max_frame_wire_ps": 72_304_000,
                                                "min_frame_bytes": 64, "max_frame_bytes": 9018, "wire_overhead_bytes": 20}


def test_core_rejects_what_it_cannot_price():
    from nicsim.errors import ConfigError

    with pytest.raises(ConfigError, match="no payload"):
        physics.defaults(40, False, 10**9)
    with pytest.raises(ConfigError):
        physics.derived({"nic": {}})


# ---- no re-derivation in Python -----------------------------------------------------------
# Arithmetic that belongs to the core: header and framing bytes, the MSS and RFC 3390 rules, the
# mean-access formula, "only the NIC processor is slower".
FORBIDDEN = [
    (r"mtu_bytes\"?\]?\s*[-+]\s*(38|40|52)\b", "MTU arithmetic (MSS or wire bytes)"),
    (r"[-+]\s*38\b", "Ethernet framing bytes"),
    (r"[-+]\s*(40|52)\b", "IP + TCP header bytes"),
    (r"\b12 if\b", "timestamp option bytes"),
    (r"\b4380\b", "RFC 3390 initial window"),
    (r"max\([^()]*,\s*46\)", "minimum Ethernet payload"),
    (r"hit_ratio\"?\]?\s*\*", "mean memory access t_mean"),
    (r"\[\"nic_cpu\.speed_fraction\"\]", "which processor is slower, and by how much"),
]


def reintroduced(text: str) -> list[str]:
    return [f"{why}: {line.strip()}" for line in text.splitlines() for pat, why in FORBIDDEN if re.search(pat, line)]


def test_the_scan_catches_the_old_code():
    old = '''
    return v["nic.mtu_bytes"] - 40 - (12 if v["tcp.timestamps"] else 0)
        wire_bits = (v["nic.mtu_bytes"] + 38) * 8
        v["tcp.initial_window_segments"] = max(1, min(4 * mss, max(2 * mss, 4380)) // mss)
    ip = payload + 52 if c["tcp"]["timestamps"] else payload + 40
    wire = (max(ip, 46) + 38) * 8 / c["link"]["rate_bps"] * 1e6
    speed = v["nic_cpu.speed_fraction"] if cp == "nic_cpu" else 1.0
    wire = v["nic.mtu_bytes"] + 38
        t_mean = 0.0 if v["nb.ideal"] else v["mem.hit_ratio"] * v["mem.hit_cycles"] + (1 - v["mem.hit_ratio"]) * v["mem.miss_cycles"]
'''
    found = reintroduced(old)
    assert len({f.split(": ", 1)[1] for f in found}) == 8, found


def test_python_does_not_rederive_the_physics():
    hits = [f"{p.relative_to(PKG)}: {h}" for p in sorted(PKG.rglob("*.py")) if p.name != "params.py" for h in reintroduced(p.read_text())]
    assert not hits, "ask the core (nicsim.physics) instead:\n" + "\n".join(hits)
