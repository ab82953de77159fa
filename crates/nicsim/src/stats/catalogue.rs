//! Every per-node and per-processor counter a window reports, declared once: its key in the
//! results (dots make nested objects), how it is read, and how a window turns it into a
//! figure. Snapshots, windows and the JSON report all iterate these tables, so adding a
//! counter is one line here (and its schema line in `docs/output.md`).

use crate::config::CATEGORY_COUNT;
use crate::handoff::HandoffStats;
use crate::hw::cache::CacheStats;
use crate::hw::caches::{Coherence, DmaCacheStats};
use crate::hw::cpu::Processor;
use crate::hw::nic::NicStats;
use crate::node::Node;
use crate::os::lock::LockStats;
use crate::stack::tcp::TcpStats;

/// How a window reports a counter's change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A count of events or bytes, as an integer.
    Count,
    /// A count per second of the window.
    PerSecond,
    /// Busy picoseconds as a fraction of the window.
    Busy,
    /// Picoseconds in microseconds.
    Micros,
    /// A fractional count (expected bridge transactions), rounded.
    Rounded,
    /// Busy picoseconds in cycles of the host clock.
    Cycles,
}

pub struct Counter {
    pub key: &'static str,
    pub unit: Unit,
    pub read: fn(&Node) -> f64,
}

const fn c(key: &'static str, unit: Unit, read: fn(&Node) -> f64) -> Counter {
    Counter { key, unit, read }
}

/// A NIC counter summed over the node's devices.
fn nic_sum(n: &Node, f: fn(&NicStats) -> u64) -> f64 {
    n.devs.iter().map(|d| f(&d.nic.stats)).sum::<u64>() as f64
}

/// A DMA-against-caches count (mode B; zero in mode A).
fn dma_cache(n: &Node, f: fn(&DmaCacheStats) -> u64) -> f64 {
    n.mem
        .detailed
        .as_ref()
        .map_or(0.0, |d| f(&d.caches.dma) as f64)
}

/// A TCP counter summed over the node's connections (freed ones included).
fn tcp_sum(n: &Node, f: fn(&TcpStats) -> u64) -> f64 {
    n.tcp_total(f) as f64
}

