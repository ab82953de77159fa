//! Threads: any number per node, each on one processor (pinned, or free to migrate when it
//! wakes) and running one operation at a time (send, receive, compute, connect, accept, close;
//! a datagram's send or receive; a poll over several sockets); and the per-processor run
//! queue. State only; what a thread does is in `syscall`, when it runs in `sched`.

use crate::hw::cpu::Job;
use crate::node::effect::Effect;
use crate::stack::conn::ConnId;
use crate::stack::tcp::Segment;
use crate::stack::udp::UdpId;
use crate::stack::Frame;
use std::collections::VecDeque;

/// A thread's scheduling class: a lower value runs first, and with `sched.wakeup_preempts`
/// a woken thread preempts a running one of a higher value (Linux's wake-up preemption of a
/// CPU-bound task by an interactive one). Threads of one class run in the order they became
/// runnable.
pub type Priority = u8;
/// Threads that talk on sockets (benchmarks' communication threads, servers).
pub const INTERACTIVE: Priority = 0;
/// Background work: the application load thread.
pub const BATCH: Priority = 1;

/// A thread operation the workload asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// Write `bytes` to connection `conn`, blocking while its send buffer is full.
    Send { conn: ConnId, bytes: u64 },
    /// sendfile() of `bytes` to connection `conn`: as Send, without the copy into the socket.
    SendFile { conn: ConnId, bytes: u64 },
    /// Read `bytes` from connection `conn`, blocking until they have arrived; it returns
    /// early at the end of the stream (the peer closed).
    Recv { conn: ConnId, bytes: u64 },
    /// recv() of up to `bytes` from connection `conn`: it sleeps until something has arrived
    /// and returns with what one call copied (no MSG_WAITALL: netperf's stream receiver).
    RecvAny { conn: ConnId, bytes: u64 },
    /// connect() on a closed socket: the SYN goes out, the thread sleeps until the handshake
    /// completes.
    Connect { conn: ConnId },
    /// accept() on the node's listener: the thread sleeps until a connection is ready;
    /// `Node::accepted` names it.
    Accept,
    /// close(): the FIN follows the data written; the call does not wait for it.
    Close { conn: ConnId },
    /// send() of one datagram of `bytes` on UDP socket `sock`, sleeping while its send
    /// buffer is full.
    SendTo { sock: UdpId, bytes: u64 },
    /// recv() of one datagram on UDP socket `sock`, sleeping until one arrives.
    RecvFrom { sock: UdpId },
    /// epoll_wait() on poll set `set` (level-triggered): returns as soon as one of its
    /// connections has data to read or has reached the end of its stream, sleeping until
    /// then; `Node::accepted` names it.
    Poll { set: usize },
    /// Application work on received data: cycles and memory references.
    Compute { cycles: f64, refs: f64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    Data,
    Space,
    Connected,
    Accept,
    Datagram,
    SendBuffer,
    Poll(usize),
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub proc: usize,
    /// Pinned to `proc`; otherwise the scheduler may move it when it wakes.
    pub pinned: bool,
    pub prio: Priority,
    pub(crate) op: Option<Op>,
    pub(crate) left: u64,
    pub(crate) in_call: bool,
    pub(crate) blocked: Option<Wait>,
    /// Its place in the run queue while runnable.
    pub(crate) queued: Option<RunKey>,
    pub(crate) woken: bool,
    pub(crate) saved: Option<Job>,
    pub(crate) effect: Effect,
    pub(crate) xmit: VecDeque<Segment>,
    /// Backlogged segments of a socket it owned, to process before its call returns.
    pub(crate) backlog: VecDeque<Frame>,
    /// The connection its last accept() returned, or its last poll found ready.
    pub(crate) accepted: Option<ConnId>,
    /// Its last operation has just returned and the workload is choosing the next: a thread
    /// that never slept is not re-placed (Linux moves a task when it wakes, not between calls).
    pub(crate) continuing: bool,
    /// Its wake-up went through its processor's wake list (`sched.wake_list`).
    pub(crate) wake_listed: bool,
    /// A processor a free thread never moves to (a placement's dedicated protocol CPU).
    pub(crate) not_on: Option<usize>,
    /// Its EEVDF state (`sched.policy = eevdf`).
    pub(crate) fair: Entity,
}

impl Thread {
    pub(crate) fn new(proc: usize, prio: Priority, pinned: bool) -> Self {
        Thread {
            proc,
            pinned,
            prio,
            op: None,
            left: 0,
            in_call: false,
            blocked: None,
            queued: None,
            woken: false,
            saved: None,
            effect: Effect::None,
            xmit: VecDeque::new(),
            backlog: VecDeque::new(),
            accepted: None,
            continuing: false,
            wake_listed: false,
            not_on: None,
            fair: Default::default(),
        }
    }
}

