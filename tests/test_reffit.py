"""Calibration against a user's own reference rows (issue 36 item 4): netperf rows in
`validate --reference`, `--config`, and `calibrate --reference --fit --train --out`."""
import json
import subprocess
import sys

import pytest

from nicsim import reffit, validation

SHORT = {"workload.netperf.duration_ps": "200 ms", "workload.netperf.warmup_ps": "20 ms"}
KNOWN = {"costs.scale.copy": 0.7, "costs.scale.tcpip": 1.3}
ROWS = [  # id, test, msg_size, metric, tolerance, role
    ("stream", "TCP_STREAM", "64 KiB", "throughput_mbps", "1%", "training"),
    ("rr", "TCP_RR", "1 B", "transactions_per_s", "1%", "training"),
    ("stream_copy", "TCP_STREAM", "64 KiB", "share.copy", "0.01", "held-out"),
    ("stream_tcpip", "TCP_STREAM", "64 KiB", "share.tcpip", "0.01", "held-out"),
    ("rr_cpu", "TCP_RR", "1 B", "cpu_util", "0.01", "held-out"),
]


def _row(id_, test, size, metric, tol, role, value=None):
    return validation.Row(id_, "ortiz2008-base", "netperf", metric, value, tol, role, "", test, size)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A reference file the model itself produced under known category scales."""
    m = validation.Measurer({**SHORT, **{k: repr(v) for k, v in KNOWN.items()}})
    path = tmp_path_factory.mktemp("ref") / "mine.csv"
    lines = ["id,preset,command,test,msg_size,metric,value,tolerance,role"]
    for r in ROWS:
        value = m.netperf(_row(*r))
        lines.append(f"{r[0]},ortiz2008-base,netperf,{r[1]},{r[2]},{r[3]},{value!r},{r[4]},{r[5]}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_fit_recovers_the_scales_that_produced_the_rows(reference, tmp_path):
    rows = validation.load_reference(str(reference))
    assert [r.role for r in rows] == [r[5] for r in ROWS] and rows[0].test == "TCP_STREAM"
    result = reffit.fit(rows, list(KNOWN), None, SHORT)
    assert result["start"]["costs.scale.copy"] != pytest.approx(0.7, rel=0.02)
    for k, v in KNOWN.items():
        assert result["values"][k] == pytest.approx(v, rel=0.03), k
    assert all(r["passed"] for r in result["training"])
    # The held-out rows were never fitted to, and come out as the known scales make them.
    assert {r["id"] for r in result["held_out"]} == {"stream_copy", "stream_tcpip", "rr_cpu"}
    assert all(r["passed"] for r in result["held_out"])
    out = tmp_path / "mine.toml"
    reffit.write_config(result, str(out), str(reference))
    assert reffit.config_sets(str(out)) == {**SHORT, **result["values"]}


def test_validate_applies_a_config_to_every_row_and_reports_roles(reference, tmp_path):
    cfg = tmp_path / "fitted.toml"
    cfg.write_text('preset = "ortiz2008-base"\n[costs.scale]\ncopy = 0.7\ntcpip = 1.3\n')
    args = [sys.executable, "-m", "nicsim", "validate", "--reference", str(reference), "--json"]
    args += [a for k, v in SHORT.items() for a in ("--set", f"{k}={v}")]
    with_cfg = json.loads(subprocess.run(args + ["--config", str(cfg)], capture_output=True, text=True).stdout)
    assert with_cfg["passed"] == with_cfg["total"] == len(ROWS)
    assert {r["id"]: r["role"] for r in with_cfg["rows"]} == {r[0]: r[5] for r in ROWS}
    without = json.loads(subprocess.run(args, capture_output=True, text=True).stdout)
    assert without["passed"] < without["total"]


@pytest.mark.parametrize("argv, says", [
    (["calibrate", "--reference", "REF", "--fit", "nic.mtu_bytes,cpu.nonsense"], "--fit cpu.nonsense"),
    (["calibrate", "--reference", "REF", "--fit", "costs.scale.copy", "--train", "nope"], "--train: no row 'nope'"),
    (["calibrate", "--reference", "REF", "--fit", "costs.scale.copy", "--out", "/nonexistent/dir/x.toml"], "--out"),
    (["calibrate", "--fit", "costs.scale.copy"], "--reference FILE and --fit"),
    (["validate", "--reference", "REF", "--config", "/nonexistent.toml"], "--config"),
])
def test_bad_fit_requests_get_one_line(reference, argv, says):
    argv = [str(reference) if a == "REF" else a for a in argv]
    p = subprocess.run([sys.executable, "-m", "nicsim", *argv], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert says in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_a_netperf_row_needs_a_known_test(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("id,preset,command,test,metric,value,tolerance\nx,ortiz2008-base,netperf,TCP_FOO,throughput_mbps,1,1%\n")
    with pytest.raises(Exception, match="test 'TCP_FOO'"):
        validation.load_reference(str(f))


def test_a_fit_outside_a_quarter_to_four_times_its_start_is_a_structural_miss():
    from nicsim.reffit import structural_misses

    result = {"start": {"costs.scale.copy": 1.0, "costs.scale.os": 2.0}, "values": {"costs.scale.copy": 0.0009, "costs.scale.os": 7.9}}
    misses = structural_misses(result)
    assert len(misses) == 1 and "costs.scale.copy = 0.0009" in misses[0] and "structural miss" in misses[0]
    result["values"]["costs.scale.os"] = 8.1
    assert len(structural_misses(result)) == 2
