//! The north bridge (memory bus) and the I/O bus (PCI-X).
//!
//! The north bridge follows the thesis's `cont_staller` (host-path §4.4), applied to what
//! reaches it: bridge transactions (a CPU's cache misses, a DMA transfer's memory lines), never
//! the references a cache serves. A request that finds the bus held by another initiator pays
//! the collision penalty, then waits for the bus. Requests are batched (a CPU chunk's misses, a
//! DMA transaction's lines), never one event per transaction.

use crate::units::{BitRate, Duration, Time};

/// Who is using the north bridge, for per-initiator collision counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Initiator {
    Cpu(usize),
    Dma,
}

#[derive(Clone, Debug, Default)]
pub struct InitiatorStats {
    /// Bridge transactions carried (fractional: a batch carries its expected misses).
    pub transactions: f64,
    /// Requests that found the bus held by another initiator; each collides on its first
    /// transaction, and the rest follow it.
    pub collisions: u64,
    pub penalty_ps: u64,
    pub hold_ps: u64,
    /// Time its requests waited before the bus served them (penalties and queueing): what
    /// sharing the bridge costs the initiator.
    pub wait_ps: u64,
}

/// The memory bus behind the north bridge: one server shared by every contended initiator.
#[derive(Clone, Debug)]
pub struct NorthBridge {
    penalty: Duration,
    /// Time one transaction occupies the memory bus.
    per_transaction: Duration,
    /// Bytes one transaction moves (a DMA transfer is cut into lines).
    line_bytes: u64,
    ideal: bool,
    busy_until: Time,
    last: Option<Initiator>,
    pub cpu: Vec<InitiatorStats>,
    pub dma: InitiatorStats,
    /// A span of one CPU's chunks advanced in one event (`mem.chunk_spans`): its requests,
    /// priced ahead against `shadow`, are applied (`commit`) when their time has come.
    planned: Planned,
    /// A planned CPU whose plan another request cut, and the instant from which it is void.
    pub cut: Option<(usize, Time)>,
}

/// One CPU's requests priced ahead of their time: each is applied, with the outcome it was
/// priced with, once the clock has passed the instant it is made (its chunk's start). Another
/// initiator's request in between is served against the state of the bridge at its own
/// instant; if it holds the bus past the next planned request, the plan is void from there
/// (`cut`) and the CPU makes that request again when its chunk starts.
#[derive(Clone, Debug, Default)]
struct Planned {
    owner: usize,
    /// (made at = wanted at, transactions, delay it was priced with), in time order.
    requests: std::collections::VecDeque<(Time, f64, Duration)>,
    /// The bridge's state after every planned request.
    shadow: (Time, Option<Initiator>),
}

impl NorthBridge {
    pub fn new(
        penalty: Duration,
        per_transaction: Duration,
        line_bytes: u64,
        ideal: bool,
        cpus: usize,
    ) -> Self {
        NorthBridge {
            penalty,
            per_transaction,
            line_bytes: line_bytes.max(1),
            ideal,
            busy_until: Time::ZERO,
            last: None,
            cpu: vec![InitiatorStats::default(); cpus],
            dma: InitiatorStats::default(),
            planned: Planned::default(),
            cut: None,
        }
    }

    /// The CPU whose requests are planned ahead, if any.
    pub fn planner(&self) -> Option<usize> {
        (!self.planned.requests.is_empty()).then_some(self.planned.owner)
    }

    /// CPU `cpu`'s request of `transactions` made and wanted at `at`, priced now against the
    /// state the bridge will have then if nothing else reaches it first; applied by `commit`.
    /// Only one CPU plans at a time (`planner`).
    pub fn plan(&mut self, at: Time, cpu: usize, transactions: f64) -> Duration {
        if self.ideal || transactions <= 0.0 {
            return Duration::ZERO;
        }
        if self.planned.requests.is_empty() {
            self.planned.owner = cpu;
            self.planned.shadow = (self.busy_until, self.last);
        }
        debug_assert_eq!(self.planned.owner, cpu, "one planner at a time");
        let (busy, last) = self.planned.shadow;
        let who = Initiator::Cpu(cpu);
        let collided = busy > at && last != Some(who);
        let start = if collided {
            busy.max(at + self.penalty)
        } else {
            busy.max(at)
        };
        self.planned.shadow = (
            start + self.per_transaction.mul_f64(transactions),
            Some(who),
        );
        let delay = start - at;
        self.planned.requests.push_back((at, transactions, delay));
        delay
    }