pub const NODE_COUNTERS: &[Counter] = &[
    c("io_bus_utilisation", Unit::Busy, |n| n.io.busy_ps as f64),
    c("io_transactions", Unit::Count, |n| n.io.transactions as f64),
    c("dma_bytes", Unit::Count, |n| {
        n.devs.iter().map(|d| d.dma.bytes).sum::<u64>() as f64
    }),
    c("north_bridge_collisions", Unit::Count, |n| {
        let nb = &n.mem.nb;
        (nb.cpu.iter().map(|c| c.collisions).sum::<u64>() + nb.dma.collisions) as f64
    }),
    c("north_bridge_penalty_us", Unit::Micros, |n| {
        let nb = &n.mem.nb;
        (nb.cpu.iter().map(|c| c.penalty_ps).sum::<u64>() + nb.dma.penalty_ps) as f64
    }),
    c("north_bridge_transactions", Unit::Rounded, |n| {
        let nb = &n.mem.nb;
        nb.cpu.iter().map(|c| c.transactions).sum::<f64>() + nb.dma.transactions
    }),
    c("north_bridge_utilisation", Unit::Busy, |n| {
        n.mem.nb.busy_ps() as f64
    }),
    c("copy_bytes", Unit::Count, |n| n.stats.copy_bytes as f64),
    c("wire_arrived_bytes", Unit::Count, |n| {
        n.stats.wire_arrived_bytes as f64
    }),
    c("app_bytes_read", Unit::Count, |n| n.app_bytes_read() as f64),
    c("app_bytes_sent", Unit::Count, |n| {
        n.payload_handed_bytes() as f64 - tcp_sum(n, |s| s.retransmitted_bytes)
    }),
    c("raw_bytes_delivered", Unit::Count, |n| {
        n.stats.raw_delivered_bytes as f64
    }),
    c("rx_dropped_ring_frames", Unit::Count, |n| {
        nic_sum(n, |s| s.rx_dropped_ring)
    }),
    c("retransmitted_bytes", Unit::Count, |n| {
        tcp_sum(n, |s| s.retransmitted_bytes)
    }),
    c("acks_sent", Unit::Count, |n| tcp_sum(n, |s| s.acks_sent)),
    c("data_segments_sent", Unit::Count, |n| {
        tcp_sum(n, |s| s.data_segments_sent)
    }),
    c("delayed_ack_expiries", Unit::Count, |n| {
        tcp_sum(n, |s| s.delack_expiries)
    }),
    c("rto_expiries", Unit::Count, |n| {
        tcp_sum(n, |s| s.rto_expiries)
    }),
    c("fast_retransmits", Unit::Count, |n| {
        tcp_sum(n, |s| s.fast_retransmits)
    }),
    c("nic_irqs_raised", Unit::Count, |n| {
        nic_sum(n, |s| s.irqs_raised)
    }),
    c("ring_flushes.full", Unit::Count, |n| {
        nic_sum(n, |s| s.flush_full)
    }),
    c("ring_flushes.idle", Unit::Count, |n| {
        nic_sum(n, |s| s.flush_idle)
    }),
    c("ring_flushes.push", Unit::Count, |n| {
        nic_sum(n, |s| s.flush_push)
    }),
    c("connections.opened", Unit::Count, |n| {
        n.stats.connections_opened as f64
    }),
    c("connections.accepted", Unit::Count, |n| {
        n.stats.connections_accepted as f64
    }),
    c("connections.closed", Unit::Count, |n| {
        n.stats.connections_closed as f64
    }),
    c("connections.listen_drops", Unit::Count, |n| {
        n.stats.listen_drops as f64
    }),
    c("connections.deferred_acks", Unit::Count, |n| {
        n.stats.deferred_acks as f64
    }),
    c("connections.syn_retransmits", Unit::Count, |n| {
        tcp_sum(n, |s| s.syn_retransmits)
    }),
    c("wakeups_per_s", Unit::PerSecond, |n| n.stats.wakeups as f64),
    c("prequeued_per_s", Unit::PerSecond, |n| {
        n.stats.prequeued as f64
    }),
    c("migrations", Unit::Count, |n| n.stats.migrations as f64),
    c("ipis_sent_per_s", Unit::PerSecond, |n| {
        n.stats.ipis_sent as f64
    }),
];

/// DMA against the caches, per node (mode B only).
pub const DMA_CACHE_COUNTERS: &[Counter] = &[
    c("dma_cache.lines_written", Unit::Count, |n| {
        dma_cache(n, |d| d.lines_written)
    }),
    c("dma_cache.invalidations", Unit::Count, |n| {
        dma_cache(n, |d| d.invalidations)
    }),
    c("dma_cache.allocations", Unit::Count, |n| {
        dma_cache(n, |d| d.allocations)
    }),
    c("dma_cache.read_snoops", Unit::Count, |n| {
        dma_cache(n, |d| d.read_snoops)
    }),
];

/// A device-queue lock count summed over the node's devices.
fn queue_lock(n: &Node, f: fn(&LockStats) -> u64) -> f64 {
    n.devs.iter().map(|d| f(&d.queue_lock.stats)).sum::<u64>() as f64
}

/// A socket-lock count summed over the node's connections (freed ones included).
fn socket_lock(n: &Node, f: fn(&LockStats) -> u64) -> f64 {
    n.socket_lock_total(f) as f64
}

/// The node's buffer-allocator lock count (`smp.allocator_lock`).
fn allocator_lock(n: &Node, f: fn(&LockStats) -> u64) -> f64 {
    f(&n.alloc_lock.stats) as f64
}

