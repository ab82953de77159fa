//! The receive softirq (`net_rx_action`) on the protocol processor: one work item per step
//! (dispatch, transmit, wake-up, timer, reclaim, one frame's poll, IP and TCP, poll end),
//! within the NAPI budget.

use crate::config::{DeviceIrqs, Ksoftirqd};
use crate::engine::Engine;
use crate::hw::cpu::{Job, LockRef, Piece, Then, Touches};
use crate::hw::frame::FlowId;
use crate::node::effect::Effect;
use crate::node::{Ev, Node, Wire};
use crate::placement::{Acks, Receive};
use crate::stack::tcp::{Segment, State};
use crate::stack::{gro, Frame, Payload};
use std::rc::Rc;

impl Node {
    /// The next step of the receive softirq on processor `p`, or None when it ends. It polls
    /// the devices whose protocol runs on `p`. Work already queued goes before new frames:
    /// output, wake-ups, timers, teardowns, transmit reclaim; then frames within the budget.
    pub(crate) fn softirq_job(&mut self, p: usize) -> Option<Job> {
        if self.fw() == Some(p) {
            return self.fw_job(p);
        }
        if !self.sq[p].running {
            return Some(self.softirq_dispatch(p));
        }
        let queued = self
            .softirq_xmit(p)
            .or_else(|| self.softirq_wake(p))
            .or_else(|| self.softirq_timer(p))
            .or_else(|| self.softirq_teardown(p))
            .or_else(|| self.softirq_reclaim(p));
        if queued.is_some() {
            return queued;
        }
        if !self.softirq_budget_left(p) {
            return None;
        }
        if let Some(f) = self.next_rx_frame(p) {
            return Some(self.softirq_rx(p, f));
        }
        self.softirq_drained(p)
    }

    /// A job of the softirq on `p` that changes `e` when it completes.
    fn softirq_work(&mut self, p: usize, e: Effect, pieces: &[Piece]) -> Job {
        self.sq[p].effect = Some(e);
        self.priced_job(Then::Softirq, pieces)
    }

    /// do_softirq's entry: a fresh budget.
    fn softirq_dispatch(&mut self, p: usize) -> Job {
        let sq = &mut self.sq[p];
        sq.running = true;
        sq.pending = false;
        sq.budget_used = 0;
        sq.poll_ending = false;
        let dispatch = self.piece(&self.cfg.costs.softirq_dispatch, 0, 1);
        self.softirq_work(p, Effect::None, &[dispatch])
    }

    /// A segment the protocol processor sends (an ACK, or output it runs for a thread).
    fn softirq_xmit(&mut self, p: usize) -> Option<Job> {
        let seg = self.sq[p].xmit.pop_front()?;
        let pieces = self.xmit_pieces(&seg);
        Some(
            self.softirq_work(p, Effect::Xmit(seg), &pieces)
                .with_data(Node::data(seg.flow, 0, 0)),
        )
    }

    /// Waking a reader: a reschedule IPI when it sleeps on another processor, which
    /// activates it itself when it is idle and the kernel has a wake list.
    fn softirq_wake(&mut self, p: usize) -> Option<Job> {
        let tid = self.sq[p].wake.pop_front()?;
        let to = self.threads[tid].proc;
        let ipi = if to != p {
            self.notify_cost(to)
        } else {
            Piece::default()
        };
        let listed = to != p && self.cfg.sched.wake_list && self.no_thread_on(to);
        self.threads[tid].wake_listed = listed;
        let c = &self.cfg.costs;
        let wake = self.piece(&c.rx_wake, 0, 1);
        let activate = self.piece(&c.wake_activate, 0, u32::from(!listed));
        Some(self.softirq_work(p, Effect::Wake(tid), &[wake, activate, ipi]))
    }

    /// A connection's expired TCP timer.
    fn softirq_timer(&mut self, p: usize) -> Option<Job> {
        let (conn, k) = self.sq[p].timers.pop_front()?;
        let timer = self.piece(&self.cfg.costs.timer, 0, 1);
        Some(self.softirq_work(p, Effect::Timer(conn, k), &[timer]))
    }