    /// Applies the planned requests made before `now`, as `request` would have when made.
    pub fn commit(&mut self, now: Time) {
        while let Some(&(at, transactions, delay)) = self.planned.requests.front() {
            if at >= now {
                break;
            }
            self.planned.requests.pop_front();
            let who = Initiator::Cpu(self.planned.owner);
            let got = self.apply(at, who, transactions);
            debug_assert_eq!(got, delay, "a planned request kept its price");
        }
    }

    /// Drops the planned requests not yet made (their chunks will be started again).
    pub fn unplan(&mut self) {
        self.planned.requests.clear();
    }

    /// `transactions` made at `now` and wanted from `at`: returns how long the initiator is
    /// delayed before they are served (collision penalty plus the wait for the bus); the bus
    /// is then held for their occupancy. Nothing is delayed on an ideal bridge or for an empty
    /// request. A planned CPU's requests made before `now` are applied first; if this one
    /// holds the bus past its next planned request, the plan is cut there (`cut`).
    pub fn request(&mut self, now: Time, at: Time, who: Initiator, transactions: f64) -> Duration {
        if self.ideal || transactions <= 0.0 {
            return Duration::ZERO;
        }
        if self.planned.requests.is_empty() {
            return self.apply(at, who, transactions);
        }
        self.commit(now);
        let delay = self.apply(at, who, transactions);
        if let Some(&(next, _, _)) = self.planned.requests.front() {
            debug_assert!(who != Initiator::Cpu(self.planned.owner));
            if self.busy_until > next {
                self.cut = Some((self.planned.owner, next));
                self.planned.requests.clear();
            }
        }
        delay
    }

    fn apply(&mut self, at: Time, who: Initiator, transactions: f64) -> Duration {
        let hold = self.per_transaction.mul_f64(transactions);
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
        s.transactions += transactions;
        s.hold_ps += hold.0;
        s.wait_ps += (start - at).0;
        if collided {
            s.collisions += 1;
            s.penalty_ps += self.penalty.0;
        }
        start - at
    }

    /// A DMA transfer of `bytes` that starts at `at`: its memory lines cross the bridge;
    /// returns when the memory side has carried them.
    pub fn dma(&mut self, now: Time, at: Time, bytes: u64) -> Time {
        let lines = bytes.div_ceil(self.line_bytes) as f64;
        let delay = self.request(now, at, Initiator::Dma, lines);
        let hold = if self.ideal {
            Duration::ZERO
        } else {
            self.per_transaction.mul_f64(lines)
        };
        at + delay + hold
    }

