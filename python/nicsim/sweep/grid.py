"""Grids: parse `KEY=VALUES`, expand several of them into points (cartesian product or zip),
and validate every point before anything runs.

VALUES grammar (docs/sweeps.md):

* a list, `100MHz,200MHz,400MHz` (separate with `;` instead when a value itself holds commas,
  as `workload.netpipe.sizes_bytes` does: `1KiB,4KiB;64KiB`);
* a linear range `START:STOP:STEP`, stop included when the steps land on it
  (`0:3.5:0.25` is 15 values; `100MHz:400MHz:100MHz` is 4);
* a log range `log:START:STOP:N`, N values spaced evenly in log between START and STOP, both
  included (`log:1KiB:1MiB:11` is the powers of two); for whole-number kinds (sizes, rates,
  frequencies, times, ints) each value is rounded to the nearest whole base unit.

Ends of ranges take the key's unit (`nicsim params`); values are handed to the configuration
resolver in base units, lists exactly as written.

Two keys are not parameters: `placement` takes preset names (`ortiz2008-offload`: the preset's
settings are laid over CONFIG) or placement names (`offload`: sets `placement.preset` and the
processors that placement needs, `cpu.count` and `nic_cpu.present`); and with
`--benchmark hpcbench`, `gamma` (and `a`, `msg_size`, `duration`) are arguments of
`nicsim.hpc.run_hpcbench`.
"""
from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from .. import units
from ..config import Resolved, flatten, load_preset, preset_names, resolve
from ..errors import ConfigError
from ..config.params import BY_KEY
from ..config.placements import NEEDS, PLACEMENTS

BENCHMARKS = ("netpipe", "hpcbench", "web", "netperf", "packet_gen")
# Benchmarks the core runs whole from a resolved configuration (Hpcbench is driven from Python).
CORE_RUN = ("netpipe", "web", "netperf", "packet_gen")
# Grid keys that are arguments of run_hpcbench, not configuration keys, and their kinds.
HPC_ARGS = {"gamma": "float", "a": "float", "msg_size": "size", "duration": "time"}
PLACEMENT_KEY = "placement"
_WHOLE = ("size", "rate", "freq", "time", "int")


@dataclass
class Point:
    """One point of a sweep, validated: what was swept (as written), the resolved
    configuration, and the content key it is stored under."""

    index: int
    params: dict[str, Any]  # swept key -> value as given on the grid
    values: dict[str, Any]  # swept key -> value in base units (what the DataFrame shows)
    benchmark: str
    resolved: Resolved
    bench_args: dict[str, Any] = field(default_factory=dict)
    source: Any = None  # config source for run_hpcbench (preset name or dict)
    sets: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return point_key(self.resolved, self.benchmark, self.bench_args)

    @property
    def placement(self) -> str:
        return self.resolved.core["placements"][1]["name"]

    def task(self) -> dict[str, Any]:
        """What a worker needs: plain data, no files (so remote Dask workers can run it)."""
        return {
            "index": self.index,
            "key": self.key,
            "benchmark": self.benchmark,
            "resolved": self.resolved if self.benchmark in CORE_RUN else None,
            "source": self.source,
            "sets": self.sets,
            "bench_args": self.bench_args,
        }


