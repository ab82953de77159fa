"""A corpus of bad input across commands (issue 49 item 6), kept: each is refused before
anything runs with exit 2 and one line on stderr naming the argument or key, never a
traceback. In process, so the whole corpus takes seconds; a case that ran a simulation would
take far longer and print a result, which each case also checks it did not."""
import pytest

from nicsim.cli import main

REF_HEAD = "id,preset,command,test,msg_size,metric,value,tolerance\n"
NETPERF_ROW = "a,ortiz2008-base,netperf,TCP_STREAM,{size},throughput_mbps,{value},{tol}\n"

CORPUS = [
    # A flag and a --set giving the same parameter (a bad --set is named beside the conflict).
    (["netpipe", "--max-size", "1KiB", "--set", "workload.netpipe.max_bytes=0B"], "--max-size 1KiB and --set workload.netpipe.max_bytes=0B"),
    (["netpipe", "--max-size", "1KiB", "--set", "workload.netpipe.max_bytes=2KiB"], "both give workload.netpipe.max_bytes"),
    (["netpipe", "--mode", "stream", "--set", "workload.netpipe.mode=pingpong"], "--mode stream and --set workload.netpipe.mode"),
    (["netperf", "--test", "TCP_RR", "--set", "workload.netperf.test=tcp_stream"], "--test TCP_RR and --set workload.netperf.test"),
    (["netperf", "--connections", "4", "--set", "workload.netperf.connections=8"], "--connections 4 and --set"),
    (["netperf", "--clients", "2", "--set", "topology.clients=3"], "--clients 2 and --set topology.clients=3"),
    (["netperf", "--msg-size", "1KiB", "--set", "workload.netperf.msg_bytes=2KiB"], "--msg-size 1KiB and --set"),
    (["netperf", "--duration", "1ms", "--set", "workload.netperf.duration_ps=2ms"], "--duration 1ms and --set"),
    (["netperf", "--warmup", "1ms", "--set", "workload.netperf.warmup_ps=nonsense"], "--warmup 1ms and --set"),
    (["netperf", "--seed", "3", "--set", "run.seed=4"], "--seed 3 and --set run.seed=4"),
    (["netperf", "--pcap-out", "TMP/x.pcap", "--set", "run.pcap=false"], "--pcap-out"),
    (["netperf", "--series", "1ms", "--set", "run.series_ps=2ms"], "--series 1ms and --set run.series_ps"),
    (["web", "--users", "10,20", "--set", "workload.web.users=5"], "--users 10,20 and --set workload.web.users"),
    (["web", "--keep-alive", "--set", "workload.web.keep_alive=false"], "--keep-alive and --set"),
    (["web", "--page-size", "5KiB", "--set", "workload.web.page_size_bytes=6KiB"], "--page-size 5KiB and --set"),
    (["hpcbench", "--gamma", "1", "--set", "workload.hpcbench.app_cycles_per_byte=3"], "--gamma 1.0 and --set"),
    (["hpcbench", "--msg-size", "256KiB", "--set", "workload.hpcbench.message_bytes=1KiB"], "--msg-size 256KiB and --set"),
    (["gamma-sweep", "--set", "workload.hpcbench.duration_ps=1s"], "--duration's default 2 s and --set"),
    (["study", "laws", "ortiz2008-offload", "--duration", "1s", "--set", "workload.hpcbench.duration_ps=2s"], "--duration 1s and --set"),
    (["bulkecho", "roca1996-ethernet", "--cpus", "2", "--set", "cpu.count=4"], "--cpus 2 and --set cpu.count=4"),
    (["handoff", "W-1024-P-L-FCFS-400", "--seed", "1", "--set", "run.seed=2"], "--seed 1 and --set run.seed=2"),
    (["netpipe", "--set", "cpu.count=1", "--set", "cpu.count=2"], "give cpu.count twice"),
    (["sweep", "ortiz2008-base", "--grid", "cpu.count=1,2", "--set", "cpu.count=4", "--out", "TMP/s.sqlite"], "--grid cpu.count=1,2 and --set cpu.count=4"),
    # Counts of runs: the rule a large grid already has.
    (["netperf", "--replications", "100000"], "--replications 100,000"),
    (["web", "--replications", "20000"], "add --yes"),
    (["bulkecho", "roca1996-ethernet", "--replications", "0"], "--replications 0: at least 1"),
    (["handoff", "W-1024-P-L-FCFS-400", "--replications", "-3"], "--replications -3"),
    (["sweep", "ortiz2008-base", "--grid", "cpu.clock_hz=100MHz:1GHz:100kHz", "--grid", "nic.mtu_bytes=1500B,9000B",
      "--out", "TMP/big.sqlite"], "18,002 points"),
    # Reference rows.
    (["validate", "--reference", "REF:" + NETPERF_ROW.format(size="64KiB", value="200", tol="-5%")], "must be at least 0"),
    (["validate", "--reference", "REF:" + NETPERF_ROW.format(size="64KiB", value="200", tol="-1")], "must be at least 0"),
    (["validate", "--reference", "REF:" + NETPERF_ROW.format(size="64KiB", value="", tol="300:200")], "low end 300 is above its high end 200"),
    (["validate", "--reference", "REF:" + NETPERF_ROW.format(size="", value="200", tol="5%")], "a netperf row needs msg_size"),
    (["validate", "--reference", "REF:" + NETPERF_ROW.format(size="lots", value="200", tol="5%")], "msg_size 'lots'"),
    (["validate", "--reference", "REF:" + NETPERF_ROW.format(size="0B", value="200", tol="5%")], "msg_size '0B'"),
    (["validate", "--reference", "REF:" + NETPERF_ROW.format(size="64KiB", value="200", tol="nan")], "tolerance 'nan'"),
    (["validate", "--reference", "REF:" + NETPERF_ROW.format(size="64KiB", value="200", tol=">=inf")], "tolerance '>=inf'"),
    (["calibrate", "--reference", "REF:" + NETPERF_ROW.format(size="64KiB", value="200", tol="-5%"), "--fit", "costs.scale.copy"], "row 1: tolerance"),
    # Outputs and files (tests/test_paths.py has every flag; a few here beside the rest).
    (["netpipe", "--plot", "/proc/x.png"], "--plot"),
    (["report", "TMP", "--out", "TMP/r"], "is a folder, not a sweep store"),
    (["netpipe", "TMP/bin.toml"], "is not a text file"),
    (["web", "--trace", "TMP"], "workload.web.trace_file"),
    (["netperf", "--test", "TCP_FOO"], "--test TCP_FOO"),
    (["netperf", "--connections", "0"], "--connections 0"),
    (["web", "--users", "0"], "--users"),
]


@pytest.mark.parametrize("argv, says", CORPUS, ids=[" ".join(a)[:60] for a, _ in CORPUS])
def test_bad_input_is_one_line_and_nothing_runs(tmp_path, capsys, argv, says):
    (tmp_path / "bin.toml").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    args = []
    for a in argv:
        if a.startswith("REF:"):
            ref = tmp_path / "ref.csv"
            ref.write_text(REF_HEAD + a[4:])
            a = str(ref)
        args.append(a.replace("TMP", str(tmp_path)))
    with pytest.raises(SystemExit) as e:
        main(args)
    out, err = capsys.readouterr()
    assert e.value.code == 2, (args, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert says in err.replace(str(tmp_path), "TMP"), err
    assert out == "" and not list(tmp_path.glob("*.sqlite")), "refused before anything ran"


def test_the_same_value_given_both_ways_runs(capsys):
    with pytest.raises(SystemExit) as e:
        main(["netpipe", "--max-size", "1KiB", "--set", "workload.netpipe.max_bytes=1024 B", "--set", "workload.netpipe.target_ps=1ms",
              "--json"])
    assert e.value.code == 0
    assert max(p["size_bytes"] for p in __import__("json").loads(capsys.readouterr().out)["points"]) <= 1024 + 3
