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

impl LockRef {
    /// Taken with interrupts masked, so no hard IRQ preempts a holder: AIX 4.1's allocator
    /// and thread-management locks, which interrupt handlers take too (BSD's input up to TCP
    /// runs at interrupt level and allocates and wakes there, stacks.md §B.2), and whose
    /// uniprocessor variant is the interrupt masking alone (§B.1) [I].
    pub fn masks_irqs(self) -> bool {
        matches!(self, LockRef::Allocator | LockRef::Threads)
    }
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

    /// Each piece of `stage` becomes one critical section under `lock` per unit of its work
    /// (`unit_cycles` each: one buffer, one call), each holding `held` (0 to 1) of its unit,
    /// then one piece of what they leave, unlocked (keeping any lock the piece had): a
    /// processor releases and takes the lock again between units, so another may take it in
    /// between. A job with no room for them all holds the last section for the units left.
    pub fn lock_sections(&mut self, stage: u8, lock: LockRef, unit_cycles: f64, held: f64) {
        let held = held.clamp(0.0, 1.0);
        let mut i = self.idx as usize;
        while i < self.len as usize {
            let p = self.pieces[i];
            if p.stage != stage || p.is_empty() || held <= 0.0 {
                i += 1;
                continue;
            }
            let units = match unit_cycles > 0.0 {
                true => (p.cycles / unit_cycles).round().max(1.0) as usize,
                false => 1,
            };
            let rest = usize::from(held < 1.0);
            let room = MAX_PIECES - self.len as usize;
            let (sections, rest) = match room < rest {
                true => (1, 0),
                false => (units.min(room + 1 - rest), rest),
            };
            let (held, n) = (if rest == 0 { 1.0 } else { held }, units as f64);
            let part = |share: f64, lock: LockRef, first: bool| Piece {
                cycles: p.cycles * share,
                refs: p.refs * share,
                pio_reads: if first { p.pio_reads } else { 0 },
                pio_writes: if first { p.pio_writes } else { 0 },
                lock,
                ..p
            };
            let added = sections + rest - 1;
            let len = self.len as usize;
            self.pieces.copy_within(i + 1..len, i + 1 + added);
            for k in 0..sections {
                let u = if k + 1 < sections {
                    1.0
                } else {
                    n - (sections - 1) as f64
                };
                self.pieces[i + k] = part(held * u / n, lock, k == 0);
            }
            if rest == 1 {
                self.pieces[i + sections] = part(1.0 - held, p.lock, false);
            }
            self.len += added as u8;
            i += sections + rest;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(stage: u8, cycles: f64) -> Piece {
        Piece {
            cycles,
            refs: cycles / 10.0,
            stage,
            ..Default::default()
        }
    }

    fn shape(j: &Job) -> Vec<(u8, f64, LockRef)> {
        j.pieces().map(|p| (p.stage, p.cycles, p.lock)).collect()
    }

    #[test]
    fn a_piece_of_three_units_becomes_three_sections_then_its_unlocked_rest() {
        let mut j = Job::new(Then::Nothing);
        for p in [piece(1, 50.0), piece(2, 300.0), piece(3, 7.0)] {
            j.push(p);
        }
        j.lock_sections(2, LockRef::Allocator, 100.0, 0.25);
        let a = LockRef::Allocator;
        assert_eq!(
            shape(&j),
            [
                (1, 50.0, LockRef::None),
                (2, 25.0, a),
                (2, 25.0, a),
                (2, 25.0, a),
                (2, 225.0, LockRef::None),
                (3, 7.0, LockRef::None)
            ]
        );
        let refs: f64 = j.pieces().filter(|p| p.stage == 2).map(|p| p.refs).sum();
        assert!((refs - 30.0).abs() < 1e-9, "the references are shared too");
    }

    #[test]
    fn the_whole_piece_held_leaves_no_rest_and_a_full_job_holds_the_units_left_at_once() {
        let mut j = Job::new(Then::Nothing);
        for _ in 0..6 {
            j.push(piece(1, 10.0));
        }
        j.push(piece(2, 500.0));
        // Room for one more piece: two sections, the second holding four units.
        j.lock_sections(2, LockRef::Threads, 100.0, 1.0);
        let held: Vec<_> = j.pieces().skip(6).map(|p| (p.cycles, p.lock)).collect();
        assert_eq!(held, [(100.0, LockRef::Threads), (400.0, LockRef::Threads)]);
        // No room for a rest: the piece is held whole, as one section.
        let mut k = Job::new(Then::Nothing);
        for _ in 0..7 {
            k.push(piece(1, 10.0));
        }
        k.push(piece(2, 500.0));
        k.lock_sections(2, LockRef::Threads, 100.0, 0.5);
        let last = k.pieces().last().unwrap();
        assert_eq!((last.cycles, last.lock), (500.0, LockRef::Threads));
    }
}
