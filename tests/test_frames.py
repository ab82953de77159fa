"""`nicsim.frames(result)` turns every command's result document into pandas tables (issue 32
item 1): each table is non-empty, has the columns docs/output.md lists, and holds the
document's own values; a document of another shape is refused with one clear message."""
import math
import re
from pathlib import Path

import pytest

import nicsim
from nicsim.bulkecho import run_bulkecho
from nicsim.handoff import run_handoff
from nicsim.hpc import run_hpcbench
from nicsim.netperf import run_netperf
from nicsim.web import run_web

OUTPUT_MD = Path(__file__).resolve().parents[1] / "docs" / "output.md"
NETPERF_SHORT = {"workload.netperf.duration_ps": "20 ms", "workload.netperf.warmup_ps": "5 ms"}
WEB_SHORT = {"workload.web.duration_ps": "40 ms", "workload.web.warmup_ps": "20 ms",
             "workload.web.health_interval_ps": "10 ms"}
PROCESSOR_COLUMNS = {"node", "processor", "utilisation", "busy_copy", "busy_tcpip", "busy_driver", "busy_os", "busy_app",
                     "busy_conn", "busy_by_context_softirq", "busy_cycles_copy", "irq_per_s", "nic_irq_per_s", "ipi_per_s",
                     "context_switches_per_s", "wakeups_per_s"}
NODE_COLUMNS = {"node", "app_bytes_read", "dma_bytes", "io_bus_utilisation", "ring_flushes_push", "connections_opened",
                "fi_cpu", "fi_time"}
STAGE_COLUMNS = {"node", "processor", "stage", "busy", "instructions"}
CONSERVATION_COLUMNS = {"direction", "source", "destination", "sent_bytes", "delivered_bytes", "in_flight_bytes", "dropped_bytes"}


def documented_tables() -> set[str]:
    """The table names docs/output.md's frames section lists in the first column of its tables."""
    text = OUTPUT_MD.read_text().split("## In a notebook: `nicsim.frames(result)`", 1)[1]
    text = re.split(r"^## ", text, maxsplit=1, flags=re.M)[0]
    return set(re.findall(r"^\| `([a-z_]+)` \|", text, re.M))


def check(tables: dict, expected: dict[str, set[str]]) -> None:
    """Every expected table is there, non-empty, with at least the expected columns, and is
    documented; so is every other table frames() returned."""
    documented = documented_tables()
    for name, columns in expected.items():
        assert name in tables, f"no {name!r} table; got {sorted(tables)}"
        assert len(tables[name]) > 0, f"{name} is empty"
        missing = columns - set(tables[name].columns)
        assert not missing, f"{name} lacks {sorted(missing)}"
    undocumented = set(tables) - documented
    assert not undocumented, f"docs/output.md's frames section does not list {sorted(undocumented)}"


def check_processors(frame, processors: dict, lead: dict | None = None) -> None:
    """The processors table holds one row per processor with the document's utilisation and
    busy shares (for the rows matching `lead`, e.g. one NetPIPE size)."""
    rows = frame
    for k, v in (lead or {}).items():
        rows = rows[rows[k] == v]
    assert sorted(rows["processor"]) == sorted(processors)
    for _, row in rows.iterrows():
        p = processors[row["processor"]]
        assert row["node"] == row["processor"].split(".")[0]
        assert row["utilisation"] == p["utilisation"]
        assert row["busy_copy"] == p["busy"]["copy"] and row["irq_per_s"] == p["irq_per_s"]


def check_nodes(frame, nodes: dict) -> None:
    assert sorted(frame["node"]) == sorted(nodes)
    for _, row in frame.iterrows():
        n = nodes[row["node"]]
        assert row["app_bytes_read"] == n["app_bytes_read"]
        assert row["ring_flushes_push"] == n["ring_flushes"]["push"]


def check_stages(frame, processors: dict) -> None:
    for name, p in processors.items():
        rows = frame[frame["processor"] == name].set_index("stage")
        assert rows["busy"].to_dict() == p.get("busy_by_stage", {})


def test_netpipe_points_processors_nodes_and_summary():
    doc = nicsim.run("ortiz2008-offload", {"workload.netpipe.sizes_bytes": "1 B,4 KiB,64 KiB",
                                           "workload.netpipe.target_ps": "5 ms"})
    t = nicsim.frames(doc)
    check(t, {"points": {"size_bytes", "repetitions", "time_us", "latency_us", "throughput_mbps", "throughput_netpipe_mbps"},
              "processors": PROCESSOR_COLUMNS | {"size_bytes"}, "nodes": NODE_COLUMNS | {"size_bytes"},
              "stages": STAGE_COLUMNS | {"size_bytes"}, "summary": {"mode", "latency_us", "peak_throughput_mbps"},
              "conservation": CONSERVATION_COLUMNS})
    assert list(t["points"]["throughput_mbps"]) == [p["throughput_mbps"] for p in doc["points"]]
    for p in doc["points"]:
        check_processors(t["processors"], p["processors"], {"size_bytes": p["size_bytes"]})
    assert len(t["processors"]) == 3 * len(doc["points"][0]["processors"])
    assert t["summary"]["peak_throughput_mbps"].item() == doc["summary"]["peak_throughput_mbps"]


