//! Sockets: a node's TCP connections, demultiplexed by flow id, and the glue between each
//! endpoint and the node: segment input on the protocol processor, output from a thread or
//! the softirq, waking the thread that waits on the socket, and each connection's three
//! timers as engine events.

use crate::config::TxOutput;
use crate::engine::Engine;
use crate::hw::cpu::Notice;
use crate::hw::frame::{FlowId, NodeAddr};
use crate::node::{Ev, Node, TimerKind, Wire};
use crate::stack::conn::{Conn, ConnId};
use crate::stack::tcp::{self, Segment, Tcp};
use crate::stack::{Frame, Payload};
use crate::units::Time;

impl Node {
    /// Opens the connected socket `flow` to node `peer`; returns its index here.
    pub fn open(&mut self, flow: FlowId, peer: NodeAddr, nodelay: bool) -> ConnId {
        let cfg = &self.cfg;
        let id = self.conns.len();
        let tcp = Tcp::new(&cfg.tcp, cfg.nic.mtu_bytes, nodelay, flow);
        self.conns.push(Conn::new(tcp, peer));
        let f = flow as usize;
        if self.flows.len() <= f {
            self.flows.resize(f + 1, 0);
        }
        self.flows[f] = id as u32 + 1;
        id
    }

    /// The connection a flow id names here, if any.
    pub fn conn_of(&self, flow: FlowId) -> Option<ConnId> {
        match self.flows.get(flow as usize) {
            Some(&i) if i > 0 => Some(i as usize - 1),
            _ => None,
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
    pub(crate) fn tcp_input(&mut self, eng: &mut Engine<Ev>, f: Frame) {
        let Payload::Tcp(seg) = f.payload else {
            self.stats.raw_delivered += 1;
            self.stats.raw_delivered_bytes += f.hdr.payload_bytes();
            return;
        };
        let Some(c) = self.conn_of(f.hdr.flow) else {
            // No socket: Linux answers with a reset; the payload goes nowhere.
            self.stats.no_socket_dropped_bytes += f.hdr.payload_bytes();
            self.stats.count_drop(&f.hdr);
            return;
        };
        let now = eng.now();
        self.stats.payload_rx_tcp_bytes += f.hdr.payload_bytes();
        self.conns[c].rx_payload_bytes += f.hdr.payload_bytes();
        if self.cfg.rx.softirq_payload_copy {
            self.stats.copy_bytes += f.hdr.payload_bytes();
        }
        let r = self.tcp_mut(c).on_segment(now, &seg);
        if r.ack_now {
            let a = self.tcp_mut(c).make_ack();
            self.sq.xmit.push_back(a);
        }
        if r.acked_new {
            let segs = self.tcp_mut(c).output(now);
            self.sq.xmit.extend(segs);
        }
        if r.delivered_bytes > 0 {
            if let Some(t) = self.conns[c].reader.take() {
                self.unblock(t);
            }
        }
        if r.space_freed && self.conns[c].tcp.send_space() > 0 {
            if let Some(t) = self.conns[c].writer.take() {
                self.unblock(t);
            }
        }
    }

    fn unblock(&mut self, tid: usize) {
        self.threads[tid].blocked = None;
        self.sq.wake.push_back(tid);
    }

    pub(crate) fn fire_timer(&mut self, eng: &mut Engine<Ev>, c: ConnId, k: TimerKind) {
        let now = eng.now();
        let tcp = self.tcp_mut(c);
        match k {
            TimerKind::Delack => {
                let a = tcp.make_ack();
                self.sq.xmit.push_back(a);
            }
            TimerKind::Rto => {
                let segs = tcp.output(now);
                self.sq.xmit.extend(segs);
            }
            TimerKind::Persist => {
                let probe = tcp.on_persist(now);
                self.sq.xmit.extend(probe);
            }
        }
    }

    /// The timer events the changed connections want, scheduled once each.
    pub(crate) fn sync_timers(&mut self, eng: &mut Engine<Ev>) {
        for i in 0..self.dirty.len() {
            let c = self.dirty[i];
            let conn = &mut self.conns[c];
            conn.dirty = false;
            let t = &conn.tcp;
            let wanted = [t.delack_deadline, t.rto_deadline, t.persist_deadline];
            for (kind, at) in conn.timers.to_schedule(wanted).into_iter().flatten() {
                eng.at(
                    at.max(eng.now()),
                    Ev::Timer {
                        node: self.id,
                        conn: c as u32,
                        kind,
                        at,
                    },
                );
            }
        }
        self.dirty.clear();
    }

    /// Header bytes TCP and IP add to a segment's payload.
    pub(crate) fn header_bytes(&self) -> u64 {
        tcp::header_bytes(self.cfg.tcp.timestamps)
    }

    pub fn on_timer(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        c: ConnId,
        k: TimerKind,
        at: Time,
    ) {
        let tcp = self.tcp_mut(c);
        let fire = match k {
            TimerKind::Delack => tcp.on_delack(at),
            TimerKind::Rto => tcp.on_rto(at),
            TimerKind::Persist => tcp.persist_deadline == Some(at),
        };
        if fire {
            self.sq.timers.push_back((c, k));
            self.sq.pending = true;
            let p = self.roles.protocol;
            self.kick(eng, wire, p);
        }
    }

    pub(crate) fn output_from_thread(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        tid: usize,
        segs: Vec<Segment>,
    ) {
        if segs.is_empty() {
            return;
        }
        if self.roles.tx_output == TxOutput::Thread {
            self.threads[tid].xmit.extend(segs);
            return;
        }
        self.sq.xmit.extend(segs);
        let to = self.roles.protocol;
        if self.threads[tid].proc == to {
            self.raise_softirq_local();
            self.kick(eng, wire, to);
        } else {
            self.notify(eng, to, Notice::RaiseSoftirq);
        }
    }
}
