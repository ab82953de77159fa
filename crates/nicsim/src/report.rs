//! Results as JSON. Every key carries its unit; per-processor entries are keyed `NODE.PROCESSOR`.

use crate::hw::cpu::CATEGORIES;
use crate::stats::catalogue::{Unit, NODE_COUNTERS};
use crate::stats::Window;
use crate::system::World;
use serde_json::{json, Map, Value};

const CAT_NAMES: [&str; 5] = ["copy", "tcpip", "driver", "os", "app"];
const CTX_NAMES: [&str; 3] = ["hardirq", "softirq", "process"];

/// Per-processor and per-node monitors for one window, like Hpcbench's sysmon.
pub fn window_json(w: &World, win: &Window) -> (Value, Value) {
    let secs = win.seconds().max(1e-12);
    let clock = w.cfg.cpu.clock_hz.0 as f64;
    let mut procs = Map::new();
    let mut nodes = Map::new();
    for (i, n) in win.d.nodes.iter().enumerate() {
        for (j, p) in n.procs.iter().enumerate() {
            let mut busy = Map::new();
            let mut cycles = Map::new();
            for (k, _) in CATEGORIES.iter().enumerate() {
                busy.insert(
                    CAT_NAMES[k].into(),
                    json!(p.busy_ps[k] as f64 / (secs * 1e12)),
                );
                cycles.insert(
                    CAT_NAMES[k].into(),
                    json!(p.busy_ps[k] as f64 * 1e-12 * clock),
                );
            }
            let mut ctx = Map::new();
            for (k, name) in CTX_NAMES.iter().enumerate() {
                ctx.insert((*name).into(), json!(p.ctx_ps[k] as f64 / (secs * 1e12)));
            }
            procs.insert(
                format!("node{i}.{}", p.name),
                json!({
                    "utilisation": win.utilisation(i, j),
                    "busy": busy,
                    "busy_by_context": ctx,
                    "busy_cycles": cycles,
                    "irq_per_s": (p.irqs_nic + p.irqs_ipi) as f64 / secs,
                    "nic_irq_per_s": p.irqs_nic as f64 / secs,
                    "ipi_per_s": p.irqs_ipi as f64 / secs,
                    "context_switches_per_s": p.context_switches as f64 / secs,
                }),
            );
        }
        let mut node = Map::new();
        for (c, &v) in NODE_COUNTERS.iter().zip(&n.values) {
            let figure = match c.unit {
                Unit::Count => json!(v as u64),
                Unit::PerSecond => json!(v / secs),
                Unit::Busy => json!(v / (secs * 1e12)),
                Unit::Micros => json!(v * 1e-6),
                Unit::Rounded => json!(v.round()),
            };
            match c.key.split_once('.') {
                Some((group, leaf)) => {
                    let g = node.entry(group).or_insert_with(|| json!({}));
                    g[leaf] = figure;
                }
                None => {
                    node.insert(c.key.into(), figure);
                }
            }
        }
        // Bus crossings per payload byte read by the application (laws.md §1).
        let app_bytes = n.get("app_bytes_read").max(1.0);
        let (dma, copy) = (n.get("dma_bytes"), n.get("copy_bytes"));
        node.insert(
            "memory_bus_crossings_per_byte".into(),
            json!((dma + 2.0 * copy) / app_bytes),
        );
        node.insert("io_bus_crossings_per_byte".into(), json!(dma / app_bytes));
        nodes.insert(format!("node{i}"), Value::Object(node));
    }
    (Value::Object(procs), Value::Object(nodes))
}
