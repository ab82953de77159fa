//! Work items: a job is the pieces of work one context runs in order (each priced and
//! naming the stage it stands for, the data it touches and the spinlock it holds), and what
//! happens when it ends.

use crate::config::Category;
use crate::hw::frame::FlowId;

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
    /// The node's buffer allocator (`smp.allocator_lock`).
    Allocator,
    /// The node's IP stream synchronisation (`org.ip_serialised`).
    Ip,
    /// The node's TCP context list (`org.context_list_lock`).
    TcpContexts,
    /// The node's dispatcher (`smp.thread_lock`).
    Threads,
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
    /// A thread was queued on this idle processor's wake list (a call-function IPI): the
    /// handler activates it.
    WakeList,
    /// A background cross-call (TLB shootdown, function call): only its cost.
    CrossCall,
    /// An event from the handoff NIC (an interrupt; the event's work is `handoff_event`).
    NicEvent,
    /// The handoff NIC owns more connections than its soft limit: the OS restores some.
    NicExcess,
}

pub(crate) const MAX_PIECES: usize = 8;

#[derive(Clone, Debug)]
pub struct Job {
    pub(super) pieces: [Piece; MAX_PIECES],
    pub(super) len: u8,
    pub(super) idx: u8,
    pub then: Then,
    /// What its pieces touch.
    pub data: JobData,
    /// A lock held from the job's first chunk to its end, around its pieces' own locks (a
    /// socket lock held across a whole call); `holding` once taken.
    pub hold: LockRef,
    pub holding: bool,
}

impl Job {
    pub fn new(then: Then) -> Self {
        Job {
            pieces: [Piece::default(); MAX_PIECES],
            len: 0,
            idx: 0,
            then,
            data: JobData::default(),
            hold: LockRef::None,
            holding: false,
        }
    }

    /// Holds `lock` across the whole job.
    pub fn holding(mut self, lock: LockRef) -> Self {
        self.hold = lock;
        self
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

    /// Pieces of `stage` run under `lock` (in place of any they had).
    pub fn lock_stage(&mut self, stage: u8, lock: LockRef) {
        for p in &mut self.pieces[self.idx as usize..self.len as usize] {
            if p.stage == stage {
                p.lock = lock;
            }
        }
    }

    /// The lock to take before the next chunk: the job's held lock first, then the next
    /// piece's own; true for the held one.
    pub fn lock_to_take(&self) -> Option<(LockRef, bool)> {
        if self.hold != LockRef::None && !self.holding {
            return Some((self.hold, true));
        }
        let p = self.pieces[self.idx as usize..self.len as usize]
            .iter()
            .find(|p| !p.is_empty())?;
        (p.lock != LockRef::None && p.done == 0).then_some((p.lock, false))
    }

    pub(super) fn current(&mut self) -> Option<&mut Piece> {
        if self.idx < self.len {
            Some(&mut self.pieces[self.idx as usize])
        } else {
            None
        }
    }
}
