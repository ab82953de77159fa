//! System calls and thread steps: what a thread's operation costs, one job at a time (the
//! send and receive calls with their copies, application work), and what it changes when done.

use super::thread::{Op, Priority, Thread, Wait};
use crate::config::{Category, TxOutput};
use crate::engine::Engine;
use crate::hw::cpu::{Job, JobData, Notice, Piece, Then, Touches};
use crate::node::effect::Effect;
use crate::node::{job_of, Ev, Node, Wire};
use crate::stack::buffers;
use crate::stack::conn::ConnId;
use crate::stack::tcp::State;
use std::rc::Rc;

impl Node {
    /// A new thread pinned to processor `proc`; returns its id.
    pub fn spawn(&mut self, proc: usize, prio: Priority) -> Result<usize, String> {
        if proc >= self.procs.len() || self.procs[proc].id.is_nic() {
            return Err(format!(
                "a thread pinned to processor {proc}: node{} has host processors {}",
                self.id,
                self.procs
                    .iter()
                    .filter(|p| !p.id.is_nic())
                    .map(|p| p.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        self.threads.push(Thread::new(proc, prio, true));
        Ok(self.threads.len() - 1)
    }

    /// A new thread that starts on processor `proc` and may migrate when it wakes.
    pub fn spawn_free(&mut self, proc: usize, prio: Priority) -> Result<usize, String> {
        let t = self.spawn(proc, prio)?;
        self.threads[t].pinned = false;
        Ok(t)
    }

    /// An unpinned thread about to become runnable stays on its processor if that is idle,
    /// else moves to the first idle host processor, else stays (Linux 2.6's wake-up
    /// balancing, simplified: no periodic rebalancing, no cache-affinity cost).
    pub(crate) fn place(&mut self, tid: usize) {
        let t = &self.threads[tid];
        let idle = |p: usize| {
            let (cpu, sq) = (&self.procs[p], &self.sq[p]);
            cpu.running.is_none()
                && cpu.hardirq_q.is_empty()
                && cpu.suspended.iter().all(Option::is_none)
                && self.runq[p].next_after(None).is_none()
                && !sq.pending
                && !sq.running
        };
        if t.pinned || idle(t.proc) {
            return;
        }
        let host = (0..self.procs.len()).filter(|&p| !self.procs[p].id.is_nic());
        if let Some(p) = host.into_iter().find(|&p| idle(p)) {
            self.threads[tid].proc = p;
            self.stats.migrations += 1;
        }
    }

    /// A poll set (an epoll instance's interest list) over connections `conns`; its id.
    pub fn poll_set(&mut self, conns: Vec<ConnId>) -> usize {
        self.poll_sets.push(conns);
        self.poll_sets.len() - 1
    }

    /// Adds connection `conn` to poll set `set` (epoll_ctl ADD).
    pub fn poll_add(&mut self, set: usize, conn: ConnId) {
        self.poll_sets[set].push(conn);
    }

    /// Puts thread `tid` on its processor's run queue, or takes it off.
    pub(crate) fn set_runnable(&mut self, tid: usize, on: bool) {
        let t = &mut self.threads[tid];
        match (on, t.queued) {
            (true, None) => t.queued = Some(self.runq[t.proc].insert(t.prio, tid)),
            (false, Some(k)) => {
                self.runq[t.proc].remove(k);
                t.queued = None;
            }
            _ => {}
        }
    }

    /// Gives thread `tid` an operation and makes it runnable.
    pub fn start_op(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, tid: usize, op: Op) {
        self.assign(tid, op);
        let p = self.threads[tid].proc;
        self.kick(eng, wire, p);
    }

    pub(crate) fn assign(&mut self, tid: usize, op: Op) {
        self.place(tid);
        let t = &mut self.threads[tid];
        debug_assert!(t.op.is_none(), "thread already busy");
        t.op = Some(op);
        t.left = match op {
            Op::Send { bytes, .. }
            | Op::SendFile { bytes, .. }
            | Op::Recv { bytes, .. }
            | Op::SendTo { bytes, .. } => bytes,
            Op::Compute { .. }
            | Op::Connect { .. }
            | Op::Accept
            | Op::Close { .. }
            | Op::RecvFrom { .. }
            | Op::Poll { .. } => 1,
        };
        t.in_call = false;
        self.set_runnable(tid, true);
    }

    /// Hands thread `tid` an operation from a thread on processor `from` (the Hpcbench queue
    /// between the receiving and the load thread). Across processors the sleeper is woken with
    /// a reschedule IPI and pays the context switch; on one processor it is a plain wake-up.
    pub fn hand_off(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        from: usize,
        tid: usize,
        op: Op,
    ) {
        self.assign(tid, op);
        self.threads[tid].woken = true;
        let to = self.threads[tid].proc;
        if to != from {
            // The handing thread pays the IPI's send on its own processor (§5.8).
            let send = job_of(Then::Nothing, &[self.notify_cost(to)]);
            self.procs[from].owed.push_back(send);
            self.kick(eng, wire, from);
            self.notify(eng, to, Notice::Reschedule);
        } else {
            self.kick(eng, wire, to);
        }
    }

    pub fn thread_proc(&self, tid: usize) -> usize {
        self.threads[tid].proc
    }

    pub fn thread_idle(&self, tid: usize) -> bool {
        self.threads[tid].op.is_none()
    }

    /// The next job of thread `tid`: pending output first, then its operation one step on.
    pub(crate) fn thread_job(&mut self, tid: usize) -> Option<Job> {
        let cfg = Rc::clone(&self.cfg);
        let c = &cfg.costs;
        let op = self.threads[tid].op?;
        let mk = |s: &mut Self, e: Effect, pieces: &[Piece]| {
            s.threads[tid].effect = e;
            Some(s.priced_job(Then::Thread(tid), pieces))
        };
        if let Some(seg) = self.threads[tid].xmit.pop_front() {
            return mk(self, Effect::Xmit(seg), &self.xmit_pieces(&seg))
                .map(|j| j.with_data(Node::data(seg.flow, 0, 0)));
        }
        if let Op::Send { conn, .. } | Op::SendFile { conn, .. } | Op::Recv { conn, .. } = op {
            self.take_library_input(tid, conn);
        }
        if let Some(f) = self.threads[tid].backlog.pop_front() {
            // release_sock: the backlogged segment's TCP input, in the owner's context. A
            // user-level TCP fetches each segment with select and recv (§B.5).
            let mut pieces = self.transport_pieces(&f, 1);
            if cfg.org.tcp_in_library {
                pieces.push(self.piece(&c.rx_syscall, 0, 2));
            }
            let data = Node::data(f.hdr.flow, 0, f.hdr.payload_bytes());
            return mk(self, Effect::BacklogRx(f), &pieces).map(|j| j.with_data(data));
        }
        // A send or receive enters the kernel once per call.
        let syscall = match op {
            Op::Send { .. } | Op::SendFile { .. } | Op::SendTo { .. } => Some(c.tx_syscall),
            Op::Recv { .. } | Op::RecvFrom { .. } => Some(c.rx_syscall),
            Op::Poll { .. } => Some(c.epoll_wait),
            _ => None,
        };
        if let Some(sc) = syscall {
            if !self.threads[tid].in_call {
                self.threads[tid].in_call = true;
                // The call locks and walks its socket (tcp_sendmsg, tcp_recvmsg).
                let flow = match op {
                    Op::Send { conn, .. } | Op::SendFile { conn, .. } | Op::Recv { conn, .. } => {
                        Some(self.conns[conn].tcp.flow)
                    }
                    Op::SendTo { sock, .. } | Op::RecvFrom { sock } => Some(self.udp[sock].flow),
                    _ => None,
                };
                let call = self.piece(&sc, 0, 1);
                return match flow {
                    Some(f) => mk(self, Effect::None, &[call.touching(Touches::Connection)])
                        .map(|j| j.with_data(Node::data(f, 0, 0))),
                    None => mk(self, Effect::None, &[call]),
                };
            }
        }
        let left = self.threads[tid].left;
        if left == 0 {
            return self.op_finished(tid);
        }
        match op {
            Op::Send { conn, bytes: total } | Op::SendFile { conn, bytes: total } => {
                let zero_copy = matches!(op, Op::SendFile { .. });
                let tcp = &self.conns[conn].tcp;
                let space = tcp.send_space();
                if space == 0 {
                    self.block(tid, conn, Wait::Space);
                    return None;
                }
                let n = left.min(space);
                let data = JobData {
                    user_addr: (total - left) as u32,
                    ..Node::data(tcp.flow, tcp.write_seq(), n)
                };
                self.lock_sock(tid, conn);
                let bell = self.toe_doorbell(tid);
                let fold = self.csum_fold(n);
                let policy = self.cfg.org.buffers;
                let conn_ = &mut self.conns[conn];
                // Nothing left unacknowledged: the send list's buffers are gone.
                if conn_.tcp.send_list_empty() {
                    conn_.tail_room = 0;
                }
                let (bufs, room) = buffers::send_buffers(policy, n, conn_.tail_room);
                conn_.tail_room = room;
                // sendfile() passes page references: the call's fixed part, no bytes copied. A
                // user-level TCP copies the data into its retransmission buffer as well.
                let copies: u32 = if cfg.org.tcp_in_library { 2 } else { 1 };
                let copy = if zero_copy {
                    self.piece(&c.tx_copy, 0, 1)
                } else {
                    self.piece(&c.tx_copy, n * copies as u64, copies)
                        .touching(Touches::CopyIn)
                };
                // SEND on an owned connection; or the send that hands it over (threshold).
                let [drv, ring] = self.command_if_owned(conn);
                let [hdrv, hring] = if self.handoff_choose(conn, false) {
                    self.command_pieces()
                } else {
                    [Piece::default(); 2]
                };
                mk(
                    self,
                    Effect::Copied {
                        conn,
                        bytes: n,
                        push: n == left,
                        zero_copy,
                    },
                    &[
                        copy,
                        fold,
                        self.piece(&c.skb_alloc, 0, bufs),
                        bell,
                        drv,
                        ring,
                        hdrv,
                        hring,
                    ],
                )
                .map(|j| j.with_data(data))
            }
            Op::Recv { conn, bytes: total } => {
                let tcp = &self.conns[conn].tcp;
                let avail = tcp.readable().min(left);
                if avail == 0 {
                    if tcp.at_eof() {
                        return self.op_finished(tid);
                    }
                    self.block(tid, conn, Wait::Data);
                    return None;
                }
                let skbs = avail.div_ceil(tcp.mss as u64) as u32;
                let data = JobData {
                    user_addr: (total - left) as u32,
                    ..Node::data(tcp.flow, tcp.read_seq(), avail)
                };
                self.lock_sock(tid, conn);
                let bell = self.toe_doorbell(tid);
                let [drv, ring] = self.command_if_owned(conn);
                mk(
                    self,
                    Effect::Read { conn, bytes: avail },
                    &[
                        self.piece(&c.rx_copy, avail, skbs)
                            .touching(Touches::CopyOut),
                        self.piece(&c.skb_free, 0, skbs),
                        bell,
                        drv,
                        ring,
                    ],
                )
                .map(|j| j.with_data(data))
            }
            Op::Compute { cycles, refs } => {
                let p = Piece {
                    cat: Some(Category::App),
                    cycles,
                    refs,
                    ..Default::default()
                };
                mk(
                    self,
                    Effect::ComputeDone,
                    &[self.piece(&c.app_message, 0, 1), p],
                )
            }
            Op::Connect { conn } => match self.conns[conn].tcp.state() {
                State::Closed => mk(
                    self,
                    Effect::Connect(conn),
                    &[self.piece(&c.connect_syscall, 0, 1)],
                ),
                State::SynSent => {
                    self.block(tid, conn, Wait::Connected);
                    None
                }
                _ => self.op_finished(tid),
            },
            Op::Accept => {
                let ready = self.listener.as_ref().is_some_and(|l| !l.ready.is_empty());
                if !ready {
                    self.block(tid, 0, Wait::Accept);
                    return None;
                }
                // FCFS selection hands a connection over as it is accepted.
                let next = self
                    .listener
                    .as_ref()
                    .and_then(|l| l.ready.front().copied());
                let [drv, ring] = match next {
                    Some(conn) if self.handoff_choose(conn, true) => self.command_pieces(),
                    _ => [Piece::default(); 2],
                };
                mk(
                    self,
                    Effect::Accept,
                    &[self.piece(&c.accept_syscall, 0, 1), drv, ring],
                )
            }
            Op::Close { conn } => {
                let [drv, ring] = self.command_if_owned(conn);
                mk(
                    self,
                    Effect::Close(conn),
                    &[self.piece(&c.close_syscall, 0, 1), drv, ring],
                )
            }
            // A datagram goes down the whole stack in the calling thread (a TOE runs TCP only).
            Op::SendTo { sock, bytes } => {
                if !self.udp_may_send(sock) {
                    self.block(tid, sock, Wait::SendBuffer);
                    return None;
                }
                let data = Node::data(self.udp[sock].flow, 0, bytes);
                mk(
                    self,
                    Effect::UdpSent { sock, bytes },
                    &[
                        self.piece(&c.tx_copy, bytes, 1).touching(Touches::CopyIn),
                        self.csum_fold(bytes),
                        self.piece(&c.skb_alloc, 0, 1),
                        self.piece(&c.udp_tx, 0, 1).touching(Touches::Connection),
                        self.piece(&c.tx_ip, 0, 1),
                        self.tx_dev_piece(self.udp[sock].flow, bytes),
                    ],
                )
                .map(|j| j.with_data(data))
            }
            Op::Poll { set } => {
                let ready = self.poll_sets[set]
                    .iter()
                    .copied()
                    .find(|&c| self.conns[c].readable());
                let Some(c) = ready else {
                    self.block(tid, set, Wait::Poll(set));
                    return None;
                };
                for &c in &self.poll_sets[set] {
                    if self.conns[c].poller == Some(tid) {
                        self.conns[c].poller = None;
                    }
                }
                self.threads[tid].accepted = Some(c);
                self.op_finished(tid)
            }
            Op::RecvFrom { sock } => {
                let s = &self.udp[sock];
                let Some(len) = s.next_len() else {
                    self.block(tid, sock, Wait::Datagram);
                    return None;
                };
                let data = Node::data(s.flow, 0, len);
                mk(
                    self,
                    Effect::UdpRead(sock),
                    &[
                        self.piece(&c.rx_copy, len, 1).touching(Touches::CopyOut),
                        self.piece(&c.skb_free, 0, 1),
                    ],
                )
                .map(|j| j.with_data(data))
            }
        }
    }

    /// Without checksum offload, csum_partial_copy folds the sum into the sender's copy.
    fn csum_fold(&self, bytes: u64) -> Piece {
        if self.cfg.nic.csum_offload {
            Piece::default()
        } else {
            self.piece(&self.cfg.costs.tx_csum_fold, bytes, 1)
                .touching(Touches::CopyIn)
        }
    }

    /// The connection thread `tid`'s last accept() returned, or its last poll found ready.
    pub fn accepted(&self, tid: usize) -> Option<ConnId> {
        self.threads[tid].accepted
    }

    /// With a TOE (`tx_output = protocol`) each send or read call rings the NIC processor's
    /// doorbell, so the output work runs there; Linux sends from the calling thread.
    pub(crate) fn toe_doorbell(&self, tid: usize) -> Piece {
        let to = self.roles.protocol;
        if self.roles.tx_output != TxOutput::Protocol || self.threads[tid].proc == to {
            Piece::default()
        } else if self.roles.poller == Some(to) {
            // CPU-NET polls a shared-memory queue: an entry, no interrupt.
            self.piece(&self.cfg.costs.cpu_net_handover, 0, 1)
        } else {
            self.notify_cost(to)
        }
    }

    /// Thread `tid` sleeps on connection `conn` until data arrives, send space frees up or
    /// the handshake completes; on the listener until a connection is ready; or on UDP
    /// socket `conn` until a datagram arrives or its send buffer drains.
    pub(crate) fn block(&mut self, tid: usize, conn: usize, w: Wait) {
        self.threads[tid].blocked = Some(w);
        match w {
            Wait::Data => self.conns[conn].reader = Some(tid),
            Wait::Space | Wait::Connected => self.conns[conn].writer = Some(tid),
            Wait::Accept => {
                let l = self.listener.as_mut().expect("accept() without listen()");
                l.waiters.push_back(tid);
            }
            Wait::Datagram => self.udp[conn].reader = Some(tid),
            Wait::Poll(set) => {
                for i in 0..self.poll_sets[set].len() {
                    let c = self.poll_sets[set][i];
                    self.conns[c].poller = Some(tid);
                }
            }
            Wait::SendBuffer => self.udp[conn].writer = Some(tid),
        }
        self.set_runnable(tid, false);
    }

    pub(crate) fn op_finished(&mut self, tid: usize) -> Option<Job> {
        let t = &mut self.threads[tid];
        t.op = None;
        t.in_call = false;
        self.set_runnable(tid, false);
        self.done.push_back(tid);
        None
    }
}