/// A thread's EEVDF state (`os/eevdf.rs`), virtual times in picoseconds.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Entity {
    pub(crate) vruntime_ps: i64,
    pub(crate) deadline_ps: i64,
    /// Average less its virtual runtime when it last slept.
    pub(crate) vlag_ps: i64,
    /// RUN_TO_PARITY: picked, and its deadline has not moved since.
    pub(crate) protected: bool,
}

/// A processor's fair run queue beside its `RunQueue` (which holds the same threads).
#[derive(Clone, Debug, Default)]
pub(crate) struct FairRq {
    /// The thread whose run time is being charged (`cfs_rq->curr`).
    pub(crate) curr: Option<usize>,
    pub(crate) exec_start: crate::units::Time,
    /// `TIF_NEED_RESCHED`: the next chunk boundary of process context picks again.
    pub(crate) need_resched: bool,
    /// The average when the queue last emptied, where a thread waking alone is placed.
    pub(crate) idle_v_ps: i64,
    /// The queued threads but `curr`, by virtual runtime, for the pick.
    pub(crate) timeline: super::timeline::Timeline<RunKey>,
}

/// A runnable thread's place: its class, then when it became runnable, then its id.
pub(crate) type RunKey = (Priority, u64, usize);

/// The runnable threads of one processor, in pick order: a sorted vector, since a new key
/// goes to the end of its class and the queue is short (no allocation once it has grown).
#[derive(Clone, Debug, Default)]
pub(crate) struct RunQueue {
    keys: Vec<RunKey>,
    arrivals: u64,
    /// The sum of its threads' EEVDF virtual runtimes, kept exact as they join, leave and run,
    /// so the queue's average costs nothing with thousands of threads (always 0 under the
    /// class scheduler, where virtual runtimes stay 0).
    v_sum: i128,
}

impl RunQueue {
    /// Queues `tid`, whose virtual runtime is `vruntime_ps`.
    pub(crate) fn insert(&mut self, prio: Priority, tid: usize, vruntime_ps: i64) -> RunKey {
        self.arrivals += 1;
        let k = (prio, self.arrivals, tid);
        let at = self.keys.partition_point(|x| *x < k);
        self.keys.insert(at, k);
        self.v_sum += vruntime_ps as i128;
        k
    }

    /// Takes the thread at `k` off, its virtual runtime now `vruntime_ps`.
    pub(crate) fn remove(&mut self, k: RunKey, vruntime_ps: i64) {
        if let Ok(at) = self.keys.binary_search(&k) {
            self.keys.remove(at);
            self.v_sum -= vruntime_ps as i128;
        }
    }

    /// A queued thread's virtual runtime grew by `delta_ps`.
    pub(crate) fn charge(&mut self, delta_ps: i64) {
        self.v_sum += delta_ps as i128;
    }

    /// The sum and count of its threads' virtual runtimes.
    pub(crate) fn v_sum(&self) -> (i128, i128) {
        (self.v_sum, self.keys.len() as i128)
    }

    /// Its threads in pick order.
    pub(crate) fn tids(&self) -> impl Iterator<Item = usize> + '_ {
        self.keys.iter().map(|k| k.2)
    }

    /// Threads waiting to run here.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The first runnable thread after `after` (from the front if None).
    pub(crate) fn next_after(&self, after: Option<RunKey>) -> Option<RunKey> {
        let at = match after {
            None => 0,
            Some(k) => self.keys.partition_point(|x| *x <= k),
        };
        self.keys.get(at).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_runs_before_the_next_and_in_arrival_order_within_it() {
        let mut q = RunQueue::default();
        let load = q.insert(BATCH, 0, 0);
        let b = q.insert(INTERACTIVE, 2, 0);
        let a = q.insert(INTERACTIVE, 1, 0);
        assert_eq!(q.next_after(None), Some(b));
        assert_eq!(q.next_after(Some(b)), Some(a));
        assert_eq!(q.next_after(Some(a)), Some(load));
        assert_eq!(q.tids().collect::<Vec<_>>(), [2, 1, 0]);
        q.remove(b, 0);
        assert_eq!(q.next_after(None), Some(a));
    }

    #[test]
    fn the_virtual_runtime_sum_follows_joins_leaves_and_charges() {
        let mut q = RunQueue::default();
        let a = q.insert(INTERACTIVE, 1, -5);
        q.insert(INTERACTIVE, 2, i64::MAX);
        q.charge(7);
        assert_eq!(q.v_sum(), (i64::MAX as i128 + 2, 2));
        q.remove(a, 2);
        // A key no longer queued changes nothing.
        q.remove(a, 100);
        assert_eq!(q.v_sum(), (i64::MAX as i128, 1));
    }
}
