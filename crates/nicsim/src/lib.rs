//! nicsim: a discrete-event simulator of the host communication path.
//!
//! A tour, bottom up (docs/design.md has a line for every file):
//! - `units`: integer picosecond time and the physical conversions.
//! - `engine`: the event heap and the seeded random generator.
//! - `config`, `validate`: the complete configuration the core receives (no defaults of its
//!   own), and its cross-field checks in one place.
//! - `derived`: physics in one place (MSS, framing, link payload rate, t_mean, bus pricing).
//! - `hw`: processors with execution contexts, memory priced by a mean access time (mode A)
//!   or detailed caches (mode B), the north bridge and I/O bus, DMA, the APIC, the NIC, links
//!   and the switch fabric. Hardware carries frames and knows no TCP.
//! - `placement`: which processor runs which stages, and how work crosses between them
//!   (data, not code).
//! - `node`: one host's state: processors, memory, network devices, sockets, threads, its own
//!   counters; the engine's events.
//! - `os`: threads and their system calls, the scheduler, interrupts, spinlocks.
//! - `stack`: the driver, the softirq, sockets, the sans-IO TCP endpoint, UDP, GRO.
//! - `handoff`: the connection-handoff NIC, which runs TCP for the connections handed to it.
//! - `workload`: NetPIPE, Hpcbench, netperf, the web server, the packet generator, and the
//!   engine's reference queueing scenario.
//! - `system`: the clients, the server, the fabric and the engine wired together; the only
//!   place that turns events into model calls.
//! - `stats`, `report`: snapshots, windows, conservation checks and JSON results.
//! - `api`: the JSON boundary the Python binding calls.

pub mod api;
pub mod config;
pub mod derived;
pub mod engine;
pub mod handoff;
pub mod hw;
pub mod node;
pub mod os;
pub mod placement;
pub mod report;
pub mod stack;
pub mod stats;
pub mod system;
pub mod units;
pub mod validate;
pub mod workload;

pub use api::{parse_config, run_json, Error};
use config::Config;
use hw::frame::NodeAddr;
use node::events::Ev;
use serde_json::{json, Value};
use stats::series::Series;

/// Runs the workload a configuration names; returns its results as JSON. A run that breaks
/// an invariant keeps what it measured before the break beside the `error`.
pub fn run(cfg: &Config) -> Result<Value, Error> {
    let started = std::time::Instant::now();
    let mut wl = workload::build(cfg);
    let mut w = system::World::new(cfg).map_err(Error::Config)?;
    let r = &cfg.run;
    let mut series =
        (r.series_ps.0 > 0).then(|| Series::new(&w.nodes, r.series_ps, r.series_max_rows as usize));
    let err = workload::drive_sampled(&mut w, wl.as_mut(), series.as_mut()).err();
    let mut out = wl.report(&w);
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
    out["memory_mode"] = json!(cfg.mem.mode);
    if let Some(rec) = stats::record::record_json(&w) {
        out["record"] = rec;
    }
    if let Some(s) = &mut series {
        // Intervals that end after the last event but before the next one (the run stopped
        // at a window edge between them): nothing changed since, so their counters are known.
        let next = w.eng.peek_time().unwrap_or(w.eng.now());
        s.until(
            &w.nodes,
            next.min(w.eng.now() + r.series_ps + units::Duration(1)),
        );
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
    Ok(out)
}

/// Events per KiB of payload delivered in either direction (0 when nothing moved).
fn per_kib(events: u64, moved_bytes: u64) -> f64 {
    if moved_bytes == 0 {
        0.0
    } else {
        events as f64 * 1024.0 / moved_bytes as f64
    }
}

/// The engine's reference scenario (`nicsim bench`).
pub fn bench(duration_s: f64, seed: u64) -> workload::queueing::BenchResult {
    workload::queueing::run(
        700_000.0,
        &[1.2, 0.8, 1.0, 0.5],
        units::Duration::from_secs_f64(duration_s),
        seed,
    )
}

/// The same scenario as `bench` in a bare binary-heap loop; returns its events.
pub fn bench_bare_heap(duration_s: f64, seed: u64) -> u64 {
    workload::queueing::bare_heap_loop(units::Duration::from_secs_f64(duration_s), seed)
}

/// The hold model on the engine's queue `queue` (`"adaptive"`, `"radix"` or `"binary_heap"`): `pending`
/// events, `steps` pop-and-push steps; returns (sum of popped times in ps, wall seconds).
pub fn bench_hold(
    pending: usize,
    steps: u64,
    seed: u64,
    queue: &str,
) -> Result<(u128, f64), Error> {
    let q: config::EventQueue = serde_json::from_value(json!(queue))
        .map_err(|e| Error::Config(format!("event queue {queue:?}: {e}")))?;
    Ok(workload::hold::engine(pending, steps, seed, q))
}

/// The same hold steps on a bare binary heap of (time, seq, kind) tuples.
pub fn bench_hold_bare(pending: usize, steps: u64, seed: u64) -> (u128, f64) {
    workload::hold::bare_heap(pending, steps, seed)
}
