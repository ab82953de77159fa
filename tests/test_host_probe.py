"""Issue 44 item 2: `nicsim probe --host-out`'s compiled primitives, the rules that turn them
into a configuration (checked on primitives recorded on this project's build machine, so the
machine's own speed never decides a test), and item 3's configuration extending another file
by its path (what makes the host file and calibrate's output run directly)."""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nicsim import _core, hostfacts
from nicsim.config import resolve
from nicsim.errors import ConfigError

FIX = Path(__file__).parent / "fixtures" / "probe" / "host-primitives.json"


def nicsim(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "nicsim", *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def recorded():
    return json.loads(FIX.read_text())


def positive(x):
    return isinstance(x, float) and math.isfinite(x) and x > 0


def test_every_compiled_primitive_is_a_positive_finite_number_and_the_process_stays_where_it_may_run():
    before = os.sched_getaffinity(0)
    assert positive(_core.host_memcpy_bytes_per_s(64 * 1024, 0.005))
    p = _core.host_pipe_copy(64 * 1024, 16 * 1024, 0.005)
    assert p["chunk_bytes"] == 16 * 1024 and all(positive(p[k]) for k in ("write_ns", "read_ns", "write_bytes_per_s", "read_bytes_per_s"))
    assert positive(_core.host_syscall_ns(0.005))
    assert positive(_core.host_load_latency_ns(16 * 1024, 0.005))
    cpus = _core.host_allowed_cpus()
    assert set(cpus) == before
    assert positive(_core.host_round_trip_ns(cpus[0], cpus[-1], 200, 20))
    hz = _core.host_loop_clock_hz(0.01)
    assert hz is None or positive(hz)
    assert os.sched_getaffinity(0) == before


def test_a_pipe_chunk_larger_than_its_buffer_is_one_clear_error():
    with pytest.raises(OSError, match="chunk_bytes"):
        _core.host_pipe_copy(4096, 8192, 0.001)


def test_the_rules_give_each_key_from_its_primitive_by_the_stated_formula():
    p = recorded()
    d = hostfacts.derive(p)
    # Rule 1: the loop clock (4 significant figures) and the CPUs this process may use.
    f = 3.668e9
    assert d["cpu.count"] == 2 and d["cpu.clock_hz"] == f
    # Rule 2: the dependent load past the LLC, in cycles of that clock.
    miss = p["load_latency_memory_ns"] * 1e-9 * f
    assert d["mem.miss_cycles"] == pytest.approx(miss, abs=0.05)
    # Rule 3: memcpy's slowdown past the LLC (128 MiB) over cache-resident (256 KiB), per
    # reference of a copy (1/16 a byte), as a share of full misses.
    b_near, b_far = p["memcpy_bytes_per_s"]["262144"], p["memcpy_bytes_per_s"]["134217728"]
    m = f * (1 / b_far - 1 / b_near) / 0.0625 / (d["mem.miss_cycles"] - 1.0)
    assert d["mem.hit_ratio"] == pytest.approx(1 - m, abs=1e-5)
    assert 0.98 < d["mem.hit_ratio"] < 1
    # The profile and preset the model side is priced with (CPI 0.5, hit 1 cycle).
    base = resolve("modern-x86-loopback")
    st, cpi = base.costs["stages"], base.values["cpu.cpi"]
    t_mean = d["mem.hit_ratio"] * 1.0 + (1 - d["mem.hit_ratio"]) * d["mem.miss_cycles"]
    # Rule 4: the pipe's marginal time per byte (4 KiB to 64 KiB calls) over the model's price
    # of one byte of the stage scales the stage's per-byte instructions and references.
    for stage, times in (("tx_copy", p["pipe_write_ns"]), ("rx_copy", p["pipe_read_ns"])):
        tau_ns = (times["65536"] - times["4096"]) / (65536 - 4096)
        model_ns = (st[stage]["i_byte"] * cpi + st[stage]["r_byte"] * t_mean) / f * 1e9
        k = tau_ns / model_ns
        assert d[f"costs.{stage}.i_byte"] == pytest.approx(k * st[stage]["i_byte"], rel=1e-3)
        assert d[f"costs.{stage}.r_byte"] == pytest.approx(k * st[stage]["r_byte"], rel=1e-3)
    # Rule 5: getppid over the model's entry and exit (160 of rx_syscall's instructions).
    rx = st["rx_syscall"]
    entry_exit_ns = (rx["i_pkt"] * cpi + rx["r_pkt"] * t_mean) / f * 1e9 * 160 / rx["i_pkt"]
    assert d["costs.scale.os"] == pytest.approx(p["syscall_ns"] / entry_exit_ns, rel=1e-3)
    # Rule 6: half the round trips' difference less the model's IPI delivery (500 ns).
    extra_ns = (p["round_trip_cross_cpu_ns"] - p["round_trip_same_cpu_ns"]) / 2 - 500
    assert d["sched.wake_latency_ps"] == pytest.approx(extra_ns * 1000, abs=1000)


def test_one_cpu_writes_no_wake_latency_and_cpuinfo_stands_in_for_the_loop_clock():
    p = {**recorded(), "cpus": 1, "round_trip_cross_cpu_ns": None, "clock_hz_loop": None}
    d = hostfacts.derive(p)
    assert "sched.wake_latency_ps" not in d and d["cpu.count"] == 1 and d["cpu.clock_hz"] == pytest.approx(2.596e9)


def test_a_pipe_copy_no_dearer_per_byte_at_64_KiB_than_at_4_KiB_is_refused_in_one_line():
    p = recorded()
    p["pipe_write_ns"] = {**p["pipe_write_ns"], "65536": p["pipe_write_ns"]["4096"]}
    with pytest.raises(ConfigError, match="too busy to measure"):
        hostfacts.derive(p)


def test_the_host_file_is_plain_toml_extending_the_loopback_preset_and_runs_directly(tmp_path):
    p = recorded()
    d = hostfacts.derive(p)
    host = tmp_path / "host.toml"
    host.write_text(hostfacts.host_toml(p, d))
    text = host.read_text()
    assert 'preset = "modern-x86-loopback"' in text and "rule 3" in text and "128 MiB" in text
    r = resolve(str(host))
    assert r.values["cpu.count"] == 2 and r.values["cpu.clock_hz"] == 3668e6
    assert r.values["mem.hit_ratio"] == d["mem.hit_ratio"] and r.values["mem.miss_cycles"] == d["mem.miss_cycles"]
    assert r.costs["stages"]["tx_copy"]["i_byte"] == d["costs.tx_copy.i_byte"] and r.costs["scale"]["os"] == d["costs.scale.os"]
    assert r.values["sched.wake_latency_ps"] == round(d["sched.wake_latency_ps"])
    # Everything else is the preset's.
    assert r.values["nic.mtu_bytes"] == resolve("modern-x86-loopback").values["nic.mtu_bytes"]
    # As the user runs it, from the file's own folder.
    out = nicsim("netperf", "host.toml", "--set", "cpu.count=1", "--test", "TCP_STREAM", "--msg-size", "64 B",
                 "--duration", "2 ms", "--warmup", "1 ms", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["netperf"]["aggregate"]["throughput_mbps"] > 0


def test_probe_needs_out_or_host_out_in_one_line(tmp_path):
    r = nicsim("probe")
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "--out" in r.stderr and "--host-out" in r.stderr


def test_a_configuration_extends_another_file_by_its_path_relative_to_itself(tmp_path):
    (tmp_path / "hosts").mkdir()
    (tmp_path / "hosts" / "host.toml").write_text('preset = "modern-x86-loopback"\n[cpu]\ncount = 2\nclock_hz = "2 GHz"\n')
    # calibrate's kind of output: the host file by its path, then its own keys on top.
    (tmp_path / "mine.toml").write_text('preset = "hosts/host.toml"\n[cpu]\ncount = 1\n[costs.scale]\nos = 2.5\n')
    r = resolve(str(tmp_path / "mine.toml"))
    assert r.values["cpu.count"] == 1 and r.values["cpu.clock_hz"] == 2e9 and r.costs["scale"]["os"] == 2.5
    assert r.values["topology.loopback"] is True
    assert r.description == resolve("modern-x86-loopback").description
    # From another working folder, the path is still the file's own.
    other = tmp_path / "elsewhere"
    other.mkdir()
    out = nicsim("netperf", str(Path("..") / "mine.toml"), "--test", "TCP_STREAM", "--msg-size", "64 KiB",
                 "--duration", "2 ms", "--warmup", "1 ms", cwd=other)
    assert out.returncode == 0, out.stderr
    # validate's and calibrate's --config read the whole chain.
    from nicsim.reffit import config_sets

    assert config_sets(str(tmp_path / "mine.toml"))["cpu.clock_hz"] == "2 GHz"


def test_a_cycle_or_a_missing_file_is_one_line_naming_the_files(tmp_path):
    (tmp_path / "a.toml").write_text('preset = "b.toml"\n')
    (tmp_path / "b.toml").write_text('preset = "a.toml"\n')
    r = nicsim("netperf", str(tmp_path / "a.toml"))
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "extends itself" in r.stderr and "a.toml" in r.stderr and "b.toml" in r.stderr
    (tmp_path / "c.toml").write_text('preset = "gone/host.toml"\n')
    r = nicsim("netperf", str(tmp_path / "c.toml"))
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "gone/host.toml" in r.stderr and "not found" in r.stderr and "c.toml" in r.stderr
    (tmp_path / "d.toml").write_text('preset = "no-such-preset"\n')
    with pytest.raises(ConfigError, match="no preset or file named 'no-such-preset'"):
        resolve(str(tmp_path / "d.toml"))


def test_calibrates_profile_over_the_host_file_runs_directly(tmp_path):
    """calibrate --config host.toml --out mine.toml keeps the host's keys under the fitted ones."""
    from nicsim.reffit import config_sets, write_config

    p = recorded()
    host = tmp_path / "host.toml"
    host.write_text(hostfacts.host_toml(p, hostfacts.derive(p)))
    result = {"base": config_sets(str(host)), "values": {"costs.scale.copy": 0.8}, "keys": ["costs.scale.copy"],
              "training": [{"id": "lo.tcp_stream.65536B.throughput_mbps"}], "objective": 0.0, "optimiser": "Nelder-Mead",
              "evaluations": 1, "preset": "modern-x86-loopback", "start": {"costs.scale.copy": 1.0}}
    mine = tmp_path / "mine.toml"
    write_config(result, str(mine), "ref.csv")
    r, h = resolve(str(mine)), resolve(str(host))
    assert r.costs["scale"]["copy"] == 0.8 and r.costs["scale"]["os"] == h.costs["scale"]["os"]
    assert r.costs["stages"]["rx_copy"] == h.costs["stages"]["rx_copy"] and r.values["mem.hit_ratio"] == h.values["mem.hit_ratio"]
