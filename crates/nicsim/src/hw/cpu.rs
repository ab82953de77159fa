//! A processor: execution contexts with priorities (hard IRQ > softirq > process), work
//! items executed in chunks of memory references, preemption at chunk boundaries, and
//! busy time accounted by category (host-path §2.2, §2.8, §7.5).

use crate::config::{Category, ProcName, CATEGORY_COUNT, STAGE_NAMES};
use crate::units::{round_u64, Duration, Freq, Time};

use super::job::MAX_PIECES;
pub use super::job::{Job, JobData, LockRef, Notice, Piece, Then, Touches};
use super::slices::SliceLog;

pub fn cat_index(c: Category) -> usize {
    c as usize
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ctx {
    HardIrq = 0,
    Softirq = 1,
    Process = 2,
}

/// The stage index spinning on a lock is accounted to (after every profile stage).
pub const SPIN_STAGE: u8 = STAGE_NAMES.len() as u8 + 1;

/// Busy-time slots per processor: no stage, every stage, spinning.
pub const STAGE_SLOTS: usize = SPIN_STAGE as usize + 1;

/// One piece's share of a chunk: its category, references and instruction cycles, what it
/// touches, and which fraction of its piece it covers (references are cut in order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Part {
    pub cat: Category,
    pub refs: f64,
    pub cycles: f64,
    pub touches: Touches,
    pub stage: u8,
    pub from: f64,
    pub to: f64,
    pub lock: LockRef,
}

/// The chunk a processor is executing: what it costs and how it was accounted.
#[derive(Clone, Copy, Debug)]
pub struct Chunk {
    pub refs: f64,
    pub cycles: f64,
    pub pio_reads: u32,
    pub pio_writes: u32,
    /// Its pieces in execution order: more than one when short pieces that follow ride in
    /// the chunk (`next_chunk`).
    pub parts: [Part; MAX_PIECES],
    pub n_parts: u8,
    /// What the job's pieces touch (a model that prices by address reads it per part).
    pub data: JobData,
}

impl Chunk {
    /// The category of its first piece.
    pub fn cat(&self) -> Category {
        self.parts[0].cat
    }

    pub fn parts(&self) -> &[Part] {
        &self.parts[..self.n_parts as usize]
    }

