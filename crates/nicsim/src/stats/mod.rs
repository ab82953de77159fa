//! Statistics: snapshots of every counter, windows between two snapshots (what a sysmon-like
//! monitor reports), and the conservation and bound checks every run must pass.

pub mod catalogue;
pub mod conservation;
pub mod handoff;
pub mod quantile;
pub mod record;
pub mod series;

use crate::config::CATEGORY_COUNT;
use crate::node::Node;
use crate::system::World;
use crate::units::Time;
use catalogue::{
    ProcReading, CACHE_COUNTERS, COHERENCE_COUNTERS, DMA_CACHE_COUNTERS, HANDOFF_COUNTERS,
    LOCK_COUNTERS, NODE_COUNTERS, PROC_COUNTERS, TICK_COUNTERS,
};

#[derive(Clone, Debug, Default)]
pub struct ProcSnap {
    pub name: String,
    /// One value per `catalogue::PROC_COUNTERS` entry, in its order, then one per
    /// `CACHE_COUNTERS` and `COHERENCE_COUNTERS` entry (zero without caches).
    pub values: Vec<f64>,
    /// Busy picoseconds per stage (`ProcStats::busy_stage_ps`'s indices).
    pub stages: Vec<f64>,
    /// Instructions per stage (`ProcStats::instructions_stage`).
    pub instructions: Vec<f64>,
}

impl ProcSnap {
    pub fn get(&self, key: &str) -> f64 {
        self.values[catalogue::position(PROC_COUNTERS.iter().map(|c| c.key), key)]
    }
}

#[derive(Clone, Debug, Default)]
pub struct NodeSnap {
    pub procs: Vec<ProcSnap>,
    /// One value per `catalogue::NODE_COUNTERS` entry, in its order, then one per
    /// `DMA_CACHE_COUNTERS` and `LOCK_COUNTERS` entry.
    pub values: Vec<f64>,
}

impl NodeSnap {
    pub fn get(&self, key: &str) -> f64 {
        self.values[catalogue::position(NODE_COUNTERS.iter().map(|c| c.key), key)]
    }
}

#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub at: Time,
    pub nodes: Vec<NodeSnap>,
}

impl Snapshot {
    /// Counters as of `at` (no earlier than the last executed event).
    pub fn take_at(nodes: &[Node], at: Time) -> Snapshot {
        let nodes = nodes
            .iter()
            .map(|n| NodeSnap {
                procs: n
                    .procs
                    .iter()
                    .enumerate()
                    .map(|(j, p)| {
                        let (busy_ps, ctx_ps, stages) = p.busy_until(at);
                        let cache = n.mem.detailed.as_ref().and_then(|d| {
                            (j < d.caches.cpus())
                                .then(|| (d.caches.stats(j), d.caches.coherence[j]))
                        });
                        let r = ProcReading {
                            busy_ps,
                            ctx_ps,
                            p,
                            bridge_wait_ps: n.mem.nb.cpu.get(j).map_or(0, |s| s.wait_ps),
                            cache,
                        };
                        let all = PROC_COUNTERS
                            .iter()
                            .chain(CACHE_COUNTERS)
                            .chain(COHERENCE_COUNTERS)
                            .chain(TICK_COUNTERS);
                        ProcSnap {
                            name: p.id.as_str().to_string(),
                            values: all.map(|c| (c.read)(&r)).collect(),
                            stages: stages.iter().map(|&v| v as f64).collect(),
                            instructions: p.stats.instructions_stage.to_vec(),
                        }
                    })
                    .collect(),
                values: NODE_COUNTERS
                    .iter()
                    .chain(DMA_CACHE_COUNTERS)
                    .chain(LOCK_COUNTERS)
                    .chain(HANDOFF_COUNTERS)
                    .map(|c| (c.read)(n))
                    .collect(),
            })
            .collect();
        Snapshot { at, nodes }
    }
}

/// What happened between two snapshots.
#[derive(Clone, Debug, Default)]
pub struct Window {
    pub start: Time,
    pub end: Time,
    pub d: Snapshot,
}

fn diff(later: &[f64], earlier: &[f64]) -> Vec<f64> {
    later.iter().zip(earlier).map(|(b, a)| b - a).collect()
}