/// The node's IP lock count (`org.ip_serialised`).
fn ip_lock(n: &Node, f: fn(&LockStats) -> u64) -> f64 {
    f(&n.ip_lock.stats) as f64
}

/// The node's dispatcher lock count (`smp.thread_lock`).
fn thread_lock(n: &Node, f: fn(&LockStats) -> u64) -> f64 {
    f(&n.thread_lock.stats) as f64
}

/// The node's TCP context list lock count (`org.context_list_lock`).
fn contexts_lock(n: &Node, f: fn(&LockStats) -> u64) -> f64 {
    f(&n.contexts_lock.stats) as f64
}

/// Each lock class's acquisitions, conflicts, spin time and hold time, `$sum` adding up the class's
/// locks on a node; then any other counters.
macro_rules! lock_counters {
    ($(($class:literal, $sum:expr)),* ; $($other:expr),*) => {
        &[
            $(
                c(concat!("locks.", $class, ".acquisitions"), Unit::Count, |n| $sum(n, |l| l.acquisitions)),
                c(concat!("locks.", $class, ".conflicts"), Unit::Count, |n| $sum(n, |l| l.conflicts)),
                c(concat!("locks.", $class, ".spin_us"), Unit::Micros, |n| $sum(n, |l| l.spin_ps)),
                c(concat!("locks.", $class, ".hold_us"), Unit::Micros, |n| $sum(n, |l| l.hold_ps)),
            )*
            $($other),*
        ]
    };
}

/// Spinlocks, per node (with `smp.spinlocks` only).
pub const LOCK_COUNTERS: &[Counter] = lock_counters![
    ("dev_queue", queue_lock),
    ("socket", socket_lock),
    ("allocator", allocator_lock),
    ("threads", thread_lock),
    ("ip", ip_lock),
    ("tcp_contexts", contexts_lock);
    c("locks.socket.backlogged", Unit::Count, |n| n.stats.socket_backlogged as f64)
];

/// A handoff-NIC counter (zero on a node without one).
fn handoff(n: &Node, f: fn(&HandoffStats) -> u64) -> f64 {
    n.handoff_nic().map_or(0.0, |h| f(&h.stats) as f64)
}

/// The connection-handoff NIC, per node that has one (handoff.md §11).
pub const HANDOFF_COUNTERS: &[Counter] = &[
    c("handoff.attempts", Unit::Count, |n| {
        handoff(n, |s| s.attempts)
    }),
    c("handoff.handoffs", Unit::Count, |n| {
        handoff(n, |s| s.handoffs)
    }),
    c("handoff.nacks_limit", Unit::Count, |n| {
        handoff(n, |s| s.nacks_limit)
    }),
    c("handoff.nacks_closed", Unit::Count, |n| {
        handoff(n, |s| s.nacks_closed)
    }),
    c("handoff.released", Unit::Count, |n| {
        handoff(n, |s| s.released)
    }),
    c("handoff.restores", Unit::Count, |n| {
        handoff(n, |s| s.restores)
    }),
    c("handoff.commands", Unit::Count, |n| {
        handoff(n, |s| s.commands)
    }),
    c("handoff.events", Unit::Count, |n| handoff(n, |s| s.events)),
    c("handoff.packets_per_s.rx_host", Unit::PerSecond, |n| {
        handoff(n, |s| s.rx_frames[0])
    }),
    c("handoff.packets_per_s.rx_nic", Unit::PerSecond, |n| {
        handoff(n, |s| s.rx_frames[1])
    }),
    c("handoff.packets_per_s.tx_host", Unit::PerSecond, |n| {
        handoff(n, |s| s.tx_frames[0])
    }),
    c("handoff.packets_per_s.tx_nic", Unit::PerSecond, |n| {
        handoff(n, |s| s.tx_frames[1])
    }),
    c("handoff.queue_drops.host", Unit::Count, |n| {
        handoff(n, |s| s.queue_drops[0])
    }),
    c("handoff.queue_drops.nic", Unit::Count, |n| {
        handoff(n, |s| s.queue_drops[1])
    }),
    c("handoff.dma_bytes.payload", Unit::Count, |n| {
        handoff(n, |s| s.payload_dma_bytes)
    }),
    c("handoff.dma_bytes.state", Unit::Count, |n| {
        handoff(n, |s| s.state_dma_bytes)
    }),
    c("handoff.dma_bytes.descriptors", Unit::Count, |n| {
        handoff(n, |s| s.descriptor_dma_bytes)
    }),
    c("handoff.nic_tasks_past_host", Unit::Count, |n| {
        handoff(n, |s| s.nic_past_host)
    }),
    c("handoff.pending_past_older", Unit::Count, |n| {
        handoff(n, |s| s.pending_past_older)
    }),
    c("handoff.older_before_pending", Unit::Count, |n| {
        handoff(n, |s| s.older_before_pending)
    }),
    c("handoff.over_soft_limit_evaluations", Unit::Count, |n| {
        handoff(n, |s| s.over_soft_limit)
    }),
];

