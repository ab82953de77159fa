//! The memory hierarchy of one node: how each processor's references are priced (today the
//! mean-access model of thesis Eq. 4.1; the detailed caches of host-path §4.3 come in here),
//! the north bridge those that miss contend on, and each processor's register path.

use crate::hw::bus::{Initiator, IoBus, NorthBridge};
use crate::hw::frame::FlowId;
use crate::units::{Duration, Freq, Time};

/// Where a piece of work's data references go, beyond its code, stack and per-CPU data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Region {
    /// Code, stack and per-CPU data only.
    #[default]
    Private,
    /// A connection's socket and protocol control block.
    Connection(FlowId),
    /// A connection's socket buffer; addresses are stream byte offsets modulo 2^32, so a cache
    /// model maps them onto its buffer size (any power of two up to 4 GiB maps exactly).
    SocketBuffer(FlowId),
    /// Descriptor rings and packet headers.
    Ring,
}

/// What a piece of work touches: a region, an address in it and a size. Twelve bytes: it
/// rides in every piece of every job, and jobs move on every dispatch, so a piece stays at
/// 32 bytes. The mean-access
/// model prices references by count alone; a cache model (host-path §4.3, mode B) prices
/// them by what they touch, which is why every work item carries this.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Touch {
    pub region: Region,
    pub addr: u32,
    /// At most 4 GiB in one piece of work.
    pub bytes: u32,
}

impl Touch {
    pub fn new(region: Region, addr: u32, bytes: u32) -> Self {
        Touch {
            region,
            addr,
            bytes,
        }
    }
}

/// How a processor's data references are priced. This is the seam for a detailed cache model
/// (host-path §4.3, mode B): a `Caches` variant would return, per chunk, its stall and the
/// transactions that reach the north bridge; the node's chunk pricing calls only these two.
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

/// One node's memory hierarchy: the processors' paths and the north bridge they share.
/// It is the only thing that prices a processor's memory and register accesses, so a cache
/// model replaces this object and nothing else.
#[derive(Clone, Debug)]
pub struct MemoryHierarchy {
    pub nb: NorthBridge,
    paths: Vec<MemPath>,
    /// Share of a posted register write's bus time the writing processor waits.
    pio_write_fraction: f64,
}

impl MemoryHierarchy {
    pub fn new(nb: NorthBridge, paths: Vec<MemPath>, pio_write_fraction: f64) -> Self {
        MemoryHierarchy {
            nb,
            paths,
            pio_write_fraction,
        }
    }

    /// Mean cycles one reference of processor `p` stalls it, contention aside.
    pub fn mean_cycles(&self, p: usize) -> f64 {
        self.paths[p].model.mean_cycles()
    }

    /// `refs` references by processor `p` (clocked at `clock`) issued at `at` to what `touch`
    /// names: only the misses reach the bridge and wait there; the stall is the mean access
    /// time either way (the mean-access model does not look at `touch`). Returns when done.
    pub fn access(&mut self, at: Time, p: usize, clock: Freq, refs: f64, _touch: Touch) -> Time {
        if refs <= 0.0 {
            return at;
        }
        let path = &self.paths[p];
        let mut t = at;
        if path.contended {
            t += self
                .nb
                .request(t, Initiator::Cpu(p), path.model.transactions(refs));
        }
        t + clock.duration_of(path.model.stall_cycles(refs))
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
        let a = m.access(Time::ZERO, 0, clock, 100.0, Touch::default());
        let b = m.access(Time::ZERO, 1, clock, 100.0, Touch::default());
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
