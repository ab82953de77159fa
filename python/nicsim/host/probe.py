"""`nicsim probe`: measures the host it runs on with real tools and writes a reference file
(`nicsim validate --reference`, `nicsim calibrate --reference`).

TCP_STREAM over a range of message sizes and TCP_RR at a few sizes, over loopback and, with
`--veth` as root, over a veth pair between two network namespaces that probe creates and
removes itself. netperf when it is installed (Debian's non-free section); otherwise iperf3 for
the streams and a small request/response client of nicsim's own over a real TCP socket for
TCP_RR (Python: its per-transaction cost is the interpreter's as much as the kernel's, and the
row's source says so). CPU load per run from `/proc/stat` (every CPU, busy over total); with
`--perf`, the kernel's copy, TCP/IP, driver and OS shares from `perf record -a` (perfshare.py). Each
point is run `repeats` times; the file gets the median, with the spread as its tolerance
(at least 5%). Only loopback and probe's own namespaces are ever used.

`--host-out FILE` (alone, or beside `--out`) measures the host's own primitives in compiled
code instead, with no tool needed, and writes the configuration derived from them by stated
rules (hostfacts.py, docs/real-host.md §1a)."""
from __future__ import annotations

import contextlib
import json
import shutil
import socket
import statistics
import subprocess
import threading
import time
from pathlib import Path

from ..errors import ConfigError
from .perfshare import CATEGORIES, Recording

NS = ("nicsim-probe-a", "nicsim-probe-b")
VETH = ("nsp-a", "nsp-b")
ADDR = ("10.213.0.1", "10.213.0.2")
PORT = 17365
NETPERF_HINT = ("netperf is in Debian's non-free section: add 'non-free' to the components in "
                "/etc/apt/sources.list (or sources.list.d), apt update, apt install netperf")