def test_netperf_connections_replications_and_summary():
    doc = run_netperf("ortiz2008-base", NETPERF_SHORT, replications=2, test="TCP_RR", connections=2)
    t = nicsim.frames(doc)
    check(t, {"netperf": {"test", "connections", "window_s", "aggregate_transactions_per_s", "fairness_jain", "latency_us_p99"},
              "per_connection": {"connection", "client", "transactions_per_s"}, "processors": PROCESSOR_COLUMNS,
              "nodes": NODE_COLUMNS, "stages": STAGE_COLUMNS, "conservation": CONSERVATION_COLUMNS,
              "replications": {"seed", "aggregate_transactions_per_s", "latency_us_p50"},
              "summary": {"figure", "mean", "ci95_half_width", "n"}})
    np_ = doc["netperf"]
    assert t["netperf"]["aggregate_transactions_per_s"].item() == np_["aggregate"]["transactions_per_s"]
    assert t["netperf"]["latency_us_p99"].item() == np_["latency_us"]["p99"]
    assert list(t["per_connection"]["transactions_per_s"]) == [c["transactions_per_s"] for c in np_["per_connection"]]
    check_processors(t["processors"], doc["processors"])
    check_nodes(t["nodes"], doc["nodes"])
    check_stages(t["stages"], doc["processors"])
    assert list(t["replications"]["seed"]) == [r["seed"] for r in doc["replications"]]
    summary = t["summary"].set_index("figure")
    assert summary.loc["aggregate.transactions_per_s", "mean"] == doc["summary"]["aggregate.transactions_per_s"]["mean"]


def test_a_null_statistics_block_keeps_its_columns():
    doc = nicsim.run("ortiz2008-base", {"workload.kind": "netperf", **NETPERF_SHORT})
    assert doc["netperf"]["latency_us"] is None, "TCP_STREAM has no transaction latency"
    row = nicsim.frames(doc)["netperf"]
    assert {"latency_us_mean", "latency_us_p99"} <= set(row.columns) and math.isnan(row["latency_us_p99"].item())
    assert row["aggregate_throughput_mbps"].item() == doc["netperf"]["aggregate"]["throughput_mbps"]


def test_hpcbench_window_and_laws():
    doc = run_hpcbench("ortiz2008-offload", duration="20 ms")
    t = nicsim.frames(doc)
    check(t, {"hpcbench": {"message_bytes", "window_s", "received_bytes", "throughput_mbps"},
              "processors": PROCESSOR_COLUMNS, "nodes": NODE_COLUMNS, "stages": STAGE_COLUMNS,
              "laws": {"X_s", "Y_s", "alpha", "B_bps", "a", "o", "sigma", "p", "c_cp_nic_cpu"},
              "conservation": CONSERVATION_COLUMNS})
    assert t["hpcbench"]["throughput_mbps"].item() == doc["hpcbench"]["throughput_mbps"]
    assert t["laws"]["o"].item() == doc["laws"]["o"]
    check_processors(t["processors"], doc["hpcbench"]["processors"])
    check_nodes(t["nodes"], doc["hpcbench"]["nodes"])


def test_web_summary_clients_health_and_vs_base():
    doc = run_web("ortiz2008-offload", WEB_SHORT, vs_base=True, users=20)
    t = nicsim.frames(doc)
    check(t, {"web": {"users", "workers", "page_size_bytes", "window_s", "requests_per_s", "bandwidth_mbps",
                      "response_time_ms_mean", "response_time_ms_p99", "health_interval_s", "health_stalled_intervals"},
              "clients": {"node", "busiest", "busiest_utilisation"},
              "health": {"end_s", "requests_per_s", "server_busiest_utilisation", "users_waiting"},
              "vs_base": {"figure", "base", "this", "improvement_percent"},
              "processors": PROCESSOR_COLUMNS, "nodes": NODE_COLUMNS, "stages": STAGE_COLUMNS,
              "conservation": CONSERVATION_COLUMNS, "switch": {"port", "frames", "dropped_frames", "max_queue_bytes"}})
    w = doc["web"]
    assert t["web"]["requests_per_s"].item() == w["requests_per_s"]
    assert t["web"]["response_time_ms_mean"].item() == w["response_time_ms"]["mean"]
    for column in ("end_s", "requests_per_s", "server_busiest_utilisation", "users_waiting"):
        assert list(t["health"][column]) == w["health"][column]
    assert len(t["health"]) >= 5, "a 60 ms run in 10 ms intervals"
    assert t["vs_base"].set_index("figure").loc["requests_per_s", "base"] == doc["vs_base"]["requests_per_s"]["base"]
    check_processors(t["processors"], doc["processors"])
    check_nodes(t["nodes"], doc["nodes"])


