//! The handoff NIC's processor (handoff.md §2.2, §3, §5): the lookup at the MAC, then one
//! task at a time from its two queues: forwarding host packets either way, TCP input for
//! owned connections, the host's commands, and the segments, events and timers that owned
//! connections need. NIC work is priced by the cost profile's stages at the NIC's
//! instruction rate; the NIC's memory is folded into that rate (§8).

use super::device::hnic;
use super::queues::Class;
use super::Task;
use crate::config::NicPriority;
use crate::engine::Engine;
use crate::hw::cpu::{Job, Notice, Piece, Then, Touches};
use crate::hw::dma::Chan;
use crate::node::effect::Effect;
use crate::node::{job_of, Ev, Node, Wire};
use crate::stack::conn::Owner;
use crate::stack::tcp::State;
use crate::stack::{Frame, Payload};
use std::rc::Rc;

impl Node {
    /// A host command for the NIC processor (§4.1): the NIC reads its descriptor from the
    /// command ring by DMA and queues it; false if its queue is full.
    pub(crate) fn fw_command(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        class: Class,
        t: Task,
    ) -> bool {
        let bytes = self.cfg.nic.descriptor_bytes;
        self.nic_dma(eng, Chan::Tx, Vec::new(), bytes, None);
        let h = hnic(&mut self.devs);
        h.stats.commands += 1;
        h.stats.descriptor_dma_bytes += bytes;
        if h.enqueue(class, eng.now(), t).is_err() {
            return false;
        }
        self.kick_fw(eng, wire);
        true
    }

    pub(crate) fn kick_fw(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire) {
        let fw = self.fw().expect("a handoff NIC");
        self.sq[fw].pending = true;
        self.kick(eng, wire, fw);
    }

    /// The NIC processor's next task, or None when it has nothing to do. Work an owned
    /// connection has pending (segments to build, events, timers) takes its place by when it
    /// was first seen waiting: under FCFS after every queued task that arrived before it (the
    /// study's one queue in arrival order, handoff.md §5); under host-first before the NIC
    /// queue but never while a host packet waits.
    pub(crate) fn fw_job(&mut self, p: usize) -> Option<Job> {
        let queue_first = self.fw_queue_first(p);
        let sq = &mut self.sq[p];
        sq.running = true;
        sq.pending = false;
        if !queue_first {
            if let Some(job) = self.fw_pending_job(p) {
                return Some(job);
            }
        }
        self.fw_queued_job(p)
    }

    /// Whether the queues go before the owned connections' pending work now, by the
    /// policy; counts the order each way.
    fn fw_queue_first(&mut self, p: usize) -> bool {
        let now = self.now;
        let sq = &self.sq[p];
        let pending = !(sq.xmit.is_empty()
            && sq.wake.is_empty()
            && sq.timers.is_empty()
            && sq.teardown.is_empty());
        let h = hnic(&mut self.devs);
        h.pending_since = match (pending, h.pending_since) {
            (false, _) => None,
            (true, None) => Some(now),
            (true, since) => since,
        };
        let host_queued = h.queues.host_waiting();
        let older_queued = h
            .queues
            .oldest()
            .zip(h.pending_since)
            .is_some_and(|(queued, since)| queued < since);
        let queue_first = match h.queues.priority {
            NicPriority::HostFirst => host_queued,
            NicPriority::Fcfs => older_queued,
        };
        if pending && older_queued {
            match queue_first {
                true => h.stats.older_before_pending += 1,
                false => h.stats.pending_past_older += 1,
            }
        }
        // Work for owned connections about to start with a host packet queued (FCFS only).
        if pending && host_queued && !queue_first {
            h.stats.nic_past_host += 1;
        }
        queue_first
    }

    /// A job of the NIC processor with effect `e`: `pieces` at the NIC's instruction factor.
    fn fw_work(&mut self, p: usize, e: Effect, pieces: &[Piece]) -> Job {
        self.sq[p].effect = Some(e);
        let factor = self.cfg.handoff.nic_instruction_factor;
        let scaled: Vec<Piece> = pieces
            .iter()
            .map(|&x| Piece {
                cycles: x.cycles * factor,
                ..x
            })
            .collect();
        job_of(Then::Softirq, &scaled)
    }

