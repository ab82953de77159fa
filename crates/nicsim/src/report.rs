//! Results as JSON. Every key carries its unit; per-processor entries are keyed `NODE.PROCESSOR`.

use crate::hw::cpu::CATEGORIES;
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
        let app_bytes = (n.app_bytes_read.max(1)) as f64;
        nodes.insert(
            format!("node{i}"),
            json!({
                "io_bus_utilisation": n.io_busy_ps as f64 / (secs * 1e12),
                "io_transactions": n.io_transactions,
                "dma_bytes": n.dma_bytes,
                "north_bridge_collisions": n.nb_collisions,
                "north_bridge_penalty_us": n.nb_penalty_ps as f64 * 1e-6,
                "north_bridge_transactions": n.nb_transactions.round(),
                "north_bridge_utilisation": n.nb_busy_ps as f64 / (secs * 1e12),
                "copy_bytes": n.copy_bytes,
                "app_bytes_read": n.app_bytes_read,
                "rx_dropped_ring_frames": n.rx_dropped_ring,
                "retransmitted_bytes": n.retransmitted_bytes,
                "acks_sent": n.acks_sent,
                "data_segments_sent": n.data_segments_sent,
                "delayed_ack_expiries": n.delack_expiries,
                "rto_expiries": n.rto_expiries,
                "fast_retransmits": n.fast_retransmits,
                "nic_irqs_raised": n.nic_irqs_raised,
                "ring_flushes": {"full": n.flushes[0], "idle": n.flushes[1], "push": n.flushes[2]},
                "wakeups_per_s": n.wakeups as f64 / secs,
                "ipis_sent_per_s": n.ipis_sent as f64 / secs,
                // Bus crossings per payload byte read by the application (laws.md §1).
                "memory_bus_crossings_per_byte": (n.dma_bytes + 2 * n.copy_bytes) as f64 / app_bytes,
                "io_bus_crossings_per_byte": n.dma_bytes as f64 / app_bytes,
            }),
        );
    }
    (Value::Object(procs), Value::Object(nodes))
}