    /// A finished connection's teardown.
    fn softirq_teardown(&mut self, p: usize) -> Option<Job> {
        let conn = self.sq[p].teardown.pop_front()?;
        let flow = self.conns[conn].tcp.flow;
        let teardown = self.piece(&self.cfg.costs.tcp_teardown, 0, 1);
        Some(
            self.softirq_work(p, Effect::None, &[teardown])
                .with_data(Node::data(flow, 0, 0)),
        )
    }

    /// Descriptors of sent frames reclaimed from a device whose protocol runs on `p`.
    fn softirq_reclaim(&mut self, p: usize) -> Option<Job> {
        let d = match &self.devs[..] {
            [dev] => (dev.protocol == p && dev.nic.tx_done > 0).then_some(0),
            devs => (0..devs.len()).find(|&d| devs[d].protocol == p && devs[d].nic.tx_done > 0),
        }?;
        let n = std::mem::take(&mut self.devs[d].nic.tx_done);
        let c = &self.cfg.costs;
        let pieces = [
            self.piece(&c.tx_complete, 0, n),
            self.piece(&c.skb_free, 0, n),
        ];
        Some(self.softirq_work(p, Effect::Reclaim { dev: d, frames: n }, &pieces))
    }

    /// Whether the budget allows another frame. When it is spent, __do_softirq goes round
    /// again with a new budget (up to its restarts), or the rest waits for process context to
    /// let it run (ksoftirqd).
    fn softirq_budget_left(&mut self, p: usize) -> bool {
        let sq = &mut self.sq[p];
        if sq.budget_used < self.cfg.napi.budget {
            return true;
        }
        let thread = self.cfg.sched.ksoftirqd == Ksoftirqd::Thread;
        if thread && sq.restarts + 1 < self.cfg.sched.softirq_restarts {
            sq.restarts += 1;
            sq.budget_used = 0;
            return true;
        }
        sq.running = false;
        sq.pending = true;
        sq.yielded = true;
        sq.restarts = 0;
        false
    }

    /// The next received frame for `p`: loopback input waits on this CPU's backlog
    /// (netif_rx), before the devices NAPI polls; without NAPI every frame is on the backlog.
    fn next_rx_frame(&mut self, p: usize) -> Option<Frame> {
        match self.roles.receive {
            Receive::NapiPoll => match self.sq[p].backlog.pop_front() {
                Some(f) => Some(f),
                None => match &mut self.devs[..] {
                    [dev] if dev.protocol == p => dev.nic.take_rx(),
                    _ => self.poll_devices(p),
                },
            },
            Receive::NetifRx => self.sq[p].backlog.pop_front(),
            Receive::RingAccumulate => self.sq[p].backlog.pop_front().or_else(|| {
                // Bursts that landed while the device was masked: the poll takes them.
                if !self.roles.burst_masking {
                    return None;
                }
                let d = (0..self.devs.len()).find(|&d| self.devs[d].protocol == p)?;
                self.devs[d].delivered.pop_front()
            }),
        }
    }

