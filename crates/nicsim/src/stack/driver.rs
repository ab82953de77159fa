//! The NIC driver and the NIC's host-facing side: transmit posting and the qdisc, descriptor
//! reclaim, receive DMA completion, interrupt raising and coalescing, and ring accumulation.

use crate::config::{LoopbackInput, NicIrq};
use crate::engine::Engine;
use crate::hw::cpu::{Ctx, Processor};
use crate::hw::dma::{Chan, DmaTag};
use crate::hw::link::{wire_bytes, ETH_HEADER_BYTES};
use crate::hw::nic::{FlushCause, Held, IrqDecision};
use crate::node::netdev::DevId;
use crate::node::{Ev, IrqKind, Node, Wire};
use crate::placement::{Acks, Receive};
use crate::stack::conn::Owner;
use crate::stack::tcp::Segment;
use crate::stack::{Frame, Payload};
use crate::units::Time;

impl Node {
    /// The driver posted a segment for transmission on processor `p` (or the NIC processor
    /// built an ACK), on its connection's device or the loopback interface.
    pub(crate) fn nic_xmit(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        p: usize,
        seg: Segment,
    ) {
        let c = self
            .conn_of(seg.flow)
            .expect("a segment of an open connection");
        // A SACK option (only while the receiver holds out-of-order data) lengthens the header.
        let header = self.header_bytes()
            + seg.sack_option_bytes()
            + seg.syn_option_bytes(self.cfg.tcp.timestamps);
        self.stats.payload_tx_bytes += seg.len as u64;
        self.conns[c].tx_payload_bytes += seg.len as u64;
        let d = self.conns[c].dev;
        if let Some(peer) = self.conns[c].lo_peer {
            // Addressed to this node, as the other end's segment.
            let addr = self.devs[d].addr;
            self.lo_xmit(
                eng,
                wire,
                p,
                Frame::tcp(Segment { flow: peer, ..seg }, header, addr, addr),
            );
            return;
        }
        let f = Frame::tcp(seg, header, self.devs[d].addr, self.conns[c].peer);
        if self.roles.acks == Acks::NicLocal && seg.is_pure_ack() {
            // Built in NIC memory and handed to the MAC: no descriptor, no DMA.
            self.send_frame(eng, wire, d, f);
            return;
        }
        if self.conns[c].owner == Owner::Nic {
            self.fw_xmit(eng, wire, d, f, seg);
            return;
        }
        self.queue_tx(eng, d, f);
    }

    /// The loopback interface (Linux `loopback_xmit`, AIX `looutput`): the frame becomes the
    /// other end's input on a processor's backlog, and the receive softirq is raised there:
    /// the sender's (Linux), or an idle CPU's (BSD's software interrupt, `org.loopback_input`).
    /// No device, no DMA, no interrupt, no transmit completion: the buffer travels.
    fn lo_xmit(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize, f: Frame) {
        let q = match self.cfg.org.loopback_input {
            LoopbackInput::SenderCpu => p,
            LoopbackInput::AnyCpu => self.idle_host_cpu().unwrap_or(p),
        };
        self.sq[q].backlog.push_back(f);
        self.raise_softirq_local(q);
        if q != p {
            self.kick(eng, wire, q);
        }
    }

    /// Whether device `d`'s transmit queue is at its limit (`tx.queue_frames`).
    pub(crate) fn tx_queue_full(&self, d: DevId) -> bool {
        let limit = self.cfg.tx.queue_frames as usize;
        limit > 0 && self.devs[d].qdisc.len() >= limit
    }

