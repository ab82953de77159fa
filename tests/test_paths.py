"""Every output path is checked before any simulation starts: one line naming the argument and
the problem, exit 2, nothing printed as a result (issue 31 item 2)."""
import subprocess
import sys

import pytest


@pytest.mark.parametrize("argv, says", [
    (["netpipe", "--plot", "/nonexistent-dir/x.png"], "the folder '/nonexistent-dir' does not exist"),
    (["netpipe", "--plot", "DIR"], "is a directory"),
    (["netpipe", "--plot", "DIR/x.txt"], "must end in one of .png"),
    (["gamma-sweep", "ortiz2008-offload", "--plot", "DIR/x.csv"], "must end in one of .png"),
    (["sweep", "ortiz2008-base", "--grid", "cpu.count=1", "--out", "DIR"], "is a directory"),
    (["sweep", "ortiz2008-base", "--grid", "cpu.count=1", "--out", "DIR/notastore.txt"], "not a sweep store"),
    (["report", "DIR/none.sqlite", "--out", "DIR/notastore.txt"], "is a file; give a directory"),
])
def test_output_paths_are_checked_before_anything_runs(tmp_path, argv, says):
    (tmp_path / "notastore.txt").write_text("hello\n")
    argv = [a.replace("DIR", str(tmp_path)) for a in argv]
    p = subprocess.run([sys.executable, "-m", "nicsim", *argv], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert says in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert p.stdout == "", "nothing ran: no results printed"


def test_a_grid_above_ten_thousand_points_says_its_size_and_needs_yes(tmp_path):
    store = tmp_path / "big.sqlite"
    argv = ["sweep", "ortiz2008-base", "--grid", "cpu.clock_hz=100MHz:1GHz:100kHz", "--grid", "nic.mtu_bytes=1500B,9000B",
            "--out", str(store)]
    p = subprocess.run([sys.executable, "-m", "nicsim", *argv], capture_output=True, text=True)
    assert p.returncode == 2 and "18,002 points" in p.stderr and "--yes" in p.stderr
    assert not store.exists()
