//! The event engine: pending events keyed by (time, insertion sequence), one `pop`.
//! Simultaneous events run in the order they were scheduled, so runs are deterministic.
//! The engine knows nothing of the models; `system.rs` dispatches what it pops.
//! Two queues hold the events (`run.event_queue`): a radix heap (`radix.rs`, the default) and
//! the standard library's binary heap; keys are unique, so both pop in exactly the same order.

mod radix;

use crate::config::EventQueue;
use crate::units::{Duration, Time};
use radix::RadixQueue;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    /// Time in the high 64 bits, insertion sequence in the low 64: one integer compare.
    key: u128,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key) // min-heap
    }
}

enum Queue<E> {
    Radix(RadixQueue<E>),
    Heap(BinaryHeap<Entry<E>>),
}

pub struct Engine<E> {
    queue: Queue<E>,
    seq: u64,
    now: Time,
    executed: u64,
    /// The most events pending at once (after a push).
    pending_max: usize,
}

impl<E> Default for Engine<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Engine<E> {
    /// An engine on the default queue (the radix heap).
    pub fn new() -> Self {
        Self::with_queue(EventQueue::default())
    }

    pub fn with_queue(kind: EventQueue) -> Self {
        let queue = match kind {
            EventQueue::Radix => Queue::Radix(RadixQueue::new()),
            EventQueue::BinaryHeap => Queue::Heap(BinaryHeap::with_capacity(1024)),
        };
        Engine {
            queue,
            seq: 0,
            now: Time::ZERO,
            executed: 0,
            pending_max: 0,
        }
    }

    pub fn now(&self) -> Time {
        self.now
    }

    /// Events executed so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// The most events that were pending at once: the queue's high-water mark.
    pub fn pending_max(&self) -> usize {
        self.pending_max
    }

    /// Events pending now.
    pub fn pending(&self) -> usize {
        match &self.queue {
            Queue::Radix(q) => q.len(),
            Queue::Heap(h) => h.len(),
        }
    }

    /// Schedules `ev` at `at`; scheduling in the past is a causality bug.
    #[inline]
    pub fn at(&mut self, at: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.seq += 1;
        let key = ((at.0 as u128) << 64) | self.seq as u128;
        match &mut self.queue {
            Queue::Radix(q) => q.push(key, ev),
            Queue::Heap(h) => h.push(Entry { key, ev }),
        }
        self.pending_max = self.pending_max.max(self.pending());
    }

    pub fn after(&mut self, d: Duration, ev: E) {
        self.at(self.now + d, ev);
    }

    /// Removes the earliest event, advances the clock to it and returns it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let (key, ev) = match &mut self.queue {
            Queue::Radix(q) => q.pop().map(|s| (s.key, s.ev))?,
            Queue::Heap(h) => h.pop().map(|e| (e.key, e.ev))?,
        };
        self.now = Time((key >> 64) as u64);
        self.executed += 1;
        Some((self.now, ev))
    }

    /// Moves the clock forward to `t` with no event there: a workload acting at a time of its
    /// own must see that time as now, not the last event's.
    pub fn advance_to(&mut self, t: Time) {
        debug_assert!(
            self.peek_time().is_none_or(|p| p >= t),
            "advance past a pending event"
        );
        self.now = self.now.max(t);
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        let key = match &self.queue {
            Queue::Radix(q) => q.peek_key()?,
            Queue::Heap(h) => h.peek()?.key,
        };
        Some(Time((key >> 64) as u64))
    }
}

/// xoshiro256** seeded through splitmix64: small, fast and reproducible on every platform.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut z = seed;
        let mut next = || {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^ (x >> 31)
        };
        Rng {
            s: [next(), next(), next(), next()],
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let r = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        r
    }

    /// Uniform in (0, 1].
    pub fn uniform_open0(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 1.0) * (1.0 / (1u64 << 53) as f64)
    }

    /// Exponentially distributed with the given mean.
    pub fn exp(&mut self, mean: f64) -> f64 {
        -mean * self.uniform_open0().ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order() {
        let mut e = Engine::new();
        e.at(Time(30), 'c');
        e.at(Time(10), 'a');
        e.at(Time(20), 'b');
        let order: Vec<char> = std::iter::from_fn(|| e.pop().map(|(_, c)| c)).collect();
        assert_eq!(order, vec!['a', 'b', 'c']);
        assert_eq!(e.now(), Time(30));
        assert_eq!(e.executed(), 3);
    }

    #[test]
    fn simultaneous_events_keep_insertion_order() {
        let mut e = Engine::new();
        for i in 0..100 {
            e.at(Time(5), i);
        }
        let order: Vec<i32> = std::iter::from_fn(|| e.pop().map(|(_, i)| i)).collect();
        assert_eq!(order, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn rng_is_reproducible_and_exp_has_its_mean() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        assert_eq!(a.next_u64(), b.next_u64());
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| a.exp(2.0)).sum::<f64>() / n as f64;
        assert!((mean - 2.0).abs() < 0.02, "mean {mean}");
    }
}
