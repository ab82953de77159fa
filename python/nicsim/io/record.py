"""A run's recordings as files other tools read: the frames that crossed one node's MAC as a
pcap capture (Wireshark, tshark, tcptrace), and a window of the run as a Chrome/Perfetto
trace (one track per processor with its contexts and stages, the wire and the DMA engine as
tracks, frames as arrows from sender to receiver).

The core records (`run.pcap`, `run.trace`, docs/output.md `record`); this module only
writes the formats. Packets are built with dpkt. A capture holds headers only, with the
frame's true length, as `tcpdump -s 128` would: nicsim carries no payload bytes.
"""
from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

from ..errors import ConfigError

SNAPLEN_BYTES = 128
# Ports are not modelled: the higher-addressed end of a flow (the server in nicsim's layouts,
# the last node) gets this one, the other an ephemeral port from the flow id.
SERVER_PORT = 5001
EPHEMERAL_FIRST = 32768
EPHEMERAL_COUNT = 28232


# The files the command line asked for; the first run that records fills them.
_SINK: dict[str, Any] = {}


def arm(args: Any) -> None:
    """`--pcap-out`, `--trace-out`, `--series` and `--series-plot`: checked before anything
    runs (the paths by the parser's types, paths.py), then the core is asked to record
    (`run.pcap`, `run.trace`, `run.series_ps`)."""
    pcap, trace = getattr(args, "pcap_out", None), getattr(args, "trace_out", None)
    series, series_plot = getattr(args, "series", None), getattr(args, "series_plot", None)
    if series_plot and not series:
        raise ConfigError("--series-plot needs --series INTERVAL (e.g. --series 1ms)")
    if series:
        from ..config.params import BY_KEY
        from ..config import parse_value

        try:
            interval_ps = parse_value(BY_KEY["run.series_ps"], series)
        except ConfigError:
            interval_ps = None
        if interval_ps is None or interval_ps < 10**6:
            raise ConfigError(f"--series {series!r}: an interval of at least 1 us, such as 1ms")
    _SINK.clear()
    if pcap or trace or series:
        args.set = (list(args.set) + (["run.pcap=true"] if pcap else []) + (["run.trace=true"] if trace else [])
                    + ([f"run.series_ps={series}"] if series else []))
        _SINK.update(pcap=pcap, trace=trace, series_plot=series_plot)


def deliver(result: dict) -> None:
    """Called on every run's result: the first one that recorded writes the armed files
    (one line each on stderr), and its document keeps only what was written."""
    if not _SINK or not ("record" in result or "series" in result):
        return
    import sys

    lines = save(result, _SINK["pcap"], _SINK["trace"])
    s = result.get("series")
    if s is not None:
        lines.append(f"series: {len(s['rows']):,} intervals of {s['interval_s'] * 1e3:g} ms in the JSON document's series (--json)"
                     + (f", {s['left_out']:,} left out (run.series_max_rows)" if s["left_out"] else ""))
        if _SINK["series_plot"]:
            from .plot import plot_series

            plot_series(s, _SINK["series_plot"])
            lines.append(f"series plot written to {_SINK['series_plot']}")
    for line in lines:
        print(line, file=sys.stderr)
    _SINK.clear()


def _mac(node: int) -> bytes:
    return bytes([0x02, 0, 0, 0, 0, node])


def _ip(node: int) -> bytes:
    return bytes([10, 0, 0, node + 1])


def _ports(src: int, dst: int, flow: int) -> tuple[int, int]:
    ephemeral = EPHEMERAL_FIRST + flow % EPHEMERAL_COUNT
    return (ephemeral, SERVER_PORT) if src < dst else (SERVER_PORT, ephemeral)