    /// A processor spinning on a lock: busy, accounted to the OS, with no work of its own.
    pub fn spin(data: JobData) -> Chunk {
        let part = Part {
            cat: Category::Os,
            refs: 0.0,
            cycles: 0.0,
            touches: Touches::Private,
            stage: SPIN_STAGE,
            from: 0.0,
            to: 0.0,
            lock: LockRef::None,
        };
        Chunk {
            refs: 0.0,
            cycles: 0.0,
            pio_reads: 0,
            pio_writes: 0,
            parts: [part; MAX_PIECES],
            n_parts: 1,
            data,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ProcStats {
    /// Busy picoseconds per category (index by `cat_index`).
    pub busy_ps: [u64; CATEGORY_COUNT],
    pub ctx_ps: [u64; 3],
    pub irqs_nic: u64,
    pub irqs_ipi: u64,
    /// Local timer interrupts (`sched.tick_hz`).
    pub irqs_timer: u64,
    /// Busy picoseconds per stage: index 0 is work of no stage (application work, IPI
    /// sends), `StageCost::id` a stage's, `SPIN_STAGE` spinning on a lock.
    pub busy_stage_ps: [u64; STAGE_SLOTS],
    /// Instructions per stage (the profile's, times its category scale), counted when their
    /// chunk starts.
    pub instructions_stage: [f64; STAGE_SLOTS],
    pub context_switches: u64,
    /// Sleeping threads this processor made runnable (its softirq's `rx_wake`).
    pub wakeups: u64,
    /// Lines of connection state that moved here from another processor's cache.
    pub coherence_lines: u64,
}

impl Default for ProcStats {
    fn default() -> Self {
        ProcStats {
            busy_ps: [0; CATEGORY_COUNT],
            ctx_ps: [0; 3],
            irqs_nic: 0,
            irqs_ipi: 0,
            irqs_timer: 0,
            busy_stage_ps: [0; STAGE_SLOTS],
            instructions_stage: [0.0; STAGE_SLOTS],
            context_switches: 0,
            wakeups: 0,
            coherence_lines: 0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Processor {
    pub id: ProcName,
    pub clock: Freq,
    /// Cycles per instruction, including a slower NIC processor's speed fraction.
    pub cpi: f64,
    /// References per chunk: the granularity of contention and of preemption.
    pub batch_refs: f64,
    /// Jobs waiting per context; the running job sits in `running`.
    pub hardirq_q: std::collections::VecDeque<Job>,
    /// Process-context work owed by the thread that ran last (an IPI it sent).
    pub owed: std::collections::VecDeque<Job>,
    pub suspended: [Option<Job>; 3],
    pub running: Option<(Ctx, Job)>,
    /// The chunk in progress, cut in place (`cut_chunk`): a chunk is a few hundred bytes, and
    /// returning one by value cost a copy per chunk.
    pub chunk: Chunk,
    /// End, category and context of the chunk in progress, so snapshots can exclude its future.
    pub chunk_end: Time,
    /// The chunk in progress: picoseconds accounted to each of its parts' categories, in order.
    chunk_parts: [(Category, u8, u64); MAX_PIECES],
    chunk_n: u8,
    pub chunk_ctx: Ctx,
    pub stats: ProcStats,
    /// Instructions per priced cycle of each stage (its IPC; spinning counts none).
    pub stage_ipc: [f64; STAGE_SLOTS],
    /// Spinlocks its running job holds: the softirq does not preempt process context that
    /// holds one (Linux takes them with bottom halves disabled).
    pub locks_held: u8,
    /// Of them, those taken with interrupts masked (`LockRef::masks_irqs`): no hard IRQ
    /// preempts their holder.
    pub irqs_masked: u8,
    /// Its timeline in the trace window (`run.trace_span_ps`), when a trace is asked for.
    pub slices: Option<Box<SliceLog>>,
    /// Chunks advanced in one event (`mem.chunk_spans`), and the generation of its live chunk
    /// event (an event of an older generation is stale).
    pub span: Span,
}

/// A span: the chunks after a job's chunk in progress, cut, priced and accounted ahead of
/// their time because nothing could change them, under one event at the last one's end. The
/// state after the first chunk is kept, so the span can be cut back to any of its boundaries
/// (`span_cut`) when something reaches the processor or the bridge after all.
#[derive(Clone, Debug, Default)]
pub struct Span {
    pub gen: u32,
    /// The chunks ahead, in order: (start, end of the memory stall, end).
    recs: Vec<(Time, Time, Time)>,
    saved: Option<Box<Saved>>,
}

/// A processor's state after its span's first chunk.
#[derive(Clone, Debug)]
struct Saved {
    job: Job,
    /// The counters chunks account (`account_chunk`); the others are not the span's.
    busy_ps: [u64; CATEGORY_COUNT],
    ctx_ps: [u64; 3],
    busy_stage_ps: [u64; STAGE_SLOTS],
    instructions_stage: [f64; STAGE_SLOTS],
    chunk: Chunk,
    chunk_parts: [(Category, u8, u64); MAX_PIECES],
    chunk_n: u8,
    chunk_end: Time,
}

impl Processor {
    pub fn new(id: ProcName, clock: Freq, cpi: f64, batch_refs: u32) -> Self {
        Processor {
            id,
            clock,
            cpi,
            batch_refs: batch_refs.max(1) as f64,
            hardirq_q: Default::default(),
            owed: Default::default(),
            suspended: [None, None, None],
            running: None,
            chunk: Chunk::spin(JobData::default()),
            chunk_end: Time::ZERO,
            chunk_parts: [(Category::Os, 0, 0); MAX_PIECES],
            chunk_n: 0,
            chunk_ctx: Ctx::Process,
            stats: ProcStats::default(),
            stage_ipc: {
                let mut ipc = [1.0; STAGE_SLOTS];
                ipc[SPIN_STAGE as usize] = 0.0;
                ipc
            },
            locks_held: 0,
            irqs_masked: 0,
            slices: None,
            span: Span::default(),
        }
    }

    /// Whether the running job's next chunk may be cut ahead of its time: it has one, and it
    /// accesses no register and takes no lock (those keep their own event).
    pub fn next_is_plain(&self) -> bool {
        let Some((_, job)) = self.running.as_ref() else {
            return false;
        };
        let next = job.pieces[job.idx as usize..job.len as usize]
            .iter()
            .find(|p| !p.is_empty());
        next.is_some_and(|p| p.pio_reads == 0 && p.pio_writes == 0 && p.lock == LockRef::None)
    }

    /// Opens a span after the chunk in progress: keeps the state to cut back to.
    pub fn span_open(&mut self) {
        let job = self.running.as_ref().expect("a running job").1.clone();
        let saved = Saved {
            job,
            busy_ps: self.stats.busy_ps,
            ctx_ps: self.stats.ctx_ps,
            busy_stage_ps: self.stats.busy_stage_ps,
            instructions_stage: self.stats.instructions_stage,
            chunk: self.chunk,
            chunk_parts: self.chunk_parts,
            chunk_n: self.chunk_n,
            chunk_end: self.chunk_end,
        };
        match self.span.saved.as_mut() {
            Some(b) => **b = saved,
            None => self.span.saved = Some(Box::new(saved)),
        }
        self.span.recs.clear();
    }

    /// Cuts, prices (through `stall_end`, given the chunk and its start) and accounts the next
    /// chunk of a span starting at `start`; returns its end.
    pub fn span_chunk(&mut self, start: Time, stall_end: impl FnOnce(&Chunk) -> Time) -> Time {
        let cut = self.cut_chunk();
        debug_assert!(cut, "a plain chunk was there");
        let stall = stall_end(&self.chunk);
        let end = stall + self.instr_time(self.chunk.cycles);
        self.account_chunk(self.chunk_ctx, start, start, stall, end);
        self.span.recs.push((start, stall, end));
        end
    }

    /// Chunks the span has ahead of the one it started with.
    pub fn span_len(&self) -> usize {
        self.span.recs.len()
    }

    /// The span is over (its last chunk ended).
    pub fn span_close(&mut self) {
        self.span.recs.clear();
    }

    /// Cuts the span back to its first boundary at or after `at`: the chunks from there on
    /// are undone (the state after the first chunk is restored and those before replayed, so
    /// every figure is what chunk-by-chunk execution gives), and the boundary is returned;
    /// None if no boundary is left after `at` (the chunk in progress is the last).
    pub fn span_cut(&mut self, at: Time) -> Option<Time> {
        let keep = self.span.recs.iter().position(|r| r.0 >= at)?;
        let b = self.span.recs[keep].0;
        let saved = self.span.saved.as_ref().expect("a span's saved state");
        self.running.as_mut().expect("a running job").1 = saved.job.clone();
        self.stats.busy_ps = saved.busy_ps;
        self.stats.ctx_ps = saved.ctx_ps;
        self.stats.busy_stage_ps = saved.busy_stage_ps;
        self.stats.instructions_stage = saved.instructions_stage;
        self.chunk = saved.chunk;
        self.chunk_parts = saved.chunk_parts;
        self.chunk_n = saved.chunk_n;
        self.chunk_end = saved.chunk_end;
        let recs = std::mem::take(&mut self.span.recs);
        for &(start, stall, end) in &recs[..keep] {
            let cut = self.cut_chunk();
            debug_assert!(cut, "a replayed chunk was there");
            self.account_chunk(self.chunk_ctx, start, start, stall, end);
        }
        self.span.recs = recs;
        self.span.recs.clear();
        debug_assert_eq!(self.chunk_end, b);
        Some(b)
    }

    /// The next chunk (`cut_chunk`), copied out.
    #[cfg(test)]
    pub fn next_chunk(&mut self) -> Option<Chunk> {
        self.cut_chunk().then_some(self.chunk)
    }

    /// Cuts the next chunk off the running job into `chunk`: at most `batch_refs` references
    /// with their share of the instructions; register accesses go with the first chunk of a
    /// piece. Returns false when the job has no work left.
    pub fn cut_chunk(&mut self) -> bool {
        let batch = self.batch_refs;
        let Some((_, job)) = self.running.as_mut() else {
            return false;
        };
        loop {
            let idx = job.idx as usize;
            let Some(p) = job.current() else {
                return false;
            };
            if p.is_empty() {
                job.idx += 1;
                continue;
            }
            let p = *p;
            let refs = p.refs.min(batch);
            let cycles = if p.refs > 0.0 {
                p.cycles * refs / p.refs
            } else {
                p.cycles
            };
            let from = p.done as f64 / u16::MAX as f64;
            let to = if p.refs > 0.0 {
                from + (1.0 - from) * refs / p.refs
            } else {
                1.0
            };
            let part = Part {
                cat: p.cat.unwrap_or(Category::Os),
                refs,
                cycles,
                touches: p.touches,
                stage: p.stage,
                from,
                to,
                lock: p.lock,
            };
            let c = &mut self.chunk;
            c.refs = refs;
            c.cycles = cycles;
            c.pio_reads = p.pio_reads as u32;
            c.pio_writes = p.pio_writes as u32;
            c.parts[0] = part;
            c.n_parts = 1;
            c.data = job.data;
            let q = &mut job.pieces[idx];
            q.done = round_u64(to * u16::MAX as f64) as u16;
            q.refs -= refs;
            q.cycles -= cycles;
            q.pio_reads = 0;
            q.pio_writes = 0;
            if q.refs <= 1e-9 {
                q.refs = 0.0;
            }
            if q.refs == 0.0 && q.cycles <= 1e-9 {
                q.cycles = 0.0;
            }
            // The pieces that follow a finished one ride in the same chunk while the batch has
            // room and they access no register: one event, not one per stage. Each keeps its
            // category and what it touches; the chunk's time is split by their work.
            let finished = q.is_empty() && p.lock == LockRef::None;
            let mut k = idx + 1;
            while finished && k < job.len as usize {
                let q = job.pieces[k];
                let fits = c.refs + q.refs <= batch
                    && q.pio_reads == 0
                    && q.pio_writes == 0
                    && q.lock == LockRef::None;
                if !fits {
                    break;
                }
                c.refs += q.refs;
                c.cycles += q.cycles;
                c.parts[c.n_parts as usize] = Part {
                    cat: q.cat.unwrap_or(Category::Os),
                    refs: q.refs,
                    cycles: q.cycles,
                    touches: q.touches,
                    stage: q.stage,
                    from: 0.0,
                    to: 1.0,
                    lock: q.lock,
                };
                c.n_parts += 1;
                job.pieces[k] = Piece::default();
                k += 1;
            }
            return true;
        }
    }

    /// Time to execute `cycles` instructions-cycles at this processor's speed.
    pub fn instr_time(&self, cycles: f64) -> Duration {
        self.clock.duration_of(cycles * self.cpi)
    }

    /// Accounts the chunk in progress, started at `start`, whose register accesses ended at
    /// `regs_end`, memory stalls at `stall_end` and whole work at `end`. Registers go to its
    /// first part; the stall is shared by references and the instructions by cycles, the last
    /// part taking the rounding, so the parts sum to the chunk's time.
    pub fn account_chunk(
        &mut self,
        ctx: Ctx,
        start: Time,
        regs_end: Time,
        stall_end: Time,
        end: Time,
    ) {
        let c = &self.chunk;
        let total = (end - start).0;
        let stall = (stall_end - regs_end).0 as f64;
        let n = c.n_parts as usize;
        let mut left = total;
        for (i, part) in c.parts().iter().enumerate() {
            let (cat, refs, cycles) = (part.cat, part.refs, part.cycles);
            let d = if i + 1 == n {
                left
            } else {
                let own = if c.refs > 0.0 {
                    stall * refs / c.refs
                } else {
                    0.0
                } as u64
                    + self.instr_time(cycles).0
                    + if i == 0 { (regs_end - start).0 } else { 0 };
                own.min(left)
            };
            left -= d;
            self.stats.busy_ps[cat_index(cat)] += d;
            self.stats.busy_stage_ps[part.stage as usize] += d;
            self.stats.instructions_stage[part.stage as usize] +=
                cycles * self.stage_ipc[part.stage as usize];
            self.chunk_parts[i] = (cat, part.stage, d);
        }
        self.stats.ctx_ps[ctx as usize] += total;
        if let Some(log) = &mut self.slices {
            let mut at = start;
            for &(_, stage, d) in &self.chunk_parts[..n] {
                log.part(at, d, ctx as u8, stage);
                at += Duration(d);
            }
        }
        self.chunk_n = n as u8;
        self.chunk_end = end;
        self.chunk_ctx = ctx;
    }

    /// Busy time in all contexts up to `now` (the chunk in progress counted to `now` only).
    pub fn busy_ps_until(&self, now: Time) -> u64 {
        self.busy_until(now).1.iter().sum()
    }

    /// Busy time per category and per context up to `now`, excluding the unexecuted rest of
    /// the chunk in progress (chunks are accounted when they start).
    /// Also busy time per stage (`busy_stage_ps`'s indices).
    pub fn busy_until(&self, now: Time) -> ([u64; CATEGORY_COUNT], [u64; 3], [u64; STAGE_SLOTS]) {
        let (mut cat, mut ctx) = (self.stats.busy_ps, self.stats.ctx_ps);
        let mut stage = self.stats.busy_stage_ps;
        if self.running.is_some() && self.chunk_end > now {
            let rest = (self.chunk_end - now).0;
            ctx[self.chunk_ctx as usize] -= rest;
            // The parts run in order: the unexecuted rest is the last parts' time.
            let mut left = rest;
            for &(c, s, d) in self.chunk_parts[..self.chunk_n as usize].iter().rev() {
                let take = left.min(d);
                cat[cat_index(c)] -= take;
                stage[s as usize] -= take;
                left -= take;
            }
        }
        (cat, ctx, stage)
    }
}