    /// One received frame (with the frames GRO merges into it) up the stack: the driver's
    /// poll, IP and TCP input, or the socket's backlog when a process owns the socket.
    fn softirq_rx(&mut self, p: usize, mut f: Frame) -> Job {
        let cfg = Rc::clone(&self.cfg);
        let c = &cfg.costs;
        // A frame this node sent itself came over loopback: no ring, no new buffer (the
        // sender's travels), no GRO; its interface's work was priced at the send.
        let lo = f.hdr.src == f.hdr.dst;
        // GRO (NAPI only): the frames behind it that continue its flow join it.
        let gro = !lo && cfg.nic.gro && self.roles.receive == Receive::NapiPoll;
        let merged = if gro { self.gro(p, &mut f) } else { 0 };
        self.sq[p].budget_used += 1 + merged;
        let frames = 1 + merged;
        let bytes = f.hdr.payload_bytes();
        let seq = match f.payload {
            Payload::Tcp(s) => s.seq,
            _ => 0,
        };
        let mut data = Node::data(f.hdr.flow, seq, bytes);
        let mut pieces = if lo {
            vec![self.piece(&c.rx_ip, bytes, 1)]
        } else {
            data.ring_slot = self.mem.take_rx_slot(frames);
            vec![
                self.piece(&c.rx_poll, bytes, frames)
                    .touching(Touches::Ring),
                self.piece(&c.skb_alloc, 0, frames),
                self.piece(&c.rx_ip, bytes, 1).touching(Touches::Ring),
            ]
        };
        if gro {
            // Every frame passes GRO; the merged ones' own sk_buffs are released, their data
            // kept as fragments of the one they joined.
            pieces.push(self.piece(&c.gro_receive, 0, frames));
            pieces.push(self.piece(&c.gro_free_head, 0, merged));
        }
        let tcp = matches!(f.payload, Payload::Tcp(_));
        if tcp && self.prequeue_takes(p, &f) {
            // tcp_v4_rcv finds a reader waiting in recv: tcp_prequeue, and the reader runs TCP
            // input in its own context.
            return self
                .softirq_work(p, Effect::Prequeued(f), &pieces)
                .with_data(data);
        }
        if tcp && self.socket_owned(f.hdr.flow) {
            // tcp_v4_rcv finds the socket owned by a process: sk_add_backlog, and the owner
            // runs TCP input at release_sock.
            return self
                .softirq_work(p, Effect::Backlogged(f), &pieces)
                .with_data(data);
        }
        let mut transport = self.transport_pieces(&f, frames);
        if cfg.smp.spinlocks && tcp && self.flows.get(f.hdr.flow).is_some() {
            // tcp_v4_rcv holds bh_lock_sock through TCP input (a SYN for a listener has no
            // socket of its own yet).
            transport[0] = transport[0].locking(LockRef::Socket);
        }
        pieces.extend(transport);
        if f.is_raw() {
            // Consumed at the top of the stack; nothing queues it for a reader.
            pieces.push(self.piece(&c.skb_free, 0, 1));
        }
        if let Payload::Tcp(s) = f.payload {
            pieces.extend(self.handshake_piece(&s));
        }
        // CPU-NET does a masked interrupt's ring bookkeeping when a pass finds work, and
        // polls with interrupts off until its next empty pass.
        if std::mem::take(&mut self.sq[p].polled_empty) {
            pieces.push(self.piece(&c.rx_hardirq, 0, 1));
        }
        if self.roles.poller == Some(p) {
            self.sq[p].poll_ending = false;
        }
        self.softirq_work(p, Effect::RxPacket(f), &pieces)
            .with_data(data)
    }

    /// Nothing left to receive. CPU-NET never stops: an empty pass, then the loop goes round
    /// again (with its devices' interrupts routed to it, an empty pass first re-enables them,
    /// as NAPI does). A NAPI poll ends by re-enabling device interrupts; then the softirq
    /// ends.
    fn softirq_drained(&mut self, p: usize) -> Option<Job> {
        let c = &self.cfg.costs;
        if self.roles.poller == Some(p) {
            let irqs = self.cfg.cpu_net.device_irqs == DeviceIrqs::ToCpuNet;
            if irqs && !self.sq[p].poll_ending {
                self.sq[p].poll_ending = true;
                let end = self.piece(&c.rx_poll_end, 0, 1);
                return Some(self.softirq_work(p, Effect::PollEnd, &[end]));
            }
            self.sq[p].polled_empty = !irqs;
            let empty = self.piece(&c.poll_empty, 0, 1);
            return Some(self.softirq_work(p, Effect::None, &[empty]));
        }
        let napi = self.roles.receive == Receive::NapiPoll || self.roles.burst_masking;
        if napi && !self.sq[p].poll_ending {
            self.sq[p].poll_ending = true;
            let end = self.piece(&c.rx_poll_end, 0, 1);
            return Some(self.softirq_work(p, Effect::PollEnd, &[end]));
        }
        self.sq[p].running = false;
        self.sq[p].poll_ending = false;
        None
    }

