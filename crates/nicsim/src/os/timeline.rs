//! EEVDF's timeline (`os/eevdf.rs`): a processor's queued threads but the current one, ordered
//! by virtual runtime, each subtree knowing its earliest deadline, so `pick_eevdf` finds the
//! eligible thread with the earliest deadline without a scan (Linux's rbtree augmented with
//! `min_vruntime`/`min_deadline` does the same). Entries are named by a key `K` (the run-queue
//! key): ties on the deadline go to the least key, the first in run-queue order, as the scan
//! it replaces chose. A treap: its shape comes from seeded heap priorities and never changes a
//! result.

const NIL: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Entry<K> {
    /// Where it sits: its virtual runtime, then its key (unique).
    place: (i64, K),
    /// What a pick minimises: its deadline, then its key.
    rank: (i64, K),
    heap: u64,
    left: u32,
    right: u32,
    /// The least rank in its subtree.
    min: (i64, K),
}

#[derive(Clone, Debug)]
pub(crate) struct Timeline<K> {
    entries: Vec<Entry<K>>,
    free: Vec<u32>,
    root: u32,
    drawn: u64,
    len: usize,
}

impl<K> Default for Timeline<K> {
    fn default() -> Self {
        Timeline {
            entries: Vec::new(),
            free: Vec::new(),
            root: NIL,
            drawn: 0,
            len: 0,
        }
    }
}

impl<K: Copy + Ord> Timeline<K> {
    /// Its entries, for the checks against the run queue.
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds the thread at `place` (virtual runtime, key) whose deadline is `deadline_ps`;
    /// neither may change until it is removed.
    pub(crate) fn insert(&mut self, place: (i64, K), deadline_ps: i64) {
        self.drawn += 1;
        let rank = (deadline_ps, place.1);
        let e = Entry {
            place,
            rank,
            heap: splitmix(self.drawn),
            left: NIL,
            right: NIL,
            min: rank,
        };
        let at = match self.free.pop() {
            Some(i) => {
                self.entries[i as usize] = e;
                i
            }
            None => {
                self.entries.push(e);
                (self.entries.len() - 1) as u32
            }
        };
        let (below, above) = self.split(self.root, place, false);
        let below = self.merge(below, at);
        self.root = self.merge(below, above);
        self.len += 1;
    }

    /// Removes the thread at `place`; false if it was not there.
    pub(crate) fn remove(&mut self, place: (i64, K)) -> bool {
        let (below, rest) = self.split(self.root, place, false);
        let (found, above) = self.split(rest, place, true);
        if found != NIL {
            self.free.push(found);
            self.len -= 1;
        }
        self.root = self.merge(below, above);
        found != NIL
    }

    /// The thread with the earliest deadline among those whose virtual runtime is at most
    /// `limit_ps` (the least key on a tie).
    pub(crate) fn first(&self, limit_ps: i64) -> Option<K> {
        let mut best: Option<(i64, K)> = None;
        let mut at = self.root;
        while at != NIL {
            let e = &self.entries[at as usize];
            if e.place.0 <= limit_ps {
                let mut r = e.rank;
                if e.left != NIL {
                    r = r.min(self.entries[e.left as usize].min);
                }
                best = Some(best.map_or(r, |b| b.min(r)));
                at = e.right;
            } else {
                at = e.left;
            }
        }
        best.map(|(_, k)| k)
    }

    fn pull(&mut self, at: u32) {
        let e = &self.entries[at as usize];
        let mut m = e.rank;
        for c in [e.left, e.right] {
            if c != NIL {
                m = m.min(self.entries[c as usize].min);
            }
        }
        self.entries[at as usize].min = m;
    }

    /// Splits the subtree at `at` into the entries before `place` (and at it, if `with`) and
    /// the rest.
    fn split(&mut self, at: u32, place: (i64, K), with: bool) -> (u32, u32) {
        if at == NIL {
            return (NIL, NIL);
        }
        let e = &self.entries[at as usize];
        if e.place < place || (with && e.place == place) {
            let (a, b) = self.split(e.right, place, with);
            self.entries[at as usize].right = a;
            self.pull(at);
            (at, b)
        } else {
            let (a, b) = self.split(e.left, place, with);
            self.entries[at as usize].left = b;
            self.pull(at);
            (a, at)
        }
    }

    /// Joins two subtrees, every entry of `a` before every entry of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL || b == NIL {
            return if a == NIL { b } else { a };
        }
        if self.entries[a as usize].heap >= self.entries[b as usize].heap {
            let r = self.merge(self.entries[a as usize].right, b);
            self.entries[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.entries[b as usize].left);
            self.entries[b as usize].left = l;
            self.pull(b);
            b
        }
    }
}

/// A well-mixed heap priority from a counter (SplitMix64's finaliser).
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::thread::RunKey;

    /// Seeded inserts, removals and queries over few distinct virtual runtimes and deadlines
    /// (many ties), against a scan in run-queue order.
    #[test]
    fn first_matches_a_scan_in_run_queue_order() {
        let mut t = Timeline::default();
        let mut all: Vec<((i64, RunKey), i64)> = Vec::new();
        let mut x = 47u64;
        for step in 0..6000u64 {
            x = splitmix(x);
            let r = x >> 8;
            // It grows to some hundreds of entries, then shrinks.
            let grow = if step < 3000 { 3 } else { 2 };
            if r % 5 < grow || all.is_empty() {
                let key = ((r % 2) as u8, step, (r % 64) as usize);
                let place = ((r >> 8) as i64 % 9 - 4, key);
                let deadline = (r >> 16) as i64 % 5;
                t.insert(place, deadline);
                all.push((place, deadline));
            } else {
                let (place, _) = all.swap_remove((r >> 8) as usize % all.len());
                assert!(t.remove(place));
                assert!(!t.remove(place), "removed once");
            }
            assert_eq!(t.len(), all.len());
            let limit = (r >> 24) as i64 % 11 - 5;
            let mut order = all.clone();
            order.sort_by_key(|(p, _)| p.1);
            let scan = order
                .iter()
                .filter(|(p, _)| p.0 <= limit)
                .min_by_key(|(_, d)| *d)
                .map(|(p, _)| p.1 .2);
            assert_eq!(t.first(limit).map(|k| k.2), scan, "step {step}");
        }
    }
}