    /// A frame for device `d`'s transmit ring, or its qdisc while the ring is full. Without
    /// local flow control, a full qdisc drops it (counted against its flow); with it, the
    /// senders wait instead (UDP's in `Op::SendTo`), so it always goes in.
    pub(crate) fn queue_tx(&mut self, eng: &mut Engine<Ev>, d: DevId, f: Frame) {
        if !self.cfg.tx.local_flow_control && self.tx_queue_full(d) {
            self.stats.count_tx_drop(&f.hdr);
            return;
        }
        let below = self.cfg.tcp.autocork || self.cfg.tcp.limit_output_bytes > 0;
        if let Payload::Tcp(seg) = f.payload {
            if seg.len > 0 && below {
                if let Some(c) = self.conn_of(seg.flow) {
                    self.conns[c].tcp.below_bytes += seg.len as u64;
                    let dev = &mut self.devs[d];
                    let len = seg.len as u64;
                    dev.tcp_unreclaimed
                        .push_back((dev.tx_queued, seg.flow, len));
                }
            }
        }
        let dev = &mut self.devs[d];
        dev.tx_queued += 1;
        if dev.nic.tx_used >= dev.nic.p.tx_ring_entries {
            // Ring full: the driver stops the queue; the qdisc holds the packet (Q32).
            dev.qdisc.push_back(f);
            return;
        }
        self.post_tx(eng, d, f);
    }

    /// One descriptor for frame `f`: one DMA request of its header, payload and descriptor. A TSO
    /// send longer than an MSS leaves as MSS frames that repeat its header (`tso_frames`).
    pub(crate) fn post_tx(&mut self, eng: &mut Engine<Ev>, d: DevId, f: Frame) {
        let bytes = f.hdr.ip_bytes() + ETH_HEADER_BYTES + self.cfg.nic.descriptor_bytes;
        let frames = self.tso_cut(f);
        let dev = &mut self.devs[d];
        dev.nic.tx_used += 1;
        dev.dma
            .request(Chan::Tx, frames, bytes, DmaTag::Driver(eng.now()));
        self.dma_next(eng, d, Chan::Tx);
    }

    /// The frames a send leaves as: MSS frames with TSO, else itself.
    pub(crate) fn tso_cut(&self, f: Frame) -> Vec<Frame> {
        match f.payload {
            Payload::Tcp(seg) if self.cfg.nic.tso => {
                let mss = self
                    .conn_of(seg.flow)
                    .map_or(u32::MAX, |c| self.conns[c].tcp.mss);
                tso_frames(f, seg, mss)
            }
            _ => vec![f],
        }
    }

    /// Transmit buffers reclaimed: descriptors free up for packets the qdisc held.
    pub(crate) fn reclaim(&mut self, eng: &mut Engine<Ev>, p: usize, d: DevId, n: u32) {
        let dev = &mut self.devs[d];
        dev.nic.tx_used -= n.min(dev.nic.tx_used);
        dev.tx_reclaimed += n as u64;
        if !dev.udp_unreclaimed.is_empty() {
            self.udp_reclaimed(p, d);
        }
        self.tcp_reclaimed(eng, p, d);
        while self.devs[d].nic.tx_used < self.devs[d].nic.p.tx_ring_entries {
            let Some(f) = self.devs[d].qdisc.pop_front() else {
                break;
            };
            self.post_tx(eng, d, f);
        }
    }

    /// TCP sends of device `d` reclaimed on `p` (`tcp_wfree`): a socket throttled behind them
    /// (TSQ, or a corked push) sends again, from the TSQ tasklet on this processor
    /// (`tcp_tsq_write`).
    fn tcp_reclaimed(&mut self, eng: &mut Engine<Ev>, p: usize, d: DevId) {
        let reclaimed = self.devs[d].tx_reclaimed;
        while let Some(&(seq, flow, len)) = self.devs[d].tcp_unreclaimed.front() {
            if seq >= reclaimed {
                break;
            }
            self.devs[d].tcp_unreclaimed.pop_front();
            let Some(c) = self.conn_of(flow) else {
                continue;
            };
            let tcp = &mut self.conns[c].tcp;
            tcp.below_bytes = tcp.below_bytes.saturating_sub(len);
            if std::mem::take(&mut tcp.tsq_throttled) {
                let segs = self.tcp_mut(c).output(eng.now());
                self.sq[p].xmit.extend(segs);
                self.raise_softirq_local(p);
            }
        }
    }

    pub(crate) fn send_frame(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, d: DevId, f: Frame) {
        self.record_frame(eng.now(), true, &f);
        let (at, hop) = wire.send(eng.now(), self.devs[d].addr, f);
        eng.at(at, hop.into());
    }

