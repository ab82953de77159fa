//! The recordings of a run (`run.pcap`, `run.trace`) as one JSON document, `record`, which
//! Python turns into a pcap file and a Chrome/Perfetto trace (docs/output.md).

use crate::config::stage_name;
use crate::hw::link::wire_bytes;
use crate::node::record::{frame_row, WireEvent, FRAME_COLUMNS};
use crate::system::World;
use serde_json::{json, Map, Value};

/// Context names by `Ctx` index.
const CONTEXTS: [&str; 3] = ["hardirq", "softirq", "process"];

/// `record`, or None when nothing was asked for.
pub fn record_json(w: &World) -> Option<Value> {
    let r = &w.cfg.run;
    if !r.pcap && !r.trace {
        return None;
    }
    let mut out = Map::new();
    for n in &w.nodes {
        let Some(rec) = &n.record else { continue };
        if let Some(log) = &rec.pcap {
            out.insert(
                "pcap".into(),
                json!({
                    "node": format!("node{}", n.id),
                    "columns": FRAME_COLUMNS,
                    "frames": log.items.iter().map(frame_row).collect::<Vec<_>>(),
                    "left_out": log.left_out,
                }),
            );
        }
    }
    if r.trace {
        out.insert("trace".into(), trace_json(w));
    }
    Some(Value::Object(out))
}

/// A frame row with its time on the wire (`wire_ps`), for the link tracks.
fn timed_row(w: &World, e: &WireEvent) -> Value {
    let mut row = frame_row(e);
    let wire = w
        .cfg
        .link
        .rate_bps
        .time_to_send(wire_bytes(e.frame.hdr.ip_bytes()));
    if let Value::Array(v) = &mut row {
        v.push(json!(wire.0));
    }
    row
}

fn trace_json(w: &World) -> Value {
    let from = w.cfg.trace_from().0;
    let mut frame_columns = FRAME_COLUMNS.to_vec();
    frame_columns.push("wire_ps");
    let mut procs = Map::new();
    let mut nodes = Map::new();
    for n in &w.nodes {
        for p in &n.procs {
            let Some(log) = &p.slices else { continue };
            let slices: Vec<Value> = log
                .log
                .items
                .iter()
                .map(|&(s, d, c, st)| json!([s, d, CONTEXTS[c as usize], stage_name(st as usize)]))
                .collect();
            procs.insert(
                format!("node{}.{}", n.id, p.id.as_str()),
                json!({"slices": slices, "left_out": log.log.left_out}),
            );
        }
        let Some(rec) = &n.record else { continue };
        let dma: Vec<Value> = rec
            .dma
            .items
            .iter()
            .map(|&(s, e, d, ch)| json!([s.0, e.0, d, format!("{ch:?}").to_lowercase()]))
            .collect();
        nodes.insert(
            format!("node{}", n.id),
            json!({
                "frames": rec.wire.items.iter().map(|e| timed_row(w, e)).collect::<Vec<_>>(),
                "frames_left_out": rec.wire.left_out,
                "dma": dma,
                "dma_left_out": rec.dma.left_out,
            }),
        );
    }
    json!({
        "from_ps": from,
        "to_ps": from + w.cfg.run.trace_span_ps.0,
        "slice_columns": ["start_ps", "dur_ps", "context", "stage"],
        "frame_columns": frame_columns,
        "dma_columns": ["start_ps", "end_ps", "device", "channel"],
        "processors": procs,
        "nodes": nodes,
    })
}
