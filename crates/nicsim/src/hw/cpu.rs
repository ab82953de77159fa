//! A processor: execution contexts with priorities (hard IRQ > softirq > process), work
//! items executed in chunks of memory references, preemption at chunk boundaries, and
//! busy time accounted by category (host-path §2.2, §2.8, §7.5).

use crate::config::{Category, ProcName, CATEGORY_COUNT};
use crate::hw::frame::FlowId;
use crate::hw::memory::{Region, Touch};
use crate::units::{Duration, Freq, Time};

pub fn cat_index(c: Category) -> usize {
    c as usize
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ctx {
    HardIrq = 0,
    Softirq = 1,
    Process = 2,
}

/// A priced piece of work: cycles of instructions, memory references, register accesses.
#[derive(Clone, Copy, Debug, Default)]
pub struct Piece {
    pub cat: Option<Category>,
    pub cycles: f64,
    pub refs: f64,
    /// Register accesses (a byte each keeps a piece at 24 bytes: jobs move on dispatch).
    pub pio_reads: u8,
    pub pio_writes: u8,
    /// Which of its job's data its references go to.
    pub touches: Touches,
}

/// Which of its job's data a piece's references go to, besides code, stack and per-CPU data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Touches {
    #[default]
    Private,
    Connection,
    Buffer,
    Ring,
}

/// What a job's pieces touch: its flow's connection state, a socket-buffer range (stream
/// offset modulo 2^32 and size) and the received frame in the ring. Kept once per job, not
/// per piece, so jobs stay small.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobData {
    pub flow: FlowId,
    pub buffer_addr: u32,
    pub buffer_bytes: u32,
    pub ring_bytes: u32,
}

impl JobData {
    pub fn touch(&self, t: Touches) -> Touch {
        match t {
            Touches::Private => Touch::default(),
            Touches::Connection => Touch::new(Region::Connection(self.flow), 0, 0),
            Touches::Buffer => Touch::new(
                Region::SocketBuffer(self.flow),
                self.buffer_addr,
                self.buffer_bytes,
            ),
            Touches::Ring => Touch::new(Region::Ring, 0, self.ring_bytes),
        }
    }
}

impl Piece {
    pub fn touching(mut self, touches: Touches) -> Self {
        self.touches = touches;
        self
    }

    pub fn is_empty(&self) -> bool {
        self.cycles <= 0.0 && self.refs <= 0.0 && self.pio_reads == 0 && self.pio_writes == 0
    }
}

/// What happens when a job finishes; interpreted by the node (`system.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Then {
    /// Network device `dev`'s interrupt handler ran; it took `taken` frames with `netif_rx`.
    HardIrq {
        dev: u8,
        taken: u32,
    },
    Notified(Notice),
    Softirq,
    Thread(usize),
    /// Work with no effect beyond its cost (the sending side of a thread hand-off).
    Nothing,
}

/// Why a processor was interrupted by another processor or the NIC doorbell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Raise the receive softirq here (offload kick, hybrid hand-off).
    RaiseSoftirq,
    /// A thread on this processor was woken (reschedule IPI).
    Reschedule,
    /// A background cross-call (TLB shootdown, function call): only its cost.
    CrossCall,
}

const MAX_PIECES: usize = 8;

#[derive(Clone, Debug)]
pub struct Job {
    pieces: [Piece; MAX_PIECES],
    len: u8,
    idx: u8,
    pub then: Then,
    /// What its pieces touch.
    pub data: JobData,
}

impl Job {
    pub fn new(then: Then) -> Self {
        Job {
            pieces: [Piece::default(); MAX_PIECES],
            len: 0,
            idx: 0,
            then,
            data: JobData::default(),
        }
    }

    #[inline(always)]
    pub fn push(&mut self, p: Piece) {
        if p.is_empty() {
            return;
        }
        assert!((self.len as usize) < MAX_PIECES, "job has too many pieces");
        self.pieces[self.len as usize] = p;
        self.len += 1;
    }

    pub fn with_data(mut self, data: JobData) -> Self {
        self.data = data;
        self
    }

    /// Puts `p` before the pieces not yet started (a context switch ahead of a thread's work).
    pub fn prepend(&mut self, p: Piece) {
        if p.is_empty() {
            return;
        }
        let (idx, len) = (self.idx as usize, self.len as usize);
        if idx > 0 {
            self.idx -= 1;
            self.pieces[idx - 1] = p;
            return;
        }
        assert!(len < MAX_PIECES, "job has too many pieces");
        self.pieces.copy_within(0..len, 1);
        self.pieces[0] = p;
        self.len += 1;
    }

    pub fn with(mut self, p: Piece) -> Self {
        self.push(p);
        self
    }

    /// The pieces not yet started.
    pub fn pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        self.pieces[self.idx as usize..self.len as usize]
            .iter()
            .copied()
    }

    fn current(&mut self) -> Option<&mut Piece> {
        if self.idx < self.len {
            Some(&mut self.pieces[self.idx as usize])
        } else {
            None
        }
    }
}

/// The chunk a processor is executing: what it costs and how it was accounted.
#[derive(Clone, Copy, Debug)]
pub struct Chunk {
    pub refs: f64,
    /// What its piece touches (a model that prices by address splits it over the piece's
    /// chunks by their references; the mean-access model does not look).
    pub touch: Touch,
    pub cycles: f64,
    pub pio_reads: u32,
    pub pio_writes: u32,
    /// Its pieces in execution order, as (category, references, cycles): more than one when
    /// short pieces that follow ride in the chunk (`next_chunk`).
    pub parts: [(Category, f64, f64); MAX_PIECES],
    pub n_parts: u8,
}

