//! System calls and thread steps: what a thread's operation costs, one job at a time (the
//! send and receive calls with their copies, application work), and what it changes when done.

use super::thread::{Op, Wait};
use crate::config::{Category, SocketLock, TxOutput};
use crate::hw::cpu::{Job, JobData, LockRef, Piece, Then, Touches};
use crate::node::effect::Effect;
use crate::node::Node;
use crate::stack::buffers;
use crate::stack::conn::ConnId;
use crate::stack::tcp::State;
use crate::stack::udp::UdpId;
use std::rc::Rc;

impl Node {
    /// The next job of thread `tid`: pending output first, then segments backlogged while it
    /// owned its socket, then its operation one step on (a send or receive enters the kernel
    /// once per call).
    pub(crate) fn thread_job(&mut self, tid: usize) -> Option<Job> {
        let op = self.threads[tid].op?;
        if let Some(seg) = self.threads[tid].xmit.pop_front() {
            let job = self.thread_work(tid, Effect::Xmit(seg), &self.xmit_pieces(&seg));
            return Some(job.with_data(Node::data(seg.flow, 0, 0)));
        }
        if let Op::Send { conn, .. }
        | Op::SendFile { conn, .. }
        | Op::Recv { conn, .. }
        | Op::RecvAny { conn, .. } = op
        {
            self.take_library_input(tid, conn);
        }
        if let Some(job) = self.backlogged_input(tid) {
            return Some(job);
        }
        if let Some(job) = self.enter_call(tid, op) {
            return Some(job);
        }
        if self.threads[tid].left == 0 {
            return self.op_finished(tid);
        }
        match op {
            Op::Send { conn, bytes } => self.sys_send(tid, conn, bytes, false),
            Op::SendFile { conn, bytes } => self.sys_send(tid, conn, bytes, true),
            Op::Recv { conn, bytes } | Op::RecvAny { conn, bytes } => {
                self.sys_recv(tid, conn, bytes)
            }
            Op::Compute { cycles, refs } => self.app_compute(tid, cycles, refs),
            Op::Connect { conn } => self.sys_connect(tid, conn),
            Op::Accept => self.sys_accept(tid),
            Op::Close { conn } => self.sys_close(tid, conn),
            Op::SendTo { sock, bytes } => self.sys_sendto(tid, sock, bytes),
            Op::Poll { set } => self.sys_epoll_wait(tid, set),
            Op::RecvFrom { sock } => self.sys_recvfrom(tid, sock),
        }
    }

    /// A job of thread `tid` that changes `e` when it completes.
    fn thread_work(&mut self, tid: usize, e: Effect, pieces: &[Piece]) -> Job {
        self.threads[tid].effect = e;
        self.priced_job(Then::Thread(tid), pieces)
    }

    /// release_sock: a segment backlogged while the thread owned its socket gets its TCP
    /// input in the owner's context. A user-level TCP fetches each segment with select and
    /// recv (§B.5).
    fn backlogged_input(&mut self, tid: usize) -> Option<Job> {
        let f = self.threads[tid].backlog.pop_front()?;
        let mut pieces = self.transport_pieces(&f, 1);
        if self.cfg.org.tcp_in_library {
            pieces.push(self.piece(&self.cfg.costs.rx_syscall, 0, 2));
        }
        let data = Node::data(f.hdr.flow, 0, f.hdr.payload_bytes());
        Some(
            self.thread_work(tid, Effect::BacklogRx(f), &pieces)
                .with_data(data),
        )
    }

    /// The system call's entry, once per send, receive or poll call: it locks and walks its
    /// socket (tcp_sendmsg, tcp_recvmsg).
    fn enter_call(&mut self, tid: usize, op: Op) -> Option<Job> {
        let c = &self.cfg.costs;
        let sc = match op {
            Op::Send { .. } | Op::SendFile { .. } | Op::SendTo { .. } => c.tx_syscall,
            Op::Recv { .. } | Op::RecvAny { .. } | Op::RecvFrom { .. } => c.rx_syscall,
            Op::Poll { .. } => c.epoll_wait,
            _ => return None,
        };
        if self.threads[tid].in_call {
            return None;
        }
        self.threads[tid].in_call = true;
        let flow = match op {
            Op::Send { conn, .. }
            | Op::SendFile { conn, .. }
            | Op::Recv { conn, .. }
            | Op::RecvAny { conn, .. } => Some(self.conns[conn].tcp.flow),
            Op::SendTo { sock, .. } | Op::RecvFrom { sock } => Some(self.udp[sock].flow),
            _ => None,
        };
        let call = self.piece(&sc, 0, 1);
        Some(match flow {
            Some(f) => self
                .thread_work(tid, Effect::None, &[call.touching(Touches::Connection)])
                .with_data(Node::data(f, 0, 0)),
            None => self.thread_work(tid, Effect::None, &[call]),
        })
    }

