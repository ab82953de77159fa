"""A fit's result is written one way (issue 47 item 2): a configuration that extends the
preset, never an edit of a shipped preset or profile."""
import subprocess
import sys
from importlib import resources

from nicsim.check import calibrate, calibrate_testa
from nicsim.config import resolve


def shipped() -> dict[str, str]:
    root = resources.files("nicsim")
    return {f"{d}/{p.name}": p.read_text() for d in ("presets", "profiles") for p in root.joinpath(d).iterdir()}


def test_the_scales_are_written_as_a_configuration_extending_the_base_preset(tmp_path):
    before = shipped()
    scales = {"copy": 1.25, "tcpip": 0.5, "driver": 2.0, "os": 0.75}
    path = calibrate.write_scales(scales, str(tmp_path / "fitted.toml"), 12)
    assert {k: resolve(path).costs["scale"][k] for k in scales} == scales
    assert resolve(path).values == resolve("ortiz2008-base", {f"costs.scale.{k}": v for k, v in scales.items()}).values
    assert shipped() == before


def test_test_a_values_are_written_as_a_configuration_extending_its_preset(tmp_path):
    before = shipped()
    path = calibrate_testa.write({"cpu.clock_hz": 2.2e9, "costs.spin_lock.i_pkt": 123.5}, str(tmp_path / "a.toml"), 3)
    r = resolve(path)
    assert r.values["cpu.clock_hz"] == 2_200_000_000 and r.costs["stages"]["spin_lock"]["i_pkt"] == 123.5
    assert r.values["workload.kind"] == resolve("zabaljauregui-A").values["workload.kind"]
    assert shipped() == before


def test_write_checks_its_path_before_fitting(tmp_path):
    r = subprocess.run([sys.executable, "-m", "nicsim", "calibrate", "--write", str(tmp_path / "no" / "x.toml")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--write" in r.stderr and r.stderr.count("\n") == 1
