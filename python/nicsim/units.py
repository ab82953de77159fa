"""Units at the edge: parse what a person writes ("400 MHz", "64 KiB", "1 Gbps", "80 ns")
into integers in base units (Hz, bytes, bit/s, picoseconds), and format them back.

Grammar (docs/configuration.md, "Unit grammar"): `b` is a bit and `B` a byte. Rates and frequencies take SI prefixes
(k, M, G, T). Sizes take IEC prefixes (KiB, MiB, GiB) or plain B; `kB`, `KB` and `MB` are
rejected so nobody has to guess whether they meant 10^3 or 2^10. Times are ps, ns, us (or µs),
ms or s. A bare number (`9000`, `1e9`) is already in base units.
"""
from __future__ import annotations

import math
import re

SI = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
IEC = {"": 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
# µs is the micro sign (U+00B5), μs the Greek mu (U+03BC): people type both.
TIME_PS = {"ps": 1, "ns": 10**3, "us": 10**6, "µs": 10**6, "μs": 10**6, "ms": 10**9, "s": 10**12}

_NUM = r"\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*"


class UnitError(ValueError):
    """A value that is not of the expected unit kind; the message says what is allowed."""


def _split(text: str) -> tuple[float, str]:
    m = re.fullmatch(_NUM + r"(\S*)\s*", text)
    if not m:
        raise UnitError(f"{text!r} is not a number with a unit")
    return float(m.group(1)), m.group(2)


def _integral(value: float, text: str, what: str) -> int:
    if not math.isfinite(value):
        raise UnitError(f"{text!r} is not a finite number of {what}")
    r = round(value)
    if not math.isclose(value, r, rel_tol=1e-9, abs_tol=1e-9):
        raise UnitError(f"{text!r} is not a whole number of {what}")
    return int(r)


def _parse(v, what: str, scale_of, base: str, example: str) -> int:
    """An int passes as base units; a string is a number and a unit that `scale_of` maps to a
    multiplier (None: not this kind of unit)."""
    if isinstance(v, bool):
        raise UnitError(f"{v!r} is not a {what}")
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().isdigit():
        return int(v)  # a bare integer is already in base units, as the key's name says
    x, unit = _split(str(v))
    if x < 0:
        raise UnitError(f"{v!r} is negative; a {what} is at least 0")
    # A bare number ('1e9', '2.5e6') is in base units, like a bare integer.
    scale = 1 if unit == "" else scale_of(unit, v)
    if scale is None:
        raise UnitError(f"{v!r} is not a {what}; expected e.g. {example}")
    return _integral(x * scale, str(v), base)


def _size_scale(unit: str, v) -> int | None:
    if unit in ("kB", "KB", "MB", "GB", "mB"):
        raise UnitError(f"{v!r}: sizes take IEC prefixes (KiB, MiB, GiB); write e.g. '64 KiB'")
    m = re.fullmatch(r"(Ki|Mi|Gi|Ti|)B", unit)
    return IEC[m.group(1)] if m else None


def _rate_scale(unit: str, _v) -> int | None:
    """Bits or bytes per second with an SI (k, M, G, T; K for k) or IEC (Ki, Mi, Gi, Ti)
    prefix: '10 Gbps', '10 Gb/s', '10 Gbit/s', '1.25 GB/s', '1 GiB/s', '100 Mibit/s'."""
    m = re.fullmatch(r"(?:([kKMGT])(i?))?(bps|b/s|bit/s|bits/s|Bps|B/s)", unit)
    if not m:
        return None
    prefix, iec, per = (m.group(1) or "").replace("K", "k"), m.group(2), m.group(3)
    scale = IEC[prefix.upper() + "i"] if iec else SI[prefix]
    return scale * (8 if per in ("Bps", "B/s") else 1)


def _freq_scale(unit: str, _v) -> int | None:
    m = re.fullmatch(r"([kMGT]?)Hz", unit)
    return SI[m.group(1)] if m else None


def parse_size(v) -> int:
    """Bytes from '64 KiB', '9000 B', '2 MiB' or an int."""
    return _parse(v, "size", _size_scale, "bytes", "'9000 B', '64 KiB' or '2 MiB'")


def parse_rate(v) -> int:
    """bit/s from '1 Gbps', '2.12 Gb/s', '125 MB/s' or an int."""
    return _parse(v, "bit rate", _rate_scale, "bit/s", "'1 Gbps', '2.12 Gb/s' or '125 MB/s'")


def parse_freq(v) -> int:
    """Hz from '400 MHz', '1.73 GHz' or an int."""
    return _parse(v, "frequency", _freq_scale, "Hz", "'400 MHz' or '1.73 GHz'")


def parse_time(v) -> int:
    """Picoseconds from '80 ns', '2 s', '40 ms' or an int."""
    return _parse(v, "time", lambda u, _v: TIME_PS.get(u), "picoseconds", "'500 ns', '72 us', '40 ms' or '2 s'")


def _fmt(value: int, table: dict[str, int], suffix: str) -> str:
    for prefix, scale in sorted(table.items(), key=lambda kv: -kv[1]):
        if value and value % scale == 0:
            return f"{value // scale} {prefix}{suffix}"
    return f"{value} {suffix}"


def format_size(b: int) -> str:
    return _fmt(b, IEC, "B")


def format_rate(bps: int) -> str:
    return _fmt(bps, SI, "bps")


def format_freq(hz: int) -> str:
    return _fmt(hz, SI, "Hz")


def format_time(ps: int) -> str:
    for unit in ("s", "ms", "us", "ns"):
        if ps and ps % TIME_PS[unit] == 0:
            return f"{ps // TIME_PS[unit]} {unit}"
    return f"{ps} ps"


PARSERS = {"size": parse_size, "rate": parse_rate, "freq": parse_freq, "time": parse_time}
FORMATTERS = {"size": format_size, "rate": format_rate, "freq": format_freq, "time": format_time}