def test_handoff_metrics_nic_delay_and_timeline():
    doc = run_handoff("W-1024-P-L-FCFS-400", sets={**WEB_SHORT, "workload.web.users": 32, "workload.web.workers": 32})
    t = nicsim.frames(doc)
    check(t, {"handoff": {"name", "requests_per_s", "packets_per_s_total", "host_profile_percent_idle", "nic_idle_percent",
                          "connections_handoffs"},
              "nic_delay": {"queue", "direction", "count", "mean_us", "p50_us", "p99_us"},
              "timeline": {"node", "t_ms", "soft_limit", "owned", "qlen", "load_state"},
              "web": {"requests_per_s"}, "health": {"end_s"}, "processors": PROCESSOR_COLUMNS, "nodes": NODE_COLUMNS})
    h = doc["handoff"]
    assert t["handoff"]["packets_per_s_total"].item() == h["packets_per_s"]["total"]
    assert t["handoff"]["nic_idle_percent"].item() == h["nic_idle_percent"]
    delay = t["nic_delay"].set_index(["queue", "direction"])
    assert delay.loc[("nic", "rx"), "mean_us"] == h["nic_delay_us"]["nic"]["rx"]["mean_us"]
    server = t["timeline"]["node"].iloc[0]
    assert list(t["timeline"]["owned"]) == doc["nodes"][server]["handoff"]["timeline"]["owned"]
    check_processors(t["processors"], doc["processors"])


def test_bulkecho_points_breakdown_processors_locks_and_ilp():
    sets = [f"{k}={v}" for k, v in NETPERF_SHORT.items()]
    doc = run_bulkecho("roca1996-ethernet", sets, org="bsd", tsdu="1KiB,4KiB", use_ilp=True)
    t = nicsim.frames(doc)
    check(t, {"bulkecho": {"org", "mode", "proto", "ilp"},
              "points": {"tsdu_bytes", "connections", "throughput_mbps", "cpus", "speedup", "conservation_ok"},
              "breakdown": {"tsdu_bytes", "side", "category", "busy_us", "instructions"},
              "processors": {"tsdu_bytes", "node", "processor", "utilisation"},
              "locks": {"tsdu_bytes", "node", "lock", "acquisitions", "conflicts", "spin_us"},
              "ilp_model": {"tsdu_bytes", "separate_us", "fused_us", "gain", "fused_wins"}})
    points = doc["bulkecho"]["points"]
    assert list(t["points"]["throughput_mbps"]) == [p["throughput_mbps"] for p in points]
    first = t["breakdown"][(t["breakdown"]["tsdu_bytes"] == 1024) & (t["breakdown"]["side"] == "send")]
    assert first.set_index("category")["busy_us"].to_dict() == points[0]["send_us"]
    procs = t["processors"][t["processors"]["tsdu_bytes"] == 4096].set_index("processor")["utilisation"]
    assert procs.to_dict() == points[1]["cpu_utilisation"]


def test_packet_generator_window_and_monitors():
    doc = nicsim.run("ortiz2008-base", {"workload.kind": "packet_gen", "workload.packet_gen.rate_pps": 100000,
                                        "workload.packet_gen.duration_ps": "10 ms"})
    t = nicsim.frames(doc)
    check(t, {"packet_gen": {"window_s", "offered_pps", "delivered_pps", "ring_dropped_frames", "backlog_dropped_frames"},
              "processors": PROCESSOR_COLUMNS, "nodes": NODE_COLUMNS | {"raw_bytes_delivered"},
              "stages": STAGE_COLUMNS, "conservation": CONSERVATION_COLUMNS})
    assert t["packet_gen"]["delivered_pps"].item() == doc["packet_gen"]["delivered_pps"]
    check_processors(t["processors"], doc["packet_gen"]["processors"])
    check_nodes(t["nodes"], doc["packet_gen"]["nodes"])


def test_an_intrusion_factor_of_inf_becomes_a_float():
    doc = {"packet_gen": {"window_s": 0.01, "processors": {},
                          "nodes": {"node1": {"fi_cpu": "inf", "fi_time": None, "app_bytes_read": 0}}}}
    nodes = nicsim.frames(doc)["nodes"]
    assert nodes["fi_cpu"].item() == math.inf and nodes["fi_time"].isna().all()


@pytest.mark.parametrize("doc,got", [
    ({"rows": [], "passed": 0, "total": 0}, "keys ['passed', 'rows', 'total']"),
    ({"handoff": {"name": "x"}}, "keys ['handoff']"),
    ([{"points": []}], "a list"),
])
def test_a_document_it_does_not_know_is_refused_with_what_it_expected(doc, got):
    with pytest.raises(ValueError) as e:
        nicsim.frames(doc)
    msg = str(e.value)
    assert msg.startswith("nicsim.frames: not a result document it knows: expected 'points' (NetPIPE), 'netperf'")
    assert got in msg