class Stack:
    """What a real Linux stack puts in the headers the model does not carry, kept per flow
    and direction across a capture: the window scale and MSS its SYNs announce, RFC 7323
    timestamps (a millisecond clock with a per-connection offset, TSecr echoing the peer's
    latest TSval), and the IP identification (a per-socket counter, DF set, as Linux's
    `ip_select_ident_segs` for TCP)."""

    def __init__(self, advertised_mss_bytes: int = 1460, socket_buffer_bytes: int = 65536, doubled: bool = True):
        space = socket_buffer_bytes * (2 if doubled else 1)
        # tcp_select_initial_window: the shift that lets the largest window be advertised.
        self.wscale = max(0, min(14, space.bit_length() - 1 - 15))
        self.mss_bytes = advertised_mss_bytes
        self.tsval: dict[tuple[int, int], int] = {}
        self.ip_id: dict[tuple[int, int], int] = {}

    @classmethod
    def of(cls, result: dict) -> "Stack":
        c = result.get("config")
        if not c:
            return cls()
        from ..config.physics import defaults

        tcp, nic, link = c.get("tcp") or {}, c.get("nic") or {}, c.get("link") or {}
        mss = defaults(int(nic["mtu_bytes"]), bool(tcp.get("timestamps", True)), int(link.get("rate_bps", 10**9)))
        return cls(int(mss["advertised_mss_bytes"]), int(tcp.get("socket_buffer_bytes", 65536)),
                   tcp.get("buffer_semantics", "linux") == "linux")

    @staticmethod
    def _offset(src: int, flow: int) -> int:
        return (0x9E3779B1 * (flow * 131 + src + 1)) & 0xFFFFFFFF

    def next_ip_id(self, src: int, flow: int) -> int:
        k = (src, flow)
        self.ip_id[k] = (self.ip_id.get(k, self._offset(src, flow) & 0xFFFF) + 1) & 0xFFFF
        return self.ip_id[k]

    def timestamps(self, row: dict) -> tuple[int, int]:
        """TSval of this segment's sender, and TSecr: the peer's latest TSval on the flow."""
        src, dst, flow = row["src"], row["dst"], row["flow"]
        val = (row["at_ps"] // 10**9 + self._offset(src, flow)) & 0xFFFFFFFF
        self.tsval[src, flow] = val
        return val, self.tsval.get((dst, flow), 0)


def frame_bytes(row: dict, stack: Stack | None = None) -> bytes:
    """The headers of one recorded frame (a row of `record.pcap.frames` by column name)."""
    import dpkt

    stack = stack or Stack()
    sport, dport = _ports(row["src"], row["dst"], row["flow"])
    ip_len = min(row["ip_bytes"], 65535)
    if row["proto"] == "raw":
        return bytes(dpkt.ethernet.Ethernet(src=_mac(row["src"]), dst=_mac(row["dst"]), type=0x88B5, data=b""))
    ip_id, df = 0, 0
    if row["proto"] == "tcp":
        # Options fill the header to the length the frame has (the core's): a SYN's MSS,
        # SACK-permitted, timestamps and window scale in Linux's order (20 bytes); otherwise
        # timestamps (12 bytes with two NOPs) when they fit; NOPs for the rest (SACK blocks are
        # not written out). The headers' fixed parts are the format's.
        base = dpkt.ip.IP.__hdr_len__ + dpkt.tcp.TCP.__hdr_len__
        most = 4 * 0xF - dpkt.tcp.TCP.__hdr_len__  # a 4-bit data offset in 32-bit words
        opt_len = max(0, min(most, row["ip_bytes"] - row["payload_bytes"] - base))
        syn = bool(row["tcp_flags"] & dpkt.tcp.TH_SYN)
        tsval, tsecr = stack.timestamps(row)
        ts = b"\x08\x0a" + struct.pack(">II", tsval, tsecr)
        mss = b"\x02\x04" + struct.pack(">H", min(stack.mss_bytes, 65535))
        wscale = b"\x01\x03\x03" + bytes([stack.wscale])
        if syn and opt_len >= 20:
            opts = mss + b"\x04\x02" + ts + wscale
        elif syn and opt_len >= 12:
            opts = mss + b"\x01\x01\x04\x02" + wscale
        else:
            opts = b"\x01\x01" + ts if opt_len >= 12 else b""
        opts += b"\x01" * (opt_len - len(opts))
        # A SYN's window is never scaled (RFC 7323 §2.2); every other one is, by the shift the
        # SYNs announced.
        win = row["window_bytes"] if syn else row["window_bytes"] >> stack.wscale
        l4 = dpkt.tcp.TCP(sport=sport, dport=dport, seq=row["seq"] & 0xFFFFFFFF, ack=row["ack"] & 0xFFFFFFFF,
                          flags=row["tcp_flags"], win=min(win, 65535), opts=opts, off=(20 + opt_len) // 4)
        proto = dpkt.ip.IP_PROTO_TCP
        ip_id, df = stack.next_ip_id(row["src"], row["flow"]), 1
    else:
        l4 = dpkt.udp.UDP(sport=sport, dport=dport, ulen=min(row["payload_bytes"] + 8, 65535))
        proto = dpkt.ip.IP_PROTO_UDP
    ip = dpkt.ip.IP(src=_ip(row["src"]), dst=_ip(row["dst"]), p=proto, ttl=64, id=ip_id, data=l4)
    ip.df = df
    bytes(ip)  # fills the transport checksum over the headers
    # The datagram's true length, and the header checksum over it.
    ip.len, ip.sum = ip_len, 0
    ip.sum = dpkt.in_cksum(ip.pack_hdr())
    return bytes(dpkt.ethernet.Ethernet(src=_mac(row["src"]), dst=_mac(row["dst"]), type=dpkt.ethernet.ETH_TYPE_IP, data=ip))


def _rows(columns: list[str], rows: list[list]) -> list[dict]:
    return [dict(zip(columns, r)) for r in rows]


def write_pcap(result: dict, path: str) -> int:
    """Writes `result["record"]["pcap"]` as a pcap file with nanosecond timestamps; returns
    the number of frames written."""
    import dpkt

    rec = (result.get("record") or {}).get("pcap")
    if rec is None:
        raise ConfigError("this result has no capture: run it with --pcap-out FILE (or --set run.pcap=true)")
    rows = _rows(rec["columns"], rec["frames"])
    stack = Stack.of(result)
    with open(path, "wb") as f:
        f.write(bytes(dpkt.pcap.LEFileHdr(snaplen=SNAPLEN_BYTES, linktype=dpkt.pcap.DLT_EN10MB, magic=dpkt.pcap.TCPDUMP_MAGIC_NANO)))
        for r in rows:
            head = frame_bytes(r, stack)[:SNAPLEN_BYTES]
            sec, ns = divmod(r["at_ps"] // 1000, 10**9)
            f.write(struct.pack("<IIII", sec, ns, len(head), 14 + r["ip_bytes"]) + head)
    return len(rows)


def _us(ps: int) -> float:
    return ps / 1e6


def trace_events(result: dict) -> list[dict]:
    """`result["record"]["trace"]` as Chrome trace events (the JSON Perfetto opens)."""
    tr = (result.get("record") or {}).get("trace")
    if tr is None:
        raise ConfigError("this result has no trace: run it with --trace-out FILE (or --set run.trace=true)")
    ev: list[dict] = []
    pids: dict[str, int] = {}
    tids: dict[tuple[str, str], int] = {}

    def track(node: str, name: str) -> tuple[int, int]:
        """The (pid, tid) of a node's track, named on first use."""
        if node not in pids:
            pids[node] = len(pids) + 1
            ev.append({"ph": "M", "name": "process_name", "pid": pids[node], "args": {"name": node}})
        if (node, name) not in tids:
            tids[node, name] = len(tids) + 1
            ev.append({"ph": "M", "name": "thread_name", "pid": pids[node], "tid": tids[node, name], "args": {"name": name}})
        return pids[node], tids[node, name]

    for name, p in tr["processors"].items():
        node, proc = name.split(".", 1)
        pid, tid = track(node, proc)
        for start, dur, ctx, stage in p["slices"]:
            ev.append({"ph": "X", "name": stage, "cat": ctx, "pid": pid, "tid": tid, "ts": _us(start), "dur": _us(dur),
                       "args": {"context": ctx}})
    sent: dict[tuple, list[int]] = {}
    arrows = 0
    for node, blk in tr["nodes"].items():
        # A frame handed to a busy MAC goes on the wire when the one before it is off: one
        # direction's slices never overlap.
        tx_free = 0
        for r in _rows(tr["frame_columns"], blk["frames"]):
            wire_ps = r["wire_ps"]
            pid, tid = track(node, "wire tx" if r["tx"] else "wire rx")
            start = max(r["at_ps"], tx_free) if r["tx"] else r["at_ps"] - wire_ps
            if r["tx"]:
                tx_free = start + wire_ps
            label = f"{r['proto']} flow {r['flow']} {r['payload_bytes']} B"
            ev.append({"ph": "X", "name": label, "cat": "wire", "pid": pid, "tid": tid, "ts": _us(start), "dur": _us(wire_ps),
                       "args": {k: r[k] for k in ("src", "dst", "flow", "seq", "ack", "ip_bytes", "payload_bytes")}})
            key = (r["src"], r["dst"], r["flow"], r["seq"], r["payload_bytes"], r["tcp_flags"])
            if r["tx"]:
                sent.setdefault(key, []).append(len(ev) - 1)
            elif sent.get(key):
                tx = ev[sent[key].pop(0)]
                arrows += 1
                ev.append({"ph": "s", "id": arrows, "name": "frame", "cat": "flow", "pid": tx["pid"], "tid": tx["tid"], "ts": tx["ts"]})
                ev.append({"ph": "f", "bp": "e", "id": arrows, "name": "frame", "cat": "flow", "pid": pid, "tid": tid, "ts": _us(start)})
        for start, end, dev, chan in blk["dma"]:
            pid, tid = track(node, f"dma {chan}")
            ev.append({"ph": "X", "name": f"dev{dev} {chan}", "cat": "dma", "pid": pid, "tid": tid, "ts": _us(start), "dur": _us(end - start)})
    return ev


def write_trace(result: dict, path: str) -> int:
    """Writes the trace window as Chrome trace JSON; returns the number of events."""
    ev = trace_events(result)
    tr = result["record"]["trace"]
    doc = {"traceEvents": ev, "displayTimeUnit": "ns",
           "otherData": {"from_ps": tr["from_ps"], "to_ps": tr["to_ps"], "generator": "nicsim"}}
    Path(path).write_text(json.dumps(doc))
    return len(ev)


def save(result: dict, pcap_out: str | None, trace_out: str | None) -> list[str]:
    """Writes the files asked for and replaces the bulky `record` in `result` by what was
    written; returns one line per file for the user."""
    rec = result.pop("record", None) or {}
    notes, summary = [], {}
    if pcap_out and "pcap" in rec:
        n = write_pcap({"record": rec, "config": result.get("config")}, pcap_out)
        summary["pcap"] = {"file": pcap_out, "node": rec["pcap"]["node"], "frames": n, "left_out": rec["pcap"]["left_out"]}
        notes.append(f"pcap: {n:,} frames at {rec['pcap']['node']}'s MAC written to {pcap_out}"
                     + (f" ({rec['pcap']['left_out']:,} left out: run.pcap_max_frames)" if rec["pcap"]["left_out"] else ""))
    if trace_out and "trace" in rec:
        n = write_trace({"record": rec}, trace_out)
        tr = rec["trace"]
        summary["trace"] = {"file": trace_out, "events": n, "from_ps": tr["from_ps"], "to_ps": tr["to_ps"]}
        notes.append(f"trace: {n:,} events from {tr['from_ps'] / 1e9:g} ms to {tr['to_ps'] / 1e9:g} ms written to {trace_out}")
    if summary:
        result["record"] = summary
    return notes
