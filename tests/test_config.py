import json
import subprocess
import sys

import pytest

from nicsim import ConfigError, resolve


def nicsim(*args):
    return subprocess.run([sys.executable, "-m", "nicsim", *args], capture_output=True, text=True, timeout=600)


def test_unknown_key_exits_2_naming_the_key():
    r = nicsim("netpipe", "ortiz2008-base", "--set", "nosuch.key=1")
    assert r.returncode == 2
    assert "nosuch.key" in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_wrong_type_out_of_range_and_bad_unit_name_the_key():
    with pytest.raises(ConfigError, match=r"nic\.mtu_bytes.*IEC"):
        resolve("ortiz2008-base", {"nic.mtu_bytes": "9 KB"})
    with pytest.raises(ConfigError, match=r"mem\.hit_ratio.*at most 1"):
        resolve(None, {"mem.hit_ratio": "1.5"})
    with pytest.raises(ConfigError, match=r"cpu\.count.*not a valid int"):
        resolve(None, {"cpu.count": "two"})
    with pytest.raises(ConfigError, match=r"workload\.netpipe\.mode.*'stream', 'pingpong'"):
        resolve(None, {"workload.netpipe.mode": "bulk"})


def test_near_miss_keys_get_a_suggestion():
    with pytest.raises(ConfigError, match="did you mean nic.mtu_bytes"):
        resolve(None, {"nic.mtu_byte": "1500 B"})


def test_missing_file_and_bad_toml(tmp_path):
    r = nicsim("netpipe", str(tmp_path / "absent.toml"))
    assert r.returncode == 2 and "not found" in r.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[cpu\nclock_hz = 1")
    r = nicsim("run", str(bad))
    assert r.returncode == 2 and "not valid TOML" in r.stderr


def test_a_placement_needing_a_missing_processor_is_refused():
    with pytest.raises(ConfigError, match=r"placement\.protocol = nic_cpu.*nic_cpu\.present = true"):
        resolve(None, {"placement.preset": "offload"})
    with pytest.raises(ConfigError, match=r"placement\.driver = cpu1.*cpu\.count = 2"):
        resolve(None, {"placement.preset": "onload"})
    with pytest.raises(ConfigError, match="threads cannot run on the NIC processor"):
        resolve("ortiz2008-offload", {"placement.comm_thread": "nic_cpu"})


def test_a_toml_file_can_start_from_a_preset_and_write_a_custom_placement(tmp_path):
    f = tmp_path / "custom.toml"
    f.write_text(
        'preset = "ortiz2008-onload"\n[placement]\nprotocol = "cpu0"\n[cpu]\nclock_hz = "1 GHz"\n'
    )
    r = resolve(f)
    node1 = r.core["placements"][1]
    assert node1["driver"] == "cpu1" and node1["protocol"] == "cpu0" and node1["name"] == "onload+custom"
    assert r.core["cpu"]["clock_hz"] == 10**9


def test_cost_overrides_are_checked():
    r = resolve(None, {"costs.scale.copy": "2", "costs.rx_tcp.i_pkt": "900"})
    assert r.core["costs"]["scale"]["copy"] == 2.0 and r.core["costs"]["rx_tcp"]["i_pkt"] == 900.0
    with pytest.raises(ConfigError, match="unknown cost key"):
        resolve(None, {"costs.rx_tcpp.i_pkt": "1"})


def test_derived_defaults_follow_the_mtu():
    jumbo = resolve(None).values
    std = resolve(None, {"nic.mtu_bytes": "1500 B"}).values
    assert jumbo["nic.rx_ring_entries"] == 100 and std["nic.rx_ring_entries"] == 200
    # RFC 3390: 2 segments of 8948 B, 3 of 1448 B.
    assert jumbo["tcp.initial_window_segments"] == 2 and std["tcp.initial_window_segments"] == 3
    # One maximum frame on the wire at 1 Gbps: 9038 × 8 ns.
    assert jumbo["nic.ring_flush_idle_ps"] == 72_304_000


def test_resolved_config_hash_is_stable():
    assert resolve("ortiz2008-base").hash() == resolve("ortiz2008-base").hash()
    assert json.loads(resolve("ortiz2008-base").to_json())["link"]["rate_bps"] == 10**9
