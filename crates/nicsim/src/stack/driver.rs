//! The NIC driver and the NIC's host-facing side: transmit posting and the qdisc, descriptor
//! reclaim, receive DMA completion, interrupt raising and coalescing, and ring accumulation.

use crate::engine::Engine;
use crate::hw::dma::Chan;
use crate::hw::link::ETH_HEADER_BYTES;
use crate::hw::nic::{FlushCause, Held, IrqDecision};
use crate::node::{Ev, IrqKind, Node, Wire};
use crate::placement::{Acks, Receive};
use crate::stack::tcp::Segment;
use crate::stack::Frame;
use crate::units::Time;

impl Node {
    /// The driver posted a segment for transmission (or the NIC processor built an ACK).
    pub(crate) fn nic_xmit(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, seg: Segment) {
        let c = self
            .conn_of(seg.flow)
            .expect("a segment of an open connection");
        // A SACK option (only while the receiver holds out-of-order data) lengthens the header.
        let header = self.header_bytes()
            + seg.sack_option_bytes()
            + seg.syn_option_bytes(self.cfg.tcp.timestamps);
        let f = Frame::tcp(seg, header, self.id, self.conns[c].peer);
        self.stats.payload_tx_bytes += seg.len as u64;
        self.conns[c].tx_payload_bytes += seg.len as u64;
        if self.roles.acks == Acks::NicLocal && seg.is_pure_ack() {
            // Built in NIC memory and handed to the MAC: no descriptor, no DMA.
            self.send_frame(eng, wire, f);
            return;
        }
        self.queue_tx(eng, f);
    }

    /// A frame for the transmit ring, or the qdisc while the ring is full.
    pub(crate) fn queue_tx(&mut self, eng: &mut Engine<Ev>, f: Frame) {
        self.tx_queued += 1;
        if self.nic.tx_used >= self.nic.p.tx_ring_entries {
            // Ring full: the driver stops the queue; the qdisc holds the packet (Q32).
            self.qdisc.push_back(f);
            return;
        }
        self.post_tx(eng, f);
    }

    pub(crate) fn post_tx(&mut self, eng: &mut Engine<Ev>, f: Frame) {
        self.nic.tx_used += 1;
        let bytes = f.hdr.ip_bytes() + ETH_HEADER_BYTES + self.cfg.nic.descriptor_bytes;
        self.dma.request(Chan::Tx, vec![f], bytes);
        self.dma_next(eng, Chan::Tx);
    }

    /// Transmit buffers reclaimed: descriptors free up for packets the qdisc held.
    pub(crate) fn reclaim(&mut self, eng: &mut Engine<Ev>, n: u32) {
        self.nic.tx_used -= n.min(self.nic.tx_used);
        self.tx_reclaimed += n as u64;
        if !self.udp_unreclaimed.is_empty() {
            self.udp_reclaimed();
        }
        while self.nic.tx_used < self.nic.p.tx_ring_entries {
            let Some(f) = self.qdisc.pop_front() else {
                break;
            };
            self.post_tx(eng, f);
        }
    }

    pub(crate) fn send_frame(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, f: Frame) {
        let (at, hop) = wire.send(eng.now(), self.id, f);
        eng.at(at, hop.into());
    }

    /// Starts the next DMA transaction on channel `ch` if it is idle.
    pub(crate) fn dma_next(&mut self, eng: &mut Engine<Ev>, ch: Chan) {
        if ch == Chan::Tx && eng.now() < self.tx_hold_until {
            return;
        }
        if let Some(end) = self
            .dma
            .start(ch, eng.now(), &mut self.io, &mut self.mem.nb)
        {
            eng.at(
                end,
                Ev::Dma {
                    node: self.id,
                    chan: ch as u8,
                },
            );
        }
    }

    pub fn on_dma(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, ch: Chan) {
        if let Some(frames) = self.dma.finish(ch) {
            match ch {
                Chan::Tx => {
                    for f in frames {
                        self.send_frame(eng, wire, f);
                        let d = self.nic.tx_sent(eng.now());
                        self.irq_decision(eng, d);
                    }
                    // A full FIFO holds the next fetch until the link drains (line rate).
                    let fifo = self.cfg.nic.tx_fifo_bytes;
                    let at = wire.uplink_drained_to(eng.now(), self.id, fifo);
                    if at > eng.now() {
                        self.tx_hold_until = at;
                        eng.at(at, Ev::TxFifo { node: self.id });
                    }
                }
                Chan::Rx => self.rx_dma_done(eng, frames),
            }
        }
        self.dma_next(eng, ch);
    }

