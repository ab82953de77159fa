"""`nicsim.frames(result)`: any command's result document as pandas tables for notebooks.

Each table is named after the block of the document it comes from, and a nested key `a.b`
becomes the column `a_b`, so a column carries the unit its JSON key carries
(`throughput_mbps`, `latency_us_p99`). docs/output.md ("In a notebook") lists every table.
Presentation only: every value is the document's own, none is derived here.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    import pandas as pd

# Per-processor maps keyed by cost-profile stage: a column per stage would give every run a
# different set of columns, so they go to the long `stages` table instead.
STAGE_KEYS = ("busy_by_stage", "instructions_by_stage")
# Statistics blocks that are null when nothing completed: their columns stay, as NaN.
STATS = ("count", "mean", "p50", "p90", "p99")
NULLABLE = {"latency_us": STATS, "response_time_ms": STATS}
# Bulkecho's per-point breakdowns by §B.9 category: (side, time key, instructions key).
BREAKDOWNS = (("send", "send_us", "send_instructions"), ("receive", "receive_us", "receive_instructions"),
              ("host", "host_us", "host_instructions"))
EXPECTED = ("'points' (NetPIPE), 'netperf', 'hpcbench', 'web', 'handoff' (with 'web'), 'bulkecho' "
            "or 'packet_gen' at the top level")


def flat(block: Mapping[str, Any], skip: tuple[str, ...] = (), prefix: str = "") -> dict[str, Any]:
    """A block's scalars on one level, `a.b` as `a_b`, null as NaN (pandas' missing value);
    lists are left out (they become tables of their own) and a null statistics block keeps
    its columns."""
    out: dict[str, Any] = {}
    for key, value in block.items():
        name = prefix + key
        if key in skip or isinstance(value, list):
            continue
        if value is None and not prefix and key in NULLABLE:
            out.update({f"{name}_{s}": math.nan for s in NULLABLE[key]})
        elif isinstance(value, Mapping):
            out.update(flat(value, prefix=name + "_"))
        else:
            out[name] = math.nan if value is None else value
    return out


def _frame(rows: list[dict[str, Any]] | dict[str, Any]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame([rows] if isinstance(rows, dict) else rows)


def processor_rows(procs: Mapping[str, Any], lead: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per processor: `node`, `processor` (`NODE.PROCESSOR`, as the document keys
    it), `utilisation`, then the processor's other scalars."""
    return [{**(lead or {}), "node": name.split(".", 1)[0], "processor": name, "utilisation": p["utilisation"],
             **flat(p, skip=STAGE_KEYS + ("utilisation",))} for name, p in procs.items()]


