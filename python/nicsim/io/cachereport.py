"""Mode B's cache counts as text (host-path §4.3): per host processor the read and write hit
rates of each level, L2 misses and write-backs, coherence transfers, and DMA's effect on the
caches per node. The core counts; this only lays out what it reported for one window."""
from __future__ import annotations

COLUMNS = (("L1I rd", "l1i", "read_hit_rate"), ("L1D rd", "l1d", "read_hit_rate"),
           ("L1D wr", "l1d", "write_hit_rate"), ("L2 rd", "l2", "read_hit_rate"),
           ("L2 wr", "l2", "write_hit_rate"))


def _rate(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def cache_lines(processors: dict, nodes: dict) -> list[str]:
    """Hit-rate table rows for the processors that have caches (empty in mode A)."""
    cached = {k: p["cache"] for k, p in processors.items() if "cache" in p}
    if not cached:
        return []
    head = f"{'processor':<14}" + "".join(f" {c[0]:>7}" for c in COLUMNS)
    out = [head + f" {'L2 miss':>9} {'wr-back':>8} {'coh.xfer':>8}"]
    for k, c in cached.items():
        row = f"{k:<14}" + "".join(f" {_rate(c[lvl].get(key)):>7}" for _, lvl, key in COLUMNS)
        l2 = c["l2"]
        xfer = processors[k].get("coherence", {}).get("transfers", 0)
        out.append(row + f" {l2['read_misses'] + l2['write_misses']:>9,} {l2['writebacks']:>8,} {xfer:>8,}")
    for name, n in nodes.items():
        d = n.get("dma_cache")
        if d:
            out.append(f"DMA {name}: {d['lines_written']:,} lines written, {d['invalidations']:,} cached copies "
                       f"invalidated, {d['allocations']:,} allocated, {d['read_snoops']:,} read from a cache")
    return out


def print_caches(title: str, processors: dict, nodes: dict) -> None:
    lines = cache_lines(processors, nodes)
    if lines:
        print(f"\n{title}")
        print("\n".join(lines))
