"""The result store: one SQLite file in WAL mode, one row per point keyed by the sha256 of its
resolved configuration and the simulator version (`grid.point_key`).

Only the process that runs a sweep writes, one transaction per finished point with
`synchronous=FULL`, so a kill at any moment (even `kill -9`) loses no point whose transaction
committed and leaves a store any SQLite reader opens. Readers (a report, a notebook) can read
while a sweep writes.
"""
from __future__ import annotations

import datetime as _dt
import json
import sqlite3
import uuid
import zlib
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS points (
    key TEXT PRIMARY KEY,          -- sha256(resolved config JSON + version [+ benchmark args])
    status TEXT NOT NULL,          -- 'ok' or 'failed'
    benchmark TEXT NOT NULL,
    placement TEXT,                -- node1's placement name, as in the core's report
    params TEXT NOT NULL,          -- JSON: swept key -> value as written on the grid
    vals TEXT NOT NULL,            -- JSON: swept key -> value in base units
    summary TEXT NOT NULL,         -- JSON: scalar outputs
    result BLOB,                   -- zlib-compressed JSON result document (NULL if failed)
    config TEXT NOT NULL,          -- resolved configuration JSON (what the core ran)
    error TEXT,
    attempts INTEGER NOT NULL,
    point_index INTEGER,
    run_id TEXT NOT NULL,
    wall_s REAL,
    finished_at TEXT NOT NULL,
    nicsim_version TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    executor TEXT,
    spec TEXT,                     -- JSON: config, grid, zip, benchmark, sets
    n_points INTEGER, n_skipped INTEGER, n_ran INTEGER, n_ok INTEGER, n_failed INTEGER
);
"""


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


class Store:
    """A sweep result store at `path` (created if missing)."""

    def __init__(self, path: str | Path, *, readonly: bool = False):
        self.path = Path(path)
        if readonly:
            if not self.path.exists():
                from ..errors import ConfigError

                raise ConfigError(f"store {str(path)!r} not found")
            self.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30)
        else:
            if not self.path.parent.is_dir():
                from ..errors import ConfigError

                raise ConfigError(f"--out {path}: the folder {self.path.parent} does not exist; create it first")
            self.conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.executescript(_SCHEMA)
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        try:
            self.conn.execute("SELECT count(*) FROM points").fetchone()
        except sqlite3.DatabaseError as e:
            from ..errors import ConfigError

            raise ConfigError(f"{str(path)!r} is not a nicsim sweep store ({e})") from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- writing ---------------------------------------------------------------------------

    def begin_run(self, executor: str, spec: dict[str, Any], n_points: int, n_skipped: int) -> str:
        run_id = uuid.uuid4().hex[:12]
        self.conn.execute("INSERT INTO runs (run_id, started_at, executor, spec, n_points, n_skipped, n_ran, n_ok, n_failed) VALUES (?,?,?,?,?,?,0,0,0)",
                          (run_id, _now(), executor, json.dumps(spec, sort_keys=True, default=str), n_points, n_skipped))
        return run_id

    def end_run(self, run_id: str, n_ran: int, n_ok: int, n_failed: int) -> None:
        self.conn.execute("UPDATE runs SET finished_at=?, n_ran=?, n_ok=?, n_failed=? WHERE run_id=?", (_now(), n_ran, n_ok, n_failed, run_id))

    def put(self, point, record: dict[str, Any], run_id: str, attempts: int = 1) -> None:
        """Stores one finished point in its own transaction (replacing an earlier failure)."""
        from ..api import VERSION

        blob = zlib.compress(record["result"].encode(), 6) if record.get("result") is not None else None
        row = (point.key, record["status"], point.benchmark, point.placement,
               json.dumps(point.params, sort_keys=False, default=str), json.dumps(point.values, default=str),
               json.dumps(record.get("summary") or {}, sort_keys=True, allow_nan=True), blob, point.resolved.to_json(),
               record.get("error"), attempts, point.index, run_id, record.get("wall_s"), _now(), VERSION)
        with self.conn:  # BEGIN ... COMMIT; rolled back on error
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("INSERT OR REPLACE INTO points VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)

    # --- reading ---------------------------------------------------------------------------

    def keys(self, status: str | None = "ok") -> set[str]:
        q = "SELECT key FROM points" + (" WHERE status=?" if status else "")
        return {r[0] for r in self.conn.execute(q, (status,) if status else ())}

    def count(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT status, count(*) FROM points GROUP BY status").fetchall())

    def runs(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM runs ORDER BY started_at", self.conn)

    def result(self, key: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT result FROM points WHERE key=?", (key,)).fetchone()
        if row is None or row[0] is None:
            return None
        return json.loads(zlib.decompress(row[0]))

    def results(self, keys: Iterable[str] | None = None) -> Iterable[tuple[str, dict[str, Any]]]:
        """(key, result document) for each stored successful point (all, or those in `keys`)."""
        want = None if keys is None else set(keys)
        for key, blob in self.conn.execute("SELECT key, result FROM points WHERE status='ok' ORDER BY rowid"):
            if want is None or key in want:
                yield key, json.loads(zlib.decompress(blob))

    def frame(self, keys: list[str] | None = None) -> pd.DataFrame:
        """One row per point: `key`, `placement`, `benchmark`, `status`, `error`, every swept key
        as a column (base units), then the scalar outputs, in grid order (not completion
        order, which differs between runs). With `keys`, those points in that order."""
        rows = self.conn.execute("SELECT key, status, benchmark, placement, vals, summary, error, attempts, "
                                 "point_index, run_id, wall_s, finished_at, nicsim_version FROM points ORDER BY point_index, key").fetchall()
        recs, swept, outs = [], {}, {}
        for (key, status, bench, placement, vals, summary, error, attempts, idx, run_id, wall, fin, ver) in rows:
            v, s = json.loads(vals), json.loads(summary)
            if "placement" in v:  # the grid value as given; `placement` is the resolved name
                v = {("placement_grid" if k == "placement" else k): x for k, x in v.items()}
            swept.update(dict.fromkeys(v))
            outs.update(dict.fromkeys(s))
            recs.append({"key": key, "placement": placement, "benchmark": bench, "status": status, "error": error,
                         **v, **{k: x for k, x in s.items() if k not in v},
                         "attempts": attempts, "point_index": idx, "run_id": run_id, "wall_s": wall,
                         "finished_at": fin, "nicsim_version": ver})
        head = ["key", "placement", "benchmark", "status", "error"]
        tail = ["attempts", "point_index", "run_id", "wall_s", "finished_at", "nicsim_version"]
        cols = head + [k for k in swept if k not in head] + [k for k in outs if k not in swept and k not in head and k not in tail] + tail
        df = pd.DataFrame.from_records(recs, columns=cols)
        if keys is not None:
            df = df.set_index("key").reindex(keys).reset_index()
        df.attrs["store"] = str(self.path)
        df.attrs["swept"] = [k for k in swept if k not in head]
        return df


def export(store: str | Path, path: str | Path) -> Path:
    """Writes the store's point table to `path`: `.csv` or `.parquet` by its extension."""
    from ..errors import ConfigError

    path = Path(path)
    with Store(store, readonly=True) as s:
        df = s.frame()
    if path.suffix == ".csv":
        df.to_csv(path, index=False)
    elif path.suffix == ".parquet":
        df.to_parquet(path, index=False)
    else:
        raise ConfigError(f"export {str(path)!r}: the name must end in .csv or .parquet")
    return path
