"""Packet traces for the generator (host-path §7.9): a CSV file with a header, one frame per
row, `length_bytes` (an Ethernet frame as a capture shows it: header and FCS, no preamble;
from the minimum frame to the MTU's full frame) and either `interval_ns` (gap before the
frame) or `time_ns` (arrival time, non-decreasing). Replayed in a loop until the window ends;
the first frame's gap separates replays."""
from __future__ import annotations

import csv
from pathlib import Path

from .errors import ConfigError

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


def load_trace(path: str | Path, framing: dict, link_bps: int) -> tuple[list[int], list[int]]:
    """(gap before each frame in ps, frame lengths in bytes). `framing` is the core's
    (`physics.defaults`: `min_frame_bytes`, `max_frame_bytes`, `wire_overhead_bytes`). A frame
    may not start before the previous one has left the wire (frame + preamble + inter-frame
    gap at the link rate)."""
    lo, hi, overhead = framing["min_frame_bytes"], framing["max_frame_bytes"], framing["wire_overhead_bytes"]
    p = Path(path)
    rows = _rows(KEY, p, "frames")
    cols = set(rows[0])
    if "length_bytes" not in cols or not ({"interval_ns", "time_ns"} & cols):
        raise ConfigError(f"{KEY}: {str(p)!r} needs columns length_bytes and interval_ns or time_ns; it has {', '.join(sorted(c for c in cols if c))}")
    gaps, lengths, last = [], [], 0.0
    for i, r in enumerate(rows, start=2):
        try:
            length = int(r["length_bytes"])
            if "interval_ns" in cols:
                gap = float(r["interval_ns"])
            else:
                t = float(r["time_ns"])
                gap, last = t - last, t
        except (TypeError, ValueError):
            raise ConfigError(f"{KEY}: {str(p)!r} line {i}: not a number") from None
        if not lo <= length <= hi:
            raise ConfigError(f"{KEY}: {str(p)!r} line {i}: length_bytes {length} outside {lo}..{hi} (a full frame at nic.mtu_bytes)")
        if gap < 0:
            raise ConfigError(f"{KEY}: {str(p)!r} line {i}: time goes backwards")
        if lengths and gap * 1e-9 < (lengths[-1] + overhead) * 8 / link_bps - 1e-15:
            raise ConfigError(f"{KEY}: {str(p)!r} line {i}: {gap:g} ns after a {lengths[-1]}-byte frame is faster than the {link_bps / 1e9:g} Gbps link")
        gaps.append(round(gap * 1000))
        lengths.append(length)
    if sum(gaps) == 0:
        raise ConfigError(f"{KEY}: {str(p)!r} has no time between frames; it would replay forever at one instant")
    # The first frame's gap also separates one replay from the next; a zero one (a trace that
    # starts at time 0) becomes the mean gap of the rest.
    if gaps[0] == 0:
        gaps[0] = round(sum(gaps) / max(1, len(gaps) - 1))
    return gaps, lengths


WEB_KEY = "workload.web.trace_file"


def load_web_trace(path: str | Path) -> tuple[list[list[int]], list[int]]:
    """A web request trace (handoff.md §9.2): a CSV with a header, one request per row,
    `connection_id, request_index, response_bytes[, arrival_ns]`. Returns each connection's
    response sizes in request order (connections in order of first appearance), and, when the
    file has `arrival_ns`, each connection's arrival in ps (its earliest row's)."""
    p = Path(path)
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
