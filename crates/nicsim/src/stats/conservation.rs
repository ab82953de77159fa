//! Byte accounting: where a node's payload bytes are, and each direction's conservation
//! (bytes sent = delivered + in flight + dropped) with the physical bounds of a window.

use crate::hw::frame::FrameHeader;
use crate::hw::frame::{FlowId, NodeAddr};
use crate::node::Node;
use crate::stats::{check_window, Conservation, Window};
use crate::system::World;

impl Node {
    /// Payload bytes of the frames `keep` selects held anywhere inside this node's receive
    /// side (rings, DMA, backlog, the softirq's frame in hand).
    pub fn rx_payload_in_flight(&self, keep: impl Fn(&FrameHeader) -> bool) -> u64 {
        self.rx_frames()
            .filter(|f| keep(&f.hdr))
            .map(|f| f.hdr.payload_bytes())
            .sum()
    }

    /// Payload bytes of the frames `keep` selects posted for transmission but not yet on
    /// the wire.
    pub fn tx_payload_in_flight(&self, keep: impl Fn(&FrameHeader) -> bool) -> u64 {
        self.tx_frames()
            .filter(|f| keep(&f.hdr))
            .map(|f| f.hdr.payload_bytes())
            .sum()
    }
}

impl World {
    /// Conservation and the physical bounds, for a measured window.
    pub fn check(&self, win: &Window) -> Result<(), String> {
        let cons: Vec<_> = self
            .directions()
            .into_iter()
            .map(|(a, b)| (format!("node{a}→node{b}"), self.conservation(a, b, None)))
            .collect();
        let links: Vec<usize> = self
            .nodes
            .iter()
            .map(|n| {
                let mut addrs: Vec<_> = n.devs.iter().map(|d| d.addr).collect();
                addrs.dedup(); // a NIC's RSS queues are consecutive devices on one address
                addrs.len()
            })
            .collect();
        let max_frame = crate::hw::link::wire_bytes(self.cfg.nic.mtu_bytes) as f64;
        let rate_bps = self.cfg.link.rate_bps.0 as f64;
        check_window(&cons, rate_bps, &links, max_frame, win)
    }

    /// The directions that carry traffic: both ways between node0 and node1 (the generator
    /// injects towards node1), and both ways of every connection.
    pub fn directions(&self) -> Vec<(usize, usize)> {
        let mut d: Vec<(usize, usize)> = self
            .flows
            .iter()
            .flat_map(|[a, b]| [(*a as usize, *b as usize), (*b as usize, *a as usize)])
            .collect();
        d.sort_unstable();
        d.dedup();
        d
    }

    /// Node `n`'s fabric addresses (its NICs; a NIC's receive queues share one).
    fn addresses_of(&self, n: usize) -> impl Iterator<Item = NodeAddr> {
        let mut addrs: Vec<NodeAddr> = self.nodes[n].devs.iter().map(|d| d.addr).collect();
        addrs.dedup();
        addrs.into_iter()
    }

    /// Which node sent a frame of `flow` to node `dst`: the other end of the flow.
    fn source(&self, flow: FlowId, dst: usize) -> usize {
        let [a, b] = self.flows[flow as usize];
        if dst == b as usize {
            a as usize
        } else {
            b as usize
        }
    }

    /// Payload bytes from node `src` to node `dst` (of one flow, if given: a connection whose
    /// slot was freed counts only in the direction's whole), by where they are.
    pub fn conservation(&self, src: usize, dst: usize, flow: Option<FlowId>) -> Conservation {
        let keep = |h: &FrameHeader| {
            self.node_at(h.dst) == dst
                && self.source(h.flow, dst) == src
                && flow.is_none_or(|f| f == h.flow)
        };
        let b = &self.nodes[dst];
        let (mut sent, mut delivered, mut dropped) = (0, 0, 0);
        for (f, ends) in self.flows.iter().enumerate() {
            let f = f as FlowId;
            let [x, y] = *ends;
            let between = (x as usize, y as usize) == (src, dst)
                || (f > 0 && (y as usize, x as usize) == (src, dst));
            if !between || flow.is_some_and(|want| want != f) {
                continue;
            }
            if f == 0 {
                sent += self.injected_bytes;
                delivered += b.stats.raw_delivered_bytes;
            } else {
                sent += self.nodes[src].flow_bytes(f).0;
                delivered += b.flow_bytes(f).1;
            }
            let at = |v: &Vec<u64>| v.get(f as usize).copied().unwrap_or(0);
            // Dropped at the receiver's way in, and at the sender's full transmit queue.
            dropped += at(&b.stats.dropped_by_flow) + at(&self.nodes[src].stats.tx_dropped_by_flow);
        }
        if flow.is_none() {
            // Connections whose slots were freed: what they handed out and took in, by peer.
            sent += self
                .addresses_of(dst)
                .map(|a| self.nodes[src].retired.payload_bytes_with(a).0)
                .sum::<u64>();
            delivered += self
                .addresses_of(src)
                .map(|a| b.retired.payload_bytes_with(a).1)
                .sum::<u64>();
        }
        dropped += self
            .fabric
            .dropped()
            .iter()
            .filter(|(f, d, _)| {
                self.node_at(*d) == dst
                    && self.source(*f, dst) == src
                    && flow.is_none_or(|x| x == *f)
            })
            .map(|(_, _, bytes)| bytes)
            .sum::<u64>();
        let on_wire: u64 = self
            .fabric
            .frames()
            .filter(|f| keep(&f.hdr))
            .map(|f| f.hdr.payload_bytes())
            .sum();
        Conservation {
            sent_bytes: sent - self.nodes[src].tx_payload_in_flight(keep),
            delivered_bytes: delivered,
            in_flight_bytes: on_wire + b.rx_payload_in_flight(keep),
            dropped_bytes: dropped,
        }
    }
}
