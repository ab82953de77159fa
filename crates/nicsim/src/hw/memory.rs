//! The memory hierarchy of one node: how each processor's references are priced (the
//! mean-access model of thesis Eq. 4.1, mode A, or the detailed caches of host-path §4.3,
//! mode B), the north bridge those that miss contend on, and each processor's register path.

use crate::config::{Config, DmaCachePolicy};
use crate::hw::bus::{Initiator, IoBus, NorthBridge};
use crate::hw::cache::Geometry;
use crate::hw::caches::{Caches, Cost, DmaPolicy, Latencies, Spec};
use crate::hw::cpu::Chunk;
use crate::hw::footprint::Layout;
use crate::hw::frame::FlowId;
use crate::units::{Duration, Freq, Time};

/// How a processor's data references are priced in mode A, and the NIC processor's in both
/// modes (it has no cache, host-path §4.3).
#[derive(Clone, Copy, Debug)]
pub enum MemoryModel {
    /// Mode A (thesis Eq. 4.1): a reference hits with probability `hit_ratio` and stays in the
    /// processor, or misses and becomes one north-bridge transaction. Its mean stall is
    /// t_mean = h·t_hit + (1 − h)·t_miss; only the misses reach (and contend on) the bridge.
    MeanAccess {
        hit_ratio: f64,
        hit_cycles: f64,
        miss_cycles: f64,
    },
}

impl MemoryModel {
    /// Memory that costs `cycles` per reference and never reaches the bridge (a connector).
    pub fn flat(cycles: f64) -> Self {
        MemoryModel::MeanAccess {
            hit_ratio: 1.0,
            hit_cycles: cycles,
            miss_cycles: cycles,
        }
    }

    /// Host cycles a batch of `refs` references stalls the processor, contention aside.
    pub fn stall_cycles(&self, refs: f64) -> f64 {
        match *self {
            MemoryModel::MeanAccess {
                hit_ratio,
                hit_cycles,
                miss_cycles,
            } => refs * (hit_ratio * hit_cycles + (1.0 - hit_ratio) * miss_cycles),
        }
    }

    /// Mean host cycles one reference stalls the processor (t_mean), contention aside.
    pub fn mean_cycles(&self) -> f64 {
        self.stall_cycles(1.0)
    }

    /// Transactions a batch of `refs` references sends to the north bridge (its misses).
    pub fn transactions(&self, refs: f64) -> f64 {
        match *self {
            MemoryModel::MeanAccess { hit_ratio, .. } => refs * (1.0 - hit_ratio),
        }
    }
}

/// How a processor reaches memory and devices.
#[derive(Clone, Copy, Debug)]
pub struct MemPath {
    pub model: MemoryModel,
    /// Shares the north bridge (pays collisions) or is a pure connector.
    pub contended: bool,
    /// Cycles a register access stalls this processor, when it does not cross the host I/O bus.
    pub local_io_cycles: Option<f64>,
}

/// Mode B's state: the host CPUs' caches, where data lies, and the receive ring's cursors
/// (the slot the NIC's DMA fills next and the one the driver takes next; one ring per node,
/// an approximation with several NICs).
#[derive(Clone, Debug)]
pub struct Detailed {
    pub caches: Caches,
    pub layout: Layout,
    dma_slot: u32,
    poll_slot: u32,
}

impl Detailed {
    /// Mode B's caches for `host_cpus` CPUs (thesis Table 4.17 by default, `cache.*`), and the
    /// layout of the node's code and data in them.
    pub fn from_config(cfg: &Config, host_cpus: usize) -> Result<Detailed, String> {
        let c = &cfg.cache;
        let g = |size_bytes, line_bytes, ways, write_back| Geometry {
            size_bytes,
            line_bytes,
            ways,
            write_back,
        };
        let spec = Spec {
            l1i: g(c.l1i_size_bytes, c.l1i_line_bytes, c.l1i_ways, false),
            l1d: g(c.l1d_size_bytes, c.l1d_line_bytes, c.l1d_ways, false),
            l2: g(c.l2_size_bytes, c.l2_line_bytes, c.l2_ways, true),
            l2_shared: c.l2_shared,
            lat: Latencies {
                l1i_read_cycles: c.l1i_read_cycles,
                l1d_read_cycles: c.l1d_read_cycles,
                l1d_write_cycles: c.l1d_write_cycles,
                l2_read_cycles: c.l2_read_cycles,
                l2_write_cycles: c.l2_write_cycles,
                memory_cycles: c.memory_cycles,
            },
            dma: match c.dma_policy {
                DmaCachePolicy::Invalidate => DmaPolicy::Invalidate,
                DmaCachePolicy::Allocate => DmaPolicy::Allocate,
            },
            prefetch_next_line: c.prefetch_next_line,
        };
        let caches = Caches::new(spec, host_cpus)?;
        let layout = Layout::new(
            c,
            &cfg.costs,
            cfg.nic.rx_ring_entries as u64,
            c.l1d_line_bytes,
        )?;
        Ok(Detailed::new(caches, layout))
    }

