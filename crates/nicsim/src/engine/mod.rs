//! The event engine: pending events keyed by (time, insertion sequence), one `pop`.
//! Simultaneous events run in the order they were scheduled, so runs are deterministic.
//! The engine knows nothing of the models; `system.rs` dispatches what it pops.
//! Two queues can hold the events (`run.event_queue`): the standard library's binary heap and a
//! radix heap (`radix.rs`); by default the binary heap while few events are pending and the
//! radix heap while many are. Keys are unique, so every choice pops in exactly the same order.

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

/// Above this many pending events the adaptive queue moves them into the radix heap, and
/// back into the binary heap below `TO_HEAP`: the binary heap is faster while it is small
/// (docs/benchmarks.md, "The engine's queue at the runs' pending sizes").
const TO_RADIX: usize = 2048;
const TO_HEAP: usize = 512;

pub struct Engine<E> {
    heap: BinaryHeap<Entry<E>>,
    radix: RadixQueue<E>,
    /// The pending events are in `radix` (else in `heap`).
    in_radix: bool,
    /// Move into the radix heap above this many pending (`TO_RADIX` when adaptive, else never)
    /// and back below `heap_below` (`TO_HEAP` when adaptive, else never).
    radix_above: usize,
    heap_below: usize,
    /// On the binary heap, the length above which a push has something to do beyond pushing:
    /// the smaller of `pending_max` and `radix_above` (one compare on the hot path).
    watch: usize,
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
    /// An engine on the default queue (`EventQueue::Adaptive`).
    pub fn new() -> Self {
        Self::with_queue(EventQueue::default())
    }

    pub fn with_queue(kind: EventQueue) -> Self {
        let adaptive = kind == EventQueue::Adaptive;
        Engine {
            heap: BinaryHeap::with_capacity(1024),
            radix: RadixQueue::new(),
            in_radix: kind == EventQueue::Radix,
            radix_above: if adaptive { TO_RADIX } else { usize::MAX },
            heap_below: if adaptive { TO_HEAP } else { 0 },
            watch: 0,
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
        if self.in_radix {
            self.radix.len()
        } else {
            self.heap.len()
        }
    }

    /// Schedules `ev` at `at`; scheduling in the past is a causality bug. Inlined with the
    /// binary heap's push: the radix heap's is a call of its own, so the small-queue path stays
    /// small where the caller's loop is tight.
    #[inline(always)]
    pub fn at(&mut self, at: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.seq += 1;
        let key = ((at.0 as u128) << 64) | self.seq as u128;
        if self.in_radix {
            self.push_radix(key, ev);
        } else {
            self.heap.push(Entry { key, ev });
            if self.heap.len() > self.watch {
                self.heap_grew();
            }
        }
    }

    /// The binary heap passed its high-water mark or the radix heap's threshold.
    #[cold]
    #[inline(never)]
    fn heap_grew(&mut self) {
        let n = self.heap.len();
        self.pending_max = self.pending_max.max(n);
        if n > self.radix_above {
            self.move_to_radix();
        }
        self.watch = self.pending_max.min(self.radix_above);
    }

    #[inline(never)]
    fn push_radix(&mut self, key: u128, ev: E) {
        self.radix.push(key, ev);
        self.pending_max = self.pending_max.max(self.radix.len());
    }

    #[inline(always)]
    pub fn after(&mut self, d: Duration, ev: E) {
        self.at(self.now + d, ev);
    }

    /// Removes the earliest event, advances the clock to it and returns it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let (key, ev) = if self.in_radix {
            self.pop_radix()?
        } else {
            let e = self.heap.pop()?;
            (e.key, e.ev)
        };
        self.now = Time((key >> 64) as u64);
        self.executed += 1;
        Some((self.now, ev))
    }

    #[inline(never)]
    fn pop_radix(&mut self) -> Option<(u128, E)> {
        let s = self.radix.pop()?;
        if self.radix.len() < self.heap_below {
            self.move_to_heap();
        }
        Some((s.key, s.ev))
    }

    /// Every pending key is at or after now with a sequence of at least 1, and so is every key
    /// pushed later: (now, 0) is below them all, the radix heap's reference.
    #[cold]
    fn move_to_radix(&mut self) {
        let last = (self.now.0 as u128) << 64;
        let entries = self.heap.drain().map(|e| radix::Slot {
            key: e.key,
            ev: e.ev,
        });
        self.radix.refill(last, entries);
        self.in_radix = true;
    }

    #[cold]
    fn move_to_heap(&mut self) {
        let entries = self.radix.drain().map(|s| Entry {
            key: s.key,
            ev: s.ev,
        });
        self.heap.extend(entries);
        self.in_radix = false;
        self.watch = self.pending_max.min(self.radix_above);
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
        let key = if self.in_radix {
            self.radix.peek_key()?
        } else {
            self.heap.peek()?.key
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

    /// The adaptive queue (crossing into the radix heap and back many times), the radix heap
    /// and the binary heap execute a randomized workload's events in the same order.
    #[test]
    fn every_queue_executes_the_same_order() {
        use EventQueue::{Adaptive, BinaryHeap, Radix};
        for seed in 0..6 {
            let (mut rng, mut sizes) = (Rng::new(seed), Rng::new(seed + 100));
            let mut q: [Engine<u64>; 3] = [Adaptive, BinaryHeap, Radix].map(Engine::with_queue);
            let (mut id, mut crossings, mut was) = (0u64, 0, false);
            let mut step = |q: &mut [Engine<u64>; 3], push: bool| {
                if push {
                    let dt = match rng.next_u64() % 10 {
                        0 => Duration(0),
                        1 => Duration(rng.next_u64() % (1 << 40)),
                        _ => Duration(rng.exp(1e6) as u64),
                    };
                    id += 1;
                    q.iter_mut().for_each(|e| e.after(dt, id));
                } else {
                    let peeks = q.each_ref().map(|e| e.peek_time());
                    let popped = q.each_mut().map(|e| e.pop());
                    assert!(peeks.iter().all(|p| *p == peeks[0]), "seed {seed}");
                    assert!(popped.iter().all(|p| *p == popped[0]), "seed {seed}");
                }
            };
            for _ in 0..30 {
                // Fill to a few thousand pending (one pop in four steps), then drain to a few
                // hundred (one push in four).
                let fill = 1000 + (sizes.next_u64() % 5000) as usize;
                let keep = (sizes.next_u64() % 600) as usize;
                let mut i = 0u64;
                while q[0].pending() < fill {
                    i += 1;
                    step(&mut q, !i.is_multiple_of(4));
                    crossings += usize::from(q[0].in_radix != was);
                    was = q[0].in_radix;
                }
                while q[0].pending() > keep {
                    i += 1;
                    step(&mut q, i.is_multiple_of(4));
                    crossings += usize::from(q[0].in_radix != was);
                    was = q[0].in_radix;
                }
            }
            while q[1].pending() > 0 {
                step(&mut q, false);
            }
            assert!(q.iter_mut().all(|e| e.pop().is_none()));
            assert!(q.iter().all(|e| e.pending_max() == q[1].pending_max()));
            assert!(
                crossings >= 10,
                "the test crosses between the queues: {crossings}"
            );
        }
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