    /// Occupancy of the memory bus so far, summed over initiators.
    pub fn busy_ps(&self) -> u64 {
        self.cpu.iter().map(|c| c.hold_ps).sum::<u64>() + self.dma.hold_ps
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
    pub pio: u64,
}

impl IoBus {
    pub fn new(rate: BitRate, overhead: Duration, ideal: bool) -> Self {
        IoBus {
            rate,
            overhead,
            ideal,
            busy_until: Time::ZERO,
            busy_ps: 0,
            transactions: 0,
            pio: 0,
        }
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
    fn a_request_that_finds_the_bus_held_pays_the_penalty_and_waits() {
        // 10 ns per transaction, 50 ns penalty.
        let mut nb = NorthBridge::new(Duration(50_000), Duration(10_000), 64, false, 1);
        // The CPU's 160 misses hold the bus from 0 to 1600 ns; it is not delayed.
        assert_eq!(
            nb.request(Time(0), Time(0), Initiator::Cpu(0), 160.0),
            Duration::ZERO
        );
        // DMA arrives at 100 ns: it collides and waits until 1600 ns.
        assert_eq!(
            nb.request(Time(0), Time(100_000), Initiator::Dma, 8.0),
            Duration(1_500_000)
        );
        assert_eq!((nb.dma.collisions, nb.dma.transactions), (1, 8.0));
        // The penalty matters when the bus frees up before it ends: held until 1680 ns.
        assert_eq!(
            nb.request(Time(0), Time(1_670_000), Initiator::Cpu(0), 1.0),
            Duration(50_000)
        );
        assert_eq!((nb.cpu[0].collisions, nb.cpu[0].penalty_ps), (1, 50_000));
        assert_eq!(nb.busy_ps(), 1_600_000 + 80_000 + 10_000);
        // What each waited: the DMA the CPU's batch, the CPU the penalty.
        assert_eq!((nb.dma.wait_ps, nb.cpu[0].wait_ps), (1_500_000, 50_000));
    }

    #[test]
    fn hits_never_reach_the_bridge_and_the_same_initiator_never_collides() {
        let mut nb = NorthBridge::new(Duration(50_000), Duration(10_000), 64, false, 2);
        // A CPU whose references all hit sends no transactions: the DMA finds the bus free.
        assert_eq!(
            nb.request(Time(0), Time(0), Initiator::Cpu(1), 0.0),
            Duration::ZERO
        );
        assert_eq!(
            nb.request(Time(0), Time(0), Initiator::Dma, 8.0),
            Duration::ZERO
        );
        // Back-to-back requests of one initiator queue without a collision; a 512-byte DMA
        // transfer is eight 64-byte lines.
        assert_eq!(nb.dma(Time(0), Time(0), 512), Time(160_000));
        assert_eq!(nb.dma.collisions, 0);
        let mut ideal = NorthBridge::new(Duration(50_000), Duration(10_000), 64, true, 1);
        ideal.request(Time(0), Time(0), Initiator::Cpu(0), 100.0);
        assert_eq!(
            ideal.request(Time(0), Time(1), Initiator::Dma, 100.0),
            Duration::ZERO
        );
        assert_eq!(ideal.dma.collisions, 0);
    }

    #[test]
    fn planned_requests_are_what_requests_made_in_time_give_unless_another_reaches_them() {
        let make = || NorthBridge::new(Duration(50_000), Duration(10_000), 64, false, 2);
        // CPU 0's chunks start at 0, 2 and 4 µs with 16 misses each (160 ns of bus).
        let starts = [Time(0), Time(2_000_000), Time(4_000_000)];
        let mut exact = make();
        let mut planned = make();
        for &t in &starts {
            let d = exact.request(t, t, Initiator::Cpu(0), 16.0);
            assert_eq!(planned.plan(t, 0, 16.0), d);
        }
        assert_eq!(planned.planner(), Some(0));
        // A DMA transfer at 1 µs, made in between: served against the bridge as of then.
        let e = exact.clone();
        let mut exact_dma = make();
        exact_dma.request(Time(0), Time(0), Initiator::Cpu(0), 16.0);
        let dma_exact = exact_dma.dma(Time(1_000_000), Time(1_000_000), 512);
        assert_eq!(
            planned.dma(Time(1_000_000), Time(1_000_000), 512),
            dma_exact
        );
        assert_eq!(
            planned.cut, None,
            "it ends long before the next chunk starts"
        );
        planned.commit(Time(10_000_000));
        assert_eq!(planned.planner(), None);
        assert_eq!(planned.cpu[0].transactions, e.cpu[0].transactions);
        assert_eq!(planned.busy_ps(), e.busy_ps() + 8 * 10_000);
        // A long request by CPU 1 just before the second chunk holds the bus past its start:
        // the plan is void from there, and that chunk asks again when it starts.
        let mut cut = make();
        for &t in &starts {
            cut.plan(t, 0, 16.0);
        }
        cut.request(Time(1_900_000), Time(1_900_000), Initiator::Cpu(1), 64.0);
        assert_eq!(cut.cut, Some((0, Time(2_000_000))));
        assert_eq!(cut.planner(), None);
        assert_eq!(
            cut.cpu[0].transactions, 16.0,
            "only the chunk made before it counts"
        );
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
