"""The result store: one row per point, resume, kill -9, failures recorded, worker death retried."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pandas as pd
import pytest
from _sweep_helpers import FAST, GRID_2x4, cli

from nicsim.sweep import Store, build_points, export, run_sweep
from nicsim.sweep.worker import run_point


def _rows(path) -> list[tuple]:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT key, status, run_id, finished_at, attempts, error FROM points").fetchall()


def test_store_is_wal_and_rows_carry_config_and_version(netpipe_store):
    with sqlite3.connect(netpipe_store) as c:
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        key, cfg, ver, blob = c.execute("SELECT key, config, nicsim_version, result FROM points LIMIT 1").fetchone()
    import hashlib
    import zlib

    assert hashlib.sha256((cfg + "\n" + ver).encode()).hexdigest() == key
    assert json.loads(zlib.decompress(blob))["config_hash"]


def test_rerun_skips_every_stored_point(tmp_path):
    path = tmp_path / "s.sqlite"
    first = run_sweep("ortiz2008-offload", GRID_2x4, path, sets={"workload.netpipe.target_ps": "5 ms"}, workers=2, progress=False)
    before = _rows(path)
    again = run_sweep("ortiz2008-offload", GRID_2x4, path, sets={"workload.netpipe.target_ps": "5 ms"}, workers=2, progress=False)
    assert (first.ran, again.ran, again.skipped) == (8, 0, 8)
    assert _rows(path) == before
    # widening the grid runs only the new points
    wider = dict(GRID_2x4, **{"nic_cpu.speed_fraction": "0.25,0.5,1"})
    third = run_sweep("ortiz2008-offload", wider, path, sets={"workload.netpipe.target_ps": "5 ms"}, workers=2, progress=False)
    assert (third.skipped, third.ran) == (8, 4)
    assert len(_rows(path)) == 12


def test_kill_minus_9_loses_nothing_and_resume_runs_only_missing_points(tmp_path):
    """The issue's check: a 2 x 4 sweep killed half way with SIGKILL, then started again."""
    path = tmp_path / "kill.sqlite"
    args = ["sweep", "ortiz2008-offload", "--grid", "nic_cpu.speed_fraction=0.25,1",
            "--grid", "workload.netpipe.max_bytes=log:8KiB:64KiB:4", "--set", "workload.netpipe.target_ps=100 ms",
            "--workers", "1", "--no-progress", "--out", str(path)]
    proc = subprocess.Popen([sys.executable, "-m", "nicsim", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        stored = 0
        while time.monotonic() < deadline and proc.poll() is None:
            if path.exists():
                try:
                    stored = len(_rows(path))
                except sqlite3.OperationalError:  # schema not written yet
                    stored = 0
                if stored >= 3:
                    break
            time.sleep(0.01)
        assert proc.poll() is None, "the sweep finished before it could be killed; make its points slower"
        os.kill(proc.pid, signal.SIGKILL)  # the sweep's main process only: its workers are orphaned
        proc.wait(10)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # then clean up the orphans this test started
        except ProcessLookupError:
            pass
    survived = _rows(path)
    assert 3 <= len(survived) < 8, len(survived)
    assert all(r[1] == "ok" for r in survived)

    r = cli(*args)
    assert r.returncode == 0, r.stderr
    after = _rows(path)
    assert len(after) == 8 and len({k for k, *_ in after}) == 8  # every point, once
    assert set(survived) <= set(after)  # the survivors were not run again (same run id and time)
    with Store(path, readonly=True) as st:
        runs = st.runs()
    last = runs.iloc[-1]
    assert (last.n_points, last.n_skipped, last.n_ran, last.n_ok) == (8, len(survived), 8 - len(survived), 8 - len(survived))
    assert f"{len(survived)} already stored, {8 - len(survived)} ran" in r.stdout


def test_a_point_whose_worker_dies_once_is_retried(tmp_path):
    path = tmp_path / "die.sqlite"
    marker = tmp_path / "died"
    r = cli("sweep", "ortiz2008-base", "--grid", "workload.netpipe.max_bytes=1KiB,4KiB,16KiB", *_fast_sets(), "--workers", "2",
            "--no-progress", "--out", str(path), env={"NICSIM_SWEEP_FAULT": f"die-once:1:{marker}"})
    assert r.returncode == 0, r.stderr
    assert marker.exists()
    rows = {row[0]: row for row in _rows(path)}
    assert len(rows) == 3 and all(row[1] == "ok" for row in rows.values())
    with Store(path, readonly=True) as st:
        df = st.frame()
    assert df.set_index("point_index").loc[1, "attempts"] == 2


def test_a_point_that_always_kills_its_worker_is_recorded_and_the_sweep_goes_on(tmp_path):
    path = tmp_path / "dies.sqlite"
    r = cli("sweep", "ortiz2008-base", "--grid", "workload.netpipe.max_bytes=1KiB,4KiB,16KiB,64KiB", *_fast_sets(), "--workers", "2",
            "--retries", "1", "--no-progress", "--out", str(path), env={"NICSIM_SWEEP_FAULT": "die:2"})
    assert r.returncode == 1
    assert "1 point(s) failed" in r.stderr and "Traceback" not in r.stderr
    with Store(path, readonly=True) as st:
        df = st.frame().set_index("point_index")
    assert list(df.sort_index().status) == ["ok", "ok", "failed", "ok"]
    assert df.loc[2, "error"].startswith("WorkerDied") and df.loc[2, "attempts"] == 2
    # on resume the failed point is tried again, and only it
    r2 = cli("sweep", "ortiz2008-base", "--grid", "workload.netpipe.max_bytes=1KiB,4KiB,16KiB,64KiB", *_fast_sets(),
             "--workers", "2", "--no-progress", "--out", str(path))
    assert r2.returncode == 0 and "3 already stored, 1 ran (1 ok, 0 failed)" in r2.stdout


def test_a_point_the_core_refuses_comes_back_as_a_failed_record():
    p = build_points("ortiz2008-base", {"cpu.count": ["1"]}, sets=FAST)[0]
    task = p.task()
    del task["resolved"].core["link"]  # what a core of another version might refuse
    rec = run_point(task)
    assert rec["status"] == "failed" and rec["result"] is None
    assert rec["error"].startswith("ConfigError") and "link" in rec["error"]


def test_export_csv_and_parquet_read_back_alike(netpipe_store, tmp_path):
    a = pd.read_csv(export(netpipe_store, tmp_path / "p.csv"))
    b = pd.read_parquet(export(netpipe_store, tmp_path / "p.parquet"))
    assert len(a) == len(b) == 12
    assert list(a.columns) == list(b.columns)
    assert a.peak_throughput_mbps.tolist() == pytest.approx(b.peak_throughput_mbps.tolist())
    with pytest.raises(Exception, match=r"\.csv or \.parquet"):
        export(netpipe_store, tmp_path / "p.xlsx")


def test_store_can_be_read_while_open_for_writing(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as w:
        p = build_points("ortiz2008-base", {"cpu.count": ["1"]}, sets=FAST)[0]
        w.put(p, {"status": "failed", "error": "x", "summary": {}, "result": None}, "r1")
        with Store(path, readonly=True) as r:
            assert r.count() == {"failed": 1}


def _fast_sets() -> list[str]:
    return ["--set", "workload.netpipe.target_ps=5 ms"]
