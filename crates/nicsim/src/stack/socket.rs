//! Sockets: a node's TCP connections, demultiplexed by flow id, and the glue between each
//! endpoint and the node: segment input on the protocol processor, output from a thread or
//! the softirq, waking the thread that waits on the socket, and each connection's four
//! timers as engine events. Opening and closing are in `listen`.

use crate::config::{TxOutput, Wakeup};
use crate::engine::Engine;
use crate::hw::cpu::Notice;
use crate::hw::frame::FlowId;
use crate::node::{Ev, Node, TimerKind, Wire};
use crate::stack::conn::ConnId;
use crate::stack::tcp::{self, Input, Segment, State, Tcp};
use crate::stack::{Frame, Payload};
use crate::units::Time;

impl Node {
    /// The connection a flow id names here, if any (it may have finished since).
    pub fn conn_of(&self, flow: FlowId) -> Option<ConnId> {
        self.flows.get(flow)
    }

    /// Payload flow `flow`'s socket here handed to the driver and took from the wire, TCP
    /// or UDP (zeros before a handshake made it).
    pub fn flow_bytes(&self, flow: FlowId) -> (u64, u64) {
        if let Some(c) = self.conn_of(flow) {
            let c = &self.conns[c];
            (c.tx_payload_bytes, c.rx_payload_bytes)
        } else if let Some(u) = self.udp_of(flow) {
            let u = &self.udp[u];
            (u.tx_payload_bytes, u.rx_payload_bytes)
        } else {
            (0, 0)
        }
    }

    /// Connection `c`'s endpoint, for a change that may move its timers.
    pub(crate) fn tcp_mut(&mut self, c: ConnId) -> &mut Tcp {
        let conn = &mut self.conns[c];
        if !conn.dirty {
            conn.dirty = true;
            self.dirty.push(c);
        }
        &mut conn.tcp
    }

    /// IP and TCP input for one frame, on the protocol processor.
    pub(crate) fn tcp_input(&mut self, eng: &mut Engine<Ev>, p: usize, f: Frame) {
        let Payload::Tcp(seg) = f.payload else {
            self.stats.raw_delivered += 1;
            self.stats.raw_delivered_bytes += f.hdr.payload_bytes();
            return;
        };
        let live = self
            .conn_of(f.hdr.flow)
            .filter(|&c| self.conns[c].tcp.state() != State::Done);
        let Some(c) = live else {
            if seg.syn() && self.passive_open(eng, p, &seg, &f.hdr) {
                return;
            }
            // No socket: Linux answers with a reset; the payload goes nowhere.
            self.stats.no_socket_dropped_bytes += f.hdr.payload_bytes();
            self.stats.count_drop(&f.hdr);
            return;
        };
        if !seg.syn() && self.accept_deferred(c, &seg) {
            self.stats.deferred_acks += 1;
            return;
        }
        if !seg.syn() && self.accept_queue_full(c) {
            // tcp_check_req's listen overflow: the handshake's end waits for a retransmission.
            self.stats.listen_drops += 1;
            self.stats.count_drop(&f.hdr);
            return;
        }
        let now = eng.now();
        self.stats.payload_rx_tcp_bytes += f.hdr.payload_bytes();
        self.conns[c].rx_payload_bytes += f.hdr.payload_bytes();
        // The handoff NIC places payload by DMA; only the host's softirq copies it.
        if self.cfg.rx.softirq_payload_copy && self.fw() != Some(p) {
            self.stats.copy_bytes += f.hdr.payload_bytes();
        }
        let r = self.tcp_mut(c).on_segment(now, &seg);
        if r.ack_now {
            let a = self.tcp_mut(c).make_ack();
            self.sq[p].xmit.push_back(a);
        }
        if r.acked_new {
            let segs = self.tcp_mut(c).output(now);
            self.sq[p].xmit.extend(segs);
        }
        if (r.delivered_bytes > 0 && self.call_can_complete(c, r.ack_now, seg.push)) || r.fin {
            self.wake_readers(p, c);
        }
        if r.space_freed && self.conns[c].tcp.send_space() > 0 {
            if let Some(t) = self.conns[c].writer.take() {
                self.unblock(p, t);
            }
        }
        if r.established || r.fin || r.time_wait || r.closed {
            self.state_changed(p, c, r);
        }
    }

    /// Connection `c`'s handshake or teardown moved on.
    fn state_changed(&mut self, p: usize, c: ConnId, r: Input) {
        if r.established {
            self.established(p, c);
        }
        if r.time_wait || r.closed {
            self.sq[p].teardown.push_back(c);
        }
        if r.closed {
            self.retire(c);
        }
    }