    pub fn new(caches: Caches, layout: Layout) -> Self {
        Detailed {
            caches,
            layout,
            dma_slot: 0,
            poll_slot: 0,
        }
    }
}

/// One node's memory hierarchy: the processors' paths and the north bridge they share.
/// It is the only thing that prices a processor's memory and register accesses.
#[derive(Clone, Debug)]
pub struct MemoryHierarchy {
    pub nb: NorthBridge,
    paths: Vec<MemPath>,
    /// Share of a posted register write's bus time the writing processor waits.
    pio_write_fraction: f64,
    /// Mode B: the host CPUs (the first processors) price references through caches.
    pub detailed: Option<Box<Detailed>>,
}

impl MemoryHierarchy {
    pub fn new(nb: NorthBridge, paths: Vec<MemPath>, pio_write_fraction: f64) -> Self {
        MemoryHierarchy {
            nb,
            paths,
            pio_write_fraction,
            detailed: None,
        }
    }

    pub fn with_caches(mut self, d: Detailed) -> Self {
        self.detailed = Some(Box::new(d));
        self
    }

    /// A received frame's DMA write (mode B: it invalidates or allocates cached copies).
    pub fn rx_dma(&mut self, at: Time, flow: FlowId, seq: u64, payload_bytes: u64) {
        if let Some(d) = self.detailed.as_mut() {
            let slot = d.dma_slot;
            d.dma_slot = d.dma_slot.wrapping_add(1);
            let mut extra = 0;
            for (addr, bytes) in d.layout.rx_dma(flow, seq, payload_bytes, slot) {
                if bytes > 0 {
                    extra += d.caches.dma_write(addr, bytes);
                }
            }
            // Victims an allocating DMA write evicted go to memory.
            self.nb.request(at, at, Initiator::Dma, extra as f64);
        }
    }

    /// A sent frame's DMA read of its payload (mode B: dirty copies supply it).
    pub fn tx_dma(&mut self, flow: FlowId, seq: u64, payload_bytes: u64) {
        if let Some(d) = self.detailed.as_mut() {
            let (addr, bytes) = d.layout.tx_dma(flow, seq, payload_bytes);
            if bytes > 0 {
                d.caches.dma_read(addr, bytes);
            }
        }
    }

    /// The ring slot of the next frame the driver takes, and moves past `frames` of them.
    pub fn take_rx_slot(&mut self, frames: u32) -> u32 {
        match self.detailed.as_mut() {
            Some(d) => {
                let s = d.poll_slot;
                d.poll_slot = d.poll_slot.wrapping_add(frames);
                s
            }
            None => 0,
        }
    }

    /// Mean cycles one reference of processor `p` stalls it, contention aside.
    pub fn mean_cycles(&self, p: usize) -> f64 {
        self.paths[p].model.mean_cycles()
    }

    /// Chunk `c`'s references by processor `p` (clocked at `clock`) issued at `at`, the
    /// chunk started at `now`: only those that leave the processor (misses, write-backs,
    /// coherence transfers) reach the bridge and wait there. Mode A stalls the mean access
    /// time per reference; mode B prices each part's instruction fetches and data lines
    /// through the caches. Returns when done.
    pub fn access(&mut self, now: Time, at: Time, p: usize, clock: Freq, c: &Chunk) -> Time {
        let path = &self.paths[p];
        let (stall_cycles, transactions) = match self.detailed.as_mut() {
            Some(d) if p < d.caches.cpus() => {
                let mut cost = Cost::default();
                for part in c.parts() {
                    let k = d.layout.price(&mut d.caches, p, part, &c.data);
                    cost.cycles += k.cycles;
                    cost.bridge_transactions += k.bridge_transactions;
                }
                (cost.cycles, cost.bridge_transactions as f64)
            }
            _ => {
                if c.refs <= 0.0 {
                    return at;
                }
                (
                    path.model.stall_cycles(c.refs),
                    path.model.transactions(c.refs),
                )
            }
        };
        let mut t = at;
        if path.contended {
            t += self.nb.request(now, t, Initiator::Cpu(p), transactions);
        }
        t + clock.duration_of(stall_cycles)
    }

    /// Whether processor `p`'s chunks can be priced ahead of their time (`plan_access`): mode
    /// A's mean access, and no other processor planning on the bridge.
    pub fn can_plan(&self, p: usize) -> bool {
        let host_cached = self.detailed.as_ref().is_some_and(|d| p < d.caches.cpus());
        !host_cached && self.nb.planner().is_none_or(|q| q == p)
    }

