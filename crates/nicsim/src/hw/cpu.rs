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
    pub cat: Category,
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
    pub chunk_cat: Category,
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
            chunk_cat: Category::Os,
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
            let c = Chunk {
                refs,
                touch: data.touch(p.touches),
                cycles,
                pio_reads: p.pio_reads as u32,
                pio_writes: p.pio_writes as u32,
                cat: p.cat.unwrap_or(Category::Os),
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
            return Some(c);
        }
    }

    /// Time to execute `cycles` instructions-cycles at this processor's speed.
    pub fn instr_time(&self, cycles: f64) -> Duration {
        self.clock.duration_of(cycles * self.cpi)
    }

    pub fn account(&mut self, ctx: Ctx, cat: Category, d: Duration) {
        self.stats.busy_ps[cat_index(cat)] += d.0;
        self.stats.ctx_ps[ctx as usize] += d.0;
    }

    /// Busy time per category and per context up to `now`, excluding the unexecuted rest of
    /// the chunk in progress (chunks are accounted when they start).
    pub fn busy_until(&self, now: Time) -> ([u64; CATEGORY_COUNT], [u64; 3]) {
        let (mut cat, mut ctx) = (self.stats.busy_ps, self.stats.ctx_ps);
        if self.running.is_some() && self.chunk_end > now {
            let rest = (self.chunk_end - now).0;
            cat[cat_index(self.chunk_cat)] -= rest;
            ctx[self.chunk_ctx as usize] -= rest;
        }
        (cat, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc() -> Processor {
        Processor::new(ProcName::Cpu0, Freq(400_000_000), 1.0, 64)
    }

    #[test]
    fn a_copy_is_cut_into_batches_of_references() {
        let mut p = proc();
        let job = Job::new(Then::Thread(0)).with(Piece {
            cat: Some(Category::Copy),
            cycles: 1000.0,
            refs: 150.0,
            ..Default::default()
        });
        p.running = Some((Ctx::Process, job));
        let chunks: Vec<Chunk> = std::iter::from_fn(|| p.next_chunk()).collect();
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks[0].refs, 64.0);
        assert_eq!(chunks[2].refs, 22.0);
        let total: f64 = chunks.iter().map(|c| c.cycles).sum();
        assert!((total - 1000.0).abs() < 1e-6);
    }

    #[test]
    fn pieces_run_in_order_and_pio_goes_with_the_first_chunk() {
        let mut p = proc();
        let job = Job::new(Then::HardIrq { dev: 0, taken: 0 })
            .with(Piece {
                cat: Some(Category::Os),
                cycles: 100.0,
                ..Default::default()
            })
            .with(Piece {
                cat: Some(Category::Driver),
                cycles: 50.0,
                refs: 100.0,
                pio_reads: 1,
                pio_writes: 2,
                ..Default::default()
            });
        p.running = Some((Ctx::HardIrq, job));
        let a = p.next_chunk().unwrap();
        assert_eq!(a.cat, Category::Os);
        let b = p.next_chunk().unwrap();
        assert_eq!((b.cat, b.pio_reads, b.pio_writes), (Category::Driver, 1, 2));
        let c = p.next_chunk().unwrap();
        assert_eq!((c.pio_reads, c.refs), (0, 36.0));
        assert!(p.next_chunk().is_none());
    }

    #[test]
    fn every_chunk_carries_what_its_piece_touches() {
        let mut p = proc();
        let data = JobData {
            flow: 1,
            buffer_addr: 1000,
            buffer_bytes: 4096,
            ring_bytes: 0,
        };
        let job = Job::new(Then::Thread(0))
            .with(
                Piece {
                    cat: Some(Category::Copy),
                    cycles: 100.0,
                    refs: 150.0,
                    ..Default::default()
                }
                .touching(Touches::Buffer),
            )
            .with(Piece {
                cat: Some(Category::Os),
                cycles: 10.0,
                ..Default::default()
            })
            .with_data(data);
        p.running = Some((Ctx::Process, job));
        let chunks: Vec<Chunk> = std::iter::from_fn(|| p.next_chunk()).collect();
        assert_eq!(
            chunks.len(),
            4,
            "150 references in batches of 64, then the OS piece"
        );
        let buf = Touch::new(Region::SocketBuffer(1), 1000, 4096);
        assert!(chunks[..3].iter().all(|c| c.touch == buf));
        assert_eq!(chunks[3].touch, Touch::default());
    }

    #[test]
    fn a_prepended_piece_runs_before_what_is_left() {
        let piece = |cycles| Piece {
            cat: Some(Category::Os),
            cycles,
            ..Default::default()
        };
        let mut fresh = Job::new(Then::Nothing).with(piece(1.0)).with(piece(2.0));
        fresh.prepend(piece(9.0));
        let order: Vec<f64> = fresh.pieces().map(|p| p.cycles).collect();
        assert_eq!(order, vec![9.0, 1.0, 2.0]);
        // A job already under way keeps its progress behind the new piece.
        let mut p = proc();
        p.running = Some((
            Ctx::Process,
            Job::new(Then::Nothing).with(piece(1.0)).with(piece(2.0)),
        ));
        p.next_chunk();
        let (_, mut job) = p.running.take().unwrap();
        job.prepend(piece(9.0));
        let order: Vec<f64> = job
            .pieces()
            .filter(|p| !p.is_empty())
            .map(|p| p.cycles)
            .collect();
        assert_eq!(order, vec![9.0, 2.0]);
    }

    #[test]
    fn a_piece_stays_small() {
        // Jobs are copied on every dispatch; a bigger piece measurably slows whole runs.
        assert_eq!(std::mem::size_of::<Piece>(), 24);
    }
}