    /// Whether data arriving on connection `c` (acknowledged at once or not, pushed or not)
    /// wake its reader now (`org.wakeup`).
    fn call_can_complete(&self, c: ConnId, ack_now: bool, push: bool) -> bool {
        let conn = &self.conns[c];
        let tcp = &conn.tcp;
        match (self.cfg.org.wakeup, conn.reader) {
            (Wakeup::PerCall, Some(t)) => {
                let want = self.threads[t].left.min(tcp.rcvbuf_bytes() / 2).max(1);
                tcp.readable() >= want
            }
            (Wakeup::PerAck, Some(_)) => ack_now,
            (Wakeup::FillOrPush, Some(t)) => push || tcp.readable() >= self.threads[t].left.max(1),
            (Wakeup::PerSegment, Some(t)) => {
                tcp.readable() >= self.cfg.tcp.rcvlowat_bytes.min(self.threads[t].left).max(1)
            }
            _ => true,
        }
    }

    /// The reader and poller of connection `c` may run again.
    fn wake_readers(&mut self, p: usize, c: ConnId) {
        let conn = &mut self.conns[c];
        let (reader, poller) = (conn.reader.take(), conn.poller.take());
        for t in reader.into_iter().chain(poller) {
            self.unblock(p, t);
        }
    }

    /// Thread `tid` may run again: processor `p`'s softirq (running now) wakes it.
    pub(crate) fn unblock(&mut self, p: usize, tid: usize) {
        self.threads[tid].blocked = None;
        // Where it will run is decided now, so the wake-up's IPI is priced for that processor.
        self.place(tid);
        self.sq[p].wake.push_back(tid);
    }

    pub(crate) fn fire_timer(&mut self, eng: &mut Engine<Ev>, p: usize, c: ConnId, k: TimerKind) {
        let now = eng.now();
        let tcp = self.tcp_mut(c);
        match k {
            TimerKind::Delack => {
                let a = tcp.make_ack();
                self.sq[p].xmit.push_back(a);
                // What TCP held is acknowledged now: a reader waiting for that goes on.
                if self.cfg.org.wakeup == Wakeup::PerAck && self.conns[c].tcp.readable() > 0 {
                    self.wake_readers(p, c);
                }
            }
            TimerKind::Rto | TimerKind::Pace => {
                let segs = tcp.output(now);
                let gave_up = tcp.state() == State::Done;
                self.sq[p].xmit.extend(segs);
                if gave_up {
                    self.handshake_failed(p, c);
                }
            }
            TimerKind::Persist => {
                let probe = tcp.on_persist(now);
                self.sq[p].xmit.extend(probe);
            }
            TimerKind::TimeWait => {
                self.retire(c);
                if self.fw() == Some(p) {
                    // A handoff NIC that kept TIME_WAIT frees the slot now.
                    self.sq[p].teardown.push_back(c);
                }
            }
        }
    }

    /// The timer events the changed connections want, scheduled once each.
    pub(crate) fn sync_timers(&mut self, eng: &mut Engine<Ev>) {
        for i in 0..self.dirty.len() {
            let c = self.dirty[i];
            let conn = &mut self.conns[c];
            conn.dirty = false;
            let wanted = conn.tcp.deadlines();
            for (kind, at) in conn.timers.to_schedule(wanted).into_iter().flatten() {
                eng.at(
                    at.max(eng.now()),
                    Ev::Timer {
                        node: self.id,
                        cookie: conn.cookie,
                        kind,
                        at,
                    },
                );
            }
        }
        self.dirty.clear();
    }

    /// The processor that runs the protocol for flow `flow`'s device here.
    pub(crate) fn protocol_of(&self, flow: FlowId) -> usize {
        let c = self.conn_of(flow).expect("a segment of an open connection");
        self.conn_proc(c)
    }

    /// Header bytes TCP and IP add to a segment's payload.
    pub(crate) fn header_bytes(&self) -> u64 {
        tcp::header_bytes(self.cfg.tcp.timestamps)
    }

    pub fn on_timer(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        cookie: u32,
        k: TimerKind,
        at: Time,
    ) {
        let Some(c) = self.conn_by_cookie(cookie) else {
            // Its connection was freed with no timer armed: the event fires nothing. What
            // any stale event does besides, the changed connections' timers go out now.
            self.stats.stale_timers += 1;
            self.sync_timers(eng);
            return;
        };
        self.conns[c].timers.fired(k, at);
        let tcp = self.tcp_mut(c);
        let fire = match k {
            TimerKind::Delack => tcp.on_delack(at),
            TimerKind::Rto => tcp.on_rto(at),
            TimerKind::Persist => tcp.persist_deadline == Some(at),
            TimerKind::TimeWait => tcp.on_time_wait(at),
            TimerKind::Pace => tcp.on_pace(at),
        };
        if fire {
            // The timer softirq of the processor that runs the connection's protocol.
            let p = self.conn_proc(c);
            self.sq[p].timers.push_back((c, k));
            self.sq[p].pending = true;
            self.kick(eng, wire, p);
        } else {
            // The deadline moved later (or went): re-arm it now.
            self.sync_timers(eng);
        }
    }

