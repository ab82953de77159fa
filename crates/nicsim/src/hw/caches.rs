//! The detailed cache hierarchy of one node (host-path §4.3, mode B): per host CPU an L1
//! instruction and an L1 data cache, and L2s that are private or shared by the CPUs; MESI
//! between private L2s, and invalidation of the other L1Ds under a shared L2; DMA writes that
//! invalidate or allocate; an optional next-line prefetcher. It prices single line accesses in
//! the accessing CPU's cycles and says how many reach the north bridge; `hw/footprint.rs`
//! turns a stage's references into line accesses.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::hw::cache::{Cache, CacheStats, Geometry};

/// Hit latencies of each level in the accessing CPU's cycles (Table 4.17's penalties) and
/// main memory's; an access pays each level it passes through.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Latencies {
    pub l1i_read_cycles: f64,
    pub l1d_read_cycles: f64,
    pub l1d_write_cycles: f64,
    pub l2_read_cycles: f64,
    pub l2_write_cycles: f64,
    pub memory_cycles: f64,
}

/// What DMA writes into host memory do to cached copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaPolicy {
    /// Every cached copy of a written line is invalidated (coherent I/O on a Pentium 4 FSB).
    Invalidate,
    /// The written lines are allocated into the last level, dirty (DDIO-like).
    Allocate,
}

#[derive(Clone, Debug)]
pub struct Spec {
    pub l1i: Geometry,
    pub l1d: Geometry,
    pub l2: Geometry,
    /// One L2 for all host CPUs (onload, hybrid) or one each.
    pub l2_shared: bool,
    pub lat: Latencies,
    pub dma: DmaPolicy,
    pub prefetch_next_line: bool,
}

/// The cost of one access and the bridge transactions it caused (misses, write-backs,
/// coherence transfers).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    pub cycles: f64,
    pub bridge_transactions: u32,
}

/// MESI state of a line in one CPU's L2, read off the caches (tests and reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mesi {
    Modified,
    Exclusive,
    Shared,
    Invalid,
}

/// Per-host-CPU coherence counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coherence {
    /// Reads of a line another CPU wrote and still held (a cache-to-cache transfer).
    pub transfers: u64,
    /// Copies of this CPU's that another CPU's write invalidated.
    pub invalidated: u64,
}

/// DMA's effect on the caches, per node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DmaCacheStats {
    pub lines_written: u64,
    /// Cached copies invalidated by DMA writes (each level counted).
    pub invalidations: u64,
    /// Lines a DMA write allocated into the last level.
    pub allocations: u64,
    /// Lines a DMA read found dirty in a cache (supplied by it and cleaned).
    pub read_snoops: u64,
}

#[derive(Clone, Debug)]
pub struct Caches {
    spec: Spec,
    l1i: Vec<Cache>,
    l1d: Vec<Cache>,
    l2: Vec<Cache>,
    /// Under a shared L2: the CPU that last wrote each L1 line others may hold stale.
    writer: HashMap<u64, usize, BuildHasherDefault<LineHasher>>,
    pub coherence: Vec<Coherence>,
    pub dma: DmaCacheStats,
}

impl Caches {
    /// Caches for `cpus` host CPUs.
    pub fn new(spec: Spec, cpus: usize) -> Result<Caches, String> {
        let mk = |g: Geometry, n: usize, what: &str| -> Result<Vec<Cache>, String> {
            (0..n)
                .map(|_| Cache::new(g).map_err(|e| format!("cache.{what}: {e}")))
                .collect()
        };
        if spec.l1d.line_bytes > spec.l2.line_bytes || spec.l1i.line_bytes > spec.l2.line_bytes {
            return Err("cache: an L1 line may not be longer than an L2 line".into());
        }
        let n_l2 = if spec.l2_shared { 1 } else { cpus };
        Ok(Caches {
            l1i: mk(spec.l1i, cpus, "l1i")?,
            l1d: mk(spec.l1d, cpus, "l1d")?,
            l2: mk(spec.l2, n_l2, "l2")?,
            spec,
            writer: HashMap::default(),
            coherence: vec![Coherence::default(); cpus],
            dma: DmaCacheStats::default(),
        })
    }

    pub fn cpus(&self) -> usize {
        self.l1d.len()
    }

    fn l2_of(&self, p: usize) -> usize {
        if self.spec.l2_shared {
            0
        } else {
            p
        }
    }

