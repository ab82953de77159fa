"""A sweep killed by TERM (timeout, systemd, SLURM) or KILL leaves no process behind; TERM is
handled like Ctrl-C: one line, exit 143, finished points kept (issue 31 item 1)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def _children(pid: int) -> set[int]:
    """Every live descendant of `pid` (zombies count as gone)."""
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(d.name)] = int(fields[1])
    out, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - out
        out |= frontier
    return out


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(p)
    return alive


def _start(tmp_path):
    cmd = [sys.executable, "-m", "nicsim", "sweep", "ortiz2008-base", "--no-progress", "--workers", "2",
           "--grid", "workload.netpipe.max_bytes=2MiB,1MiB", "--set", "workload.netpipe.target_ps=5 s",
           "--set", "workload.netpipe.perturbation_bytes=1 B", "--out", str(tmp_path / "s.sqlite")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline, kids = time.monotonic() + 60, set()
    while time.monotonic() < deadline and len(kids) < 3:  # the fork server and two workers
        time.sleep(0.2)
        kids = _children(proc.pid)
    assert len(kids) >= 3, "the sweep's workers never started"
    return proc, kids


def _gone_within(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and _alive(pids):
        time.sleep(0.1)
    return _alive(pids)


def test_term_stops_the_sweep_in_one_line_and_its_workers_with_it(tmp_path):
    proc, kids = _start(tmp_path)
    try:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 143, err
        assert "terminated (SIGTERM)" in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1, err
        assert not _gone_within(kids, 10), "workers outlived the sweep"
    finally:
        os.killpg(proc.pid, signal.SIGKILL) if proc.poll() is None else None


def test_kill_of_the_sweep_takes_its_workers_down_too(tmp_path):
    proc, kids = _start(tmp_path)
    os.kill(proc.pid, signal.SIGKILL)  # the main process only: nothing of ours runs after this
    proc.wait(10)
    left = _gone_within(kids, 10)
    for p in left:  # do not leave them running if the test fails
        os.kill(p, signal.SIGKILL)
    assert not left, f"{len(left)} worker processes outlived a killed sweep"
