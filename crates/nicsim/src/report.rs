//! Results as JSON. Every key carries its unit; per-processor entries are keyed `NODE.PROCESSOR`.

use crate::config::{stage_name, IdleAccounting};
use crate::hw::frame::NodeAddr;
use crate::node::events::Ev;
use crate::stats::catalogue::{
    ProcCounter, Unit, CACHE_COUNTERS, COHERENCE_COUNTERS, DMA_CACHE_COUNTERS, HANDOFF_COUNTERS,
    LOCK_COUNTERS, NODE_COUNTERS, PROC_COUNTERS, TICK_COUNTERS,
};
use crate::stats::series::Series;
use crate::stats::{NodeSnap, Window};
use crate::system::World;
use crate::units::Duration;
use serde_json::{json, Map, Value};
use std::time::Instant;

/// What every run reports beside its workload's own figures: conservation per direction, how
/// memory was priced, the record and the series, the switch's ports and the simulator's counters.
/// `err`, when the run broke an invariant, is kept beside what it measured before the break.
pub fn assemble(
    w: &World,
    mut out: Value,
    err: Option<String>,
    series: Option<&mut Series>,
    started: Instant,
) -> Value {
    let r = &w.cfg.run;
    if let Some(e) = err {
        out["error"] = json!(e);
    }
    let cons: serde_json::Map<String, Value> = w
        .directions()
        .into_iter()
        .map(|(a, b)| {
            (
                format!("node{a}_to_node{b}"),
                json!(w.conservation(a, b, None)),
            )
        })
        .collect();
    out["conservation"] = Value::Object(cons);
    // Every result states how memory was priced (mode A or B, host-path §4.2-§4.3).
    out["memory_mode"] = json!(w.cfg.mem.mode);
    if let Some(rec) = crate::stats::record::record_json(w) {
        out["record"] = rec;
    }
    if let Some(s) = series {
        // Intervals that end after the last event but before the next one (the run stopped
        // at a window edge between them): nothing changed since, so their counters are known.
        let next = w.eng.peek_time().unwrap_or(w.eng.now());
        s.until(&w.nodes, next.min(w.eng.now() + r.series_ps + Duration(1)));
        out["series"] = s.to_json();
    }
    if let Some(ports) = w.fabric.port_stats() {
        let ports: serde_json::Map<String, Value> = ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let v = json!({"frames": p.frames, "dropped_frames": p.dropped_frames,
                    "dropped_payload_bytes": p.dropped_payload_bytes, "max_queue_bytes": p.max_queue_bytes});
                (w.port_name(i as NodeAddr), v)
            })
            .collect();
        out["switch"] = Value::Object(ports);
    }
    let moved_bytes: u64 = w
        .directions()
        .into_iter()
        .map(|(a, b)| w.conservation(a, b, None).delivered_bytes)
        .sum();
    let by_kind: serde_json::Map<String, Value> = Ev::KINDS
        .iter()
        .zip(w.events_by_kind)
        .filter(|&(_, n)| n > 0)
        .map(|(k, n)| (k.to_string(), json!(n)))
        .collect();
    // What the socket tables held: a slot per connection not yet freed (`stack/reap.rs`).
    let sockets: serde_json::Map<String, Value> = w
        .nodes
        .iter()
        .map(|n| {
            let s = &n.slots;
            let v = json!({"opened": s.opened, "peak_open": s.peak_open, "slots": n.conns.len()});
            (format!("node{}", n.id), v)
        })
        .collect();
    let (simulated_s, wall_s) = (w.eng.now().as_secs_f64(), started.elapsed().as_secs_f64());
    out["simulator"] = json!({
        "events": w.eng.executed(),
        "events_by_kind": by_kind,
        "events_per_kib": per_kib(w.eng.executed(), moved_bytes),
        "pending_max": w.eng.pending_max(),
        "simulated_s": simulated_s,
        "sockets": sockets,
        // The two timing fields measure this machine, not the model: the only ones that differ
        // between runs of one configuration (`nicsim.api.results_only` drops them).
        "wall_s": wall_s,
        "simulated_per_wall": if wall_s > 0.0 { simulated_s / wall_s } else { 0.0 },
    });
    out
}