def cpu_times(text: str | None = None) -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs from /proc/stat's first line (iowait and idle are
    not busy; guest time is inside user)."""
    line = (text if text is not None else Path("/proc/stat").read_text()).splitlines()[0]
    f = [int(x) for x in line.split()[1:]]
    idle = f[3] + (f[4] if len(f) > 4 else 0)
    total = sum(f[:8])
    return total - idle, total


def parse_iperf3(doc: str) -> float:
    """Receiver throughput in Mb/s from `iperf3 -J`."""
    try:
        d = json.loads(doc)
        if "error" in d:
            raise ConfigError(f"probe: iperf3 failed: {d['error']}")
        return d["end"]["sum_received"]["bits_per_second"] / 1e6
    except (json.JSONDecodeError, KeyError) as e:
        raise ConfigError(f"probe: iperf3's output could not be read ({e})") from None


def parse_netperf(out: str) -> float:
    """The throughput of `netperf -P 0 -- -o THROUGHPUT,THROUGHPUT_UNITS`: a line such as
    `27654.67,10^6bits/s` (TCP_STREAM, Mb/s) or `45012.30,Trans/s` (TCP_RR)."""
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 2 and parts[1] in ("10^6bits/s", "Trans/s"):
            return float(parts[0])
    raise ConfigError(f"probe: netperf's output has no THROUGHPUT,THROUGHPUT_UNITS line: {out.strip()[:120]!r}")


def _wait_listening(host: str, port: int, ns: str | None, timeout_s: float = 5.0) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if ns:
            probe = subprocess.run(["ip", "netns", "exec", ns, "ss", "-ltn"], capture_output=True, text=True)
            if f":{port} " in probe.stdout:
                return
        else:
            try:
                socket.create_connection((host, port), timeout=0.2).close()
                return
            except OSError:
                pass
        time.sleep(0.05)
    raise ConfigError(f"probe: the server on {host}:{port} did not start")


def _in(ns: str | None, argv: list[str]) -> list[str]:
    return ["ip", "netns", "exec", ns, *argv] if ns else argv


def _measured(fn) -> tuple[float, float]:
    b0, t0 = cpu_times()
    value = fn()
    b1, t1 = cpu_times()
    return value, (b1 - b0) / max(1, t1 - t0)


def iperf3_stream(size: int, seconds: float, host: str, ns: tuple[str | None, str | None]) -> tuple[float, float]:
    server = subprocess.Popen(_in(ns[1], ["iperf3", "-s", "-1", "-p", str(PORT)]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.2)
        # iperf3 takes whole seconds (-t 0 would run for ever).
        argv = _in(ns[0], ["iperf3", "-c", host, "-p", str(PORT), "-t", str(max(1, round(seconds))), "-l", str(size), "-J"])
        return _measured(lambda: parse_iperf3(subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 30).stdout))
    finally:
        server.kill()
        server.wait()


def netperf_run(test: str, size: int, seconds: float, host: str, ns: tuple[str | None, str | None]) -> tuple[float, float]:
    server = subprocess.Popen(_in(ns[1], ["netserver", "-D", "-p", str(PORT)]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_listening(host, PORT, ns[1])
        opt = ["-m", str(size)] if test == "TCP_STREAM" else ["-r", f"{size},{size}"]
        argv = _in(ns[0], ["netperf", "-H", host, "-p", str(PORT), "-t", test, "-l", f"{seconds:g}", "-P", "0", "--", *opt,
                           "-o", "THROUGHPUT,THROUGHPUT_UNITS"])
        return _measured(lambda: parse_netperf(subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 30).stdout))
    finally:
        server.kill()
        server.wait()


def _exactly(sock: socket.socket, n: int) -> bool:
    got = 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            return False
        got += len(chunk)
    return True


def own_rr(size: int, seconds: float, host: str = "127.0.0.1") -> tuple[float, float]:
    """Transactions per second of nicsim's own request/response pair over a real TCP socket:
    one transaction in flight, `size` bytes each way, as netperf's TCP_RR."""
    listener = socket.create_server((host, 0))
    port = listener.getsockname()[1]

    def serve():
        conn, _ = listener.accept()
        with conn:
            payload = b"r" * size
            while _exactly(conn, size):
                conn.sendall(payload)

    t = threading.Thread(target=serve, daemon=True)
    t.start()

    def run():
        with socket.create_connection((host, port)) as c:
            payload, n, end = b"q" * size, 0, time.monotonic() + seconds
            start = time.monotonic()
            while time.monotonic() < end:
                c.sendall(payload)
                if not _exactly(c, size):
                    break
                n += 1
            return n / (time.monotonic() - start)

    try:
        return _measured(run)
    finally:
        listener.close()
        t.join(timeout=2)


class Veth:
    """A veth pair between two namespaces of probe's own, removed on exit whatever happens."""

    def __enter__(self):
        if shutil.which("ip") is None:
            raise ConfigError("probe --veth: the ip command (iproute2) is not installed")
        cmds = [["ip", "netns", "add", NS[0]], ["ip", "netns", "add", NS[1]],
                ["ip", "link", "add", VETH[0], "netns", NS[0], "type", "veth", "peer", "name", VETH[1], "netns", NS[1]]]
        for k in (0, 1):
            cmds += [["ip", "-n", NS[k], "addr", "add", f"{ADDR[k]}/30", "dev", VETH[k]],
                     ["ip", "-n", NS[k], "link", "set", VETH[k], "up"], ["ip", "-n", NS[k], "link", "set", "lo", "up"]]
        for c in cmds:
            p = subprocess.run(c, capture_output=True, text=True)
            if p.returncode != 0:
                self.__exit__(None, None, None)
                raise ConfigError(f"probe --veth: {' '.join(c)} failed: {p.stderr.strip()} (veth needs root)")
        return self

    def __exit__(self, *exc):
        for ns in NS:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        return False


def tools() -> dict[str, bool]:
    return {t: shutil.which(t) is not None for t in ("netperf", "netserver", "iperf3")}


def measure_point(test: str, size: int, seconds: float, path: str, have: dict[str, bool]) -> tuple[float, float, str]:
    host, ns = ("127.0.0.1", (None, None)) if path == "lo" else (ADDR[1], NS)
    if have["netperf"] and have["netserver"]:
        return (*netperf_run(test, size, seconds, host, ns), "netperf")
    if test == "TCP_STREAM":
        return (*iperf3_stream(size, seconds, host, ns), "iperf3")
    return (*own_rr(size, seconds), "nicsim-rr (Python)")


