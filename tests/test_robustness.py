"""Random combinations of the knobs that shape the path: every run finishes, conserves bytes
and returns either results or a clear error, never a crash or an endless run."""
from hypothesis import HealthCheck, given, settings, strategies as st

from nicsim import ConfigError, api

KNOBS = {
    "nic.mtu_bytes": st.sampled_from(["1500 B", "4000 B", "9000 B"]),
    "nic.rx_ring_entries": st.sampled_from(["0", "2", "4", "64"]),
    "nic.tx_ring_entries": st.sampled_from(["1", "8", "511"]),
    "nic.rx_notify": st.sampled_from(["napi", "interrupt"]),
    "nic.rx_coalesce_frames": st.sampled_from(["1", "4", "32"]),
    "nic.rx_coalesce_ps": st.sampled_from(["0 us", "20 us", "500 us"]),
    "nic.csum_offload": st.sampled_from(["true", "false"]),
    "nic.memory_bytes": st.sampled_from(["16 KiB", "128 KiB"]),
    "tcp.socket_buffer_bytes": st.sampled_from(["4 KiB", "16 KiB", "64 KiB", "256 KiB"]),
    "tcp.buffer_semantics": st.sampled_from(["linux", "literal"]),
    "tcp.fast_retransmit": st.sampled_from(["true", "false"]),
    "tx.model": st.sampled_from(["linux", "toe"]),
    "napi.budget": st.sampled_from(["1", "300"]),
    "mem.batch_refs": st.sampled_from(["1", "64", "1000"]),
    "workload.netpipe.mode": st.sampled_from(["stream", "pingpong"]),
    "workload.netpipe.nodelay": st.sampled_from(["true", "false"]),
    "workload.netpipe.sizes_bytes": st.sampled_from(["1 B,100 KiB", "7 B,3000 B", "64 KiB,1 MiB"]),
}
PRESETS = st.sampled_from(["ortiz2008-base", "ortiz2008-offload", "ortiz2008-onload", "ortiz2008-hybrid", "ortiz2008-ideal-bus"])


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(preset=PRESETS, sets=st.fixed_dictionaries(KNOBS))
def test_any_combination_runs_to_completion_and_conserves_bytes(preset, sets):
    try:
        out = api.run(preset, {**sets, "workload.netpipe.target_ps": "10 ms"})
    except ConfigError:
        return
    assert out["points"]
    for c in out["conservation"].values():
        assert c["sent_bytes"] == c["delivered_bytes"] + c["in_flight_bytes"] + c["dropped_bytes"]
    for p in out["points"]:
        for pr in p["processors"].values():
            assert pr["utilisation"] <= 1.0 + 1e-9


def stderr_on_a_terminal(args, out_path) -> bytes:
    """What a command writes to stderr when stderr is a terminal (a pseudo-terminal, 100
    columns wide) and stdout a file."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    with open(out_path, "w") as out:
        p = subprocess.Popen(args, stdout=out, stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        assert p.wait(timeout=300) == 0
    os.close(master)
    return seen


def test_replications_show_a_progress_bar_on_a_terminal_only(tmp_path):
    import subprocess
    import sys

    args = [sys.executable, "-m", "nicsim", "netperf", "--duration", "5 ms", "--warmup", "1 ms", "--replications", "3", "--json"]
    piped = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and "replications" not in piped.stderr
    seen = stderr_on_a_terminal(args, tmp_path / "out.json")
    assert b"replications" in seen and b"3/3" in seen


def test_a_run_longer_than_a_few_seconds_shows_the_simulated_time_it_has_reached(tmp_path):
    import json
    import sys

    args = [sys.executable, "-m", "nicsim", "web", "ortiz2008-onload", "--users", "2500", "--warmup", "15 s",
            "--duration", "5 s", "--json"]
    seen = stderr_on_a_terminal(args, tmp_path / "out.json")
    assert b"simulated" in seen and b"/20.00 s" in seen
    assert json.loads((tmp_path / "out.json").read_text())["web"]["requests_per_s"] > 0


def test_a_single_runs_bar_shows_its_total_and_time_left_and_clears_itself(monkeypatch):
    import io
    import sys

    from nicsim import api, progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(progress, "enabled", True)
    monkeypatch.setattr(progress, "AFTER_S", 0.0)
    monkeypatch.setattr(progress, "EVERY_S", 0.01)
    sets = {"workload.kind": "netperf", "workload.netperf.duration_ps": "290 ms", "workload.netperf.warmup_ps": "10 ms"}
    with progress.watching(300 * 10**9):
        api.run("modern-x86-loopback", sets)
    text = err.getvalue()
    assert "/0.30 s" in text and "left" in text, text[-300:]
    # leave=False: the last thing written blanks the bar's line.
    assert text.split("\r")[-1].replace("\x1b[A", "").strip() == "", repr(text[-80:])