    /// The next frame from the devices processor `p` polls, round robin: the device being
    /// polled keeps the turn for `napi.weight` frames (NAPI's quota), then the next one with
    /// work has it; a device alone with work keeps it.
    fn poll_devices(&mut self, p: usize) -> Option<Frame> {
        let n = self.devs.len();
        let (at, spent) = (
            self.sq[p].poll_dev % n,
            self.sq[p].poll_quota >= self.cfg.napi.weight,
        );
        let others = (1..n).map(|k| (at + k) % n);
        let order: Vec<usize> = if spent {
            others.chain([at]).collect()
        } else {
            [at].into_iter().chain(others).collect()
        };
        for d in order {
            if self.devs[d].protocol != p {
                continue;
            }
            if let Some(f) = self.devs[d].nic.take_rx() {
                let sq = &mut self.sq[p];
                if d != sq.poll_dev || spent {
                    sq.poll_dev = d;
                    sq.poll_quota = 0;
                }
                sq.poll_quota += 1;
                return Some(f);
            }
        }
        None
    }

    /// A frame's transport input wherever it runs (the softirq, or a socket owner's
    /// release_sock): TCP or UDP input, the checksum without offload, TCP's copy to a waiting
    /// reader (`rx.softirq_payload_copy`; UDP queues the skb as it is), and a pure ACK's
    /// processing and free. A generator's frame is priced as the TCP input it stands in for.
    pub(crate) fn transport_pieces(&self, f: &Frame, frames: u32) -> Vec<Piece> {
        let c = &self.cfg.costs;
        let bytes = f.hdr.payload_bytes();
        let transport = match f.payload {
            Payload::Udp => &c.udp_rx,
            Payload::Tcp(_) | Payload::Raw => &c.rx_tcp,
        };
        let mut v = vec![self
            .piece(transport, bytes, 1)
            .touching(Touches::Connection)];
        if !self.cfg.nic.csum_offload {
            v.push(self.piece(&c.csum, bytes, frames).touching(Touches::Buffer));
        }
        let tcp = matches!(f.payload, Payload::Tcp(_));
        if self.cfg.rx.softirq_payload_copy && bytes > 0 && tcp {
            v.push(self.piece(&c.skb_copy, bytes, 1).touching(Touches::Buffer));
        }
        if f.hdr.pure_ack && !f.is_raw() {
            v.push(self.piece(&c.tx_ack, 0, 1));
            v.push(self.piece(&c.skb_free, 0, 1));
        }
        v
    }

    /// What a segment costs beyond IP and TCP input when it opens or closes a connection: a
    /// SYN a listener takes, the ACK that makes the child socket (both unless the accept
    /// queue is full, when they are dropped early); a control segment without payload is
    /// freed here, as nothing queues it for a reader.
    fn handshake_piece(&self, s: &Segment) -> Vec<Piece> {
        let mut v = Vec::new();
        // Without a listener, only a SYN or FIN can need anything (no SYN_RECV child exists).
        if s.ctl == 0 && self.listener.is_none() {
            return v;
        }
        let c = &self.cfg.costs;
        let conn = self.conn_of(s.flow);
        let state = conn.map(|i| self.conns[i].tcp.state());
        if s.syn() && state.is_none_or(|st| st == State::Done) {
            if self.listener.as_ref().is_some_and(|l| !l.full()) {
                v.push(self.piece(&c.tcp_syn, 0, 1).touching(Touches::Connection));
            }
        } else if !s.syn()
            && state == Some(State::SynRcvd)
            && !self.accept_queue_full(conn.unwrap())
        {
            v.push(self.piece(&c.tcp_child, 0, 1).touching(Touches::Connection));
        }
        if s.ctl != 0 && s.len == 0 {
            v.push(self.piece(&c.skb_free, 0, 1));
        }
        v
    }