PRESETS = {"lo": "modern-x86-loopback", "veth": "modern-x86-veth"}


def probe(stream_sizes: list[int], rr_sizes: list[int], seconds: float, repeats: int, veth: bool,
          perf: bool = False) -> list[dict]:
    have = tools()
    if not (have["netperf"] and have["netserver"]) and not have["iperf3"]:
        raise ConfigError("probe: neither netperf nor iperf3 is installed: apt install iperf3, or " + NETPERF_HINT)
    paths = ["lo"] + (["veth"] if veth else [])
    warned: set[str] = set()
    netperf = have["netperf"] and have["netserver"]
    if veth and not netperf and rr_sizes:
        print("# probe: TCP_RR over veth is skipped: nicsim's own client runs on loopback only; " + NETPERF_HINT)
    rows = []
    with Veth() if veth else contextlib.nullcontext():
        for path in paths:
            for test, sizes in (("TCP_STREAM", stream_sizes), ("TCP_RR", rr_sizes)):
                if test == "TCP_RR" and path != "lo" and not netperf:
                    continue
                for size in sizes:
                    runs, cuts = [], []
                    for _ in range(repeats):
                        with Recording() if perf else contextlib.nullcontext() as rec:
                            runs.append(measure_point(test, size, seconds, path, have))
                        if rec is not None and rec.shares:
                            cuts.append(rec.shares)
                        elif rec is not None and rec.why not in warned:
                            warned.add(rec.why)
                            print(f"# probe: no kernel profile: {rec.why}")
                    rows += _rows(path, test, size, runs, PRESETS[path])
                    if cuts:
                        rows += _share_rows(path, test, size, cuts, PRESETS[path])
    return rows


def _row(path: str, test: str, size: int, preset: str, metric: str, vals: list[float], digits: int, source: str) -> dict:
    """One reference row: the median of a point's runs, their spread as the tolerance (at
    least 5%), and where the figure came from."""
    med = statistics.median(vals)
    spread = (max(vals) - min(vals)) / med if med else 0.0
    return {"id": f"{path}.{test.lower()}.{size}B.{metric}", "preset": preset, "command": "netperf", "test": test,
            "msg_size": f"{size} B", "metric": metric, "value": f"{med:.{digits}g}", "tolerance": f"{max(5.0, 100 * spread):.0f}%",
            "role": "user", "source": f"{source}, median of {len(vals)} runs (spread {100 * spread:.1f}%)"}


def _share_rows(path: str, test: str, size: int, cuts: list[dict[str, float]], preset: str) -> list[dict]:
    """`share.CATEGORY` rows: each category's share of the kernel's non-idle samples."""
    source = f"nicsim probe --perf: perf record -a over {path}, kernel samples by category (nicsim.perfshare)"
    return [_row(path, test, size, preset, f"share.{cat}", [c[cat] for c in cuts], 4, source) for cat in CATEGORIES]


def _rows(path: str, test: str, size: int, runs: list[tuple[float, float, str]], preset: str) -> list[dict]:
    metric = "throughput_mbps" if test == "TCP_STREAM" else "transactions_per_s"
    source = f"nicsim probe: {runs[0][2]} over {path}"
    rows = [_row(path, test, size, preset, name, vals, 6, source)
            for name, vals in ((metric, [r[0] for r in runs]), ("cpu_util", [r[1] for r in runs]))]
    # iperf3's server reads its block size (the client's -l), where netserver reads 128 KiB.
    recv = f"{size} B" if runs[0][2] == "iperf3" and test == "TCP_STREAM" else ""
    return [{**r, "recv_size": recv} for r in rows]


def write_rows(rows: list[dict], out: str) -> None:
    cols = ["id", "preset", "command", "test", "msg_size", "recv_size", "metric", "value", "tolerance", "role", "source"]
    lines = [",".join(cols)] + [",".join(f'"{r.get(c, "")}"' if "," in r.get(c, "") else r.get(c, "") for c in cols) for r in rows]
    Path(out).write_text("\n".join(lines) + "\n")
