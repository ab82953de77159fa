"""The ILP access method's cost model (stacks.md §B.6, Roca 1996): separate copy and checksum
against the fused copy+checksum, measured on the 41.7 MHz POWER under AIX 4.1.2.

The six equations are the thesis's fitted lines, in µs with n in bytes; they are inputs, not
nicsim's simulation (which prices each stage's instructions at its IPC, `roca1996-power`).
A fused call covers one system buffer, so a block larger than the largest buffer pays the
fused call's fixed cost again per extra buffer (§B.6, "each extra buffer adds 11.5 µs"); a
checksum covers one segment, so the block is also at most one MSS.
"""
from __future__ import annotations

import math

# (fixed µs, µs per byte) of each line, §B.6 eqs. (1)-(6).
COPY = (3.5, 0.0213)             # (1) copy user -> kernel
CKSUM = (7.5, 0.0286)            # (2) TCP checksum in C, over 40 + n bytes
PSEUDO_HEADER_BYTES = 40
SEPARATE = (12.1, 0.0499)        # (3) = (1) + (2), as the thesis rounds it
FUSED = (11.5, 0.0261)           # (4) fused copy+checksum, assembly routine
PSEUDO_HEADER_US = 10.0          # (5) the TCP pseudo-header, added to a fused partial sum
ILP = (21.5, 0.0261)             # (6) = (4) + (5)
# The traced values eqs. (2) and (4) are checked against (§B.9: 1024 B).
TRACED_1024_US = {"cksum": 37.0, "fused": 38.0}


def _line(coef: tuple[float, float], n: float) -> float:
    if n < 0 or not math.isfinite(n):
        raise ValueError(f"size must be a finite number of bytes >= 0; got {n!r}")
    return coef[0] + coef[1] * n


def t_copy(n: float) -> float:
    return _line(COPY, n)


def t_cksum(n: float) -> float:
    return _line(CKSUM, PSEUDO_HEADER_BYTES + n)


def t_sep(n: float) -> float:
    return _line(SEPARATE, n)


def t_fused(n: float) -> float:
    return _line(FUSED, n)


def t_ilp(n: float, max_buffer_bytes: float = math.inf) -> float:
    """Eq. (6), plus the fused call's fixed cost for each buffer beyond the first when the
    block is larger than the largest system buffer."""
    extra = max(0, math.ceil(n / max_buffer_bytes) - 1) if n > 0 else 0
    return _line(ILP, n) + extra * FUSED[0]


def break_even_bytes() -> float:
    """Where the fused method starts to win: (21.5 − 12.1) / (0.0499 − 0.0261), about 395 B."""
    return (ILP[0] - SEPARATE[0]) / (SEPARATE[1] - ILP[1])


def table(sizes_bytes, max_buffer_bytes: float = math.inf) -> list[dict]:
    """Separate against fused at each size: times, the fused method's gain, and which wins."""
    rows = []
    for n in sizes_bytes:
        sep, ilp = t_sep(n), t_ilp(n, max_buffer_bytes)
        rows.append({"tsdu_bytes": int(n), "separate_us": sep, "fused_us": ilp,
                     "gain": sep / ilp, "fused_wins": ilp < sep})
    return rows