/// Events per KiB of payload delivered in either direction (0 when nothing moved).
fn per_kib(events: u64, moved_bytes: u64) -> f64 {
    if moved_bytes == 0 {
        0.0
    } else {
        events as f64 * 1024.0 / moved_bytes as f64
    }
}

/// Per-processor and per-node monitors for one window, like Hpcbench's sysmon.
pub fn window_json(w: &World, win: &Window) -> (Value, Value) {
    let secs = win.seconds().max(1e-12);
    let mut procs = Map::new();
    let mut nodes = Map::new();
    for (i, n) in win.d.nodes.iter().enumerate() {
        // Each node's own clock (the clients' may differ: topology.client_clock_hz).
        let clock = w.nodes[i].cfg.cpu.clock_hz.0 as f64;
        for (j, p) in n.procs.iter().enumerate() {
            let mut pr = Map::new();
            for (c, &v) in PROC_COUNTERS.iter().zip(&p.values) {
                insert(&mut pr, c.key, figure(c.unit, v, secs, clock));
            }
            pr.insert("utilisation".into(), json!(win.utilisation(i, j)));
            pr.insert(
                "irq_per_s".into(),
                json!((p.get("nic_irq_per_s") + p.get("ipi_per_s")) / secs),
            );
            if w.cfg.sched.tick_hz > 0.0 {
                let at = PROC_COUNTERS.len() + CACHE_COUNTERS.len() + COHERENCE_COUNTERS.len();
                for (c, &v) in TICK_COUNTERS.iter().zip(&p.values[at..]) {
                    insert(&mut pr, c.key, figure(c.unit, v, secs, clock));
                }
            }
            let cpus = w.nodes[i]
                .mem
                .detailed
                .as_ref()
                .map_or(0, |d| d.caches.cpus());
            if j < cpus {
                let rest = &p.values[PROC_COUNTERS.len()..];
                let all: Vec<&ProcCounter> =
                    CACHE_COUNTERS.iter().chain(COHERENCE_COUNTERS).collect();
                for (c, &v) in all.iter().zip(rest) {
                    insert(&mut pr, c.key, figure(c.unit, v, secs, clock));
                }
                hit_rates(&mut pr);
            }
            pr.insert("busy_by_stage".into(), stage_profile(&p.stages, secs));
            pr.insert(
                "instructions_by_stage".into(),
                stage_counts(&p.instructions),
            );
            if w.nodes[i].roles.poller == Some(j) {
                let util = win.utilisation(i, j);
                pr.insert("polling".into(), polling(w, &p.stages, secs, util));
            }
            procs.insert(format!("node{i}.{}", p.name), Value::Object(pr));
        }
        let mut node = Map::new();
        for (c, &v) in NODE_COUNTERS.iter().zip(&n.values) {
            insert(&mut node, c.key, figure(c.unit, v, secs, clock));
        }
        node.insert("fi_cpu".into(), fi_cpu(w, n));
        node.insert("fi_time".into(), fi_time(w, i, n, secs));
        // Bus crossings per payload byte read by the application (laws.md §1); null on a node
        // whose application read nothing (a sender), where the ratio has no meaning.
        let app_bytes = n.get("app_bytes_read");
        let (dma, copy) = (n.get("dma_bytes"), n.get("copy_bytes"));
        let per_byte = |x: f64| (app_bytes > 0.0).then(|| x / app_bytes);
        node.insert(
            "memory_bus_crossings_per_byte".into(),
            json!(per_byte(dma + 2.0 * copy)),
        );
        node.insert("io_bus_crossings_per_byte".into(), json!(per_byte(dma)));
        let rest = &n.values[NODE_COUNTERS.len()..];
        if w.nodes[i].mem.detailed.is_some() {
            for (c, &v) in DMA_CACHE_COUNTERS.iter().zip(rest) {
                insert(&mut node, c.key, figure(c.unit, v, secs, clock));
            }
        }
        if w.cfg.smp.spinlocks {
            let rest = &rest[DMA_CACHE_COUNTERS.len()..];
            for (c, &v) in LOCK_COUNTERS.iter().zip(rest) {
                insert(&mut node, c.key, figure(c.unit, v, secs, clock));
            }
        }
        if let Some(h) = w.nodes[i].handoff_nic() {
            let rest = &rest[DMA_CACHE_COUNTERS.len() + LOCK_COUNTERS.len()..];
            for (c, &v) in HANDOFF_COUNTERS.iter().zip(rest) {
                insert(&mut node, c.key, figure(c.unit, v, secs, clock));
            }
            if let (Some(Value::Object(o)), Value::Object(more)) = (
                node.get_mut("handoff"),
                crate::stats::handoff::window_json(h, win.start, win.end),
            ) {
                o.extend(more);
            }
        }
        nodes.insert(format!("node{i}"), Value::Object(node));
    }
    (Value::Object(procs), Value::Object(nodes))
}