    /// Starts the next DMA transaction of device `d` on channel `ch` if it is idle.
    pub(crate) fn dma_next(&mut self, eng: &mut Engine<Ev>, d: DevId, ch: Chan) {
        let dev = &mut self.devs[d];
        if ch == Chan::Tx && eng.now() < dev.tx_hold_until {
            return;
        }
        if let Some(end) = dev.dma.start(ch, eng.now(), &mut self.io, &mut self.mem.nb) {
            if let Some(r) = &mut self.record {
                r.dma(eng.now(), end, d, ch);
            }
            eng.at(
                end,
                Ev::Dma {
                    node: self.id,
                    dev: d as u8,
                    chan: ch as u8,
                },
            );
        }
    }

    pub fn on_dma(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, d: DevId, ch: Chan) {
        if let Some((frames, tag)) = self.devs[d].dma.finish(ch) {
            match ch {
                Chan::Tx => {
                    let n = frames.len() as u64;
                    if self.mem.detailed.is_some() {
                        for f in &frames {
                            if let Payload::Tcp(s) = f.payload {
                                self.mem.tx_dma(f.hdr.flow, s.seq, f.hdr.payload_bytes());
                            }
                        }
                    }
                    // A handoff NIC's processor forwards the host's frames; its own go out.
                    let host = if self.devs[d].handoff.is_some() {
                        self.fw_tx_dma_done(eng, wire, d, frames, tag)
                    } else {
                        for f in frames {
                            self.send_frame(eng, wire, d, f);
                        }
                        true
                    };
                    if host {
                        let decision = self.devs[d].nic.tx_sent(eng.now(), n);
                        self.irq_decision(eng, d, decision);
                    }
                    // A full FIFO holds the next fetch until the link drains (line rate).
                    let fifo = self.devs[d].tx_fifo;
                    let at = wire.uplink_drained_to(eng.now(), self.devs[d].addr, fifo);
                    if at > eng.now() {
                        self.devs[d].tx_hold_until = at;
                        let dev = d as u8;
                        eng.at(at, Ev::TxFifo { node: self.id, dev });
                    }
                }
                Chan::Rx => self.rx_dma_done(eng, d, frames, tag),
            }
        }
        self.dma_next(eng, d, ch);
    }

    fn rx_dma_done(&mut self, eng: &mut Engine<Ev>, d: DevId, frames: Vec<Frame>, tag: DmaTag) {
        if self.devs[d].handoff.is_some() {
            self.fw_rx_dma_done(eng.now(), tag);
        }
        if self.mem.detailed.is_some() {
            for f in &frames {
                let seq = match f.payload {
                    Payload::Tcp(s) => s.seq,
                    _ => 0,
                };
                self.mem
                    .rx_dma(eng.now(), f.hdr.flow, seq, f.hdr.payload_bytes());
            }
        }
        match self.roles.receive {
            Receive::NapiPoll | Receive::NetifRx => {
                for f in frames {
                    let decision = self.devs[d].nic.rx_dma_done(eng.now(), f);
                    self.irq_decision(eng, d, decision);
                }
            }
            Receive::RingAccumulate => {
                // One interrupt per flushed burst; the frames wait for the driver's netif_rx.
                // Under NAPI a burst that lands while the device is masked waits for the
                // protocol processor's poll instead.
                self.devs[d].delivered.extend(frames);
                if !self.devs[d].nic.masked {
                    self.raise_nic_irq(eng, d);
                    self.devs[d].nic.masked = self.roles.burst_masking;
                }
            }
        }
    }

    pub(crate) fn irq_decision(&mut self, eng: &mut Engine<Ev>, d: DevId, i: IrqDecision) {
        match i {
            IrqDecision::Raise => self.raise_nic_irq(eng, d),
            IrqDecision::ArmTimer(t) => eng.at(
                t,
                Ev::Coalesce {
                    node: self.id,
                    dev: d as u8,
                    at: t,
                },
            ),
            IrqDecision::None => {}
        }
    }

