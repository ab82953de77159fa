//! Results as JSON. Every key carries its unit; per-processor entries are keyed `NODE.PROCESSOR`.

use crate::stats::catalogue::{Unit, NODE_COUNTERS, PROC_COUNTERS};
use crate::stats::Window;
use crate::system::World;
use serde_json::{json, Map, Value};

/// Per-processor and per-node monitors for one window, like Hpcbench's sysmon.
pub fn window_json(w: &World, win: &Window) -> (Value, Value) {
    let secs = win.seconds().max(1e-12);
    let clock = w.cfg.cpu.clock_hz.0 as f64;
    let mut procs = Map::new();
    let mut nodes = Map::new();
    for (i, n) in win.d.nodes.iter().enumerate() {
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
            procs.insert(format!("node{i}.{}", p.name), Value::Object(pr));
        }
        let mut node = Map::new();
        for (c, &v) in NODE_COUNTERS.iter().zip(&n.values) {
            insert(&mut node, c.key, figure(c.unit, v, secs, clock));
        }
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
        nodes.insert(format!("node{i}"), Value::Object(node));
    }
    (Value::Object(procs), Value::Object(nodes))
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

/// Puts `value` at `key`; a dotted key (`ring_flushes.full`) goes into a nested object.
fn insert(map: &mut Map<String, Value>, key: &str, value: Value) {
    match key.split_once('.') {
        Some((group, leaf)) => {
            let g = map.entry(group).or_insert_with(|| json!({}));
            g[leaf] = value;
        }
        None => {
            map.insert(key.into(), value);
        }
    }
}
