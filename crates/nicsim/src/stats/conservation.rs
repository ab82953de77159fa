//! Byte accounting: where a node's payload bytes are, for the conservation check.

use crate::hw::dma::Chan;
use crate::hw::frame::FrameHeader;
use crate::node::effect::Effect;
use crate::node::Node;

impl Node {
    /// Payload bytes of the frames `keep` selects held anywhere inside this node's receive
    /// side (rings, DMA, backlog, the softirq's frame in hand).
    pub fn rx_payload_in_flight(&self, keep: impl Fn(&FrameHeader) -> bool) -> u64 {
        let in_hand = self.sq.iter().filter_map(|q| match &q.effect {
            Some(Effect::RxPacket(f) | Effect::Backlogged(f)) => Some(f),
            _ => None,
        });
        // Segments waiting in owned sockets' backlogs, or in their owners' hands.
        let backlogs =
            self.conns
                .iter()
                .flat_map(|c| &c.backlog)
                .chain(self.threads.iter().flat_map(|t| {
                    let held = match &t.effect {
                        Effect::BacklogRx(f) => Some(f),
                        _ => None,
                    };
                    t.backlog.iter().chain(held)
                }));
        let devs = self.devs.iter().flat_map(|d| {
            d.nic
                .rx_ready
                .iter()
                .chain(d.dma.pending(Chan::Rx))
                .chain(&d.nic.acc)
                .chain(&d.delivered)
        });
        let fw = self.handoff.iter().flat_map(|h| h.frames(Chan::Rx));
        devs.chain(self.sq.iter().flat_map(|q| &q.backlog))
            .chain(in_hand)
            .chain(backlogs)
            .chain(fw)
            .filter(|f| keep(&f.hdr))
            .map(|f| f.hdr.payload_bytes())
            .sum()
    }

    /// Payload bytes of the frames `keep` selects posted for transmission but not yet on
    /// the wire.
    pub fn tx_payload_in_flight(&self, keep: impl Fn(&FrameHeader) -> bool) -> u64 {
        self.devs
            .iter()
            .flat_map(|d| d.qdisc.iter().chain(d.dma.pending(Chan::Tx)))
            .chain(self.handoff.iter().flat_map(|h| h.frames(Chan::Tx)))
            .filter(|f| keep(&f.hdr))
            .map(|f| f.hdr.payload_bytes())
            .sum()
    }
}
