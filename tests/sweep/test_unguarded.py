"""A sweep called from a plain script without an `if __name__ == "__main__":` guard, from
standard input or from `python -c` runs its points (issue 19): worker processes must not
re-run the caller's main module."""
import subprocess
import sys

SCRIPT = """
from nicsim.sweep import sweep
df = sweep("ortiz2008-base", {"nic.mtu_bytes": ["1500 B", "9000 B"]},
           sets={"workload.netpipe.target_ps": "5 ms", "workload.netpipe.max_bytes": "4 KiB"},
           workers=2, progress=False)
print("STATUS", ",".join(df["status"]))
"""


def _check(r):
    assert r.returncode == 0, r.stderr[-2000:]
    assert "STATUS ok,ok" in r.stdout, r.stdout + r.stderr[-2000:]
    assert "Traceback" not in r.stderr


def test_from_a_script_without_a_main_guard(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(SCRIPT)
    _check(subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180, cwd=tmp_path))


def test_from_standard_input_and_dash_c(tmp_path):
    _check(subprocess.run([sys.executable, "-"], input=SCRIPT, capture_output=True, text=True, timeout=180, cwd=tmp_path))
    _check(subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=180, cwd=tmp_path))
