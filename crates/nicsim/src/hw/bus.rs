//! The north bridge (memory bus) and the I/O bus (PCI-X).
//!
//! The north bridge follows the thesis's `cont_staller` (host-path §4.4): an initiator that
//! finds the bus held by another pays the collision penalty, then waits for the bus. Accesses
//! are batched (a CPU chunk of references, a DMA transaction), never one event per reference.

use crate::units::{BitRate, Duration, Time};

/// Who is using the north bridge, for per-initiator collision counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Initiator {
    Cpu(usize),
    Dma,
}

#[derive(Clone, Debug, Default)]
pub struct InitiatorStats {
    pub accesses: u64,
    pub collisions: u64,
    pub penalty_ps: u64,
    pub hold_ps: u64,
}

/// The memory bus behind the north bridge: one server shared by every contended initiator.
#[derive(Clone, Debug)]
pub struct NorthBridge {
    penalty: Duration,
    ideal: bool,
    busy_until: Time,
    last: Option<Initiator>,
    pub cpu: Vec<InitiatorStats>,
    pub dma: InitiatorStats,
}

impl NorthBridge {
    pub fn new(penalty: Duration, ideal: bool, cpus: usize) -> Self {
        NorthBridge { penalty, ideal, busy_until: Time::ZERO, last: None, cpu: vec![InitiatorStats::default(); cpus], dma: InitiatorStats::default() }
    }

    /// An access that wants the bus from `at` for `hold`; returns when it completes.
    /// A held bus costs the collision penalty, then the wait until it is free.
    pub fn access(&mut self, at: Time, who: Initiator, hold: Duration) -> Time {
        if self.ideal {
            return at + hold;
        }
        let collided = self.busy_until > at && self.last != Some(who);
        let start = if collided {
            self.busy_until.max(at + self.penalty)
        } else {
            self.busy_until.max(at)
        };
        self.busy_until = start + hold;
        self.last = Some(who);
        let s = match who {
            Initiator::Cpu(i) => &mut self.cpu[i],
            Initiator::Dma => &mut self.dma,
        };
        s.accesses += 1;
        s.hold_ps += hold.0;
        if collided {
            s.collisions += 1;
            s.penalty_ps += self.penalty.0;
        }
        self.busy_until
    }
}

/// The shared, half-duplex I/O bus: DMA transactions and register accesses serialise on it.
#[derive(Clone, Debug)]
pub struct IoBus {
    rate: BitRate,
    overhead: Duration,
    ideal: bool,
    busy_until: Time,
    pub busy_ps: u64,
    pub transactions: u64,
    pub dma_bytes: u64,
    pub pio: u64,
}

impl IoBus {
    pub fn new(rate: BitRate, overhead: Duration, ideal: bool) -> Self {
        IoBus { rate, overhead, ideal, busy_until: Time::ZERO, busy_ps: 0, transactions: 0, dma_bytes: 0, pio: 0 }
    }

    /// Time a transaction of `bytes` holds the bus.
    pub fn hold(&self, bytes: u64) -> Duration {
        if self.ideal {
            Duration::ZERO
        } else {
            self.overhead + self.rate.time_to_send(bytes)
        }
    }

    /// Reserves the bus for a transaction of `bytes` wanted at `at`; returns (start, end).
    pub fn transact(&mut self, at: Time, bytes: u64) -> (Time, Time) {
        let hold = self.hold(bytes);
        let start = self.busy_until.max(at);
        self.busy_until = start + hold;
        self.busy_ps += hold.0;
        self.transactions += 1;
        (start, self.busy_until)
    }

    /// A register access by a CPU: returns when the bus has carried it.
    pub fn pio(&mut self, at: Time) -> Time {
        self.pio += 1;
        self.transact(at, 8).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contention_adds_the_collision_penalty() {
        let mut nb = NorthBridge::new(Duration(50_000), false, 1);
        // The CPU holds the bus from 0 to 1600 ns.
        assert_eq!(nb.access(Time(0), Initiator::Cpu(0), Duration(1_600_000)), Time(1_600_000));
        // DMA arrives at 100 ns: penalty, then it waits for the bus.
        let end = nb.access(Time(100_000), Initiator::Dma, Duration(1_000_000));
        assert_eq!(end, Time(2_600_000));
        assert_eq!(nb.dma.collisions, 1);
        // The penalty matters when the bus frees up before it ends.
        let end2 = nb.access(Time(2_590_000), Initiator::Cpu(0), Duration(10_000));
        assert_eq!(end2, Time(2_590_000 + 50_000 + 10_000));
        assert_eq!(nb.cpu[0].collisions, 1);
        assert_eq!(nb.cpu[0].penalty_ps, 50_000);
    }

    #[test]
    fn free_bus_has_no_penalty_and_ideal_bus_never_collides() {
        let mut nb = NorthBridge::new(Duration(50_000), false, 1);
        assert_eq!(nb.access(Time(10), Initiator::Dma, Duration(5)), Time(15));
        assert_eq!(nb.dma.collisions, 0);
        let mut ideal = NorthBridge::new(Duration(50_000), true, 1);
        ideal.access(Time(0), Initiator::Cpu(0), Duration(100));
        assert_eq!(ideal.access(Time(1), Initiator::Dma, Duration(100)), Time(101));
        assert_eq!(ideal.dma.collisions, 0);
    }

    #[test]
    fn io_bus_serialises_transactions_with_overhead() {
        let mut io = IoBus::new(BitRate(2_120_000_000), Duration(120_000), false);
        let (s1, e1) = io.transact(Time(0), 512);
        let (s2, _) = io.transact(Time(0), 512);
        assert_eq!(s1, Time(0));
        assert_eq!(e1, Time(120_000) + BitRate(2_120_000_000).time_to_send(512));
        assert_eq!(s2, e1);
    }
}
