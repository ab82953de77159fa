"""nicsim probe (issue 36 item 3): parsing of recorded tool outputs, /proc/stat's CPU load,
nicsim's own request/response client over a real loopback socket, and clear refusals."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nicsim import probe
from nicsim.errors import ConfigError

FIX = Path(__file__).parent / "fixtures" / "probe"


def test_iperf3_json_recorded_on_loopback_gives_the_receivers_rate():
    # Recorded here: iperf3 3.12, -c 127.0.0.1 -t 1 -l 65536 -J.
    mbps = probe.parse_iperf3((FIX / "iperf3_tcp_stream_64KiB.json").read_text())
    assert mbps == pytest.approx(21094.317678138256, rel=1e-9)
    with pytest.raises(ConfigError, match="iperf3 failed: unable to connect"):
        probe.parse_iperf3('{"error": "unable to connect to server"}')
    with pytest.raises(ConfigError, match="could not be read"):
        probe.parse_iperf3("not json")


def test_netperf_omni_output_gives_throughput_or_transactions():
    # The format `netperf -P 0 -- -o THROUGHPUT,THROUGHPUT_UNITS` prints (netperf's omni output).
    assert probe.parse_netperf((FIX / "netperf_omni_tcp_stream.txt").read_text()) == 27654.67
    assert probe.parse_netperf((FIX / "netperf_omni_tcp_rr.txt").read_text()) == 45012.30
    with pytest.raises(ConfigError, match="no THROUGHPUT"):
        probe.parse_netperf("establish control: are you sure there is a netserver listening?")


def test_proc_stat_busy_excludes_idle_and_iowait():
    busy, total = probe.cpu_times((FIX / "proc_stat.txt").read_text())
    fields = [980102, 635, 143628, 1283901, 4446, 0, 23870, 7404]
    assert total == sum(fields)
    assert busy == total - 1283901 - 4446


def test_own_request_response_client_counts_real_transactions():
    tps, util = probe.own_rr(64, 0.3)
    assert tps > 100
    assert 0.0 <= util <= 1.0


def test_rows_carry_the_median_and_the_spread_as_tolerance():
    runs = [(100.0, 0.5, "iperf3"), (110.0, 0.6, "iperf3"), (90.0, 0.55, "iperf3")]
    rows = probe._rows("lo", "TCP_STREAM", 65536, runs, "modern-x86-loopback")
    tp, cpu = rows
    assert tp["value"] == "100" and tp["tolerance"] == "20%" and tp["metric"] == "throughput_mbps"
    assert cpu["value"] == "0.55" and cpu["tolerance"] == "18%"
    assert tp["preset"] == "modern-x86-loopback" and tp["test"] == "TCP_STREAM" and tp["msg_size"] == "65536 B"


def test_written_rows_are_a_reference_file_validate_reads(tmp_path):
    from nicsim.validation import load_reference

    rows = probe._rows("lo", "TCP_RR", 1, [(20000.0, 0.6, "nicsim-rr (Python)")], "modern-x86-loopback")
    out = tmp_path / "mine.csv"
    probe.write_rows(rows, str(out))
    ref = load_reference(str(out))
    assert [(r.test, r.metric, r.value) for r in ref] == [("TCP_RR", "transactions_per_s", 20000.0), ("TCP_RR", "cpu_util", 0.6)]


def test_probe_refuses_in_one_line_without_netperf_or_iperf3(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}
    p = subprocess.run([sys.executable, "-m", "nicsim", "probe", "--out", str(tmp_path / "x.csv")], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "neither netperf nor iperf3" in p.stderr and "apt install iperf3" in p.stderr
    assert not (tmp_path / "x.csv").exists()


def test_a_recorded_perf_report_gives_the_kernels_category_shares():
    """perf report --stdio --sort sym --comms iperf3,ksoftirqd/0,ksoftirqd/1 of iperf3 over
    loopback, 64 KiB sends, recorded on this project's build machine (perf record -a -F 999)."""
    from nicsim import perfshare

    s = perfshare.shares((FIX / "perf_report_lo_tcp_stream_64KiB.txt").read_text())
    assert set(s) == set(perfshare.CATEGORIES) and sum(s.values()) == pytest.approx(1.0)
    # The two user copies alone are 11.4% of all samples; the stream's kernel time is copy first.
    assert s["copy"] > s["tcpip"] > s["driver"] and s["copy"] > 0.3
    assert s["os"] > 0.3


def test_kernel_symbols_go_to_the_stage_categories_and_idle_and_user_samples_to_none():
    from nicsim import perfshare

    cat = perfshare.category
    assert cat("_copy_to_iter") == cat("copy_user_generic") == cat("skb_copy_datagram_iter") == "copy"
    assert cat("tcp_write_xmit") == cat("__tcp_transmit_skb") == cat("ip_finish_output2") == cat("skb_segment") == "tcpip"
    # The socket calls' own work is the model's system-call stages.
    assert cat("tcp_sendmsg_locked") == cat("tcp_recvmsg_locked") == cat("inet_recvmsg") == "os"
    assert cat("loopback_xmit") == cat("veth_xmit") == cat("process_backlog") == cat("__dev_queue_xmit") == "driver"
    assert cat("__schedule") == cat("kfree") == cat("do_syscall_64") == cat("try_to_wake_up") == "os"
    assert cat("intel_idle") is None and cat("pv_native_safe_halt") is None
    report = "     50.00%  [.] iperf_send\n     30.00%  [k] tcp_v4_rcv\n     10.00%  [k] default_idle\n     10.00%  [k] _copy_to_iter\n"
    assert perfshare.shares(report) == {"copy": 0.25, "tcpip": 0.75, "driver": 0.0, "os": 0.0}
    assert perfshare.shares("     100.00%  [.] main\n") is None


def test_the_cpuinfo_clock_is_the_first_cpu_mhz_line():
    from nicsim import hostfacts

    assert hostfacts.cpu_clock_hz("processor\t: 0\ncpu MHz\t\t: 2445.406\n") == pytest.approx(2445.406e6)
    assert hostfacts.cpu_clock_hz("processor\t: 0\n") is None