    /// send() or sendfile() of `total` bytes: the next piece that fits the send buffer is
    /// copied in (sendfile passes page references), or the thread sleeps for space.
    fn sys_send(&mut self, tid: usize, conn: ConnId, total: u64, zero_copy: bool) -> Option<Job> {
        let cfg = Rc::clone(&self.cfg);
        let c = &cfg.costs;
        let left = self.threads[tid].left;
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
        let conn_ = &mut self.conns[conn];
        // Nothing left unacknowledged: the send list's buffers are gone.
        if conn_.tcp.send_list_empty() {
            conn_.tail_room = 0;
        }
        let (bufs, room) = buffers::send_buffers(cfg.org.buffers, n, conn_.tail_room);
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
        let effect = Effect::Copied {
            conn,
            bytes: n,
            push: n == left,
            zero_copy,
        };
        let alloc = self.piece(&c.skb_alloc, 0, bufs);
        let pieces = [copy, fold, alloc, bell, drv, ring, hdrv, hring];
        let job = self.thread_work(tid, effect, &pieces).with_data(data);
        Some(job.holding(self.call_lock()))
    }

    /// recv(): what has arrived, up to what is still wanted, is copied out; at the end of the
    /// stream the call returns, else the thread sleeps for data.
    fn sys_recv(&mut self, tid: usize, conn: ConnId, total: u64) -> Option<Job> {
        let c = &self.cfg.costs;
        let left = self.threads[tid].left;
        let tcp = &self.conns[conn].tcp;
        let avail = tcp.readable().min(left);
        if avail == 0 {
            if tcp.at_eof() {
                return self.op_finished(tid);
            }
            if self.cfg.tcp.prequeue {
                self.conns[conn].ucopy = Some(tid);
            }
            self.block(tid, conn, Wait::Data);
            return None;
        }
        // Over loopback or veth, the sk_buffs the sender built (GSO segments of up to 64 KiB
        // whole); from a NIC, the sk_buffs queued, each wire frame a GRO merge put into one of
        // them a further fragment (without GRO, one sk_buff per frame).
        let (skbs, frags) = if self.conns[conn].lo_peer.is_some() {
            (tcp.queued_skbs(avail).max(1), 0)
        } else {
            let frames = avail.div_ceil(tcp.mss as u64) as u32;
            let skbs = tcp.queued_skbs(avail).clamp(1, frames);
            (skbs, frames - skbs)
        };
        let data = JobData {
            user_addr: (total - left) as u32,
            ..Node::data(tcp.flow, tcp.read_seq(), avail)
        };
        let (copy, free) = (
            self.piece(&c.rx_copy, avail, skbs)
                .touching(Touches::CopyOut),
            self.piece(&c.skb_free, 0, skbs),
        );
        let (copy_frags, free_frags) = (
            self.piece(&c.rx_copy_frag, 0, frags),
            self.piece(&c.skb_free_frag, 0, frags),
        );
        self.lock_sock(tid, conn);
        let bell = self.toe_doorbell(tid);
        let [drv, ring] = self.command_if_owned(conn);
        let pieces = [copy, copy_frags, free, free_frags, bell, drv, ring];
        let effect = Effect::Read { conn, bytes: avail };
        let job = self.thread_work(tid, effect, &pieces).with_data(data);
        Some(job.holding(self.call_lock()))
    }

    /// The lock a send or receive call holds throughout: its socket's, where the organisation
    /// holds it across the call (`org.socket_lock = call`) on an SMP kernel.
    fn call_lock(&self) -> LockRef {
        match (self.cfg.smp.spinlocks, self.cfg.org.socket_lock) {
            (true, SocketLock::Call) => LockRef::Socket,
            _ => LockRef::None,
        }
    }

    /// Application work on a received message.
    fn app_compute(&mut self, tid: usize, cycles: f64, refs: f64) -> Option<Job> {
        let work = Piece {
            cat: Some(Category::App),
            cycles,
            refs,
            ..Default::default()
        };
        let message = self.piece(&self.cfg.costs.app_message, 0, 1);
        Some(self.thread_work(tid, Effect::ComputeDone, &[message, work]))
    }

