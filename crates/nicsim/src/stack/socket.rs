//! Socket glue between the TCP endpoint and the node: segment input on the protocol
//! processor, output from a thread or the softirq, and the three TCP timers as engine events.

use crate::config::TxOutput;
use crate::engine::Engine;
use crate::hw::cpu::Notice;
use crate::node::{Ev, Node, TimerKind, Wire};
use crate::os::thread::{Wait, COMM};
use crate::stack::tcp::{self, Segment};
use crate::stack::{Frame, Payload};
use crate::units::Time;

impl Node {
    /// IP and TCP input for one frame, on the protocol processor.
    pub(crate) fn tcp_input(&mut self, eng: &mut Engine<Ev>, f: Frame) {
        if f.is_raw() {
            self.stats.raw_delivered += 1;
            self.stats.raw_delivered_bytes += f.hdr.payload_bytes();
            return;
        }
        let now = eng.now();
        self.stats.payload_rx_tcp_bytes += f.hdr.payload_bytes();
        if self.cfg.rx.softirq_payload_copy {
            self.stats.copy_bytes += f.hdr.payload_bytes();
        }
        let Payload::Tcp(seg) = f.payload else {
            unreachable!("raw frames return above")
        };
        let r = self.tcp.on_segment(now, &seg);
        if r.ack_now {
            let a = self.tcp.make_ack();
            self.sq.xmit.push_back(a);
        }
        if r.acked_new {
            let segs = self.tcp.output(now);
            self.sq.xmit.extend(segs);
        }
        if r.delivered_bytes > 0 && self.threads[COMM].blocked == Some(Wait::Data) {
            self.threads[COMM].blocked = None;
            self.sq.wake.push_back(COMM);
        }
        if r.space_freed
            && self.threads[COMM].blocked == Some(Wait::Space)
            && self.tcp.send_space() > 0
        {
            self.threads[COMM].blocked = None;
            self.sq.wake.push_back(COMM);
        }
    }

    pub(crate) fn fire_timer(&mut self, eng: &mut Engine<Ev>, k: TimerKind) {
        let now = eng.now();
        match k {
            TimerKind::Delack => {
                let a = self.tcp.make_ack();
                self.sq.xmit.push_back(a);
            }
            TimerKind::Rto => {
                let segs = self.tcp.output(now);
                self.sq.xmit.extend(segs);
            }
            TimerKind::Persist => self.sq.xmit.extend(self.tcp.on_persist(now)),
        }
    }

    /// The timer events the TCP wants, scheduled once each.
    pub(crate) fn sync_timers(&mut self, eng: &mut Engine<Ev>) {
        let wanted = [
            self.tcp.delack_deadline,
            self.tcp.rto_deadline,
            self.tcp.persist_deadline,
        ];
        for (kind, at) in self.timers.to_schedule(wanted).into_iter().flatten() {
            eng.at(
                at.max(eng.now()),
                Ev::Timer {
                    node: self.id,
                    kind,
                    at,
                },
            );
        }
    }

    /// Header bytes TCP and IP add to a segment's payload.
    pub(crate) fn header_bytes(&self) -> u64 {
        tcp::header_bytes(self.cfg.tcp.timestamps)
    }

    pub fn on_timer(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, k: TimerKind, at: Time) {
        let fire = match k {
            TimerKind::Delack => self.tcp.on_delack(at),
            TimerKind::Rto => self.tcp.on_rto(at),
            TimerKind::Persist => self.tcp.persist_deadline == Some(at),
        };
        if fire {
            self.sq.timers.push_back(k);
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