def stage_rows(procs: Mapping[str, Any], lead: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per processor and cost-profile stage that ran: busy fraction and instructions."""
    rows = []
    for name, p in procs.items():
        instructions = p.get("instructions_by_stage") or {}
        for stage, busy in (p.get("busy_by_stage") or {}).items():
            rows.append({**(lead or {}), "node": name.split(".", 1)[0], "processor": name, "stage": stage,
                         "busy": busy, "instructions": instructions.get(stage)})
    return rows


def node_rows(nodes: Mapping[str, Any], lead: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per node; the intrusion factors' `"inf"` (busy, nothing useful done) as a float."""
    return [{**(lead or {}), "node": name, **{k: (float("inf") if v == "inf" else v) for k, v in flat(n).items()}}
            for name, n in nodes.items()]


def monitors(source: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """`processors`, `nodes` and `stages` of a block that holds a measurement window's monitors."""
    procs, nodes = source.get("processors") or {}, source.get("nodes") or {}
    return {"processors": _frame(processor_rows(procs)), "nodes": _frame(node_rows(nodes)),
            "stages": _frame(stage_rows(procs))}


def whole_run(doc: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """The blocks any run may carry: conservation, switch ports, replications and their summary."""
    out = {}
    if "conservation" in doc:
        out["conservation"] = _frame([{"direction": d, "source": d.split("_to_")[0], "destination": d.split("_to_")[-1],
                                       **c} for d, c in doc["conservation"].items()])
    if "switch" in doc:
        out["switch"] = _frame([{"port": port, **c} for port, c in doc["switch"].items()])
    if "replications" in doc:
        out["replications"] = _frame([{k.replace(".", "_"): v for k, v in r.items()} for r in doc["replications"]])
    if "replications" in doc and isinstance(doc.get("summary"), Mapping):
        out["summary"] = _frame([{"figure": f, **s} for f, s in doc["summary"].items()])
    return out


def netpipe(doc: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    points = doc["points"]

    def per_size(rows_of: Callable[..., list[dict[str, Any]]], key: str) -> pd.DataFrame:
        return _frame([r for p in points for r in rows_of(p.get(key) or {}, {"size_bytes": p["size_bytes"]})])

    out = {"points": _frame([{k: v for k, v in p.items() if not isinstance(v, Mapping)} for p in points]),
           "processors": per_size(processor_rows, "processors"), "nodes": per_size(node_rows, "nodes"),
           "stages": per_size(stage_rows, "processors")}
    if doc.get("summary"):
        out["summary"] = _frame(flat(doc["summary"], skip=("peak_processors",)))
    return {**out, **whole_run(doc)}


def hpcbench(doc: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    hb = doc["hpcbench"]
    out = {"hpcbench": _frame(flat(hb, skip=("processors", "nodes"))), **monitors(hb)}
    if "laws" in doc:
        out["laws"] = _frame(flat(doc["laws"]))
    return {**out, **whole_run(doc)}


def packet_gen(doc: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    pg = doc["packet_gen"]
    return {"packet_gen": _frame(flat(pg, skip=("processors", "nodes"))), **monitors(pg), **whole_run(doc)}


def netperf(doc: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    np_ = doc["netperf"]
    out = {"netperf": _frame(flat(np_)), "per_connection": _frame(np_.get("per_connection") or [])}
    if np_.get("udp_flood"):
        out["udp_flood"] = _frame(np_["udp_flood"].get("per_flow") or [])
    return {**out, **monitors(doc), **whole_run(doc)}


def handoff_timeline(nodes: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The handoff NIC's samples (`nodes[N].handoff.timeline`), one row per sample."""
    for name, n in nodes.items():
        series = (n.get("handoff") or {}).get("timeline")
        if series:
            return [{"node": name, **dict(zip(series, values))} for values in zip(*series.values())]
    return []


def web(doc: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    w = doc["web"]
    health = w.get("health") or {}
    series = ("end_s", "requests_per_s", "server_busiest_utilisation", "users_waiting")
    rows = [dict(zip(series, values)) for values in zip(*(health.get(k) or [] for k in series))]
    out = {"web": _frame(flat(w)), "clients": _frame(w.get("clients") or []),
           "health": _frame(rows) if rows else _frame([]).reindex(columns=series)}
    if "vs_base" in doc:
        out["vs_base"] = _frame([{"figure": f, **v} for f, v in doc["vs_base"].items()])
    timeline = handoff_timeline(doc.get("nodes") or {})
    if timeline:
        out["timeline"] = _frame(timeline)
    return {**out, **monitors(doc), **whole_run(doc)}


def handoff(doc: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    h = doc["handoff"]
    delay = [{"queue": queue, "direction": direction, **stats}
             for queue, by_dir in (h.get("nic_delay_us") or {}).items() for direction, stats in by_dir.items()]
    return {**web(doc), "handoff": _frame(flat(h, skip=("nic_delay_us",))), "nic_delay": _frame(delay)}


def bulkecho(doc: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    b = doc["bulkecho"]
    skip = ("cpu_utilisation", "summary") + tuple(k for _, us, ins in BREAKDOWNS for k in (us, ins))
    points, breakdown, procs, locks, summary = [], [], [], [], []
    for p in b["points"]:
        size = {"tsdu_bytes": p["tsdu_bytes"]}
        points.append(flat(p, skip=skip))
        for side, us, ins in BREAKDOWNS:
            for category, busy_us in (p.get(us) or {}).items():
                breakdown.append({**size, "side": side, "category": category, "busy_us": busy_us,
                                  "instructions": (p.get(ins) or {}).get(category)})
        procs += [{**size, "node": name.split(".", 1)[0], "processor": name, "utilisation": u}
                  for name, u in (p.get("cpu_utilisation") or {}).items()]
        locks += [{**size, **lock} for lock in p.get("locks") or []]
        summary += [{**size, "figure": f, **s} for f, s in (p.get("summary") or {}).items()]
    out = {"bulkecho": _frame(flat(b)), "points": _frame(points), "breakdown": _frame(breakdown),
           "processors": _frame(procs), "locks": _frame(locks)}
    if summary:
        out["summary"] = _frame(summary)
    if b.get("ilp_model"):
        out["ilp_model"] = _frame(b["ilp_model"].get("rows") or [])
    return out


# The block that names a document's kind, checked in this order: a handoff document also
# holds `web`, and only a web run carries `handoff` at the top level.
KINDS: tuple[tuple[str, Callable[[Mapping[str, Any]], dict[str, Any]]], ...] = (
    ("bulkecho", bulkecho), ("handoff", handoff), ("web", web), ("netperf", netperf), ("hpcbench", hpcbench),
    ("packet_gen", packet_gen), ("points", netpipe),
)


def frames(result: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """A result document of any nicsim command (NetPIPE, netperf, Hpcbench, web, handoff,
    bulkecho, packet generator) as pandas DataFrames keyed by table name; docs/output.md
    ("In a notebook: `nicsim.frames(result)`") lists the tables and their columns. A document
    of another shape raises ValueError naming what was expected."""
    if isinstance(result, Mapping):
        for key, build in KINDS:
            if isinstance(result.get(key), (Mapping, list)) and (key != "handoff" or "web" in result):
                tables = build(result)
                if "series" in result:
                    s = result["series"]
                    tables["series"] = _frame([dict(zip(s["columns"], r)) for r in s["rows"]])
                return tables
        got = f"one with keys {sorted(result)[:12]}"
    else:
        got = f"a {type(result).__name__}"
    raise ValueError(f"nicsim.frames: not a result document it knows: expected {EXPECTED}; got {got}")
