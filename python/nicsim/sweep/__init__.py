"""Design-space sweeps: a grid of configurations run on a local process pool or a Dask
cluster, each finished point stored at once in a SQLite result store, skipped when the sweep
is run again. `docs/sweeps.md` is the guide.

    import nicsim.sweep
    df = nicsim.sweep.sweep("ortiz2008-offload",
                            {"nic_cpu.speed_fraction": "0.25,1", "workload.netpipe.max_bytes": "log:1KiB:64KiB:4"},
                            sets={"workload.netpipe.target_ps": "5 ms"}, store="speeds.sqlite")
    long = nicsim.sweep.explode_points(df)      # one row per point and message size

The module itself is callable, so `nicsim.sweep(...)` works as `nicsim.sweep.sweep(...)` once
`nicsim.sweep` has been imported.
"""
from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from ..errors import ConfigError
from .grid import Point, build_points, expand, parse_grid_arg, parse_values, point_key
from .store import Store, export

__all__ = ["sweep", "run_sweep", "explode_points", "processor_frame", "Store", "export", "build_points",
           "parse_values", "parse_grid_arg", "expand", "point_key", "Point", "SweepOutcome"]


class SweepOutcome:
    """What a sweep did: points in the grid, skipped (already stored), ran, ok, failed."""

    def __init__(self, points: list[Point], skipped: int, run_id: str, store: Path):
        self.points = points
        self.skipped = skipped
        self.ran = self.ok = self.failed = 0
        self.run_id = run_id
        self.store = store
        self.wall_s = 0.0

    def __repr__(self) -> str:
        return (f"SweepOutcome(points={len(self.points)}, skipped={self.skipped}, ran={self.ran}, "
                f"ok={self.ok}, failed={self.failed}, wall_s={self.wall_s:.2f})")


def _grid_values(grid: Mapping[str, Any], benchmark: str) -> dict[str, list]:
    out = {}
    for k, v in grid.items():
        try:
            out[k] = parse_values(k, v, benchmark) if isinstance(v, str) else list(v)
        except ConfigError as e:
            raise ConfigError(f"grid {k}={v!r}: {e}") from None
        if not out[k]:
            raise ConfigError(f"grid {k}: no values")
    return out


def run_sweep(config: Any, grid: Mapping[str, Any], store: str | Path, *, zip: bool = False,
              benchmark: str | None = None, sets: Mapping[str, Any] | None = None, workers: int | None = None,
              dask: Any = None, progress: bool = True, retries: int = 2, spec_extra: dict | None = None) -> SweepOutcome:
    """Validates every point, skips those already stored, runs the rest and stores each as it
    finishes. `grid` maps a key to a VALUES string (`grid.py` grammar) or a list of values."""
    from .runner import dask_client, default_workers, run_dask, run_local

    if benchmark is None and any(k in ("gamma", "a", "msg_size", "duration") for k in grid):
        benchmark = "hpcbench"
    values = _grid_values(grid, benchmark or "netpipe")
    points = build_points(config, values, zip_=zip, benchmark=benchmark, sets=sets)
    workers = workers or default_workers()
    if workers < 1:
        raise ConfigError(f"workers must be at least 1, got {workers}")
    st = Store(store)
    try:
        done = st.keys("ok")
        todo = [p for p in points if p.key not in done]
        executor = f"dask:{dask if isinstance(dask, str) else 'client'}" if dask is not None else f"local:{workers}"
        spec = {"config": config if isinstance(config, (str, dict)) or config is None else str(config),
                "grid": {k: [str(x) for x in v] for k, v in values.items()}, "zip": zip,
                "benchmark": points[0].benchmark if points else benchmark, "sets": dict(sets or {}), **(spec_extra or {})}
        client = cluster = None
        if todo and dask is not None:  # connect before the run is recorded and the bar starts
            client, cluster = dask_client(dask, workers)
        run_id = st.begin_run(executor, spec, len(points), len(points) - len(todo))
        out = SweepOutcome(points, len(points) - len(todo), run_id, Path(store))
        bar = None
        if progress and todo:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(todo), unit="pt", desc="sweep", file=sys.stderr, dynamic_ncols=True,
                       postfix="ok=0 failed=0")

        def on_done(p: Point, rec: dict, attempts: int) -> None:
            st.put(p, rec, run_id, attempts)
            out.ran += 1
            if rec["status"] == "ok":
                out.ok += 1
            else:
                out.failed += 1
                if bar is not None:
                    bar.write(f"point {p.index} ({', '.join(f'{k}={v}' for k, v in p.params.items())}) failed: {rec['error']}", file=sys.stderr)
            if bar is not None:
                bar.set_postfix_str(f"ok={out.ok} failed={out.failed}", refresh=False)
                bar.update(1)

        t0 = time.perf_counter()
        try:
            if todo:
                if client is not None:
                    run_dask(todo, client, on_done)
                else:
                    run_local(todo, min(workers, len(todo)), on_done, retries=retries)
        finally:
            if client is not None and client is not dask:
                client.close()
            if cluster is not None:
                cluster.close()
            if bar is not None:
                bar.close()
            out.wall_s = time.perf_counter() - t0
            st.end_run(run_id, out.ran, out.ok, out.failed)
        return out
    finally:
        st.close()