    /// Per level of CPU `p`: L1I, L1D and its L2 (shared L2s report the same counts).
    pub fn stats(&self, p: usize) -> [CacheStats; 3] {
        [
            self.l1i[p].stats,
            self.l1d[p].stats,
            self.l2[self.l2_of(p)].stats,
        ]
    }

    pub fn state(&self, p: usize, addr: u64) -> Mesi {
        let me = self.l2_of(p);
        let line = self.l2[me].line_of(addr);
        if !self.l2[me].contains(line) {
            return Mesi::Invalid;
        }
        if self.l2[me].is_dirty(line) {
            return Mesi::Modified;
        }
        let elsewhere = (0..self.l2.len()).any(|k| k != me && self.l2[k].contains(line));
        if elsewhere {
            Mesi::Shared
        } else {
            Mesi::Exclusive
        }
    }

    /// L2 read or write-allocate fill of the line of `addr` for CPU `p`: snoops the other
    /// L2s (a dirty copy is transferred and written back) and prices the memory access.
    fn l2_access(&mut self, p: usize, addr: u64, write: bool, c: &mut Cost) {
        let me = self.l2_of(p);
        let line = self.l2[me].line_of(addr);
        for k in 0..self.l2.len() {
            if k == me || !self.l2[k].contains(line) {
                continue;
            }
            if self.l2[k].is_dirty(line) {
                // Modified elsewhere: its owner supplies the line and writes it back.
                self.coherence[p].transfers += 1;
                c.bridge_transactions += 1;
                self.l2[k].clean(line);
            }
            if write {
                self.l2[k].invalidate(line);
                self.coherence[k].invalidated += 1;
            }
        }
        let o = if write {
            self.l2[me].write(line)
        } else {
            self.l2[me].read(line)
        };
        c.cycles += if write {
            self.spec.lat.l2_write_cycles
        } else {
            self.spec.lat.l2_read_cycles
        };
        c.bridge_transactions += o.victim.is_some() as u32;
        if !o.hit {
            c.cycles += self.spec.lat.memory_cycles;
            c.bridge_transactions += 1;
            if self.spec.prefetch_next_line {
                self.prefetch_l2(me, line + 1, c);
            }
        }
    }

    /// An L1 prefetch of the line at `addr` needs it in the L2 too.
    fn prefetch_below(&mut self, p: usize, addr: u64, c: &mut Cost) {
        let me = self.l2_of(p);
        let line = self.l2[me].line_of(addr);
        self.prefetch_l2(me, line, c);
    }

    /// Brings `line` into L2 number `l2` from memory, off the processor's critical path.
    fn prefetch_l2(&mut self, l2: usize, line: u64, c: &mut Cost) {
        if self.l2[l2].contains(line) {
            return;
        }
        self.l2[l2].stats.prefetches += 1;
        c.bridge_transactions += 1 + self.l2[l2].fill(line, false).is_some() as u32;
    }

    /// An instruction fetch of the line holding `addr` by CPU `p`.
    pub fn fetch(&mut self, p: usize, addr: u64) -> Cost {
        let mut c = Cost {
            cycles: self.spec.lat.l1i_read_cycles,
            bridge_transactions: 0,
        };
        let line = self.l1i[p].line_of(addr);
        if !self.l1i[p].read(line).hit {
            self.l2_access(p, addr, false, &mut c);
            self.prefetch_after_miss(p, true, line, &mut c);
        }
        c
    }

    /// The next-line prefetcher after CPU `p`'s L1 (instruction or data) missed `line`: the
    /// next line into that L1, and into the L2 below it.
    fn prefetch_after_miss(&mut self, p: usize, instr: bool, line: u64, c: &mut Cost) {
        if !self.spec.prefetch_next_line {
            return;
        }
        let (l1, line_bytes) = if instr {
            (&mut self.l1i[p], self.spec.l1i.line_bytes)
        } else {
            (&mut self.l1d[p], self.spec.l1d.line_bytes)
        };
        if l1.contains(line + 1) {
            return;
        }
        l1.stats.prefetches += 1;
        l1.fill(line + 1, false);
        self.prefetch_below(p, (line + 1) * line_bytes, c);
    }