    pub(crate) fn output_from_thread(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        tid: usize,
        mut segs: Vec<Segment>,
    ) {
        if segs.is_empty() {
            return;
        }
        if self.fw().is_some() {
            let c = self
                .conn_of(segs[0].flow)
                .expect("output of an open connection");
            if self.output_to_nic(eng, wire, c, &mut segs) {
                return;
            }
        }
        if self.roles.tx_output == TxOutput::Thread {
            self.threads[tid].xmit.extend(segs);
            return;
        }
        let to = self.protocol_of(segs[0].flow);
        self.sq[to].xmit.extend(segs);
        if self.roles.poller == Some(to) {
            // CPU-NET's loop finds the queue entry on its next pass.
            return;
        }
        if self.threads[tid].proc == to {
            self.raise_softirq_local(to);
            self.kick(eng, wire, to);
        } else {
            self.notify(eng, to, Notice::RaiseSoftirq);
        }
    }

    /// Whether flow `flow`'s TCP input is its process's to run: always with user-level TCP,
    /// else while a process owns the socket (with `smp.spinlocks`).
    pub(crate) fn socket_owned(&self, flow: FlowId) -> bool {
        let (library, spinlocks) = (self.cfg.org.tcp_in_library, self.cfg.smp.spinlocks);
        (library || spinlocks)
            && self
                .conn_of(flow)
                .is_some_and(|c| library || self.conns[c].owned_by.is_some())
    }

    /// Thread `tid` takes connection `c`'s socket for a step of its call (`lock_sock`).
    pub(crate) fn lock_sock(&mut self, tid: usize, c: ConnId) {
        if self.cfg.smp.spinlocks {
            self.conns[c].owned_by = Some(tid);
        }
    }

    /// The softirq on `p` backlogs a segment of an owned socket; if the owner let go in the
    /// meantime, TCP input runs here after all.
    /// With user-level TCP the segment always waits for its process, which is woken if it
    /// sleeps on the socket (in select: for data, or for room to send).
    pub(crate) fn add_backlog(&mut self, eng: &mut Engine<Ev>, p: usize, f: Frame) {
        let library = self.cfg.org.tcp_in_library;
        match self.conn_of(f.hdr.flow) {
            Some(c) if library || self.conns[c].owned_by.is_some() => {
                self.stats.socket_backlogged += 1;
                self.conns[c].backlog.push_back(f);
                if library {
                    let conn = &mut self.conns[c];
                    if let Some(t) = conn.reader.take().or_else(|| conn.writer.take()) {
                        self.unblock(p, t);
                    }
                }
            }
            _ => self.tcp_input(eng, p, f),
        }
    }

    /// Whether frame `f`, in the softirq on `p`, goes to a reader's prequeue (`tcp_prequeue`):
    /// a host CPU's softirq, a reader waits in
    /// recv on its connection, no process owns the socket, and the prequeue stays within the
    /// receive buffer (beyond it Linux runs TCP input in the softirq).
    pub(crate) fn prequeue_takes(&self, p: usize, f: &Frame) -> bool {
        // The host kernel's queue: a NIC processor running TCP cannot use it.
        if !self.cfg.tcp.prequeue || self.procs[p].id.is_nic() {
            return false;
        }
        let Payload::Tcp(seg) = f.payload else {
            return false;
        };
        let Some(c) = self.conn_of(f.hdr.flow) else {
            return false;
        };
        let conn = &self.conns[c];
        let Some(t) = conn.ucopy else {
            return false;
        };
        let queued: u64 = self.threads[t]
            .backlog
            .iter()
            .map(|q| q.hdr.payload_bytes())
            .sum();
        !seg.syn()
            && conn.owned_by.is_none()
            && queued + f.hdr.payload_bytes() <= conn.tcp.rcvbuf_bytes()
    }

    /// The softirq on `p` puts a segment on its reader's prequeue: the first one wakes the
    /// reader, which then runs TCP input for every queued segment before it copies. If the
    /// reader has returned meanwhile, TCP input runs here.
    pub(crate) fn prequeue(&mut self, eng: &mut Engine<Ev>, p: usize, f: Frame) {
        let reader = self
            .conn_of(f.hdr.flow)
            .and_then(|c| Some((c, self.conns[c].ucopy?)));
        let Some((c, t)) = reader else {
            return self.tcp_input(eng, p, f);
        };
        self.stats.prequeued += 1;
        self.threads[t].backlog.push_back(f);
        if self.conns[c].reader == Some(t) {
            self.wake_readers(p, c);
        }
    }

    /// User-level TCP: the segments waiting for thread `tid`'s socket become its work.
    pub(crate) fn take_library_input(&mut self, tid: usize, c: ConnId) {
        if self.cfg.org.tcp_in_library {
            let backlog = std::mem::take(&mut self.conns[c].backlog);
            self.threads[tid].backlog.extend(backlog);
        }
    }

    /// Thread `tid` ends a step on connection `c` (`release_sock`): the backlog becomes its
    /// work, and the socket is free once that is done.
    pub(crate) fn release_sock(&mut self, tid: usize, c: ConnId) {
        if self.conns[c].owned_by != Some(tid) {
            return;
        }
        let backlog = std::mem::take(&mut self.conns[c].backlog);
        self.threads[tid].backlog.extend(backlog);
        if self.threads[tid].backlog.is_empty() {
            self.conns[c].owned_by = None;
        }
    }
}