    pub fn on_coalesce(&mut self, eng: &mut Engine<Ev>, d: DevId, at: Time) {
        let decision = self.devs[d].nic.coalesce_timer(at);
        self.irq_decision(eng, d, decision);
    }

    /// Device `d` raises its interrupt, to the processor it is steered to.
    pub(crate) fn raise_nic_irq(&mut self, eng: &mut Engine<Ev>, d: DevId) {
        self.devs[d].nic.raise();
        self.distribute_irq(d);
        let lat = self.apic.irq_latency(self.roles.irq_path);
        eng.after(
            lat,
            Ev::Irq {
                node: self.id,
                proc: self.devs[d].irq as u8,
                kind: IrqKind::Nic(d as u8),
            },
        );
    }

    /// With a per-interrupt distribution, device `d`'s interrupt (and, unless the placement
    /// gives the protocol a processor of its own, the softirq that follows it) goes to the
    /// host CPU the policy picks now. NAPI keeps a device on one CPU while it is polled:
    /// the device raises again only after its poll ended.
    fn distribute_irq(&mut self, d: DevId) {
        if let Some(to) = self.devs[d].next_irq.take() {
            self.steer(d, to);
            return;
        }
        if matches!(
            self.irq_distribution,
            NicIrq::Same | NicIrq::Spread | NicIrq::PeriodicRebalance
        ) {
            return;
        }
        let hosts = self.procs.iter().filter(|p| !p.id.is_nic()).count();
        let to = match self.irq_distribution {
            NicIrq::Same | NicIrq::Spread | NicIrq::PeriodicRebalance => {
                unreachable!("fixed affinity returned above")
            }
            NicIrq::RoundRobin => {
                self.irq_turn = (self.irq_turn + 1) % hosts;
                self.irq_turn
            }
            NicIrq::LowestPriority => {
                let load = |p: &Processor| match &p.running {
                    None => 0,
                    Some((Ctx::Process, _)) => 1,
                    Some(_) => 2,
                };
                (0..hosts)
                    .min_by_key(|&p| load(&self.procs[p]))
                    .unwrap_or(0)
            }
        };
        self.steer(d, to);
    }

    /// Device `d` interrupts `to` from now on, and its softirq follows unless the placement
    /// gives the protocol a processor of its own.
    fn steer(&mut self, d: DevId, to: usize) {
        let follows = self.devs[d].protocol == self.devs[d].irq;
        self.devs[d].irq = to;
        if follows {
            self.devs[d].protocol = to;
        }
    }

    /// A frame's last bit reached device `d`'s MAC.
    pub fn on_arrive(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, d: DevId, f: Frame) {
        self.stats.wire_arrived_bytes += wire_bytes(f.hdr.ip_bytes());
        self.record_frame(eng.now(), false, &f);
        if self.devs[d].handoff.is_some() {
            self.fw_arrive(eng, wire, d, f);
            return;
        }
        match self.roles.receive {
            Receive::NapiPoll | Receive::NetifRx => {
                self.dma_to_host_ring(eng, d, f, eng.now());
            }
            Receive::RingAccumulate => {
                if self.roles.acks == Acks::NicLocal && f.hdr.pure_ack {
                    // The NIC recognises a pure ACK and hands it to its own processor.
                    let dev = &mut self.devs[d];
                    dev.nic.stats.acks_consumed_on_nic += 1;
                    dev.nic.stats.rx_frames += 1;
                    let p = dev.protocol;
                    self.sq[p].backlog.push_back(f);
                    self.sq[p].pending = true;
                    self.kick(eng, wire, p);
                    return;
                }
                let push = self.cfg.nic.ring_flush_on_push;
                let mut held = self.devs[d].nic.accumulate(f, push);
                if held == Held::RingFull {
                    self.flush(eng, d, FlushCause::Full);
                    held = self.devs[d].nic.accumulate(f, push);
                }
                let Held::Taken(cause) = held else {
                    unreachable!("an empty ring takes any frame")
                };
                match cause {
                    Some(c) => self.flush(eng, d, c),
                    None => {
                        let t = eng.now() + self.cfg.nic.ring_flush_idle_ps;
                        self.devs[d].nic.idle_deadline = Some(t);
                        eng.at(
                            t,
                            Ev::AccIdle {
                                node: self.id,
                                dev: d as u8,
                                at: t,
                            },
                        );
                    }
                }
            }
        }
    }