/// What holds a stream at its rate, from a window's processors (`window_json`): the link when
/// the payload reaches 90% of its rate, else the busiest processor when it is saturated (at
/// least 97% busy) with the stage that takes most of its time, else nothing the model
/// saturates (the window, or the other end's pace).
pub fn bound(procs: &Value, payload_bps: f64, link_bps: Option<f64>) -> Value {
    if link_bps.is_some_and(|l| payload_bps >= 0.9 * l) {
        return json!({"by": "link"});
    }
    let util = |p: &Value| p["utilisation"].as_f64().unwrap_or(0.0);
    let busiest = procs
        .as_object()
        .and_then(|m| m.iter().max_by(|a, b| util(a.1).total_cmp(&util(b.1))));
    match busiest {
        Some((name, p)) if util(p) >= 0.97 => {
            let stage = p["busy_by_stage"].as_object().and_then(|s| {
                s.iter().max_by(|a, b| {
                    a.1.as_f64()
                        .unwrap_or(0.0)
                        .total_cmp(&b.1.as_f64().unwrap_or(0.0))
                })
            });
            json!({
                "by": "processor",
                "processor": name,
                "utilisation": util(p),
                "stage": stage.map(|s| s.0.clone()),
                "stage_busy": stage.and_then(|s| s.1.as_f64()),
            })
        }
        _ => json!({"by": "none"}),
    }
}

/// A counter's change over a window of `secs`, as the figure its unit reports.
fn figure(unit: Unit, v: f64, secs: f64, clock_hz: f64) -> Value {
    match unit {
        Unit::Count => json!(v as u64),
        Unit::PerSecond => json!(v / secs),
        Unit::Busy => json!(v / (secs * 1e12)),
        Unit::Micros => json!(v * 1e-6),
        Unit::Rounded => json!(v.round()),
        Unit::Cycles => json!(v * 1e-12 * clock_hz),
    }
}

/// Puts `value` at `key`; a dotted key (`ring_flushes.full`, `cache.l1d.read_hits`) goes
/// into nested objects.
fn insert(map: &mut Map<String, Value>, key: &str, value: Value) {
    match key.split_once('.') {
        Some((group, rest)) => {
            let g = map.entry(group).or_insert_with(|| json!({}));
            if let Value::Object(inner) = g {
                insert(inner, rest, value);
            }
        }
        None => {
            map.insert(key.into(), value);
        }
    }
}

/// Busy time per stage as fractions of the window, the stages that ran only.
fn stage_profile(stages: &[f64], secs: f64) -> Value {
    stage_counts(&stages.iter().map(|v| v / (secs * 1e12)).collect::<Vec<_>>())
}

/// Per-stage figures by name, the stages that ran only.
fn stage_counts(values: &[f64]) -> Value {
    let m: Map<String, Value> = values
        .iter()
        .enumerate()
        .filter(|&(_, &v)| v > 0.0)
        .map(|(i, &v)| (stage_name(i).to_string(), json!(v)))
        .collect();
    Value::Object(m)
}