impl Window {
    pub fn between(a: &Snapshot, b: &Snapshot) -> Window {
        let nodes = a
            .nodes
            .iter()
            .zip(&b.nodes)
            .map(|(x, y)| NodeSnap {
                procs: x
                    .procs
                    .iter()
                    .zip(&y.procs)
                    .map(|(p, q)| ProcSnap {
                        name: p.name.clone(),
                        values: diff(&q.values, &p.values),
                        // A stage first run after the earlier snapshot is missing from it.
                        stages: (0..q.stages.len())
                            .map(|i| q.stages[i] - p.stages.get(i).copied().unwrap_or(0.0))
                            .collect(),
                        instructions: (0..q.instructions.len())
                            .map(|i| {
                                q.instructions[i] - p.instructions.get(i).copied().unwrap_or(0.0)
                            })
                            .collect(),
                    })
                    .collect(),
                values: diff(&y.values, &x.values),
            })
            .collect();
        Window {
            start: a.at,
            end: b.at,
            d: Snapshot { at: b.at, nodes },
        }
    }

    pub fn seconds(&self) -> f64 {
        (self.end - self.start).as_secs_f64()
    }

    /// Busy fraction of a processor in this window (1 − idle share).
    pub fn utilisation(&self, node: usize, proc: usize) -> f64 {
        // The first five processor counters are the busy time by category.
        let p = &self.d.nodes[node].procs[proc];
        p.values[..CATEGORY_COUNT].iter().sum::<f64>() / (self.end - self.start).0.max(1) as f64
    }
}

/// Payload bytes of one direction, by where they are at the end of a run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Conservation {
    pub sent_bytes: u64,
    pub delivered_bytes: u64,
    pub in_flight_bytes: u64,
    pub dropped_bytes: u64,
}

impl Conservation {
    pub fn holds(&self) -> bool {
        self.sent_bytes == self.delivered_bytes + self.in_flight_bytes + self.dropped_bytes
    }
}

/// Floating-point slack for the bound checks.
const UTIL_SLACK: f64 = 1e-9;

/// Fails loudly when a window breaks conservation (each direction, named) or a physical
/// bound.
/// `links[i]` is the number of links node `i` has (one per fabric address), each of
/// `link_rate_bps`; `max_frame_wire_bytes` is the largest frame on the wire: one may have been
/// on its way in as the window opened.
pub fn check_window(
    cons: &[(String, Conservation)],
    link_rate_bps: f64,
    links: &[usize],
    max_frame_wire_bytes: f64,
    win: &Window,
) -> Result<(), String> {
    for (name, c) in cons {
        if !c.holds() {
            return Err(format!(
                "conservation broken {name}: sent {} ≠ delivered {} + in flight {} + dropped {}",
                c.sent_bytes, c.delivered_bytes, c.in_flight_bytes, c.dropped_bytes
            ));
        }
    }
    let secs = win.seconds();
    if secs <= 0.0 {
        return Ok(());
    }
    for (i, n) in win.d.nodes.iter().enumerate() {
        // What crossed the node's links in the window; what its application read may be more
        // (bytes that arrived before the window and waited in a socket buffer).
        let k = links[i] as f64;
        let arrived_bits = n.get("wire_arrived_bytes") * 8.0;
        let bound_bits = k * (link_rate_bps * secs + max_frame_wire_bytes * 8.0);
        if arrived_bits > bound_bits * (1.0 + UTIL_SLACK) {
            return Err(format!("throughput bound broken: node{i} received {:.1} Mbps on the wire, above the rate of its {k} link(s), {:.1} Mbps", arrived_bits / secs / 1e6, k * link_rate_bps / 1e6));
        }
        for (j, p) in n.procs.iter().enumerate() {
            let u = win.utilisation(i, j);
            if u > 1.0 + UTIL_SLACK {
                return Err(format!(
                    "utilisation bound broken: node{i}.{} at {:.4}",
                    p.name, u
                ));
            }
        }
    }
    Ok(())
}

impl World {
    /// Every counter of every node, now.
    pub fn snapshot(&mut self) -> Snapshot {
        self.settle();
        Snapshot::take_at(&self.nodes, self.eng.now())
    }

    /// Counters as of `at` (no earlier than the last executed event).
    pub fn snapshot_at(&mut self, at: Time) -> Snapshot {
        self.settle();
        Snapshot::take_at(&self.nodes, at)
    }
}