    pub(crate) fn rx_dma_done(&mut self, eng: &mut Engine<Ev>, frames: Vec<Frame>) {
        match self.roles.receive {
            Receive::NapiPoll | Receive::NetifRx => {
                for f in frames {
                    let d = self.nic.rx_dma_done(eng.now(), f);
                    self.irq_decision(eng, d);
                }
            }
            Receive::RingAccumulate => {
                // One interrupt per flushed burst; the frames wait for the driver's netif_rx.
                self.delivered.extend(frames);
                self.raise_nic_irq(eng);
            }
        }
    }

    pub(crate) fn irq_decision(&mut self, eng: &mut Engine<Ev>, d: IrqDecision) {
        match d {
            IrqDecision::Raise => self.raise_nic_irq(eng),
            IrqDecision::ArmTimer(t) => eng.at(
                t,
                Ev::Coalesce {
                    node: self.id,
                    at: t,
                },
            ),
            IrqDecision::None => {}
        }
    }

    pub fn on_coalesce(&mut self, eng: &mut Engine<Ev>, at: Time) {
        let d = self.nic.coalesce_timer(at);
        self.irq_decision(eng, d);
    }

    pub(crate) fn raise_nic_irq(&mut self, eng: &mut Engine<Ev>) {
        self.nic.raise();
        let lat = self.apic.irq_latency(self.roles.irq_path);
        eng.after(
            lat,
            Ev::Irq {
                node: self.id,
                proc: self.roles.irq_target as u8,
                kind: IrqKind::Nic,
            },
        );
    }

    /// A frame's last bit reached this node's MAC.
    pub fn on_arrive(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, f: Frame) {
        match self.roles.receive {
            Receive::NapiPoll | Receive::NetifRx => {
                if !self.nic.accept_rx(&f) {
                    self.stats.count_drop(&f.hdr);
                } else {
                    let bytes = f.hdr.ip_bytes()
                        + ETH_HEADER_BYTES
                        + self.cfg.nic.descriptor_bytes
                        + self.cfg.nic.status_block_bytes;
                    self.dma.request(Chan::Rx, vec![f], bytes);
                    self.dma_next(eng, Chan::Rx);
                }
            }
            Receive::RingAccumulate => {
                if self.roles.acks == Acks::NicLocal && f.hdr.pure_ack {
                    // The NIC recognises a pure ACK and hands it to its own processor.
                    self.nic.stats.acks_consumed_on_nic += 1;
                    self.nic.stats.rx_frames += 1;
                    self.sq.backlog.push_back(f);
                    let p = self.roles.protocol;
                    self.sq.pending = true;
                    self.kick(eng, wire, p);
                    return;
                }
                let push = self.cfg.nic.ring_flush_on_push;
                let mut held = self.nic.accumulate(f, push);
                if held == Held::RingFull {
                    self.flush(eng, FlushCause::Full);
                    held = self.nic.accumulate(f, push);
                }
                let Held::Taken(cause) = held else {
                    unreachable!("an empty ring takes any frame")
                };
                match cause {
                    Some(c) => self.flush(eng, c),
                    None => {
                        let t = eng.now() + self.cfg.nic.ring_flush_idle_ps;
                        self.nic.idle_deadline = Some(t);
                        eng.at(
                            t,
                            Ev::AccIdle {
                                node: self.id,
                                at: t,
                            },
                        );
                    }
                }
            }
        }
    }

    pub fn on_acc_idle(&mut self, eng: &mut Engine<Ev>, at: Time) {
        if self.nic.idle_deadline == Some(at) && !self.nic.acc.is_empty() {
            self.flush(eng, FlushCause::Idle);
        }
    }

    pub(crate) fn flush(&mut self, eng: &mut Engine<Ev>, cause: FlushCause) {
        let frames = self.nic.flush(cause);
        if frames.is_empty() {
            return;
        }
        let bytes: u64 = frames
            .iter()
            .map(|f| f.hdr.ip_bytes() + ETH_HEADER_BYTES + self.cfg.nic.descriptor_bytes)
            .sum::<u64>()
            + self.cfg.nic.status_block_bytes;
        self.dma.request(Chan::Rx, frames, bytes);
        self.dma_next(eng, Chan::Rx);
    }
}