    /// connect(): the SYN goes out, then the thread sleeps until the handshake completes.
    fn sys_connect(&mut self, tid: usize, conn: ConnId) -> Option<Job> {
        match self.conns[conn].tcp.state() {
            State::Closed => {
                let call = self.piece(&self.cfg.costs.connect_syscall, 0, 1);
                Some(self.thread_work(tid, Effect::Connect(conn), &[call]))
            }
            State::SynSent => {
                self.block(tid, conn, Wait::Connected);
                None
            }
            _ => self.op_finished(tid),
        }
    }

    /// accept(): the next ready connection, or sleep on the listener. FCFS selection hands a
    /// connection over as it is accepted.
    fn sys_accept(&mut self, tid: usize) -> Option<Job> {
        let next = self
            .listener
            .as_ref()
            .and_then(|l| l.ready.front().copied());
        let Some(conn) = next else {
            self.block(tid, 0, Wait::Accept);
            return None;
        };
        let [drv, ring] = if self.handoff_choose(conn, true) {
            self.command_pieces()
        } else {
            [Piece::default(); 2]
        };
        let call = self.piece(&self.cfg.costs.accept_syscall, 0, 1);
        Some(self.thread_work(tid, Effect::Accept, &[call, drv, ring]))
    }

    /// close(): the FIN follows the data written; the call does not wait for it.
    fn sys_close(&mut self, tid: usize, conn: ConnId) -> Option<Job> {
        let [drv, ring] = self.command_if_owned(conn);
        let call = self.piece(&self.cfg.costs.close_syscall, 0, 1);
        Some(self.thread_work(tid, Effect::Close(conn), &[call, drv, ring]))
    }

    /// send() of a datagram: it goes down the whole stack in the calling thread (a TOE runs
    /// TCP only), or the thread sleeps while its send buffer is full.
    fn sys_sendto(&mut self, tid: usize, sock: UdpId, bytes: u64) -> Option<Job> {
        if !self.udp_may_send(sock) {
            self.block(tid, sock, Wait::SendBuffer);
            return None;
        }
        let c = &self.cfg.costs;
        let flow = self.udp[sock].flow;
        let pieces = [
            self.piece(&c.tx_copy, bytes, 1).touching(Touches::CopyIn),
            self.csum_fold(bytes),
            self.piece(&c.skb_alloc, 0, 1),
            self.piece(&c.udp_tx, 0, 1).touching(Touches::Connection),
            self.piece(&c.tx_ip, 0, 1),
            self.tx_dev_piece(flow, bytes),
        ];
        let effect = Effect::UdpSent { sock, bytes };
        Some(
            self.thread_work(tid, effect, &pieces)
                .with_data(Node::data(flow, 0, bytes)),
        )
    }

    /// epoll_wait() (level-triggered): the first connection of the set with something to
    /// read, or sleep on all of them.
    fn sys_epoll_wait(&mut self, tid: usize, set: usize) -> Option<Job> {
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

    /// recv() of one datagram, or sleep until one arrives.
    fn sys_recvfrom(&mut self, tid: usize, sock: UdpId) -> Option<Job> {
        let s = &self.udp[sock];
        let Some(len) = s.next_len() else {
            self.block(tid, sock, Wait::Datagram);
            return None;
        };
        let data = Node::data(s.flow, 0, len);
        let c = &self.cfg.costs;
        let pieces = [
            self.piece(&c.rx_copy, len, 1).touching(Touches::CopyOut),
            self.piece(&c.skb_free, 0, 1),
        ];
        Some(
            self.thread_work(tid, Effect::UdpRead(sock), &pieces)
                .with_data(data),
        )
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
        if let Some(Op::Recv { conn, .. } | Op::RecvAny { conn, .. }) = self.threads[tid].op {
            // recv returns: the prequeue is off until the next call sleeps.
            if self.conns[conn].ucopy == Some(tid) {
                self.conns[conn].ucopy = None;
            }
        }
        let t = &mut self.threads[tid];
        t.op = None;
        t.in_call = false;
        t.continuing = true;
        // Under EEVDF a thread whose call returned stays current for its next call.
        if !self.eevdf() {
            self.set_runnable(tid, false);
        }
        self.done.push_back(tid);
        None
    }
}
