"""A run as files other tools read (issue 32 items 2-4): a pcap capture out (read back with
dpkt, as Wireshark would), a pcap capture in for the packet generator, and a Chrome/Perfetto
trace whose busy time is the run's utilisation."""
import json
import struct
from collections import defaultdict

import dpkt
import pytest

from nicsim.api import run
from nicsim.cli import main as _main

STREAM = ["netperf", "ortiz2008-base", "--duration", "20 ms", "--warmup", "0 s", "--set", "workload.netperf.start_spread_ps=0"]


def main(argv):
    """The command line in-process: its exit status."""
    with pytest.raises(SystemExit) as e:
        _main(argv)
    return e.value.code


def read_pcap(path):
    with open(path, "rb") as f:
        return [(ts, dpkt.ethernet.Ethernet(buf)) for ts, buf in dpkt.pcap.Reader(f)]


def test_pcap_out_holds_the_servers_frames_with_their_true_lengths_and_simulated_times(tmp_path, capsys):
    out = tmp_path / "run.pcap"
    assert main([*STREAM, "--json", "--pcap-out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    frames = read_pcap(out)
    assert doc["record"]["pcap"] == {"file": str(out), "node": "node1", "frames": len(frames), "left_out": 0}
    times = [ts for ts, _ in frames]
    assert times == sorted(times) and 0 < times[-1] <= 0.020
    data = [e for _, e in frames if e.data.data.dport == 5001]
    acks = [e for _, e in frames if e.data.data.sport == 5001]
    assert data and acks
    # Headers only, but the IP length is the datagram's: the payload the server took in.
    payload = sum(e.data.len - 20 - 4 * e.data.data.off for e in data)
    node = doc["nodes"]["node1"]
    assert payload == pytest.approx(doc["conservation"]["node0_to_node1"]["delivered_bytes"]
                                    + doc["conservation"]["node0_to_node1"]["in_flight_bytes"], rel=0.05)
    assert node["acks_sent"] == pytest.approx(len(acks), abs=2)
    assert all(e.data.data.flags & dpkt.tcp.TH_ACK for e in acks)


def test_a_connection_per_transaction_shows_its_handshakes_and_teardowns(tmp_path):
    out = tmp_path / "crr.pcap"
    assert main(["netperf", "ortiz2008-base", "--test", "TCP_CRR", "--msg-size", "1 B", "--duration", "5 ms", "--warmup", "1 ms",
                 "--pcap-out", str(out), "--json"]) == 0
    flags = [e.data.data.flags for _, e in read_pcap(out)]
    syn = sum(1 for f in flags if f & dpkt.tcp.TH_SYN and not f & dpkt.tcp.TH_ACK)
    synack = sum(1 for f in flags if f & dpkt.tcp.TH_SYN and f & dpkt.tcp.TH_ACK)
    fin = sum(1 for f in flags if f & dpkt.tcp.TH_FIN)
    assert syn > 5 and abs(syn - synack) <= 1 and fin >= syn


def test_the_generator_replays_a_capture_at_its_rate(tmp_path):
    cap = tmp_path / "cap.pcap"
    # A capture made here: 1,000 frames of 1,000 bytes at 10,000 frames/s, plus the reverse
    # direction's small frames, which the replay leaves out.
    with open(cap, "wb") as f:
        w = dpkt.pcap.Writer(f)
        for i in range(1000):
            eth = dpkt.ethernet.Ethernet(src=b"\x02\0\0\0\0\1", dst=b"\x02\0\0\0\0\2", data=bytes(986))
            w.writepkt(bytes(eth), ts=1.0 + i * 1e-4)
            back = dpkt.ethernet.Ethernet(src=b"\x02\0\0\0\0\2", dst=b"\x02\0\0\0\0\1", data=bytes(46))
            w.writepkt(bytes(back), ts=1.0 + i * 1e-4 + 5e-5)
    doc = run("ortiz2008-base", {"workload.kind": "packet_gen", "workload.packet_gen.pcap": str(cap)})
    g = doc["packet_gen"]
    assert g["offered_pps"] == pytest.approx(10_000, rel=0.01)
    assert doc["config"]["workload"]["packet_gen"]["trace_frame_bytes"][:2] == [1004, 1004]


@pytest.mark.parametrize("content, says", [(b"not a capture at all", "is not a pcap or pcapng capture"), (b"", "is not a pcap")])
def test_a_bad_capture_is_one_line(tmp_path, capsys, content, says):
    cap = tmp_path / "bad.pcap"
    cap.write_bytes(content)
    assert main(["run", "--set", "workload.kind=packet_gen", "--set", f"workload.packet_gen.pcap={cap}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "workload.packet_gen.pcap" in err[0] and says in err[0]


def test_the_trace_has_a_track_per_processor_wire_and_dma_and_its_busy_time_is_the_utilisation(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main([*STREAM, "--json", "--trace-out", str(out), "--set", "run.trace_span_ps=20 ms"]) == 0
    doc = json.loads(capsys.readouterr().out)
    ev = json.loads(out.read_text())["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    names = {(e["pid"], e["tid"]): f"{procs[e['pid']]}.{e['args']['name']}" for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"node0.cpu0", "node1.cpu0", "node0.wire tx", "node1.wire rx", "node1.dma rx"} <= set(names.values())
    busy = defaultdict(float)
    for e in ev:
        if e["ph"] == "X" and e["cat"] in ("hardirq", "softirq", "process"):
            busy[names[e["pid"], e["tid"]]] += e["dur"]
    for p in ("node0.cpu0", "node1.cpu0"):
        assert busy[p] / 20_000 == pytest.approx(doc["processors"][p]["utilisation"], rel=1e-6)
    # Every frame node0 sent that arrived in the window is an arrow to node1.
    assert sum(1 for e in ev if e["ph"] == "s") >= doc["nodes"]["node1"]["acks_sent"] // 2


@pytest.mark.parametrize("args, says", [(["--pcap-out", "/nonexistent/x.pcap"], "does not exist"),
                                        (["--trace-out", "t.txt"], "must end in .json"),
                                        (["--pcap-out", "."], "is a directory")])
def test_record_paths_are_checked_before_anything_runs(capsys, args, says):
    assert main(["netpipe", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]


def _tcp_frame(src, dst, sport, dport, seq, flags, payload_bytes, snap=None):
    """An Ethernet/IPv4/TCP frame carrying `payload_bytes`, cut to `snap` bytes as a capture
    with a snap length keeps it (the IP total length still says the true size)."""
    tcp = dpkt.tcp.TCP(sport=sport, dport=dport, seq=seq, flags=flags, data=b"x" * payload_bytes)
    ip = dpkt.ip.IP(src=bytes(src), dst=bytes(dst), p=dpkt.ip.IP_PROTO_TCP, data=tcp)
    ip.len = 20 + len(bytes(tcp))
    buf = bytes(dpkt.ethernet.Ethernet(src=b"\x02" * 6, dst=b"\x04" * 6, data=ip))
    return buf[:snap] if snap else buf


def test_a_capture_of_tcp_connections_replays_each_as_a_connection_of_the_web_workload(tmp_path):
    from nicsim.trace import load_web_trace
    from nicsim.web import run_web

    client, server = [10, 0, 0, 2], [10, 0, 0, 1]
    SYN, ACK, PSH = dpkt.tcp.TH_SYN, dpkt.tcp.TH_ACK, dpkt.tcp.TH_PUSH
    frames = []
    for k, (t0, port) in enumerate([(1.0, 40000), (1.002, 40001)]):
        c = lambda seq, flags, n: _tcp_frame(client, server, port, 80, seq, flags, n)
        s = lambda seq, flags, n: _tcp_frame(server, client, 80, port, seq, flags, n, snap=80)
        frames += [(t0, c(100, SYN, 0)), (t0 + 1e-4, s(500, SYN | ACK, 0)), (t0 + 2e-4, c(101, ACK | PSH, 120)),
                   (t0 + 3e-4, s(501, ACK, 1448)), (t0 + 4e-4, s(1949, ACK, 1448)),
                   # a retransmission of the second segment counts once
                   (t0 + 5e-4, s(1949, ACK, 1448)), (t0 + 6e-4, s(3397, ACK | PSH, 104 + k))]
        if k == 0:  # a second request on the same connection
            frames += [(t0 + 7e-4, c(221, ACK | PSH, 80)), (t0 + 8e-4, s(3501, ACK | PSH, 700))]
    cap = tmp_path / "http.pcap"
    with open(cap, "wb") as f:
        w = dpkt.pcap.Writer(f, snaplen=1600)
        for ts, buf in sorted(frames, key=lambda x: x[0]):
            w.writepkt(buf, ts=ts)
    sizes, arrivals = load_web_trace(cap)
    assert sizes == [[3000, 700], [3001]]
    assert arrivals == [0, 2_000_000_000]
    out = run_web("ortiz2008-base", {"workload.web.trace_file": str(cap), "workload.web.duration_ps": "20 ms",
                                     "workload.web.warmup_ps": "0 s", "workload.web.start_spread_ps": "0 s"},
                  users=2, clients=1)
    # The capture replays in a loop at its own times (two connections every 2 ms), each
    # request answered with the bytes the capture's server sent.
    web = out["web"]
    assert web["mix"] == "trace" and web["requests_per_s"] == pytest.approx(3 / 0.002, rel=0.1)
    assert web["bandwidth_mbps"] * 1e6 / 8 / web["requests_per_s"] == pytest.approx((3000 + 700 + 3001) / 3, rel=0.1)


def test_a_capture_without_tcp_responses_is_one_line(tmp_path):
    from nicsim.errors import ConfigError
    from nicsim.trace import load_web_trace

    cap = tmp_path / "udp.pcap"
    with open(cap, "wb") as f:
        dpkt.pcap.Writer(f).writepkt(bytes(dpkt.ethernet.Ethernet(data=dpkt.ip.IP(p=17, data=dpkt.udp.UDP()))), ts=1.0)
    with pytest.raises(ConfigError, match="workload.web.trace_file: .* has no TCP connection with a response"):
        load_web_trace(cap)


def test_a_capture_carries_the_headers_a_linux_stack_writes(tmp_path):
    # TCP_CRR: every connection's handshake is in the capture.
    out = tmp_path / "crr.pcap"
    assert main(["netperf", "ortiz2008-base", "--test", "TCP_CRR", "--connections", "4", "--duration", "10 ms",
                 "--pcap-out", str(out)]) == 0
    frames = read_pcap(out)
    mtu = 9000  # ortiz2008-base's jumbo frames
    wscale, last_id, tsval = {}, {}, {}
    scaled = 0
    for _, e in frames:
        ip = e.data
        tcp = ip.data
        assert ip.df and dpkt.in_cksum(ip.pack_hdr()) == 0, "DF set and a valid header checksum"
        opts = dict(dpkt.tcp.parse_opts(tcp.opts))
        key = (ip.src, tcp.sport, ip.dst, tcp.dport)  # one socket
        # Linux's IP identification: a per-socket counter, one more each segment.
        if key in last_id:
            assert ip.id == (last_id[key] + 1) & 0xFFFF
        last_id[key] = ip.id
        # Timestamps on every segment: a clock that never runs back, the peer's latest echoed.
        val, ecr = struct.unpack(">II", opts[dpkt.tcp.TCP_OPT_TIMESTAMP])
        assert val >= tsval.get(key, 0)
        tsval[key] = val
        peer = (ip.dst, tcp.dport, ip.src, tcp.sport)
        if not tcp.flags & dpkt.tcp.TH_SYN or tcp.flags & dpkt.tcp.TH_ACK:
            assert ecr == tsval.get(peer, ecr)
        if tcp.flags & dpkt.tcp.TH_SYN:
            assert struct.unpack(">H", opts[dpkt.tcp.TCP_OPT_MSS])[0] == mtu - 40
            assert dpkt.tcp.TCP_OPT_SACKOK in opts
            wscale[key] = opts[dpkt.tcp.TCP_OPT_WSCALE][0]
        else:
            scaled += 1
    assert wscale and len(set(wscale.values())) == 1 and scaled > 0
    # A non-SYN window, times the announced scale, is the model's window in bytes.
    cfg = run("ortiz2008-base", {"workload.netpipe.sizes_bytes": "1 B", "workload.netpipe.target_ps": "1 ms"})["config"]
    shift = next(iter(wscale.values()))
    assert (2 * cfg["tcp"]["socket_buffer_bytes"]) >> shift <= 65535 < (2 * cfg["tcp"]["socket_buffer_bytes"]) >> max(0, shift - 1)


def test_the_timeline_covers_the_measured_window_and_no_track_overlaps_itself(tmp_path):
    out = tmp_path / "run.json"
    assert main(["netperf", "ortiz2008-base", "--duration", "20 ms", "--warmup", "5 ms", "--trace-out", str(out)]) == 0
    doc = json.loads(out.read_text())
    # By default the trace starts where the measured window does (run.trace_start = measured).
    assert doc["otherData"]["from_ps"] == 5 * 10**9
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "thread_name"}
    assert {"wire tx", "wire rx"} <= set(names.values()), "each wire direction a track of its own"
    tracks = defaultdict(list)
    for e in doc["traceEvents"]:
        if e.get("ph") == "X":
            tracks[e["pid"], e["tid"]].append((e["ts"], e["ts"] + e["dur"]))
    for k, slices in tracks.items():
        slices.sort()
        assert all(b[0] >= a[1] - 1e-6 for a, b in zip(slices, slices[1:])), names[k]
    fixed = tmp_path / "fixed.json"
    assert main(["netperf", "ortiz2008-base", "--duration", "20 ms", "--warmup", "5 ms", "--trace-out", str(fixed),
                 "--set", "run.trace_start=fixed"]) == 0
    assert json.loads(fixed.read_text())["otherData"]["from_ps"] == 0
