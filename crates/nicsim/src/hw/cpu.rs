//! A processor: execution contexts with priorities (hard IRQ > softirq > process), work
//! items executed in chunks of memory references, preemption at chunk boundaries, and
//! busy time accounted by category (host-path §2.2, §2.8, §7.5).

use crate::config::{Category, ProcName, CATEGORY_COUNT, STAGE_NAMES};
use crate::hw::frame::FlowId;
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
    /// The cost-profile stage it prices (`StageCost::id`; 0 for none): where its code lies.
    pub stage: u8,
    /// Share of its references already cut into chunks, in 1/65535ths: a chunk covers its
    /// share of what the piece touches (kept in the piece, so progress survives a prepend).
    pub done: u16,
    /// The spinlock it runs under (`os/lock.rs`), taken when it starts.
    pub lock: LockRef,
}

/// Which of its job's spinlocks a piece holds while it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LockRef {
    #[default]
    None,
    /// The transmit queue lock of the device its flow sends on (`dev_queue_xmit`).
    DevQueue,
    /// Its flow's socket spinlock (`bh_lock_sock` around TCP input in the softirq).
    Socket,
}

/// Which of its job's data a piece's references go to, besides code, stack and per-CPU data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Touches {
    #[default]
    Private,
    Connection,
    /// Reads the received data in the socket buffer (a checksum, the softirq's copy).
    Buffer,
    /// Copies the user's buffer into the send buffer (`tcp_sendmsg`).
    CopyIn,
    /// Copies the socket buffer into the user's buffer (`tcp_recvmsg`).
    CopyOut,
    Ring,
}

/// What a job's pieces touch: its flow's connection state, a socket-buffer range (stream
/// offset modulo 2^32 and size), the offset in the user's buffer, and the received frame's
/// ring slot. Kept once per job, not per piece, so jobs stay small.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobData {
    pub flow: FlowId,
    pub buffer_addr: u32,
    pub buffer_bytes: u32,
    pub user_addr: u32,
    pub ring_slot: u32,
}

impl Piece {
    pub fn touching(mut self, touches: Touches) -> Self {
        self.touches = touches;
        self
    }

    pub fn locking(mut self, lock: LockRef) -> Self {
        self.lock = lock;
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
    /// An event from the handoff NIC (an interrupt; the event's work is `handoff_event`).
    NicEvent,
    /// The handoff NIC owns more connections than its soft limit: the OS restores some.
    NicExcess,
}

const MAX_PIECES: usize = 8;

/// The stage index spinning on a lock is accounted to (after every profile stage).
pub const SPIN_STAGE: u8 = STAGE_NAMES.len() as u8 + 1;

/// Busy-time slots per processor: no stage, every stage, spinning.
pub const STAGE_SLOTS: usize = SPIN_STAGE as usize + 1;

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

    /// Queues `p` last, or first with `first`; in a job with no room left, adds its work to
    /// the piece at that end instead (the work is kept, only its stage attribution is lost).
    pub fn add_or_merge(&mut self, p: Piece, first: bool) {
        if p.is_empty() {
            return;
        }
        let full = self.idx == 0 && self.len as usize == MAX_PIECES;
        match (full, first) {
            (true, _) => {
                let at = if first { 0 } else { MAX_PIECES - 1 };
                self.pieces[at].cycles += p.cycles;
                self.pieces[at].refs += p.refs;
            }
            (false, true) => self.prepend(p),
            (false, false) => self.push(p),
        }
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

    /// The piece the next chunk starts with, if it has not started yet and takes a lock.
    pub fn lock_to_take(&self) -> Option<LockRef> {
        let p = self.pieces[self.idx as usize..self.len as usize]
            .iter()
            .find(|p| !p.is_empty())?;
        (p.lock != LockRef::None && p.done == 0).then_some(p.lock)
    }

    fn current(&mut self) -> Option<&mut Piece> {
        if self.idx < self.len {
            Some(&mut self.pieces[self.idx as usize])
        } else {
            None
        }
    }
}

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
    pub context_switches: u64,
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
            context_switches: 0,
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
    /// End, category and context of the chunk in progress, so snapshots can exclude its future.
    pub chunk_end: Time,
    /// The chunk in progress: picoseconds accounted to each of its parts' categories, in order.
    chunk_parts: [(Category, u8, u64); MAX_PIECES],
    chunk_n: u8,
    pub chunk_ctx: Ctx,
    pub stats: ProcStats,
    /// Spinlocks its running job holds: the softirq does not preempt process context that
    /// holds one (Linux takes them with bottom halves disabled).
    pub locks_held: u8,
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
            chunk_parts: [(Category::Os, 0, 0); MAX_PIECES],
            chunk_n: 0,
            chunk_ctx: Ctx::Process,
            stats: ProcStats::default(),
            locks_held: 0,
        }
    }

    /// Cuts the next chunk off the running job: at most `batch_refs` references with their
    /// share of the instructions; register accesses go with the first chunk of a piece.
    /// Returns `None` when the job has no work left.
    pub fn next_chunk(&mut self) -> Option<Chunk> {
        let batch = self.batch_refs;
        let (_, job) = self.running.as_mut()?;
        loop {
            let idx = job.idx as usize;
            let p = job.current()?;
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
            let mut c = Chunk {
                refs,
                cycles,
                pio_reads: p.pio_reads as u32,
                pio_writes: p.pio_writes as u32,
                parts: [part; MAX_PIECES],
                n_parts: 1,
                data: job.data,
            };
            let q = &mut job.pieces[idx];
            q.done = (to * u16::MAX as f64).round() as u16;
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
            self.chunk_parts[i] = (cat, part.stage, d);
        }
        self.stats.ctx_ps[ctx as usize] += total;
        self.chunk_n = n as u8;
        self.chunk_end = end;
        self.chunk_ctx = ctx;
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
