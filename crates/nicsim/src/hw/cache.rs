//! One set-associative cache with true LRU replacement (host-path §4.3, thesis Table 4.17):
//! it knows lines, not what they hold. Write-through caches never hold dirty lines and do not
//! allocate on a write miss; write-back caches allocate on a write miss and write a dirty
//! victim back. The hierarchy (`hw/caches.rs`) chains caches and prices what they report.

/// Shape and policy of one cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub size_bytes: u64,
    pub line_bytes: u64,
    pub ways: u32,
    /// Write-back with write allocation (L2); false: write-through, no write allocation (L1D).
    pub write_back: bool,
}

impl Geometry {
    /// Sets in the cache; the size must be a whole number of lines per way, in a power of two.
    pub fn sets(&self) -> Result<u64, String> {
        let per_set = self.line_bytes * self.ways as u64;
        if !self.line_bytes.is_power_of_two() || self.ways == 0 || per_set == 0 {
            return Err("line size must be a power of two and ways at least 1".into());
        }
        let sets = self.size_bytes / per_set;
        if sets == 0 || sets * per_set != self.size_bytes || !sets.is_power_of_two() {
            return Err(format!(
                "size {} B is not a power-of-two number of sets of {} ways of {} B lines",
                self.size_bytes, self.ways, self.line_bytes
            ));
        }
        Ok(sets)
    }
}

/// Per-cache counts, read and write apart (host-path §7.5 asks for hit rates by kind). The
/// line counts are one per distinct line a work item touched; the word counts are the
/// item's other references (loads and stores to a line it had just brought in), which hit,
/// so per-access rates count every load and store as the thesis's inspector did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub read_hits: u64,
    pub read_misses: u64,
    pub write_hits: u64,
    pub write_misses: u64,
    /// Loads (L1I: fetches) beyond a work item's line accesses: hits by construction.
    pub read_word_hits: u64,
    /// Stores beyond a work item's line accesses: hits by construction.
    pub write_word_hits: u64,
    /// Dirty victims written to the next level.
    pub writebacks: u64,
    /// Lines removed by another agent (a DMA write, another processor's write).
    pub invalidations: u64,
    /// Lines brought in by the next-line prefetcher.
    pub prefetches: u64,
}

/// What an access found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub hit: bool,
    /// A dirty line evicted to make room, by line address: it goes to the next level.
    pub victim: Option<u64>,
}

/// An empty way.
const EMPTY: u64 = u64::MAX;

/// The cache: `ways` consecutive entries per set, most recently used first (true LRU is the
/// order itself, so a lookup reads one host cache line for an 8-way set of 64 bytes). An
/// entry is `line << 1 | dirty`.
#[derive(Clone, Debug)]
pub struct Cache {
    geo: Geometry,
    line_shift: u32,
    set_mask: u64,
    entries: Vec<u64>,
    pub stats: CacheStats,
    /// Fractions of word hits not yet counted (a part's references are a mean).
    word_carry: [f64; 2],
}

impl Cache {
    pub fn new(geo: Geometry) -> Result<Cache, String> {
        let sets = geo.sets()?;
        Ok(Cache {
            geo,
            line_shift: geo.line_bytes.trailing_zeros(),
            set_mask: sets - 1,
            entries: vec![EMPTY; (sets * geo.ways as u64) as usize],
            stats: CacheStats::default(),
            word_carry: [0.0; 2],
        })
    }

    /// Counts `reads` loads and `writes` stores that hit without a line access of their own.
    pub fn word_hits(&mut self, reads: f64, writes: f64) {
        for (k, n) in [(0, reads), (1, writes)] {
            let c = self.word_carry[k] + n.max(0.0);
            let whole = c.floor();
            self.word_carry[k] = c - whole;
            match k {
                0 => self.stats.read_word_hits += whole as u64,
                _ => self.stats.write_word_hits += whole as u64,
            }
        }
    }

    pub fn geometry(&self) -> Geometry {
        self.geo
    }

