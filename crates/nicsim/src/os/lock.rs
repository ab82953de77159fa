//! Spinlocks: a general OS resource shared by a node's processors (stacks.md §A.9, §B.7).
//! A piece of work that needs a lock takes it when it starts and releases it when it ends; a
//! processor that finds it held by another spins, busy, until the holder's release. Contention
//! emerges from the work, never from a set probability: one CPU never conflicts with itself.

use crate::units::Time;

/// Per-lock counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LockStats {
    pub acquisitions: u64,
    /// Attempts that found the lock held by another processor (each spin counted once).
    pub conflicts: u64,
    /// Picoseconds processors spent spinning on it.
    pub spin_ps: u64,
    /// Picoseconds it was held, from each acquisition to its release (the critical sections'
    /// length, whoever waited or not).
    pub hold_ps: u64,
}

impl LockStats {
    /// Adds another lock's counts (a freed socket's, folded into its node's totals).
    pub fn add(&mut self, o: &LockStats) {
        self.acquisitions += o.acquisitions;
        self.conflicts += o.conflicts;
        self.spin_ps += o.spin_ps;
        self.hold_ps += o.hold_ps;
    }
}

/// What an attempt to take a lock found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attempt {
    Acquired,
    /// Held by another processor: spin until `until`, then try again.
    Spin {
        until: Time,
    },
}

#[derive(Clone, Debug, Default)]
pub struct SpinLock {
    holder: Option<usize>,
    /// When the holder releases it, once the holder has cut the last chunk of its critical
    /// section (until then the holder's current chunk end bounds a spin).
    release_at: Option<Time>,
    /// The processors spinning on it, each with when it began (a conflict counts once per
    /// wait, however many processors wait at once).
    spinners: Vec<(usize, Time)>,
    /// When the section in progress began (None between sections).
    held_since: Option<Time>,
    pub stats: LockStats,
}

impl SpinLock {
    /// Processor `p` tries to take the lock at `now`; `holder_busy_until` is the end of the
    /// chunk the holder is executing.
    pub fn try_acquire(&mut self, p: usize, now: Time, holder_busy_until: Time) -> Attempt {
        let free = match (self.holder, self.release_at) {
            (None, _) => true,
            (Some(_), Some(at)) => at <= now,
            (Some(q), None) => q == p,
        };
        let waiting = self.spinners.iter().position(|&(s, _)| s == p);
        if free {
            if let Some(i) = waiting {
                let (_, since) = self.spinners.swap_remove(i);
                self.stats.spin_ps += (now - since).0;
            }
            // A section begins unless its holder takes it again inside its own (nested).
            if self.holder() != Some(p) {
                self.held_since = Some(now);
            }
            self.holder = Some(p);
            self.release_at = None;
            self.stats.acquisitions += 1;
            return Attempt::Acquired;
        }
        if waiting.is_none() {
            self.stats.conflicts += 1;
            self.spinners.push((p, now));
        }
        let until = self.release_at.unwrap_or(holder_busy_until).max(now);
        Attempt::Spin { until }
    }

    /// The holder's critical section ends at `at`.
    pub fn release(&mut self, at: Time) {
        self.release_at = Some(at);
        if let Some(since) = self.held_since.take() {
            self.stats.hold_ps += (at - since).0;
        }
    }

    pub fn holder(&self) -> Option<usize> {
        match self.release_at {
            Some(_) => None,
            None => self.holder,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Duration;

    const T: fn(u64) -> Time = |ns| Time::ZERO + Duration(ns * 1000);

    #[test]
    fn one_processor_never_conflicts_with_itself() {
        let mut l = SpinLock::default();
        for k in 0..5 {
            assert_eq!(l.try_acquire(0, T(k * 10), T(0)), Attempt::Acquired);
            l.release(T(k * 10 + 5));
        }
        // Even before a release is known, the holder itself takes it again.
        assert_eq!(l.try_acquire(0, T(100), T(0)), Attempt::Acquired);
        assert_eq!(l.try_acquire(0, T(101), T(0)), Attempt::Acquired);
        assert_eq!(
            (l.stats.acquisitions, l.stats.conflicts, l.stats.spin_ps),
            (7, 0, 0)
        );
        // Five sections of 5 ns each; the nested pair at 100 ns is one section not yet released.
        assert_eq!(l.stats.hold_ps, 25_000);
        l.release(T(110));
        assert_eq!(
            l.stats.hold_ps, 35_000,
            "the section from 100 ns, taken twice, to 110 ns"
        );
    }

    #[test]
    fn another_processor_spins_for_the_holders_remaining_time() {
        let mut l = SpinLock::default();
        assert_eq!(l.try_acquire(0, T(0), T(0)), Attempt::Acquired);
        // The holder's section is under way (its chunk ends at 30 ns, release not yet known).
        assert_eq!(
            l.try_acquire(1, T(10), T(30)),
            Attempt::Spin { until: T(30) }
        );
        // Its last chunk is cut: the release is at 45 ns.
        l.release(T(45));
        assert_eq!(
            l.try_acquire(1, T(30), T(30)),
            Attempt::Spin { until: T(45) }
        );
        assert_eq!(l.try_acquire(1, T(45), T(0)), Attempt::Acquired);
        assert_eq!(l.stats.conflicts, 1, "one wait, one conflict");
        assert_eq!(l.stats.spin_ps, 35_000, "from 10 ns to 45 ns");
        assert_eq!(l.holder(), Some(1));
        assert_eq!(l.stats.hold_ps, 45_000, "processor 0's section, 0 to 45 ns");
        l.release(T(60));
        assert_eq!(l.stats.hold_ps, 60_000, "and processor 1's, 45 to 60 ns");
    }

    #[test]
    fn several_spinners_each_count_one_conflict_and_their_own_wait() {
        let mut l = SpinLock::default();
        assert_eq!(l.try_acquire(0, T(0), T(0)), Attempt::Acquired);
        l.release(T(50));
        // Processors 1, 2 and 3 find it held, and try again (in turn) until its release.
        for (p, at) in [(1, 10), (2, 20), (3, 30), (1, 40), (2, 45)] {
            assert_eq!(
                l.try_acquire(p, T(at), T(0)),
                Attempt::Spin { until: T(50) }
            );
        }
        assert_eq!(l.try_acquire(2, T(50), T(0)), Attempt::Acquired);
        l.release(T(60));
        assert_eq!(l.try_acquire(1, T(60), T(0)), Attempt::Acquired);
        l.release(T(70));
        assert_eq!(l.try_acquire(3, T(70), T(0)), Attempt::Acquired);
        assert_eq!(l.stats.conflicts, 3, "one per waiting processor");
        // 2 waited 20..50, 1 waited 10..60, 3 waited 30..70.
        assert_eq!(l.stats.spin_ps, (30 + 50 + 40) * 1000);
    }
}
