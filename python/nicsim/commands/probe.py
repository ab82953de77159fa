"""`nicsim probe`: the host measured with real tools into a reference file, or its primitives
into a configuration (host/probe.py, host/hostfacts.py)."""
from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from ..host.probe import PRESETS, probe, write_rows
from ..host.probe import __doc__ as probe_doc
from ..paths import out_file
from .options import Parser, whole_line


def add(sub) -> None:
    whole_line(sub, "probe", main_probe, help="measure this host with netperf or iperf3 over loopback (and veth as root) into a reference file (see nicsim probe --help)")


def main_probe(argv: list[str]) -> int:

    from ..units import parse_size

    p = Parser(prog="nicsim probe", description=probe_doc.split("\n\n")[0])
    p.add_argument("--out", type=out_file(".csv", example="mine"), help="reference file to write (CSV, the columns of nicsim validate --reference) from netperf or iperf3 runs")
    p.add_argument("--stream-sizes", default="1 KiB,16 KiB,64 KiB", help="TCP_STREAM send sizes (default 1 KiB,16 KiB,64 KiB)")
    p.add_argument("--rr-sizes", default="1 B,1 KiB", help="TCP_RR request and response sizes (default 1 B,1 KiB)")
    p.add_argument("--seconds", type=float, default=3.0, help="length of each run (default 3)")
    p.add_argument("--repeats", type=int, default=3, help="runs per point; the median is written (default 3)")
    p.add_argument("--veth", action="store_true", help="also over a veth pair between two namespaces probe creates and removes (root)")
    p.add_argument("--perf", action="store_true", help="also record each run with perf record -a and write the kernel's copy, TCP/IP, "
                   "driver and OS shares as share.CATEGORY rows (when perf works)")
    p.add_argument("--host-out", type=out_file(".toml", example="host"),
                   help="measure the host's primitives in compiled code (copy bandwidths, system call, wake-ups, "
                   "memory latency, CPU count and clock; about 20 s, no netperf or iperf3) and write the configuration derived "
                   "from them (TOML extending modern-x86-loopback; rules in docs/real-host.md, hostfacts.py); alone, only this")
    a = p.parse_args(argv)
    if a.out is None and a.host_out is None:
        raise ConfigError("probe: give --out FILE (netperf or iperf3 rows), --host-out FILE (the host's primitives), or both")
    if not 0.2 <= a.seconds <= 600 or not 1 <= a.repeats <= 50:
        raise ConfigError("probe: --seconds 0.2 to 600 and --repeats 1 to 50")
    for arg, path in (("--out", a.out), ("--host-out", a.host_out)):
        if path is not None and (Path(path).is_dir() or not Path(path).parent.exists()):
            raise ConfigError(f"probe {arg}: {path!r} cannot be written (a directory, or its folder does not exist)")

    def sizes(text: str, arg: str) -> list[int]:
        try:
            return [int(parse_size(x.strip())) for x in text.split(",") if x.strip()]
        except (ValueError, ConfigError):
            raise ConfigError(f"probe {arg}: {text!r} is not a list of sizes such as '1 KiB,64 KiB'") from None

    stream, rr = sizes(a.stream_sizes, "--stream-sizes"), sizes(a.rr_sizes, "--rr-sizes")
    if a.out is not None:
        rows = probe(stream, rr, a.seconds, a.repeats, a.veth, perf=a.perf)
        write_rows(rows, a.out)
        for r in rows:
            print(f"{r['id']:<40} {r['value']:>12} ± {r['tolerance']:<5} {r['source']}")
        print(f"# {len(rows)} rows written to {a.out}")
    if a.host_out:
        from ..host.hostfacts import write_host

        write_host(a.host_out, PRESETS["lo"])
    return 0
