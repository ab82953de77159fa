"""Traces nicsim replays, one reader for each format users bring:

- packet traces for the generator (host-path §7.9): a CSV file with a header, one frame per
  row, `length_bytes` (an Ethernet frame as a capture shows it: header and FCS, no preamble;
  from the minimum frame to the MTU's full frame) and either `interval_ns` (gap before the
  frame) or `time_ns` (arrival time, non-decreasing); or a pcap/pcapng capture
  (`workload.packet_gen.pcap`, read with dpkt: each frame's capture time and its original
  length plus the 4-byte FCS a capture leaves out). Replayed in a loop until the window ends;
  the first frame's gap separates replays.
- web request traces: our CSV, or a server's access log in Common Log Format (the World Cup
  1998 logs as their tools print them, Apache's `common` format)."""
from __future__ import annotations

import csv
import re
from pathlib import Path

from ..errors import ConfigError

KEY = "workload.packet_gen.trace_file"


def _rows(key: str, p: Path, what: str) -> list[dict]:
    """The rows of CSV file `p` (for parameter `key`), or one line saying why not."""
    try:
        with open(p, newline="") as f:
            rows = list(csv.DictReader(f))
    except FileNotFoundError:
        raise ConfigError(f"{key}: {str(p)!r} not found") from None
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ConfigError(f"{key}: {str(p)!r} cannot be read: {e}") from None
    if not rows:
        raise ConfigError(f"{key}: {str(p)!r} has no {what}")
    return rows


PCAP_KEY = "workload.packet_gen.pcap"
FCS_BYTES = 4


def _pcap_frames(f) -> list[tuple[float, int, bytes]]:
    """A classic pcap file's (time s, original length, captured bytes) per frame, from its
    record headers (the original length, not the captured one: a capture taken with a snap
    length, such as nicsim's own --pcap-out, keeps the frames' true sizes)."""
    import dpkt

    fh = dpkt.pcap.FileHdr(f.read(dpkt.pcap.FileHdr.__hdr_len__))
    little = fh.magic in (dpkt.pcap.PMUDPCT_MAGIC, dpkt.pcap.PMUDPCT_MAGIC_NANO)
    nano = fh.magic in (dpkt.pcap.TCPDUMP_MAGIC_NANO, dpkt.pcap.PMUDPCT_MAGIC_NANO)
    if fh.magic not in (dpkt.pcap.TCPDUMP_MAGIC, dpkt.pcap.TCPDUMP_MAGIC_NANO) and not little:
        raise ValueError("no pcap magic number")
    Hdr = dpkt.pcap.LEPktHdr if little else dpkt.pcap.PktHdr
    out = []
    while len(buf := f.read(Hdr.__hdr_len__)) == Hdr.__hdr_len__:
        h = Hdr(buf)
        out.append((h.tv_sec + h.tv_usec / (1e9 if nano else 1e6), h.len, f.read(h.caplen)))
    return out


PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"
PCAP_MAGICS = (b"\xa1\xb2\xc3\xd4", b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\x3c\x4d", b"\x4d\x3c\xb2\xa1", PCAPNG_MAGIC)


def _capture(key: str, p: Path) -> list[tuple[float, int, bytes]]:
    """A pcap or pcapng capture's (time s, length, captured bytes) per frame, for parameter
    `key`, or one line saying why not. pcapng frames count their captured length."""
    import dpkt

    try:
        with open(p, "rb") as f:
            if f.read(4) == PCAPNG_MAGIC:
                f.seek(0)
                frames = [(float(ts), len(buf), buf) for ts, buf in dpkt.pcapng.Reader(f)]
            else:
                f.seek(0)
                frames = _pcap_frames(f)
    except FileNotFoundError:
        raise ConfigError(f"{key}: {str(p)!r} not found") from None
    except (OSError, ValueError, dpkt.dpkt.Error) as e:
        raise ConfigError(f"{key}: {str(p)!r} is not a pcap or pcapng capture ({e})") from None
    if not frames:
        raise ConfigError(f"{key}: {str(p)!r} has no frames")
    return frames


def _capture_rows(p: Path) -> list[dict]:
    """A capture's frames as rows of `time_ns` and `length_bytes` (the frame with the FCS a
    capture leaves out). A host's capture holds both directions, which overlap in time; the
    generator replays one: the frames to the destination MAC that receives the most bytes
    (the data direction)."""
    frames = _capture(PCAP_KEY, p)
    by_dst: dict[bytes, int] = {}
    for _, n, buf in frames:
        by_dst[buf[:6]] = by_dst.get(buf[:6], 0) + n
    data_dst = max(by_dst, key=lambda d: by_dst[d])
    frames = [fr for fr in frames if fr[2][:6] == data_dst]
    t0 = frames[0][0]
    return [{"time_ns": (ts - t0) * 1e9, "length_bytes": n + FCS_BYTES} for ts, n, _ in frames]


def load_trace(path: str | Path, framing: dict, link_bps: int, key: str = KEY) -> tuple[list[int], list[int]]:
    """(gap before each frame in ps, frame lengths in bytes), from a CSV file or (with
    `key = PCAP_KEY`) a capture. `framing` is the core's (`physics.defaults`:
    `min_frame_bytes`, `max_frame_bytes`, `wire_overhead_bytes`). A frame may not start before
    the previous one has left the wire (frame + preamble + inter-frame gap at the link rate)."""
    lo, hi, overhead = framing["min_frame_bytes"], framing["max_frame_bytes"], framing["wire_overhead_bytes"]
    p = Path(path)
    rows = _capture_rows(p) if key == PCAP_KEY else _rows(KEY, p, "frames")
    cols = set(rows[0])
    if "length_bytes" not in cols or not ({"interval_ns", "time_ns"} & cols):
        raise ConfigError(f"{key}: {str(p)!r} needs columns length_bytes and interval_ns or time_ns; it has {', '.join(sorted(c for c in cols if c))}")
    gaps, lengths, last = [], [], 0.0
    # Positions as the user sees them: a CSV's line (after its header), a capture's frame.
    at, first = ("frame", 1) if key == PCAP_KEY else ("line", 2)
    for i, r in enumerate(rows, start=first):
        try:
            length = int(r["length_bytes"])
            if "interval_ns" in cols:
                gap = float(r["interval_ns"])
            else:
                t = float(r["time_ns"])
                gap, last = t - last, t
        except (TypeError, ValueError):
            raise ConfigError(f"{key}: {str(p)!r} {at} {i}: not a number") from None
        if not lo <= length <= hi:
            raise ConfigError(f"{key}: {str(p)!r} {at} {i}: length_bytes {length} outside {lo}..{hi} (a full frame at nic.mtu_bytes)")
        if gap < 0:
            raise ConfigError(f"{key}: {str(p)!r} {at} {i}: time goes backwards")
        if lengths and gap * 1e-9 < (lengths[-1] + overhead) * 8 / link_bps - 1e-15:
            raise ConfigError(f"{key}: {str(p)!r} {at} {i}: {gap:g} ns after a {lengths[-1]}-byte frame is faster than the {link_bps / 1e9:g} Gbps link")
        gaps.append(round(gap * 1000))
        lengths.append(length)
    if sum(gaps) == 0:
        raise ConfigError(f"{key}: {str(p)!r} has no time between frames; it would replay forever at one instant")
    # The first frame's gap also separates one replay from the next; a zero one (a trace that
    # starts at time 0) becomes the mean gap of the rest.
    if gaps[0] == 0:
        gaps[0] = round(sum(gaps) / max(1, len(gaps) - 1))
    return gaps, lengths


WEB_KEY = "workload.web.trace_file"
# host ident authuser [date] "request" status bytes (Apache's `common`; `combined` adds fields).
CLF = re.compile(r'^(\S+) \S+ \S+ \[([^\]]+)\] "[^"]*" (\d{3}) (\d+|-)')
# A log has no connections: a host's requests share one while each follows the last within
# Apache 2.0's KeepAliveTimeout (15 s), up to MaxKeepAliveRequests (100).
KEEPALIVE_TIMEOUT_S = 15.0
MAX_KEEPALIVE_REQUESTS = 100


def _clf(p: Path) -> tuple[list[list[int]], list[int]]:
    """A Common Log Format access log as connections (see KEEPALIVE_TIMEOUT_S) with their
    arrivals. A response without a body (`-` or 0 bytes: a 304, a HEAD) counts 1 byte, the
    least a response carries in the model; CLF counts no headers."""
    from datetime import datetime

    conns: list[tuple[float, list[int]]] = []
    open_by_host: dict[str, tuple[int, float]] = {}
    try:
        lines = p.read_text(errors="strict").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{WEB_KEY}: {str(p)!r} cannot be read: {e}") from None
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        m = CLF.match(line)
        try:
            t = datetime.strptime(m.group(2), "%d/%b/%Y:%H:%M:%S %z").timestamp() if m else None
        except ValueError:
            t = None
        if t is None:
            raise ConfigError(f"{WEB_KEY}: {str(p)!r} line {i}: not Common Log Format (host ident user [date] \"request\" status bytes)")
        host, size = m.group(1), int(m.group(4)) if m.group(4) != "-" else 0
        k, last = open_by_host.get(host, (-1, 0.0))
        if k < 0 or t - last > KEEPALIVE_TIMEOUT_S or len(conns[k][1]) >= MAX_KEEPALIVE_REQUESTS:
            conns.append((t, []))
            k = len(conns) - 1
        conns[k][1].append(max(size, 1))
        open_by_host[host] = (k, t)
    if not conns:
        raise ConfigError(f"{WEB_KEY}: {str(p)!r} has no requests")
    t0 = min(t for t, _ in conns)
    return [sizes for _, sizes in conns], [round((t - t0) * 1e12) for t, _ in conns]


SEQ_SPACE = 1 << 32


def _tcp_flows(p: Path) -> tuple[list[list[int]], list[int]]:
    """A capture's TCP connections replayed as connections: each connection (by its address
    and port pair) arrives at its first frame; its server is the end its SYN went to (else the
    lower port, a well-known service's); each request is a run of client payload, and its
    response the server payload that follows until the client sends again. Payload is counted
    from the IP total length, so a capture with a snap length keeps its true sizes, and only
    once (retransmitted bytes do not count again). Requests whose response carried no payload
    are left out; frames that are not IPv4 TCP are skipped."""
    import dpkt

    flows: dict[tuple, dict] = {}
    for ts, _, buf in _capture(WEB_KEY, p):
        try:
            ip = dpkt.ethernet.Ethernet(buf).data
        except dpkt.dpkt.Error:
            continue
        if not isinstance(ip, dpkt.ip.IP) or not isinstance(ip.data, dpkt.tcp.TCP):
            continue
        tcp = ip.data
        a, b = (ip.src, tcp.sport), (ip.dst, tcp.dport)
        f = flows.setdefault(tuple(sorted((a, b))), {"t": ts, "server": None, "runs": [], "next": {}})
        if tcp.flags & dpkt.tcp.TH_SYN and not tcp.flags & dpkt.tcp.TH_ACK:
            f["server"] = b
        payload = ip.len - 4 * ip.hl - 4 * tcp.off
        end = (tcp.seq + payload) % SEQ_SPACE
        # Only bytes beyond the highest sequence number seen count: retransmissions do not.
        new = payload if b not in f["next"] else min(payload, (end - f["next"][b]) % SEQ_SPACE)
        if 0 < new < SEQ_SPACE // 2:
            f["runs"].append((b, new))
            f["next"][b] = end
        elif b not in f["next"]:
            f["next"][b] = end
    conns = []
    for key, f in flows.items():
        server = f["server"] or min(key, key=lambda end: end[1])
        sizes: list[int] = []
        response = 0
        for dst, n in f["runs"]:
            if dst == server and response:
                sizes.append(response)
                response = 0
            elif dst != server:
                response += n
        if response:
            sizes.append(response)
        conns.append((f["t"], sizes))
    conns = [(t, s) for t, s in conns if s]
    if not conns:
        raise ConfigError(f"{WEB_KEY}: {str(p)!r} has no TCP connection with a response")
    t0 = min(t for t, _ in conns)
    return [s for _, s in conns], [round((t - t0) * 1e12) for t, _ in conns]


def load_web_trace(path: str | Path) -> tuple[list[list[int]], list[int]]:
    """A web request trace (handoff.md §9.2): a CSV with a header, one request per row,
    `connection_id, request_index, response_bytes[, arrival_ns]`, a server's access log in
    Common Log Format, or a pcap/pcapng capture of TCP connections. Returns each connection's
    response sizes in request order (connections in order of first appearance), and, when the
    file has times, each connection's arrival in ps (its earliest request's)."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            magic = f.read(4)
            f.seek(0)
            first = f.readline().decode(errors="replace")
    except FileNotFoundError:
        raise ConfigError(f"{WEB_KEY}: {str(p)!r} not found") from None
    except OSError as e:
        raise ConfigError(f"{WEB_KEY}: {str(p)!r} cannot be read: {e}") from None
    if magic in PCAP_MAGICS:
        return _tcp_flows(p)
    if CLF.match(first):
        return _clf(p)
    rows = _rows(WEB_KEY, p, "requests")
    cols = set(rows[0])
    need = {"connection_id", "request_index", "response_bytes"}
    if not need <= cols:
        raise ConfigError(f"{WEB_KEY}: {str(p)!r} needs columns connection_id, request_index, response_bytes "
                          f"[, arrival_ns]; it has {', '.join(sorted(c for c in cols if c))}")
    timed = "arrival_ns" in cols
    conns: dict[str, list[tuple[int, int]]] = {}
    arrival: dict[str, float] = {}
    for i, r in enumerate(rows, start=2):
        try:
            idx, size = int(r["request_index"]), int(r["response_bytes"])
            t = float(r["arrival_ns"]) if timed else 0.0
        except (TypeError, ValueError):
            raise ConfigError(f"{WEB_KEY}: {str(p)!r} line {i}: request_index and response_bytes must be integers"
                              + (", arrival_ns a number" if timed else "")) from None
        if size < 1 or idx < 0 or t < 0 or t != t or t == float("inf"):
            raise ConfigError(f"{WEB_KEY}: {str(p)!r} line {i}: response_bytes must be at least 1, request_index and "
                              "arrival_ns at least 0")
        cid = r["connection_id"]
        conns.setdefault(cid, []).append((idx, size))
        arrival[cid] = min(arrival.get(cid, t), t)
    sizes = [[s for _, s in sorted(reqs)] for reqs in conns.values()]
    arrivals = [round(arrival[c] * 1000) for c in conns] if timed else []
    return sizes, arrivals