    /// `access` for a chunk that starts at `at`, later than now, priced now against the
    /// bridge as it will be then if nothing else reaches it first (`NorthBridge::plan`).
    pub fn plan_access(&mut self, at: Time, p: usize, clock: Freq, c: &Chunk) -> Time {
        let path = &self.paths[p];
        if c.refs <= 0.0 {
            return at;
        }
        let (stall_cycles, transactions) = (
            path.model.stall_cycles(c.refs),
            path.model.transactions(c.refs),
        );
        let mut t = at;
        if path.contended {
            t += self.nb.plan(t, p, transactions);
        }
        t + clock.duration_of(stall_cycles)
    }

    /// Register reads and writes by processor `p` issued at `at`: across the host I/O bus (a
    /// read waits for the round trip; a posted write for a share of its bus time), or local
    /// to the NIC processor. Returns when the processor may go on.
    pub fn registers(
        &self,
        at: Time,
        p: usize,
        clock: Freq,
        reads: u32,
        writes: u32,
        io: &mut IoBus,
    ) -> Time {
        if reads == 0 && writes == 0 {
            return at;
        }
        let mut t = at;
        match self.paths[p].local_io_cycles {
            Some(cyc) => t += clock.duration_of(cyc * (reads + writes) as f64),
            None => {
                for _ in 0..reads {
                    t = io.pio(t) + io.hold(8);
                }
                for _ in 0..writes {
                    let done = io.pio(t);
                    t += Duration(((done - t).0 as f64 * self.pio_write_fraction) as u64);
                }
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::BitRate;

    #[test]
    fn mean_access_stalls_t_mean_and_sends_only_misses_to_the_bridge() {
        let m = MemoryModel::MeanAccess {
            hit_ratio: 0.9,
            hit_cycles: 1.0,
            miss_cycles: 91.0,
        };
        assert!((m.stall_cycles(100.0) - 1000.0).abs() < 1e-9);
        assert!((m.transactions(100.0) - 10.0).abs() < 1e-9);
        let f = MemoryModel::flat(10.0);
        assert_eq!((f.stall_cycles(3.0), f.transactions(3.0)), (30.0, 0.0));
    }

    /// One chunk of `refs` references and no instructions.
    pub(crate) fn chunk(refs: f64) -> Chunk {
        use crate::config::{Category, ProcName};
        use crate::hw::cpu::{Ctx, Job, Piece, Processor, Then};
        let mut p = Processor::new(ProcName::Cpu(0), Freq(400_000_000), 1.0, 1 << 20);
        let piece = Piece {
            cat: Some(Category::Os),
            refs,
            ..Default::default()
        };
        p.running = Some((Ctx::Process, Job::new(Then::Nothing).with(piece)));
        p.next_chunk().unwrap()
    }

    fn host() -> MemPath {
        MemPath {
            model: MemoryModel::MeanAccess {
                hit_ratio: 1.0,
                hit_cycles: 1.0,
                miss_cycles: 91.0,
            },
            contended: true,
            local_io_cycles: None,
        }
    }

    #[test]
    fn references_that_all_hit_never_wait_at_the_bridge() {
        let nb = NorthBridge::new(Duration(125_000), Duration(30_000), 64, false, 2);
        let mut m = MemoryHierarchy::new(nb, vec![host(), host()], 1.0);
        let clock = Freq(400_000_000);
        // cpu0 and cpu1 issue at the same instant; all hits: 100 cycles each, no bridge traffic.
        let c = chunk(100.0);
        let a = m.access(Time::ZERO, Time::ZERO, 0, clock, &c);
        let b = m.access(Time::ZERO, Time::ZERO, 1, clock, &c);
        assert_eq!(a, Time::ZERO + clock.duration_of(100.0));
        assert_eq!(a, b);
        assert_eq!(m.nb.busy_ps(), 0);
    }

    #[test]
    fn the_nic_processor_reaches_its_registers_without_the_host_bus() {
        let nb = NorthBridge::new(Duration(0), Duration(30_000), 64, false, 1);
        let local = MemPath {
            model: MemoryModel::flat(2.0),
            contended: false,
            local_io_cycles: Some(4.0),
        };
        let m = MemoryHierarchy::new(nb, vec![host(), local], 1.0);
        let mut io = IoBus::new(BitRate(8_000_000_000), Duration(100_000), false);
        let clock = Freq(400_000_000);
        let t = m.registers(Time::ZERO, 1, clock, 1, 1, &mut io);
        assert_eq!(t, Time::ZERO + clock.duration_of(8.0));
        assert_eq!(io.transactions, 0);
        let h = m.registers(Time::ZERO, 0, clock, 1, 0, &mut io);
        assert_eq!(io.transactions, 1);
        assert!(
            h > Time::ZERO + io.hold(8),
            "a host read waits for the round trip"
        );
    }
}