def point_key(resolved: Resolved, benchmark: str, bench_args: Mapping[str, Any]) -> str:
    """sha256 of the resolved configuration JSON and the simulator version (and, for
    benchmarks driven from Python such as Hpcbench's γ, the arguments)."""
    from ..api import VERSION

    text = resolved.to_json() + "\n" + VERSION
    if bench_args:
        text += "\n" + json.dumps({"benchmark": benchmark, "args": bench_args}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _kind(key: str, benchmark: str) -> str:
    if key == PLACEMENT_KEY:
        return "placement"
    if benchmark == "hpcbench" and key in HPC_ARGS:
        return HPC_ARGS[key]
    if key in BY_KEY:
        return BY_KEY[key].kind
    if key.startswith("costs."):
        return "float"
    near = difflib.get_close_matches(key, [*BY_KEY, PLACEMENT_KEY, *(HPC_ARGS if benchmark == "hpcbench" else ())], n=2)
    hint = f"; did you mean {' or '.join(near)}?" if near else "; run `nicsim params` to list the keys"
    extra = " (gamma, a, msg_size and duration are grid keys only with --benchmark hpcbench)" if key in HPC_ARGS else ""
    raise ConfigError(f"unknown key {key!r}{hint}{extra}")


def _endpoint(text: str, kind: str) -> float:
    text = text.strip()
    try:
        if kind in units.PARSERS:
            return float(units.PARSERS[kind](text))
        return float(text)
    except (units.UnitError, ValueError) as e:
        msg = str(e) if isinstance(e, units.UnitError) else f"{text!r} is not a number"
        raise ConfigError(f"range end {msg}") from None


def _finish(xs: Iterable[float], kind: str) -> list:
    if kind in _WHOLE:
        return [int(round(x)) for x in xs]
    return [round(x, 12) for x in xs]


def parse_values(key: str, text: str, benchmark: str = "netpipe") -> list:
    """The values of one grid key (grammar in the module docstring)."""
    kind = _kind(key, benchmark)
    text = text.strip()
    if not text:
        raise ConfigError("no values")
    if kind not in ("placement", "choice", "bool", "sizes") and text.startswith("log:"):
        parts = text[4:].split(":")
        if len(parts) != 3:
            raise ConfigError(f"{text!r}: a log range is log:START:STOP:N, e.g. log:1KiB:1MiB:11")
        lo, hi = _endpoint(parts[0], kind), _endpoint(parts[1], kind)
        try:
            n = int(parts[2])
        except ValueError:
            raise ConfigError(f"{text!r}: N must be a whole number of values, got {parts[2]!r}") from None
        if lo <= 0 or hi <= 0:
            raise ConfigError(f"{text!r}: log range ends must be greater than 0")
        if n < 1 or (n == 1 and lo != hi):
            raise ConfigError(f"{text!r}: N must be at least 2 (or 1 with START = STOP)")
        if n == 1:
            return _finish([lo], kind)
        step = (math.log(hi) - math.log(lo)) / (n - 1)
        vals = _finish([math.exp(math.log(lo) + i * step) for i in range(n)], kind)
        return list(dict.fromkeys(vals))  # rounding to whole units may merge neighbours
    if kind not in ("placement", "choice", "bool", "sizes") and text.count(":") == 2:
        a, b, s = (_endpoint(x, kind) for x in text.split(":"))
        if s <= 0:
            raise ConfigError(f"{text!r}: a range's step must be greater than 0 (START:STOP:STEP)")
        if b < a:
            raise ConfigError(f"{text!r}: a range's STOP must not be below its START (START:STOP:STEP)")
        n = int(math.floor((b - a) / s + 1e-9)) + 1
        if n > 1_000_000:
            raise ConfigError(f"{text!r}: {n} values is too many for one key")
        return _finish([a + i * s for i in range(n)], kind)
    if kind not in ("placement", "choice", "bool", "sizes") and ":" in text:
        raise ConfigError(f"{text!r}: a range is START:STOP:STEP (e.g. 0:3.5:0.25) or log:START:STOP:N")
    sep = ";" if ";" in text else ","
    vals = [v.strip() for v in text.split(sep)]
    if any(not v for v in vals):
        raise ConfigError(f"{text!r}: empty value in the list")
    if kind in HPC_ARGS.values() and key in HPC_ARGS and benchmark == "hpcbench" and kind == "float":
        try:
            return [float(v) for v in vals]
        except ValueError:
            raise ConfigError(f"{text!r}: {key} takes numbers") from None
    return vals


def parse_grid_arg(arg: str, benchmark: str = "netpipe") -> tuple[str, list]:
    """`KEY=VALUES` -> (key, values); errors name the argument."""
    if "=" not in arg:
        raise ConfigError(f"--grid {arg!r}: expected KEY=VALUES, e.g. --grid nic_cpu.speed_fraction=0.25,0.5,1")
    key, text = (s.strip() for s in arg.split("=", 1))
    try:
        return key, parse_values(key, text, benchmark)
    except ConfigError as e:
        raise ConfigError(f"--grid {arg!r}: {e}") from None


def expand(grid: Mapping[str, list], zip_: bool = False) -> list[dict[str, Any]]:
    """Grid -> list of {key: value}: the cartesian product, or with `zip_` the i-th values
    taken together (all lists must then have the same length)."""
    keys = list(grid)
    if not keys:
        return [{}]
    lists = [list(grid[k]) for k in keys]
    if zip_:
        lens = {k: len(v) for k, v in zip(keys, lists)}
        if len(set(lens.values())) > 1:
            raise ConfigError("--zip needs the same number of values for every --grid key; got " + ", ".join(f"{k}: {n}" for k, n in lens.items()))
        combos = zip(*lists)
    else:
        combos = itertools.product(*lists)
    return [dict(zip(keys, c)) for c in combos]


def normalise_source(config: Any) -> Any:
    """A preset name, None or a dict as is; a TOML file read into a dict, so that a point
    carries its whole configuration and needs no file on a remote worker."""
    if config is None or isinstance(config, dict):
        return config
    s = str(config)
    path = Path(s)
    if s.endswith(".toml") or path.exists():
        from ..config.tomlfile import read_toml

        doc = read_toml(path)
        doc.pop("description", None)
        return doc
    load_preset(s)  # raises with the list of presets
    return s


def _placement_sets(value: str, base_values: dict[str, Any]) -> dict[str, Any]:
    if value in preset_names():
        doc = load_preset(value)
        doc.pop("description", None)
        return flatten(doc)
    if value in PLACEMENTS:
        need = NEEDS[value]
        out: dict[str, Any] = {"placement.preset": value}
        if base_values["cpu.count"] < need["cpus"]:
            out["cpu.count"] = need["cpus"]
        if need["nic_cpu"]:
            out["nic_cpu.present"] = True
        return out
    raise ConfigError(f"{value!r} is neither a preset ({', '.join(preset_names())}) nor a placement ({', '.join(PLACEMENTS)})")


def _column_value(key: str, raw: Any, resolved: Resolved, bench_args: dict) -> Any:
    if key == PLACEMENT_KEY:
        return str(raw)
    if key in bench_args:
        return bench_args[key]
    if key in resolved.values:
        v = resolved.values[key]
        return ",".join(str(x) for x in v) if isinstance(v, list) else v
    if key.startswith("costs."):
        parts = key.split(".")
        return resolved.costs["scale"][parts[2]] if parts[1] == "scale" else resolved.costs["stages"][parts[1]][parts[2]]
    return raw


def build_points(config: Any, grid: Mapping[str, list], *, zip_: bool = False, benchmark: str | None = None,
                 sets: Mapping[str, Any] | None = None) -> list[Point]:
    """Every point of the sweep, each resolved; the first bad one raises a ConfigError naming
    the point (its index and swept values) and the key, before anything has run."""
    source = normalise_source(config)
    fixed = dict(sets or {})
    base = resolve(source, fixed)  # a bad CONFIG or --set fails here, before any point
    if benchmark is None:
        benchmark = base.values["workload.kind"]
    if benchmark not in BENCHMARKS:
        raise ConfigError(f"--benchmark {benchmark!r}: choose {', '.join(BENCHMARKS)}")
    fixed["workload.kind"] = benchmark
    points = []
    seen: dict[str, int] = {}
    for i, combo in enumerate(expand(grid, zip_)):
        where = f"point {i} ({', '.join(f'{k}={v}' for k, v in combo.items())})"
        point_sets = dict(fixed)
        bench_args: dict[str, Any] = {}
        try:
            if PLACEMENT_KEY in combo:
                point_sets = {**_placement_sets(str(combo[PLACEMENT_KEY]), base.values), **point_sets}
            for k, v in combo.items():
                if k == PLACEMENT_KEY:
                    continue
                if benchmark == "hpcbench" and k in HPC_ARGS:
                    if k == "gamma" and float(v) < 0:
                        raise ConfigError(f"gamma: {v!r} must be at least 0")
                    bench_args[k] = v
                else:
                    point_sets[k] = v
            r = resolve(source, point_sets)
        except ConfigError as e:
            raise ConfigError(f"{where}: {e}") from None
        values = {k: _column_value(k, v, r, bench_args) for k, v in combo.items()}
        p = Point(i, dict(combo), values, benchmark, r, bench_args, source, point_sets)
        if p.key in seen:  # two grid values that resolve alike (e.g. '1 KiB' and '1024 B')
            raise ConfigError(f"{where} resolves to the same configuration as point {seen[p.key]}; remove the duplicate value")
        seen[p.key] = i
        points.append(p)
    return points