    /// GRO on processor `p`: merges into `f` the frames waiting behind it in its device's ring.
    fn gro(&mut self, p: usize, f: &mut Frame) -> u32 {
        let max = self.cfg.nic.gro_max_bytes;
        let d = self.dev_for(f.hdr.dst, f.hdr.flow);
        debug_assert_eq!(self.devs[d].protocol, p);
        let nic = &mut self.devs[d].nic;
        let mut merged = 0;
        // Each merged frame leaves the ring as the driver takes it (its buffer is refilled).
        while nic.rx_ready.front().is_some_and(|g| gro::joins(f, g, max)) {
            gro::join(f, nic.take_rx().expect("a frame at the front"));
            merged += 1;
        }
        merged
    }

    /// `dev_queue_xmit` and the driver's transmit routine for a frame of `bytes` of payload
    /// of `flow` (a driver that copies frames pays per byte), under the device's queue lock
    /// when spinlocks are modelled; over loopback, its transmit routine, which takes none.
    pub(crate) fn tx_dev_piece(&self, flow: FlowId, bytes: u64) -> Piece {
        let lo = self.cfg.topology.loopback
            && self
                .flows
                .get(flow)
                .is_some_and(|c| self.conns[c].lo_peer.is_some());
        if lo {
            return self.piece(&self.cfg.costs.lo_xmit, bytes, 1);
        }
        let p = self.piece(&self.cfg.costs.tx_dev, bytes, 1);
        if self.cfg.smp.spinlocks {
            p.locking(LockRef::DevQueue)
        } else {
            p
        }
    }

    pub(crate) fn xmit_pieces(&self, seg: &Segment) -> Vec<Piece> {
        let c = &self.cfg.costs;
        let mut v = vec![
            self.piece(&c.tx_tcp, 0, 1).touching(Touches::Connection),
            self.piece(&c.tx_ip, 0, 1),
        ];
        if self.cfg.org.tcp_in_library {
            // A user-level TCP hands each segment, ACKs included, to the kernel alone (§B.5).
            v.push(self.piece(&c.tx_syscall, 0, 1));
        }
        if !seg.is_pure_ack() {
            // BSD's tcp_output: a header mbuf, and m_copy's mbufs for the retransmission copy.
            v.push(self.piece(&c.skb_alloc, 0, self.cfg.org.segment_buffers));
        }
        if !(self.roles.acks == Acks::NicLocal && seg.is_pure_ack()) {
            v.push(self.tx_dev_piece(seg.flow, seg.len as u64));
        }
        v
    }

    pub(crate) fn apply_softirq(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        p: usize,
        e: Effect,
    ) {
        match e {
            Effect::None => {}
            Effect::Xmit(seg) => self.nic_xmit(eng, wire, p, seg),
            Effect::Wake(tid) => self.wake(eng, wire, p, tid),
            Effect::Timer(conn, k) => self.fire_timer(eng, p, conn, k),
            Effect::Reclaim { dev, frames } => self.reclaim(eng, p, dev, frames),
            Effect::RxPacket(f) => match f.payload {
                Payload::Udp => self.udp_input(p, f),
                _ => self.tcp_input(eng, p, f),
            },
            Effect::Firmware => self.apply_firmware(eng, wire, p),
            Effect::Backlogged(f) => self.add_backlog(eng, p, f),
            Effect::Prequeued(f) => self.prequeue(eng, p, f),
            Effect::Released(conn) => self.release(eng, conn),
            Effect::PollEnd => {
                // The poll re-enables the interrupts of the devices it polled.
                for d in 0..self.devs.len() {
                    if self.devs[d].protocol != p {
                        continue;
                    }
                    let waiting = !self.devs[d].delivered.is_empty();
                    if self.devs[d].nic.unmask() || waiting {
                        self.raise_nic_irq(eng, d);
                        self.devs[d].nic.masked |= self.roles.burst_masking;
                    }
                }
            }
            _ => unreachable!("thread effect in softirq"),
        }
        self.sync_timers(eng);
    }
}