/// A processor's counters at one instant: busy picoseconds by category and by context (the
/// future part of the running chunk left out), and the processor for its event counts.
pub struct ProcReading<'a> {
    pub busy_ps: [u64; CATEGORY_COUNT],
    pub ctx_ps: [u64; 3],
    pub p: &'a Processor,
    /// Time its memory requests waited at the north bridge for other initiators.
    pub bridge_wait_ps: u64,
    /// Its caches' counts (L1I, L1D, L2) and coherence in mode B; None without caches.
    pub cache: Option<([CacheStats; 3], Coherence)>,
}

/// A cache counter of level `l` (0 L1I, 1 L1D, 2 L2); zero for a processor without caches.
macro_rules! cache_counters {
    ($($l:literal $level:literal: $($f:ident)*;)*) => {
        &[$($(pc(
            concat!("cache.", $level, ".", stringify!($f)),
            Unit::Count,
            |r| r.cache.map_or(0.0, |(s, _)| s[$l].$f as f64),
        ),)*)*]
    };
}

/// Per-processor cache counters (mode B), nested as `cache.LEVEL.COUNT`.
pub const CACHE_COUNTERS: &[ProcCounter] = cache_counters! {
    0 "l1i": read_hits read_misses read_word_hits prefetches invalidations;
    1 "l1d": read_hits read_misses write_hits write_misses read_word_hits write_word_hits prefetches invalidations;
    2 "l2": read_hits read_misses write_hits write_misses write_word_hits writebacks prefetches invalidations;
};

/// Per-processor timer interrupts (with `sched.tick_hz` only).
pub const TICK_COUNTERS: &[ProcCounter] = &[pc("timer_irq_per_s", Unit::PerSecond, |r| {
    r.p.stats.irqs_timer as f64
})];

/// Per-processor coherence counters (mode B).
pub const COHERENCE_COUNTERS: &[ProcCounter] = &[
    pc("coherence.transfers", Unit::Count, |r| {
        r.cache.map_or(0.0, |(_, c)| c.transfers as f64)
    }),
    pc("coherence.invalidated", Unit::Count, |r| {
        r.cache.map_or(0.0, |(_, c)| c.invalidated as f64)
    }),
];

pub struct ProcCounter {
    pub key: &'static str,
    pub unit: Unit,
    pub read: fn(&ProcReading) -> f64,
}

const fn pc(key: &'static str, unit: Unit, read: fn(&ProcReading) -> f64) -> ProcCounter {
    ProcCounter { key, unit, read }
}