    /// The line holding byte address `addr`.
    pub fn line_of(&self, addr: u64) -> u64 {
        addr >> self.line_shift
    }

    #[inline]
    fn set(&mut self, line: u64) -> &mut [u64] {
        let w = self.geo.ways as usize;
        let s = (line & self.set_mask) as usize * w;
        &mut self.entries[s..s + w]
    }

    /// `EMPTY >> 1` is above every line number (lines are addresses over a line size of
    /// at least 2 bytes), so one comparison per way finds a line.
    #[inline]
    fn position(set: &[u64], line: u64) -> Option<usize> {
        set.iter().position(|&e| e >> 1 == line)
    }

    fn entry(&self, line: u64) -> Option<u64> {
        let w = self.geo.ways as usize;
        let s = (line & self.set_mask) as usize * w;
        let set = &self.entries[s..s + w];
        Self::position(set, line).map(|i| set[i])
    }

    pub fn contains(&self, line: u64) -> bool {
        self.entry(line).is_some()
    }

    pub fn is_dirty(&self, line: u64) -> bool {
        self.entry(line).is_some_and(|e| e & 1 == 1)
    }

    /// Moves way `i` of `line`'s set to the front (most recent); returns its entry there.
    #[inline]
    fn promote(&mut self, line: u64, i: usize) -> &mut u64 {
        let set = self.set(line);
        shift_right(&mut set[..=i]);
        &mut set[0]
    }

    /// Puts `line` at the front of its set; the least recently used entry (or an empty one)
    /// leaves from the back. Returns a dirty victim's line.
    fn allocate(&mut self, line: u64, dirty: bool) -> Option<u64> {
        let set = self.set(line);
        let last = set.len() - 1;
        let old = set[last];
        shift_right(set);
        set[0] = line << 1 | dirty as u64;
        let victim = (old != EMPTY && old & 1 == 1).then_some(old >> 1);
        if victim.is_some() {
            self.stats.writebacks += 1;
        }
        victim
    }

    fn find(&mut self, line: u64) -> Option<usize> {
        Self::position(self.set(line), line)
    }

    /// A read of `line`: a miss allocates it (clean).
    pub fn read(&mut self, line: u64) -> Outcome {
        match self.find(line) {
            Some(i) => {
                self.stats.read_hits += 1;
                self.promote(line, i);
                Outcome {
                    hit: true,
                    victim: None,
                }
            }
            None => {
                self.stats.read_misses += 1;
                let victim = self.allocate(line, false);
                Outcome { hit: false, victim }
            }
        }
    }

    /// A write of `line`: a write-back cache marks it dirty, allocating it on a miss; a
    /// write-through cache updates a copy it holds and passes every write on.
    pub fn write(&mut self, line: u64) -> Outcome {
        match self.find(line) {
            Some(i) => {
                self.stats.write_hits += 1;
                let wb = self.geo.write_back as u64;
                *self.promote(line, i) |= wb;
                Outcome {
                    hit: true,
                    victim: None,
                }
            }
            None => {
                self.stats.write_misses += 1;
                let victim = if self.geo.write_back {
                    self.allocate(line, true)
                } else {
                    None
                };
                Outcome { hit: false, victim }
            }
        }
    }

    /// Brings `line` in without an access (a prefetch or a DMA allocation); nothing if present.
    pub fn fill(&mut self, line: u64, dirty: bool) -> Option<u64> {
        if let Some(i) = self.find(line) {
            self.set(line)[i] |= dirty as u64;
            return None;
        }
        self.allocate(line, dirty)
    }

    /// Removes `line`; returns whether it was present and whether it was dirty.
    pub fn invalidate(&mut self, line: u64) -> (bool, bool) {
        match self.find(line) {
            Some(i) => {
                let set = self.set(line);
                let d = set[i] & 1 == 1;
                for k in i..set.len() - 1 {
                    set[k] = set[k + 1];
                }
                let last = set.len() - 1;
                set[last] = EMPTY;
                self.stats.invalidations += 1;
                (true, d)
            }
            None => (false, false),
        }
    }