def sweep(config: Any, grid: Mapping[str, Any], *, store: str | Path | None = None, zip: bool = False,
          benchmark: str | None = None, sets: Mapping[str, Any] | None = None, workers: int | None = None,
          dask: Any = None, progress: bool = True, retries: int = 2) -> pd.DataFrame:
    """Runs a sweep (see `run_sweep`) and returns a DataFrame, one row per point in grid order:
    `key`, `placement` (node1's resolved placement name), `status`, `error`, every swept key
    as a column (base units; a swept `placement` as given, in `placement_grid`), then the benchmark's scalar outputs (NetPIPE: `latency_us`,
    `peak_throughput_mbps`, `saturation_bytes`, ...). Without `store`, results go to a
    temporary store removed at exit. `dask` is 'local', an address or a `distributed.Client`.
    `df.attrs['store']` names the store, which `explode_points` reads."""
    if store is None:
        tmp = tempfile.mkdtemp(prefix="nicsim-sweep-")
        atexit.register(shutil.rmtree, tmp, True)
        store = Path(tmp) / "sweep.sqlite"
    out = run_sweep(config, grid, store, zip=zip, benchmark=benchmark, sets=sets, workers=workers, dask=dask,
                    progress=progress, retries=retries)
    with Store(store, readonly=True) as st:
        df = st.frame([p.key for p in out.points])
    df.attrs["outcome"] = repr(out)
    return df


def _source_rows(source: pd.DataFrame | str | Path):
    if isinstance(source, pd.DataFrame):
        path, keys = source.attrs.get("store"), list(source["key"])
        if path is None:
            raise ConfigError("this DataFrame does not name its store (df.attrs['store']); pass the store path")
        base = source
    else:
        path, keys = source, None
        with Store(path, readonly=True) as st:
            base = st.frame()
    return path, keys, base


def explode_points(source: pd.DataFrame | str | Path) -> pd.DataFrame:
    """NetPIPE points in long form: one row per stored point and message size, with the
    point's swept keys and `placement`, then `size_bytes`, `repetitions`, `time_us`,
    `latency_us`, `throughput_mbps`, `throughput_netpipe_mbps`. `source` is a DataFrame from
    `sweep()` or a store path."""
    path, keys, base = _source_rows(source)
    swept = [c for c in base.attrs.get("swept", []) if c in base.columns]
    info = base.set_index("key")[["placement", *swept]]
    rows = []
    with Store(path, readonly=True) as st:
        for key, res in st.results(keys):
            if "points" not in res or key not in info.index:
                continue
            meta = info.loc[key].to_dict()
            for p in res["points"]:
                rows.append({"key": key, **meta, **{k: p[k] for k in ("size_bytes", "repetitions", "time_us", "latency_us", "throughput_mbps", "throughput_netpipe_mbps") if k in p}})
    return pd.DataFrame(rows)


def processor_frame(source: pd.DataFrame | str | Path) -> pd.DataFrame:
    """Per-processor figures in long form: one row per stored point, message size (NetPIPE;
    NaN for Hpcbench) and processor, with `utilisation`, `busy_<category>` (fractions of the
    window), `irq_per_s`, `nic_irq_per_s`, `ipi_per_s`."""
    path, keys, base = _source_rows(source)
    swept = [c for c in base.attrs.get("swept", []) if c in base.columns]
    info = base.set_index("key")[["placement", *swept]]
    rows = []

    def add(key, meta, size, procs):
        for name, pr in procs.items():
            r = {"key": key, **meta, "size_bytes": size, "processor": name, "utilisation": pr.get("utilisation")}
            r.update({f"busy_{c}": v for c, v in (pr.get("busy") or {}).items()})
            r.update({k: pr.get(k) for k in ("irq_per_s", "nic_irq_per_s", "ipi_per_s")})
            rows.append(r)

    with Store(path, readonly=True) as st:
        for key, res in st.results(keys):
            if key not in info.index:
                continue
            meta = info.loc[key].to_dict()
            if "points" in res:
                for p in res["points"]:
                    add(key, meta, p["size_bytes"], p["processors"])
            elif "hpcbench" in res:
                add(key, meta, float("nan"), res["hpcbench"].get("processors", {}))
    return pd.DataFrame(rows)


class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
