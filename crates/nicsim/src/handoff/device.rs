//! The seam between the host's driver and the handoff firmware, on the device that runs it:
//! the four places a handoff NIC differs from a plain one. A frame at the MAC goes to the
//! firmware's lookup; a segment of an owned connection leaves from NIC memory or after its
//! payload's DMA; a completed transmit DMA is a host packet to forward, an owned segment to
//! send or a state transfer; a completed receive DMA ends a forwarded frame's delay. Which of
//! these a DMA was is the request's own tag (`DmaTag`), carried through the DMA engine.

use super::queues::Class;
use super::{HandoffNic, Task};
use crate::config::OnExcess;
use crate::engine::Engine;
use crate::hw::cpu::Notice;
use crate::hw::dma::{Chan, DmaTag};
use crate::node::netdev::{DevId, NetDev};
use crate::node::{Ev, Node, Wire};
use crate::stack::tcp::Segment;
use crate::stack::{Frame, Payload};
use crate::units::Time;

/// The handoff firmware of the node's devices (a node that has one has one NIC).
pub(crate) fn hnic(devs: &mut [NetDev]) -> &mut HandoffNic {
    devs.iter_mut()
        .find_map(|d| d.handoff.as_deref_mut())
        .expect("a handoff NIC")
}

impl Node {
    /// The NIC processor's index, on a node with a handoff NIC.
    pub(crate) fn fw(&self) -> Option<usize> {
        self.roles.firmware
    }

    /// The handoff firmware's state, on a node whose NIC runs it.
    pub fn handoff_nic(&self) -> Option<&HandoffNic> {
        self.devs.iter().find_map(|d| d.handoff.as_deref())
    }

    /// The device whose NIC runs the handoff firmware.
    pub(crate) fn fw_dev(&self) -> DevId {
        self.devs
            .iter()
            .position(|d| d.handoff.is_some())
            .expect("a handoff NIC")
    }

    /// A frame reached the MAC of device `d`, a handoff NIC. The lookup sends a segment of an
    /// owned connection to the NIC queue and anything else (SYNs, unknown flows, UDP) to the
    /// host queue; load control looks at the NIC queue on every arrival (§6.2).
    pub(crate) fn fw_arrive(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, d: DevId, f: Frame) {
        let restore = self.cfg.handoff.on_excess == OnExcess::RestoreExcess;
        let to = self.devs[d].irq;
        let h = hnic(&mut self.devs);
        let owned = match f.payload {
            Payload::Tcp(s) => !s.syn() && h.lookup.find(f.hdr.flow).0,
            _ => false,
        };
        let (class, task) = if owned {
            (Class::Nic, Task::Receive(f))
        } else {
            (Class::Host, Task::ForwardRx(f))
        };
        if h.enqueue(class, eng.now(), task).is_err() {
            self.stats.count_drop(&f.hdr);
            return;
        }
        h.stats.rx_frames[class as usize] += 1;
        h.sample(eng.now());
        if owned {
            h.qlen += 1;
            h.lc.evaluate(h.qlen, h.owned);
            if h.owned > h.lc.soft_limit {
                h.stats.over_soft_limit += 1;
                let unclaimed = h.owned.saturating_sub(h.restoring.len() as u32);
                if restore && !h.excess_raised && unclaimed > h.lc.soft_limit {
                    // The NIC asks the OS to take connections back (§6.2 restore_excess).
                    h.excess_raised = true;
                    self.nic_event(eng, to, Notice::NicExcess);
                }
            }
        }
        self.kick_fw(eng, wire);
    }

    /// A segment of an owned connection leaves device `d`: a pure ACK straight from NIC
    /// memory; data after its payload's DMA read from the host socket buffer (§4.4).
    pub(crate) fn fw_xmit(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        d: DevId,
        f: Frame,
        seg: Segment,
    ) {
        let now = eng.now();
        let h = hnic(&mut self.devs);
        if seg.len == 0 {
            h.stats.tx_frames[Class::Nic as usize] += 1;
            h.stats.delays[Class::Nic as usize].tx_ps.push((now, 0));
            self.send_frame(eng, wire, d, f);
            return;
        }
        h.stats.payload_dma_bytes += seg.len as u64;
        let frames = self.tso_cut(f);
        self.nic_dma(eng, Chan::Tx, frames, seg.len as u64, Some(now));
    }

    /// A DMA the NIC processor starts itself: payload, TCP state, a descriptor or an event
    /// record; `sent` is when it built the frames it sends, if any.
    pub(crate) fn nic_dma(
        &mut self,
        eng: &mut Engine<Ev>,
        ch: Chan,
        frames: Vec<Frame>,
        bytes: u64,
        sent: Option<Time>,
    ) {
        let d = self.fw_dev();
        self.devs[d]
            .dma
            .request(ch, frames, bytes, DmaTag::Nic(sent));
        self.dma_next(eng, d, ch);
    }

    /// A transmit DMA of handoff device `d` ended: a host packet goes to the NIC processor's
    /// host queue, an owned connection's segment to the MAC, a state transfer nowhere. True
    /// if the host's descriptors are done (the host packet case).
    pub(crate) fn fw_tx_dma_done(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        d: DevId,
        frames: Vec<Frame>,
        tag: DmaTag,
    ) -> bool {
        let now = eng.now();
        match tag {
            DmaTag::Nic(None) => false,
            DmaTag::Nic(Some(at)) => {
                let n = frames.len();
                let h = hnic(&mut self.devs);
                h.stats.tx_frames[Class::Nic as usize] += n as u64;
                let delays = &mut h.stats.delays[Class::Nic as usize].tx_ps;
                delays.extend(std::iter::repeat_n((now, (now - at).0), n));
                for f in frames {
                    self.send_frame(eng, wire, d, f);
                }
                false
            }
            DmaTag::Driver(at) => {
                for f in frames {
                    let h = hnic(&mut self.devs);
                    if h.enqueue(Class::Host, at, Task::ForwardTx(f)).is_err() {
                        // This node's own frame, lost on its way out: a drop of what it sent,
                        // not of what it received (conservation counts it for its direction).
                        self.stats.count_tx_drop(&f.hdr);
                    }
                }
                self.kick_fw(eng, wire);
                true
            }
        }
    }

    /// A receive DMA of a handoff NIC ended: a forwarded frame's delay, from the MAC, ends
    /// here (§11).
    pub(crate) fn fw_rx_dma_done(&mut self, now: Time, tag: DmaTag) {
        if let DmaTag::Driver(at) = tag {
            hnic(&mut self.devs).stats.delays[Class::Host as usize]
                .rx_ps
                .push((now, (now - at).0));
        }
    }
}