    /// Marks a held `line` clean (its data went to memory or to another cache).
    pub fn clean(&mut self, line: u64) {
        if let Some(i) = self.find(line) {
            self.set(line)[i] &= !1;
        }
    }
}

/// Moves every entry of a (short) set one way back; the last one falls off into the first.
/// A loop, not `rotate_right`: sets are a few entries, and a library call costs more.
#[inline]
fn shift_right(set: &mut [u64]) {
    let last = set[set.len() - 1];
    for k in (1..set.len()).rev() {
        set[k] = set[k - 1];
    }
    set[0] = last;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4 sets of 2 ways of 64-byte lines: lines 0, 4, 8 share set 0.
    fn small(write_back: bool) -> Cache {
        Cache::new(Geometry {
            size_bytes: 512,
            line_bytes: 64,
            ways: 2,
            write_back,
        })
        .unwrap()
    }

    #[test]
    fn least_recently_used_line_is_the_victim() {
        let mut c = small(true);
        assert!(!c.read(0).hit);
        assert!(!c.read(4).hit);
        assert!(c.read(0).hit); // 0 is now more recent than 4
        assert!(!c.read(8).hit); // evicts 4
        assert!(c.contains(0) && c.contains(8) && !c.contains(4));
        assert!(c.read(0).hit);
        assert!(!c.read(4).hit); // evicts 8, the least recent
        assert!(!c.contains(8));
    }

    #[test]
    fn lines_of_different_sets_never_conflict_but_a_third_line_in_a_set_does() {
        let mut c = small(true);
        for l in 0..8 {
            c.read(l); // two lines per set fill all eight ways
        }
        for l in 0..8 {
            assert!(c.read(l).hit, "line {l} fits");
        }
        c.read(8); // a third line in set 0
        let held = (0..8).filter(|&l| c.contains(l)).count();
        assert_eq!(held, 7);
        assert_eq!(c.stats.read_misses, 9);
    }

    #[test]
    fn a_write_back_cache_writes_back_each_dirty_victim_once() {
        let mut c = small(true);
        assert_eq!(c.write(0).victim, None); // write-allocate, dirty
        c.read(4);
        assert_eq!(c.read(8).victim, Some(0)); // dirty 0 leaves
        assert_eq!(c.read(12).victim, None); // clean 4 leaves silently
        assert_eq!(c.stats.writebacks, 1);
        assert_eq!((c.stats.write_misses, c.stats.write_hits), (1, 0));
    }

    #[test]
    fn a_write_through_cache_neither_allocates_on_writes_nor_holds_dirty_lines() {
        let mut c = small(false);
        assert!(!c.write(0).hit);
        assert!(!c.contains(0));
        c.read(0);
        assert!(c.write(0).hit);
        assert!(!c.is_dirty(0));
        c.read(4);
        assert_eq!(c.read(8).victim, None);
        assert_eq!(c.stats.writebacks, 0);
    }

    #[test]
    fn invalidation_drops_a_dirty_line_without_a_write_back() {
        let mut c = small(true);
        c.write(3);
        assert_eq!(c.invalidate(3), (true, true));
        assert_eq!(c.invalidate(3), (false, false));
        assert!(!c.read(3).hit);
        assert_eq!((c.stats.writebacks, c.stats.invalidations), (0, 1));
    }

    #[test]
    fn sizes_that_are_not_whole_power_of_two_sets_are_refused() {
        let g = |size_bytes, ways| Geometry {
            size_bytes,
            line_bytes: 128,
            ways,
            write_back: true,
        };
        assert_eq!(g(1 << 20, 8).sets(), Ok(1024));
        // Table 4.17's literal 8096 lines of 128 B.
        assert!(g(8096 * 128, 8).sets().is_err());
        assert!(g(1 << 20, 0).sets().is_err());
    }
}
