//! Byte accounting: where a node's payload bytes are, for the conservation check.

use crate::hw::dma::Chan;
use crate::hw::frame::FrameHeader;
use crate::node::effect::Effect;
use crate::node::Node;

impl Node {
    /// Payload bytes of the frames `keep` selects held anywhere inside this node's receive
    /// side (rings, DMA, backlog, the softirq's frame in hand).
    pub fn rx_payload_in_flight(&self, keep: impl Fn(&FrameHeader) -> bool) -> u64 {
        let in_hand = match &self.sq.effect {
            Some(Effect::RxPacket(f)) => Some(f),
            _ => None,
        };
        self.nic
            .rx_ready
            .iter()
            .chain(self.dma.pending(Chan::Rx))
            .chain(&self.nic.acc)
            .chain(&self.sq.backlog)
            .chain(&self.delivered)
            .chain(in_hand)
            .filter(|f| keep(&f.hdr))
            .map(|f| f.hdr.payload_bytes())
            .sum()
    }

    /// Payload bytes of the frames `keep` selects posted for transmission but not yet on
    /// the wire.
    pub fn tx_payload_in_flight(&self, keep: impl Fn(&FrameHeader) -> bool) -> u64 {
        self.qdisc
            .iter()
            .chain(self.dma.pending(Chan::Tx))
            .filter(|f| keep(&f.hdr))
            .map(|f| f.hdr.payload_bytes())
            .sum()
    }
}
