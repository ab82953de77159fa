//! A radix heap over the engine's 128-bit keys (time in the high bits, insertion sequence in
//! the low bits). The engine's keys are monotone: an event is never scheduled before the clock,
//! and a later insertion has a larger sequence, so every key pushed exceeds the last key popped.
//! Bucket `b` holds the keys whose highest bit differing from the last popped key is bit `b`;
//! a pop takes the smallest key of the lowest non-empty bucket and spreads the rest of that
//! bucket into lower buckets, so each entry moves a few times in its life instead of sifting
//! through `log2(n)` levels at every push and pop. Keys are unique (the sequence), so the order
//! of pops is exactly the binary heap's: smallest key first.

const BUCKETS: usize = 128;

pub(super) struct Slot<E> {
    pub key: u128,
    pub ev: E,
}

pub(super) struct RadixQueue<E> {
    /// The last key popped: every pending key is larger.
    last: u128,
    buckets: Vec<Vec<Slot<E>>>,
    /// Each bucket's smallest key (`u128::MAX` when empty): the minimum is known without a scan.
    mins: [u128; BUCKETS],
    /// Bit `b` set: bucket `b` is not empty.
    occupied: u128,
    len: usize,
}

#[inline(always)]
fn bucket(key: u128, last: u128) -> usize {
    // key > last, so they differ in some bit.
    (127 - (key ^ last).leading_zeros()) as usize
}

impl<E> RadixQueue<E> {
    pub fn new() -> Self {
        RadixQueue {
            last: 0,
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            mins: [u128::MAX; BUCKETS],
            occupied: 0,
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Takes `entries`, every key of which exceeds `last`, and those pushed after (which must
    /// too); the queue must be empty.
    pub fn refill(&mut self, last: u128, entries: impl Iterator<Item = Slot<E>>) {
        debug_assert_eq!(self.len, 0);
        self.last = last;
        for s in entries {
            assert!(s.key > last, "event key not after the last popped");
            self.len += 1;
            self.put(s);
        }
    }

    /// Removes every entry, in no particular order.
    pub fn drain(&mut self) -> impl Iterator<Item = Slot<E>> + '_ {
        self.len = 0;
        self.occupied = 0;
        self.mins = [u128::MAX; BUCKETS];
        self.buckets.iter_mut().flat_map(|b| b.drain(..))
    }

    #[inline(always)]
    fn put(&mut self, s: Slot<E>) {
        let b = bucket(s.key, self.last);
        if s.key < self.mins[b] {
            self.mins[b] = s.key;
        }
        self.occupied |= 1u128 << b;
        self.buckets[b].push(s);
    }

    /// Adds an entry; its key must exceed every key popped so far.
    #[inline]
    pub fn push(&mut self, key: u128, ev: E) {
        assert!(key > self.last, "event key not after the last popped");
        self.len += 1;
        self.put(Slot { key, ev });
    }

    /// The smallest pending key.
    #[inline]
    pub fn peek_key(&self) -> Option<u128> {
        if self.occupied == 0 {
            None
        } else {
            Some(self.mins[self.occupied.trailing_zeros() as usize])
        }
    }

    /// Removes the entry with the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<Slot<E>> {
        if self.occupied == 0 {
            return None;
        }
        let b = self.occupied.trailing_zeros() as usize;
        let min = self.mins[b];
        self.last = min;
        self.mins[b] = u128::MAX;
        self.occupied &= !(1u128 << b);
        self.len -= 1;
        let (lower, rest) = self.buckets.split_at_mut(b);
        let v = &mut rest[0];
        if v.len() == 1 {
            return v.pop();
        }
        let at = v.iter().position(|s| s.key == min).expect("bucket minimum");
        let out = v.swap_remove(at);
        // The rest share bits above `b` with the new last key and differ below it.
        for s in v.drain(..) {
            let nb = bucket(s.key, min);
            if s.key < self.mins[nb] {
                self.mins[nb] = s.key;
            }
            self.occupied |= 1u128 << nb;
            lower[nb].push(s);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Rng;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Random holds and bursts against a binary heap of the same keys: the same pops.
    #[test]
    fn pops_as_a_binary_heap_does() {
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let (mut q, mut h) = (RadixQueue::new(), BinaryHeap::new());
            let (mut seq, mut now) = (0u64, 0u64);
            for step in 0..20_000u64 {
                let pushes = if h.is_empty() || !rng.next_u64().is_multiple_of(3) {
                    1 + rng.next_u64() % 3
                } else {
                    0
                };
                for _ in 0..pushes {
                    seq += 1;
                    // Mostly near, sometimes equal to now, sometimes far ahead.
                    let dt = match rng.next_u64() % 8 {
                        0 => 0,
                        1 => rng.next_u64() % (1 << 45),
                        _ => rng.exp(1_000.0) as u64,
                    };
                    let key = (((now + dt) as u128) << 64) | seq as u128;
                    q.push(key, step);
                    h.push(Reverse((key, step)));
                }
                let a = q.pop().map(|s| (s.key, s.ev));
                let b = h.pop().map(|Reverse(x)| x);
                assert_eq!(a, b, "seed {seed} step {step}");
                if let Some((k, _)) = a {
                    now = (k >> 64) as u64;
                }
                assert_eq!(q.len(), h.len());
                assert_eq!(q.peek_key(), h.peek().map(|Reverse((k, _))| *k));
            }
        }
    }
}