    /// Frame `f` into a free buffer of device `d`'s host ring by DMA, or dropped and counted
    /// when none is posted; true if taken.
    pub(crate) fn dma_to_host_ring(
        &mut self,
        eng: &mut Engine<Ev>,
        d: DevId,
        f: Frame,
        seen: Time,
    ) {
        if !self.devs[d].nic.accept_rx(&f) {
            self.stats.count_drop(&f.hdr);
            return;
        }
        let bytes = f.hdr.ip_bytes()
            + ETH_HEADER_BYTES
            + self.cfg.nic.descriptor_bytes
            + self.cfg.nic.status_block_bytes;
        let tag = DmaTag::Driver(seen);
        self.devs[d].dma.request(Chan::Rx, vec![f], bytes, tag);
        self.dma_next(eng, d, Chan::Rx);
    }

    pub fn on_acc_idle(&mut self, eng: &mut Engine<Ev>, d: DevId, at: Time) {
        let nic = &self.devs[d].nic;
        if nic.idle_deadline == Some(at) && !nic.acc.is_empty() {
            self.flush(eng, d, FlushCause::Idle);
        }
    }

    pub(crate) fn flush(&mut self, eng: &mut Engine<Ev>, d: DevId, cause: FlushCause) {
        let frames = self.devs[d].nic.flush(cause);
        if frames.is_empty() {
            return;
        }
        let bytes: u64 = frames
            .iter()
            .map(|f| f.hdr.ip_bytes() + ETH_HEADER_BYTES + self.cfg.nic.descriptor_bytes)
            .sum::<u64>()
            + self.cfg.nic.status_block_bytes;
        let tag = DmaTag::Driver(eng.now());
        self.devs[d].dma.request(Chan::Rx, frames, bytes, tag);
        self.dma_next(eng, d, Chan::Rx);
    }
}

/// The NIC's cut of a TSO send: frames of one MSS each (the last takes the rest), each with the
/// send's header; only the last keeps its PUSH. A send of one MSS or less stays one frame.
fn tso_frames(f: Frame, seg: Segment, mss: u32) -> Vec<Frame> {
    if seg.len <= mss {
        return vec![f];
    }
    let header = f.hdr.ip_bytes() - seg.len as u64;
    (0..seg.len.div_ceil(mss))
        .map(|i| {
            let off = i * mss;
            let len = mss.min(seg.len - off);
            let last = off + len == seg.len;
            let piece = Segment {
                seq: seg.seq + off as u64,
                len,
                push: seg.push && last,
                ..seg
            };
            Frame::tcp(piece, header, f.hdr.src, f.hdr.dst)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nic_cuts_a_tso_send_into_mss_frames_that_repeat_its_header() {
        let seg = Segment {
            seq: 1000,
            len: 3 * 1448 + 10,
            push: true,
            flow: 7,
            ..Segment::default()
        };
        let f = Frame::tcp(seg, 52, 1, 2);
        let frames = tso_frames(f, seg, 1448);
        let parts: Vec<(u64, u64, u64, bool)> = frames
            .iter()
            .map(|g| match g.payload {
                Payload::Tcp(s) => (s.seq, g.hdr.payload_bytes(), g.hdr.ip_bytes(), g.hdr.push),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(
            parts,
            vec![
                (1000, 1448, 1500, false),
                (2448, 1448, 1500, false),
                (3896, 1448, 1500, false),
                (5344, 10, 62, true),
            ]
        );
        assert!(frames
            .iter()
            .all(|g| (g.hdr.src, g.hdr.dst, g.hdr.flow) == (1, 2, 7)));
        assert_eq!(tso_frames(f, Segment { len: 1448, ..seg }, 1448).len(), 1);
    }
}
