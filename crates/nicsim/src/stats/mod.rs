//! Statistics: snapshots of every counter, windows between two snapshots (what a sysmon-like
//! monitor reports), and the conservation and bound checks every run must pass.

pub mod conservation;
pub mod counters;

use crate::hw::cpu::CATEGORIES;
use crate::node::Node;
use crate::units::Time;

#[derive(Clone, Debug, Default)]
pub struct ProcSnap {
    pub name: String,
    pub busy_ps: [u64; 5],
    pub ctx_ps: [u64; 3],
    pub irqs_nic: u64,
    pub irqs_ipi: u64,
    pub context_switches: u64,
}

#[derive(Clone, Debug, Default)]
pub struct NodeSnap {
    pub procs: Vec<ProcSnap>,
    pub io_busy_ps: u64,
    pub io_transactions: u64,
    pub dma_bytes: u64,
    pub nb_collisions: u64,
    pub nb_penalty_ps: u64,
    pub nb_transactions: f64,
    pub nb_busy_ps: u64,
    pub copy_bytes: u64,
    pub app_bytes_read: u64,
    pub app_bytes_consumed: u64,
    pub payload_tx_bytes: u64,
    pub rx_dropped_ring: u64,
    pub retransmitted_bytes: u64,
    pub acks_sent: u64,
    pub data_segments_sent: u64,
    pub delack_expiries: u64,
    pub rto_expiries: u64,
    pub fast_retransmits: u64,
    pub nic_irqs_raised: u64,
    pub flushes: [u64; 3],
    pub wakeups: u64,
    pub ipis_sent: u64,
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
                    .map(|p| {
                        let (busy_ps, ctx_ps) = p.busy_until(at);
                        ProcSnap {
                            name: p.id.as_str().to_string(),
                            busy_ps,
                            ctx_ps,
                            irqs_nic: p.stats.irqs_nic,
                            irqs_ipi: p.stats.irqs_ipi,
                            context_switches: p.stats.context_switches,
                        }
                    })
                    .collect(),
                io_busy_ps: n.io.busy_ps,
                io_transactions: n.io.transactions,
                dma_bytes: n.dma.bytes,
                nb_collisions: n.mem.nb.cpu.iter().map(|c| c.collisions).sum::<u64>()
                    + n.mem.nb.dma.collisions,
                nb_penalty_ps: n.mem.nb.cpu.iter().map(|c| c.penalty_ps).sum::<u64>()
                    + n.mem.nb.dma.penalty_ps,
                nb_transactions: n.mem.nb.cpu.iter().map(|c| c.transactions).sum::<f64>()
                    + n.mem.nb.dma.transactions,
                nb_busy_ps: n.mem.nb.busy_ps(),
                copy_bytes: n.stats.copy_bytes,
                app_bytes_read: n.threads[crate::os::thread::COMM].bytes_read,
                app_bytes_consumed: n.threads[crate::os::thread::LOAD].consumed,
                payload_tx_bytes: n.stats.payload_tx_bytes,
                rx_dropped_ring: n.nic.stats.rx_dropped_ring,
                retransmitted_bytes: n.tcp.stats.retransmitted_bytes,
                acks_sent: n.tcp.stats.acks_sent,
                data_segments_sent: n.tcp.stats.data_segments_sent,
                delack_expiries: n.tcp.stats.delack_expiries,
                rto_expiries: n.tcp.stats.rto_expiries,
                fast_retransmits: n.tcp.stats.fast_retransmits,
                nic_irqs_raised: n.nic.stats.irqs_raised,
                flushes: [
                    n.nic.stats.flush_full,
                    n.nic.stats.flush_idle,
                    n.nic.stats.flush_push,
                ],
                wakeups: n.stats.wakeups,
                ipis_sent: n.stats.ipis_sent,
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

fn sub_arr<const N: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
    let mut o = [0; N];
    for i in 0..N {
        o[i] = a[i] - b[i];
    }
    o
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
                        busy_ps: sub_arr(q.busy_ps, p.busy_ps),
                        ctx_ps: sub_arr(q.ctx_ps, p.ctx_ps),
                        irqs_nic: q.irqs_nic - p.irqs_nic,
                        irqs_ipi: q.irqs_ipi - p.irqs_ipi,
                        context_switches: q.context_switches - p.context_switches,
                    })
                    .collect(),
                io_busy_ps: y.io_busy_ps - x.io_busy_ps,
                io_transactions: y.io_transactions - x.io_transactions,
                dma_bytes: y.dma_bytes - x.dma_bytes,
                nb_collisions: y.nb_collisions - x.nb_collisions,
                nb_penalty_ps: y.nb_penalty_ps - x.nb_penalty_ps,
                nb_transactions: y.nb_transactions - x.nb_transactions,
                nb_busy_ps: y.nb_busy_ps - x.nb_busy_ps,
                copy_bytes: y.copy_bytes - x.copy_bytes,
                app_bytes_read: y.app_bytes_read - x.app_bytes_read,
                app_bytes_consumed: y.app_bytes_consumed - x.app_bytes_consumed,
                payload_tx_bytes: y.payload_tx_bytes - x.payload_tx_bytes,
                rx_dropped_ring: y.rx_dropped_ring - x.rx_dropped_ring,
                retransmitted_bytes: y.retransmitted_bytes - x.retransmitted_bytes,
                acks_sent: y.acks_sent - x.acks_sent,
                data_segments_sent: y.data_segments_sent - x.data_segments_sent,
                delack_expiries: y.delack_expiries - x.delack_expiries,
                rto_expiries: y.rto_expiries - x.rto_expiries,
                fast_retransmits: y.fast_retransmits - x.fast_retransmits,
                nic_irqs_raised: y.nic_irqs_raised - x.nic_irqs_raised,
                flushes: sub_arr(y.flushes, x.flushes),
                wakeups: y.wakeups - x.wakeups,
                ipis_sent: y.ipis_sent - x.ipis_sent,
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
        let p = &self.d.nodes[node].procs[proc];
        p.busy_ps.iter().sum::<u64>() as f64 / (self.end - self.start).0.max(1) as f64
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

/// Fails loudly when a window breaks conservation (`cons[i]`: node i's outgoing direction)
/// or a physical bound.
pub fn check_window(
    cons: &[Conservation; 2],
    link_payload_bps: f64,
    win: &Window,
) -> Result<(), String> {
    for (src, c) in cons.iter().enumerate() {
        if !c.holds() {
            return Err(format!(
                "conservation broken node{src}→node{}: sent {} ≠ delivered {} + in flight {} + dropped {}",
                1 - src,
                c.sent_bytes,
                c.delivered_bytes,
                c.in_flight_bytes,
                c.dropped_bytes
            ));
        }
    }
    let secs = win.seconds();
    if secs <= 0.0 {
        return Ok(());
    }
    for (i, n) in win.d.nodes.iter().enumerate() {
        let bps = n.app_bytes_read as f64 * 8.0 / secs;
        if bps > link_payload_bps * 1.0001 && secs > 1e-3 {
            return Err(format!("throughput bound broken: node{i} read {:.1} Mbps, above the link's payload rate {:.1} Mbps", bps / 1e6, link_payload_bps / 1e6));
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
    let _ = CATEGORIES;
    Ok(())
}
