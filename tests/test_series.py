"""A run over simulated time (issue 32 item 6): `--series INTERVAL` gives per-interval
throughput and utilisation that add up to the window's figures, and the queues behind them."""
import json

import pytest

from nicsim import frames
from nicsim.cli import main as _main
from nicsim.netperf import run_netperf


def main(argv):
    with pytest.raises(SystemExit) as e:
        _main(argv)
    return e.value.code


def test_the_series_intervals_add_up_to_the_windows_throughput_and_utilisation():
    out = run_netperf("ortiz2008-onload", {"run.series_ps": "1 ms"}, duration="50 ms", warmup="10 ms")
    s = frames(out)["series"]
    assert s["end_s"].iloc[0] == pytest.approx(0.001) and len(s) >= 59
    window = s[(s["end_s"] > 0.010 + 1e-12) & (s["end_s"] <= 0.060 + 1e-12)]
    assert len(window) == 50
    for p in ("node1.cpu0", "node1.cpu1", "node0.cpu0"):
        assert window[f"{p}.utilisation"].mean() == pytest.approx(out["processors"][p]["utilisation"], rel=1e-6)
    # What node1's application read per interval: the stream's throughput.
    assert window["node1.app_read_mbps"].mean() == pytest.approx(out["netperf"]["aggregate"]["throughput_mbps"], rel=0.02)
    # The receiver's ring and socket hold data while it streams; the sender's do not.
    assert window["node1.rx_ring_frames"].max() > 0 and window["node1.socket_unread_bytes"].max() > 0
    assert window["node0.socket_unread_bytes"].max() == 0


def test_the_command_line_writes_the_plot_and_refuses_a_plot_without_a_series(tmp_path, capsys):
    plot = tmp_path / "s.png"
    assert main(["netperf", "--duration", "10 ms", "--series", "1ms", "--series-plot", str(plot), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert plot.stat().st_size > 0 and doc["series"]["interval_s"] == pytest.approx(1e-3)
    assert main(["netperf", "--series-plot", str(plot)]) == 2
    assert "--series-plot needs --series" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["abc", "0.1ns", "0"])
def test_a_bad_interval_is_one_line_naming_the_option(capsys, value):
    assert main(["netperf", "--series", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"nicsim: --series {value!r}")


def test_intervals_past_the_limit_are_counted_not_kept():
    out = run_netperf("ortiz2008-base", {"run.series_ps": "1 us", "run.series_max_rows": 10}, duration="10 ms", warmup="1 ms")
    s = out["series"]
    assert len(s["rows"]) == 10 and len(s["rows"]) + s["left_out"] == pytest.approx(11_000, abs=2)
