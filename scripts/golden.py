#!/usr/bin/env python3
"""Golden outputs: readable text tables of the headline runs, one file per run.

    python3 scripts/golden.py           # rewrite tests/golden/
    python3 scripts/golden.py --check   # diff against tests/golden/ (exit 1 on a difference)

A structural change keeps these byte-identical; an intended change of results regenerates
them in a commit of its own that says why. Windows are short: these pin behaviour, not figures.
"""
from __future__ import annotations

import difflib
import sys
from pathlib import Path

from nicsim import api, hpc

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
PLACEMENTS = ("base", "offload", "onload", "hybrid")
SIZES = "1 B,4 KiB,64 KiB,1 MiB"
SIZE_LABELS = ("1 B", "4 KiB", "64 KiB", "1 MiB")
GEN_RATES_PPS = (50_000, 150_000, 400_000)


def _fmt(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.6f}"
    return "-" if v is None else str(v)


def _flatten(d: dict, prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    for k in sorted(d):
        v = d[k]
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        elif not isinstance(v, (list, str)):
            out[key] = v
    return out


def _table(title: str, columns: list[str], rows: list[dict[str, object]]) -> str:
    """One metric per line, one column per run point; every numeric leaf of the result."""
    keys = sorted(set().union(*(r.keys() for r in rows)))
    w = max(len(k) for k in keys)
    cells = [[_fmt(r.get(k)) for r in rows] for k in keys]
    cw = [max(len(columns[i]), *(len(c[i]) for c in cells)) for i in range(len(columns))]
    head = "metric".ljust(w) + "".join("  " + c.rjust(cw[i]) for i, c in enumerate(columns))
    lines = [f"# {title}", head]
    lines += [k.ljust(w) + "".join("  " + c[i].rjust(cw[i]) for i in range(len(c))) for k, c in zip(keys, cells)]
    return "\n".join(lines) + "\n"


def _common(res: dict) -> dict[str, object]:
    return _flatten({"conservation": res["conservation"], "simulator": {"events": res["simulator"]["events"]}})


def netpipe(placement: str, mode: str) -> str:
    res = api.run(f"ortiz2008-{placement}", {
        "workload.netpipe.mode": mode,
        "workload.netpipe.target_ps": "5 ms",
        "workload.netpipe.sizes_bytes": SIZES,
    })
    rows = [_flatten(p) for p in res["points"]]
    rows[-1].update(_common(res))
    return _table(f"ortiz2008-{placement}: NetPIPE {mode}, 5 ms per point (conservation and events: whole run, last column)",
                  list(SIZE_LABELS), rows)


def hpcbench(placement: str) -> str:
    res = hpc.run_hpcbench(f"ortiz2008-{placement}", {"workload.hpcbench.warmup_ps": "10 ms"},
                           gamma=1.0, msg_size="256 KiB", duration="40 ms")
    row = _flatten(res["hpcbench"]) | _flatten({"laws": res["laws"]}) | _common(res)
    return _table(f"ortiz2008-{placement}: Hpcbench, gamma 1, 256 KiB messages, 40 ms window", ["value"], [row])


def packet_gen(rx_notify: str) -> str:
    rows, cols = [], []
    for rate in GEN_RATES_PPS:
        res = api.run("ortiz2008-base", {
            "workload.kind": "packet_gen",
            "workload.packet_gen.rate_pps": rate,
            "workload.packet_gen.duration_ps": "10 ms",
            "workload.packet_gen.warmup_ps": "2 ms",
            "nic.rx_notify": rx_notify,
        })
        rows.append(_flatten(res["packet_gen"]) | _common(res))
        cols.append(f"{rate} pps")
    return _table(f"ortiz2008-base: packet generator, 64 B frames, 10 ms window, rx_notify = {rx_notify}", cols, rows)


def runs() -> dict[str, callable]:
    out = {}
    for p in PLACEMENTS:
        for m in ("stream", "pingpong"):
            out[f"netpipe-{p}-{m}.txt"] = lambda p=p, m=m: netpipe(p, m)
        out[f"hpcbench-{p}.txt"] = lambda p=p: hpcbench(p)
    for n in ("napi", "interrupt"):
        out[f"packet-gen-{n}.txt"] = lambda n=n: packet_gen(n)
    return out


def check() -> list[str]:
    """The files whose fresh output differs from the frozen one, with a unified diff each."""
    diffs = []
    for name, make in runs().items():
        path = GOLDEN / name
        fresh = make()
        frozen = path.read_text() if path.exists() else ""
        if fresh != frozen:
            d = difflib.unified_diff(frozen.splitlines(), fresh.splitlines(), f"frozen/{name}", f"fresh/{name}", lineterm="", n=0)
            diffs.append("\n".join(list(d)[:40]))
    return diffs


def main(argv: list[str]) -> int:
    if argv[1:] == ["--check"]:
        diffs = check()
        for d in diffs:
            print(d)
        print(f"{len(diffs)} golden file(s) differ" if diffs else "golden outputs identical")
        return 1 if diffs else 0
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, make in runs().items():
        (GOLDEN / name).write_text(make())
    print(f"wrote {len(runs())} files to {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