/// The intrusion factor by CPU time (stacks.md §A.1): all the node's busy time over the time
/// of its application and protocol processing. Everything else (copies, interrupts, softirq
/// dispatch, context switches, system-call entry and exit, buffer management, locks, polling)
/// is the OS's intrusion. `"inf"` when the node was busy and did nothing useful (livelock),
/// null when it was idle. Work of no stage (application work, IPI sends) counts as useful.
fn fi_cpu(w: &World, n: &NodeSnap) -> Value {
    let c = &w.cfg.costs;
    let useful = [
        0,
        c.rx_ip.id,
        c.rx_tcp.id,
        c.tx_tcp.id,
        c.tx_ip.id,
        c.tx_ack.id,
        c.csum.id,
        c.timer.id,
        c.tcp_syn.id,
        c.tcp_child.id,
        c.tcp_teardown.id,
        c.udp_tx.id,
        c.udp_rx.id,
        c.gro_receive.id,
        c.http_request.id,
        c.app_message.id,
    ];
    let total: f64 = n.procs.iter().flat_map(|p| &p.stages).sum();
    let done: f64 = n
        .procs
        .iter()
        .map(|p| useful.iter().map(|&i| p.stages[i as usize]).sum::<f64>())
        .sum();
    match (total > 0.0, done > 0.0) {
        (false, _) => Value::Null,
        (true, false) => json!("inf"),
        (true, true) => json!(total / done),
    }
}

/// The intrusion factor by time (stacks.md §A.1): the window over the time an OS-free host
/// would need for the same job, the longer of the payload its applications read and sent (and
/// the raw frames its stack consumed) at the node's link capacity and its application work (stage-less work, `app_message`,
/// `http_request`). `"inf"` when the node was busy and moved nothing, null when it was idle.
fn fi_time(w: &World, i: usize, n: &NodeSnap, secs: f64) -> Value {
    let c = &w.cfg.costs;
    let bytes = n.get("app_bytes_read") + n.get("app_bytes_sent") + n.get("raw_bytes_delivered");
    let capacity_bps = w.cfg.link.rate_bps.0 as f64 * w.nodes[i].devs.len() as f64;
    let app_ps: f64 = n
        .procs
        .iter()
        .map(|p| {
            [0, c.app_message.id, c.http_request.id]
                .iter()
                .map(|&s| p.stages[s as usize])
                .sum::<f64>()
        })
        .sum();
    let ideal_s = (8.0 * bytes / capacity_bps).max(app_ps * 1e-12);
    let busy: f64 = n.procs.iter().flat_map(|p| &p.stages).sum();
    match (ideal_s > 0.0, busy > 0.0) {
        (true, _) => json!(secs / ideal_s),
        (false, true) => json!("inf"),
        (false, false) => Value::Null,
    }
}

/// CPU-NET's poll loop: the share of the window its empty passes took, and the sar-like
/// %idle under the configured accounting (stacks.md §A.8).
fn polling(w: &World, stages: &[f64], secs: f64, utilisation: f64) -> Value {
    let empty = stages[w.cfg.costs.poll_empty.id as usize] / (secs * 1e12);
    let (name, idle) = match w.cfg.cpu_net.idle_accounting {
        IdleAccounting::BusyPoll => ("busy_poll", 1.0 - utilisation),
        IdleAccounting::EmptyPollIsIdle => ("empty_poll_is_idle", 1.0 - utilisation + empty),
    };
    json!({"empty_poll_share": empty, "idle_accounting": name, "sar_idle": idle})
}

/// Adds each cache level's hit rates: per access (`read_hit_rate`, `write_hit_rate`: every
/// load and store, as the thesis's inspector counted) and per distinct line a work item
/// touched (`read_line_hit_rate`, `write_line_hit_rate`); null when it saw no such access.
fn hit_rates(pr: &mut Map<String, Value>) {
    let Some(Value::Object(levels)) = pr.get_mut("cache") else {
        return;
    };
    for level in levels.values_mut() {
        let count = |k: &str| level.get(k).and_then(Value::as_u64).unwrap_or(0);
        let rate = |hits: u64, misses: u64| {
            (hits + misses > 0).then(|| hits as f64 / (hits + misses) as f64)
        };
        let (rh, rm, rw) = (
            count("read_hits"),
            count("read_misses"),
            count("read_word_hits"),
        );
        let (wh, wm, ww) = (
            count("write_hits"),
            count("write_misses"),
            count("write_word_hits"),
        );
        let has_writes = level.get("write_hits").is_some();
        level["read_hit_rate"] = json!(rate(rh + rw, rm));
        level["read_line_hit_rate"] = json!(rate(rh, rm));
        if has_writes {
            level["write_hit_rate"] = json!(rate(wh + ww, wm));
            level["write_line_hit_rate"] = json!(rate(wh, wm));
        }
    }
}