    /// The owned connections' next pending work: a segment to build, an event, a timer, a
    /// teardown.
    fn fw_pending_job(&mut self, p: usize) -> Option<Job> {
        let cfg = Rc::clone(&self.cfg);
        let c = &cfg.costs;
        let sq = &mut self.sq[p];
        if let Some(seg) = sq.xmit.pop_front() {
            let pieces = [
                self.piece(&c.tx_tcp, 0, 1).touching(Touches::Connection),
                self.piece(&c.tx_ip, 0, 1),
            ];
            let job = self.fw_work(p, Effect::Xmit(seg), &pieces);
            return Some(job.with_data(Node::data(seg.flow, 0, 0)));
        }
        if let Some(tid) = sq.wake.pop_front() {
            let to = self.threads[tid].proc;
            let pieces = [self.piece(&c.nic_event, 0, 1), self.notify_cost(to)];
            return Some(self.fw_work(p, Effect::Wake(tid), &pieces));
        }
        if let Some((conn, k)) = sq.timers.pop_front() {
            let pieces = [self.piece(&c.timer, 0, 1)];
            return Some(self.fw_work(p, Effect::Timer(conn, k), &pieces));
        }
        let conn = sq.teardown.pop_front()?;
        let to = self.devs[self.conns[conn].dev].irq;
        let pieces = [self.piece(&c.nic_event, 0, 1), self.notify_cost(to)];
        Some(self.fw_work(p, Effect::Released(conn), &pieces))
    }

    /// The next task from the queues, by the policy; None ends the NIC's softirq.
    fn fw_queued_job(&mut self, p: usize) -> Option<Job> {
        let cfg = Rc::clone(&self.cfg);
        let c = &cfg.costs;
        let h = hnic(&mut self.devs);
        let Some((class, at, task)) = h.queues.pop() else {
            self.sq[p].running = false;
            return None;
        };
        if class == Class::Nic && h.queues.host_waiting() {
            h.stats.nic_past_host += 1;
        }
        let lookup = |s: &Self, f: &Frame| {
            let steps = s.handoff_nic().map_or(0, |h| h.lookup.find(f.hdr.flow).1);
            [
                s.piece(&c.nic_lookup, 0, 1),
                s.piece(&c.nic_lookup_step, 0, steps),
            ]
        };
        let mut pieces = Vec::with_capacity(5);
        match &task {
            Task::ForwardRx(f) => {
                pieces.extend(lookup(self, f));
                pieces.push(self.piece(&c.nic_forward, 0, 1));
            }
            Task::ForwardTx(_) => pieces.push(self.piece(&c.nic_forward, 0, 1)),
            Task::Receive(f) => {
                h.qlen -= 1;
                let bytes = f.hdr.payload_bytes();
                pieces.extend(lookup(self, f));
                pieces.push(self.piece(&c.rx_ip, bytes, 1));
                pieces.push(self.piece(&c.rx_tcp, bytes, 1));
                if f.hdr.pure_ack {
                    pieces.push(self.piece(&c.tx_ack, 0, 1));
                }
            }
            // Both answer with an event: HANDOFF_ACK or NACK, RESTORED.
            Task::Handoff(conn) | Task::Restore(conn) => {
                let to = self.devs[self.conns[*conn].dev].irq;
                pieces.push(self.piece(&c.nic_command, 0, 1));
                pieces.push(self.piece(&c.nic_event, 0, 1));
                pieces.push(self.notify_cost(to));
            }
            Task::Output(_) => pieces.push(self.piece(&c.nic_command, 0, 1)),
        }
        hnic(&mut self.devs).serving = Some((class, at, task));
        Some(self.fw_work(p, Effect::Firmware, &pieces))
    }

