"""A single long run stops within a second of SIGTERM or Ctrl-C (issue 49 item 6): one line,
exit 143 or 130, nothing else printed. The core reads a stop flag where it publishes progress
(workload::STOP, nicsim._core.stop); the command line waits for it in a thread of its own."""
import signal
import subprocess
import sys
import time

import pytest


@pytest.mark.parametrize("sig, code, says", [(signal.SIGTERM, 143, "nicsim: terminated (SIGTERM)"),
                                             (signal.SIGINT, 130, "nicsim: interrupted")])
@pytest.mark.parametrize("argv", [["netpipe", "ortiz2008-base", "--set", "workload.netpipe.target_ps=1000 s"],
                                  ["netperf", "--duration", "1000 s"]])
def test_a_long_run_stops_within_a_second_of_a_signal(sig, code, says, argv):
    p = subprocess.Popen([sys.executable, "-m", "nicsim", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)  # well inside the core
    assert p.poll() is None
    t = time.monotonic()
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=10)
    finally:
        p.kill()
    assert time.monotonic() - t < 1.0
    assert p.returncode == code and err.strip() == says and out == "", (p.returncode, err)


def test_the_stop_flag_is_cleared_for_the_next_run():
    from nicsim import _core, api, stopping

    _core.stop(True)
    stopping.enabled = True
    try:
        out = api.run("ortiz2008-base", {"workload.netpipe.target_ps": "1 ms", "workload.netpipe.max_bytes": "1 KiB"})
    finally:
        stopping.enabled = False
        _core.stop(False)
    assert out["points"]