impl Chunk {
    /// The category of its first piece.
    pub fn cat(&self) -> Category {
        self.parts[0].0
    }
}

#[derive(Clone, Debug, Default)]
pub struct ProcStats {
    /// Busy picoseconds per category (index by `cat_index`).
    pub busy_ps: [u64; CATEGORY_COUNT],
    pub ctx_ps: [u64; 3],
    pub irqs_nic: u64,
    pub irqs_ipi: u64,
    pub context_switches: u64,
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
    /// End, category and context of the chunk in progress, so snapshots can exclude its future.
    pub chunk_end: Time,
    /// The chunk in progress: picoseconds accounted to each of its parts' categories, in order.
    chunk_parts: [(Category, u64); MAX_PIECES],
    chunk_n: u8,
    pub chunk_ctx: Ctx,
    pub stats: ProcStats,
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
            chunk_end: Time::ZERO,
            chunk_parts: [(Category::Os, 0); MAX_PIECES],
            chunk_n: 0,
            chunk_ctx: Ctx::Process,
            stats: ProcStats::default(),
        }
    }

    /// Cuts the next chunk off the running job: at most `batch_refs` references with their
    /// share of the instructions; register accesses go with the first chunk of a piece.
    /// Returns `None` when the job has no work left.
    pub fn next_chunk(&mut self) -> Option<Chunk> {
        let batch = self.batch_refs;
        let (_, job) = self.running.as_mut()?;
        let data = job.data;
        loop {
            let p = job.current()?;
            if p.is_empty() {
                job.idx += 1;
                continue;
            }
            let refs = p.refs.min(batch);
            let cycles = if p.refs > 0.0 {
                p.cycles * refs / p.refs
            } else {
                p.cycles
            };
            let cat = p.cat.unwrap_or(Category::Os);
            let mut c = Chunk {
                refs,
                touch: data.touch(p.touches),
                cycles,
                pio_reads: p.pio_reads as u32,
                pio_writes: p.pio_writes as u32,
                parts: [(cat, refs, cycles); MAX_PIECES],
                n_parts: 1,
            };
            p.refs -= refs;
            p.cycles -= cycles;
            p.pio_reads = 0;
            p.pio_writes = 0;
            if p.refs <= 1e-9 {
                p.refs = 0.0;
            }
            if p.refs == 0.0 && p.cycles <= 1e-9 {
                p.cycles = 0.0;
            }
            // The pieces that follow a finished one ride in the same chunk while the batch has
            // room and they access no register: one event, not one per stage. Each keeps its
            // category; the chunk's time is split by their work. The chunk keeps its first
            // piece's `touch`: the mean-access model, the only one, does not look at it (a
            // model that prices by address will need each part's).
            let finished = p.is_empty();
            let mut k = job.idx as usize + 1;
            while finished && k < job.len as usize {
                let q = job.pieces[k];
                let fits = c.refs + q.refs <= batch && q.pio_reads == 0 && q.pio_writes == 0;
                if !fits {
                    break;
                }
                c.refs += q.refs;
                c.cycles += q.cycles;
                c.parts[c.n_parts as usize] = (q.cat.unwrap_or(Category::Os), q.refs, q.cycles);
                c.n_parts += 1;
                job.pieces[k] = Piece::default();
                k += 1;
            }
            return Some(c);
        }
    }

    /// Time to execute `cycles` instructions-cycles at this processor's speed.
    pub fn instr_time(&self, cycles: f64) -> Duration {
        self.clock.duration_of(cycles * self.cpi)
    }

    /// Accounts chunk `c`, started at `start`, whose register accesses ended at `regs_end`,
    /// memory stalls at `stall_end` and whole work at `end`. Registers go to its first part;
    /// the stall is shared by references and the instructions by cycles, the last part taking
    /// the rounding, so the parts sum to the chunk's time.
    pub fn account_chunk(
        &mut self,
        ctx: Ctx,
        c: &Chunk,
        start: Time,
        regs_end: Time,
        stall_end: Time,
        end: Time,
    ) {
        let total = (end - start).0;
        let stall = (stall_end - regs_end).0 as f64;
        let n = c.n_parts as usize;
        let mut left = total;
        for (i, &(cat, refs, cycles)) in c.parts[..n].iter().enumerate() {
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
            self.chunk_parts[i] = (cat, d);
        }
        self.stats.ctx_ps[ctx as usize] += total;
        self.chunk_n = n as u8;
        self.chunk_end = end;
        self.chunk_ctx = ctx;
    }

    /// Busy time per category and per context up to `now`, excluding the unexecuted rest of
    /// the chunk in progress (chunks are accounted when they start).
    pub fn busy_until(&self, now: Time) -> ([u64; CATEGORY_COUNT], [u64; 3]) {
        let (mut cat, mut ctx) = (self.stats.busy_ps, self.stats.ctx_ps);
        if self.running.is_some() && self.chunk_end > now {
            let rest = (self.chunk_end - now).0;
            ctx[self.chunk_ctx as usize] -= rest;
            // The parts run in order: the unexecuted rest is the last parts' time.
            let mut left = rest;
            for &(c, d) in self.chunk_parts[..self.chunk_n as usize].iter().rev() {
                let take = left.min(d);
                cat[cat_index(c)] -= take;
                left -= take;
            }
        }
        (cat, ctx)
    }
}
