"""Ctrl-C on a sweep stops at once and keeps the points that finished (issue 19 item 9)."""
import signal
import sqlite3
import subprocess
import sys
import time


def test_ctrl_c_stops_at_once_and_keeps_finished_points(tmp_path):
    store = tmp_path / "s.sqlite"
    # One quick point, then two that take many seconds each.
    cmd = [sys.executable, "-m", "nicsim", "sweep", "ortiz2008-base", "--no-progress", "--workers", "2",
           "--grid", "workload.netpipe.max_bytes=1KiB,2MiB,1MiB", "--set", "workload.netpipe.target_ps=2 s",
           "--set", "workload.netpipe.perturbation_bytes=1 B", "--out", str(store)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    done = 0
    while time.monotonic() < deadline and done < 1:
        time.sleep(0.3)
        if store.exists():
            try:
                with sqlite3.connect(store) as c:
                    done = c.execute("SELECT COUNT(*) FROM points WHERE status = 'ok'").fetchone()[0]
            except sqlite3.Error:
                pass
    assert done == 1, "the quick point should have finished"
    t = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    stopped_s = time.monotonic() - t
    assert proc.returncode == 130, err
    assert stopped_s < 5, f"took {stopped_s:.1f} s to stop; the slow points run for much longer"
    with sqlite3.connect(store) as c:
        assert c.execute("SELECT COUNT(*) FROM points WHERE status = 'ok'").fetchone()[0] == 1
    assert "Traceback" not in err
