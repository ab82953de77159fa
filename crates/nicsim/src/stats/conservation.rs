//! Byte accounting: where a node's payload bytes are, for the conservation check.

use crate::hw::dma::Chan;
use crate::node::effect::Effect;
use crate::node::Node;
use crate::stack::tcp::Segment;
use std::collections::VecDeque;

impl Node {
    /// Payload bytes held anywhere inside this node's receive side (rings, DMA, backlog).
    pub fn rx_payload_in_flight(&self) -> u64 {
        let ring: u64 = self
            .nic
            .rx_ready
            .iter()
            .map(|f| f.hdr.payload_bytes())
            .sum();
        let dma: u64 = self
            .dma
            .pending(Chan::Rx)
            .map(|f| f.hdr.payload_bytes())
            .sum();
        let acc: u64 = self.nic.acc.iter().map(|f| f.hdr.payload_bytes()).sum();
        let backlog: u64 = self
            .sq
            .backlog
            .iter()
            .chain(&self.delivered)
            .map(|f| f.hdr.payload_bytes())
            .sum();
        let effect = match self.sq.effect {
            Some(Effect::RxPacket(f)) => f.hdr.payload_bytes(),
            _ => 0,
        };
        ring + dma + acc + backlog + effect
    }

    /// Payload bytes posted for transmission but not yet on the wire.
    pub fn tx_payload_in_flight(&self) -> u64 {
        let q = self
            .qdisc
            .iter()
            .map(|f| f.hdr.payload_bytes())
            .sum::<u64>();
        q + self
            .dma
            .pending(Chan::Tx)
            .map(|f| f.hdr.payload_bytes())
            .sum::<u64>()
    }

    /// Payload decided by TCP but whose transmit work has not run yet.
    pub fn tx_payload_pending(&self) -> u64 {
        let q = |v: &VecDeque<Segment>| v.iter().map(|s| s.len as u64).sum::<u64>();
        let eff = |e: &Effect| {
            if let Effect::Xmit(s) = e {
                s.len as u64
            } else {
                0
            }
        };
        q(&self.sq.xmit)
            + self
                .threads
                .iter()
                .map(|t| q(&t.xmit) + eff(&t.effect))
                .sum::<u64>()
            + self.sq.effect.map(|e| eff(&e)).unwrap_or(0)
    }
}