/// The first `CATEGORY_COUNT` entries are the busy time by category, in `Category` order; a
/// window's utilisation is their sum.
pub const PROC_COUNTERS: &[ProcCounter] = &[
    pc("busy.copy", Unit::Busy, |r| r.busy_ps[0] as f64),
    pc("busy.tcpip", Unit::Busy, |r| r.busy_ps[1] as f64),
    pc("busy.driver", Unit::Busy, |r| r.busy_ps[2] as f64),
    pc("busy.os", Unit::Busy, |r| r.busy_ps[3] as f64),
    pc("busy.app", Unit::Busy, |r| r.busy_ps[4] as f64),
    pc("busy.conn", Unit::Busy, |r| r.busy_ps[5] as f64),
    pc("busy_by_context.hardirq", Unit::Busy, |r| {
        r.ctx_ps[0] as f64
    }),
    pc("busy_by_context.softirq", Unit::Busy, |r| {
        r.ctx_ps[1] as f64
    }),
    pc("busy_by_context.process", Unit::Busy, |r| {
        r.ctx_ps[2] as f64
    }),
    pc("busy_cycles.copy", Unit::Cycles, |r| r.busy_ps[0] as f64),
    pc("busy_cycles.tcpip", Unit::Cycles, |r| r.busy_ps[1] as f64),
    pc("busy_cycles.driver", Unit::Cycles, |r| r.busy_ps[2] as f64),
    pc("busy_cycles.os", Unit::Cycles, |r| r.busy_ps[3] as f64),
    pc("busy_cycles.app", Unit::Cycles, |r| r.busy_ps[4] as f64),
    pc("busy_cycles.conn", Unit::Cycles, |r| r.busy_ps[5] as f64),
    pc("busy_bridge_wait", Unit::Busy, |r| r.bridge_wait_ps as f64),
    pc("nic_irq_per_s", Unit::PerSecond, |r| {
        r.p.stats.irqs_nic as f64
    }),
    pc("ipi_per_s", Unit::PerSecond, |r| r.p.stats.irqs_ipi as f64),
    pc("context_switches_per_s", Unit::PerSecond, |r| {
        r.p.stats.context_switches as f64
    }),
    pc("wakeups_per_s", Unit::PerSecond, |r| {
        r.p.stats.wakeups as f64
    }),
    pc("coherence_transfers_per_s", Unit::PerSecond, |r| {
        r.p.stats.coherence_lines as f64
    }),
];

/// Position of `key` in a counter table's keys, in the order the table declares them.
pub fn position<'a>(mut keys: impl Iterator<Item = &'a str>, key: &str) -> usize {
    keys.position(|k| k == key)
        .unwrap_or_else(|| panic!("no counter {key}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_carry_their_unit() {
        let mut keys: Vec<&str> = NODE_COUNTERS.iter().map(|c| c.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), NODE_COUNTERS.len());
        for c in NODE_COUNTERS {
            match c.unit {
                Unit::PerSecond => assert!(c.key.ends_with("_per_s"), "{}", c.key),
                Unit::Busy => assert!(c.key.ends_with("_utilisation"), "{}", c.key),
                Unit::Micros => assert!(c.key.ends_with("_us"), "{}", c.key),
                Unit::Count | Unit::Rounded | Unit::Cycles => {}
            }
        }
    }

    #[test]
    fn processor_keys_are_unique_and_busy_comes_first() {
        let mut keys: Vec<&str> = PROC_COUNTERS.iter().map(|c| c.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), PROC_COUNTERS.len());
        for (i, c) in PROC_COUNTERS.iter().enumerate() {
            assert_eq!(c.key.starts_with("busy."), i < CATEGORY_COUNT, "{}", c.key);
            match c.unit {
                Unit::PerSecond => assert!(c.key.ends_with("_per_s"), "{}", c.key),
                Unit::Busy => assert!(c.key.starts_with("busy"), "{}", c.key),
                Unit::Cycles => assert!(c.key.starts_with("busy_cycles."), "{}", c.key),
                Unit::Count | Unit::Rounded | Unit::Micros => panic!("{}", c.key),
            }
        }
    }
}