    /// The task the NIC processor served is done.
    pub(crate) fn apply_firmware(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize) {
        let now = eng.now();
        let d = self.fw_dev();
        let h = hnic(&mut self.devs);
        let (class, at, task) = h.serving.take().expect("a task in service");
        match task {
            // Its delay ends with the receive DMA, which carries when it reached the MAC.
            Task::ForwardRx(f) => self.dma_to_host_ring(eng, d, f, at),
            Task::ForwardTx(f) => {
                let h = hnic(&mut self.devs);
                h.stats.tx_frames[class as usize] += 1;
                h.stats.delays[class as usize]
                    .tx_ps
                    .push((now, (now - at).0));
                self.send_frame(eng, wire, d, f);
            }
            Task::Receive(f) => {
                let bytes = f.hdr.payload_bytes();
                let seq = match f.payload {
                    Payload::Tcp(s) => s.seq,
                    _ => 0,
                };
                let flow = f.hdr.flow;
                let h = hnic(&mut self.devs);
                h.stats.delays[class as usize]
                    .rx_ps
                    .push((now, (now - at).0));
                self.tcp_input(eng, p, f);
                if bytes > 0 {
                    // The payload goes to the host's posted buffer by DMA (§4.4).
                    self.nic_dma(eng, Chan::Rx, Vec::new(), bytes, None);
                    hnic(&mut self.devs).stats.payload_dma_bytes += bytes;
                    if self.mem.detailed.is_some() {
                        self.mem.rx_dma(now, flow, seq, bytes);
                    }
                }
            }
            Task::Handoff(conn) => self.handoff_decide(eng, conn),
            Task::Output(segs) => self.sq[p].xmit.extend(segs),
            Task::Restore(conn) => self.give_back(eng, conn, true),
        }
    }

    /// HANDOFF(conn) on the NIC: taken if load control admits it and the connection is still
    /// open (its state comes over by DMA), refused otherwise; the host hears either way.
    fn handoff_decide(&mut self, eng: &mut Engine<Ev>, conn: usize) {
        let open = self.conns[conn].tcp.state() == State::Established;
        let state_bytes = self.cfg.handoff.state_bytes;
        let flow = self.conns[conn].tcp.flow;
        let h = hnic(&mut self.devs);
        if open && h.lc.admits(h.owned) && self.conns[conn].owner == Owner::Pending {
            h.owned += 1;
            h.stats.max_owned = h.stats.max_owned.max(h.owned);
            h.stats.handoffs += 1;
            h.stats.state_dma_bytes += state_bytes;
            h.lookup.insert(flow);
            h.handed.push(conn);
            self.conns[conn].owner = Owner::Nic;
            self.nic_dma(eng, Chan::Tx, Vec::new(), state_bytes, None);
        } else {
            if open {
                h.stats.nacks_limit += 1;
            } else {
                h.stats.nacks_closed += 1;
            }
            self.conns[conn].owner = Owner::Host;
            self.conns[conn].handoff_failed = true;
        }
        let to = self.devs[self.conns[conn].dev].irq;
        self.nic_event(eng, to, Notice::NicEvent);
    }

    /// An owned connection reached TIME_WAIT or closed: its NIC slot is freed and the host
    /// keeps the rest (§4.5); with `handoff.time_wait_on_nic` the slot is held until
    /// TIME_WAIT ends.
    pub(crate) fn release(&mut self, eng: &mut Engine<Ev>, conn: usize) {
        let time_wait = self.conns[conn].tcp.state() == State::TimeWait;
        if self.conns[conn].owner != Owner::Nic || (time_wait && self.cfg.handoff.time_wait_on_nic)
        {
            return;
        }
        self.give_back(eng, conn, false);
    }

    /// Connection `conn` leaves the NIC: its slot and lookup entry are freed and the host
    /// hears of it. A restore writes its TCP state back to host memory by DMA.
    fn give_back(&mut self, eng: &mut Engine<Ev>, conn: usize, restore: bool) {
        if self.conns[conn].owner != Owner::Nic {
            return;
        }
        let flow = self.conns[conn].tcp.flow;
        let state_bytes = self.cfg.handoff.state_bytes;
        let h = hnic(&mut self.devs);
        h.owned -= 1;
        h.lookup.remove(flow);
        h.restoring.retain(|&c| c != conn);
        self.conns[conn].owner = Owner::Host;
        if restore {
            h.stats.restores += 1;
            h.stats.state_dma_bytes += state_bytes;
            self.nic_dma(eng, Chan::Rx, Vec::new(), state_bytes, None);
        } else {
            h.stats.released += 1;
        }
        let to = self.devs[self.conns[conn].dev].irq;
        self.nic_event(eng, to, Notice::NicEvent);
    }

    /// An event for host processor `to` (§4.1): written to the event ring by DMA, then its
    /// interrupt.
    pub(crate) fn nic_event(&mut self, eng: &mut Engine<Ev>, to: usize, notice: Notice) {
        let bytes = self.cfg.nic.descriptor_bytes;
        self.nic_dma(eng, Chan::Rx, Vec::new(), bytes, None);
        let h = hnic(&mut self.devs);
        h.stats.events += 1;
        h.stats.descriptor_dma_bytes += bytes;
        self.notify(eng, to, notice);
    }
}