    /// CPU `p`'s references that hit without a line access of their own: `fetches` in the
    /// L1I, `loads` in the L1D, and `stores`, which the write-through L1D also passes to the L2.
    pub fn word_hits(&mut self, p: usize, fetches: f64, loads: f64, stores: f64) {
        self.l1i[p].word_hits(fetches, 0.0);
        self.l1d[p].word_hits(loads, stores);
        let l2 = self.l2_of(p);
        self.l2[l2].word_hits(0.0, stores);
    }

    /// A data read of the line holding `addr` by CPU `p`.
    pub fn read(&mut self, p: usize, addr: u64) -> Cost {
        let mut c = Cost {
            cycles: self.spec.lat.l1d_read_cycles,
            bridge_transactions: 0,
        };
        let line = self.l1d[p].line_of(addr);
        if self.l1d[p].read(line).hit {
            return c;
        }
        if self.spec.l2_shared && self.cpus() > 1 {
            if let Some(&w) = self.writer.get(&line) {
                if w != p {
                    // The line another CPU wrote comes through the shared L2.
                    self.coherence[p].transfers += 1;
                    self.writer.remove(&line);
                }
            }
        }
        self.l2_access(p, addr, false, &mut c);
        self.prefetch_after_miss(p, false, line, &mut c);
        c
    }

    /// A data write of the line holding `addr` by CPU `p`: the write-through L1D updates its
    /// copy and passes the write to the L2, which allocates on a miss; other CPUs' L1D
    /// copies are invalidated.
    pub fn write(&mut self, p: usize, addr: u64) -> Cost {
        let mut c = Cost {
            cycles: self.spec.lat.l1d_write_cycles,
            bridge_transactions: 0,
        };
        let line = self.l1d[p].line_of(addr);
        self.l1d[p].write(line);
        for q in 0..self.cpus() {
            if q != p && self.l1d[q].invalidate(line).0 {
                self.coherence[q].invalidated += 1;
            }
        }
        if self.spec.l2_shared && self.cpus() > 1 {
            self.writer.insert(line, p);
        }
        self.l2_access(p, addr, true, &mut c);
        c
    }

    /// A DMA write of `[addr, addr + bytes)` into host memory.
    pub fn dma_write(&mut self, addr: u64, bytes: u64) -> u32 {
        let mut bridge = 0;
        let l2_line = self.spec.l2.line_bytes;
        let l1_line = self.spec.l1d.line_bytes;
        let first = addr / l2_line;
        let last = (addr + bytes.max(1) - 1) / l2_line;
        for line in first..=last {
            self.dma.lines_written += 1;
            for l1 in (line * l2_line / l1_line)..((line + 1) * l2_line / l1_line) {
                for q in 0..self.cpus() {
                    self.dma.invalidations += self.l1d[q].invalidate(l1).0 as u64;
                }
                if !self.writer.is_empty() {
                    self.writer.remove(&l1);
                }
            }
            match self.spec.dma {
                DmaPolicy::Invalidate => {
                    for k in 0..self.l2.len() {
                        self.dma.invalidations += self.l2[k].invalidate(line).0 as u64;
                    }
                }
                DmaPolicy::Allocate => {
                    for k in 1..self.l2.len() {
                        self.dma.invalidations += self.l2[k].invalidate(line).0 as u64;
                    }
                    self.dma.allocations += 1;
                    bridge += self.l2[0].fill(line, true).is_some() as u32;
                }
            }
        }
        bridge
    }

    /// A DMA read of `[addr, addr + bytes)`: dirty lines are supplied by their cache and
    /// cleaned (the transfer itself is the DMA's own bridge traffic).
    pub fn dma_read(&mut self, addr: u64, bytes: u64) {
        let l2_line = self.spec.l2.line_bytes;
        for line in addr / l2_line..=(addr + bytes.max(1) - 1) / l2_line {
            for k in 0..self.l2.len() {
                if self.l2[k].is_dirty(line) {
                    self.dma.read_snoops += 1;
                    self.l2[k].clean(line);
                }
            }
        }
    }

    pub fn latencies(&self) -> Latencies {
        self.spec.lat
    }
}

/// Line numbers are already well spread: one multiply mixes them (the default SipHash costs
/// more than the cache lookup it guards).
#[derive(Default)]
struct LineHasher(u64);

impl Hasher for LineHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[cfg(test)]
#[path = "caches_tests.rs"]
pub(crate) mod tests;
