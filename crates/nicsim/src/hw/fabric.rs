//! What joins the nodes' network devices (ports, one address each): full-duplex links
//! pairing port i with port i + n/2 (two ports: one link), or an output-queued,
//! store-and-forward switch with a link to every port. The switch forwards on the frame's
//! destination address; an output port holds at most its buffer in bytes waiting to be sent
//! and drops (and counts) what does not fit.
//!
//! ```text
//!  node i ──uplink──▶ [switch input i] ──▶ output port d (rate, latency, buffer) ──▶ node d
//! ```

use super::frame::{FlowId, Frame, NodeAddr};
use super::link::{wire_bytes, Lane};
use crate::units::{BitRate, Duration, Time};
use std::collections::VecDeque;

/// An output-queued switch's ports: all alike.
#[derive(Clone, Copy, Debug)]
pub struct SwitchParams {
    pub port_rate: BitRate,
    /// Forwarding latency plus the output link's propagation.
    pub latency: Duration,
    /// Bytes (on the wire) an output port may hold waiting to be sent.
    pub buffer_bytes: u64,
}

/// Where a frame is when a hop ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// At a node's MAC.
    Node(NodeAddr),
    /// At the switch, on the input port of the node that sent it.
    Switch(NodeAddr),
}

/// What an output port dropped.
#[derive(Clone, Debug, Default)]
pub struct PortStats {
    pub frames: u64,
    pub dropped_frames: u64,
    pub dropped_payload_bytes: u64,
    pub max_queue_bytes: u64,
}

struct Switch {
    p: SwitchParams,
    ports: Vec<Lane>,
    stats: Vec<PortStats>,
}

pub struct Fabric<P> {
    /// Each node's transmit lane: to its peer, or to its switch port.
    uplinks: Vec<Lane>,
    /// Frames on each uplink to the switch, in arrival order.
    to_switch: Vec<VecDeque<(Time, Frame<P>)>>,
    /// Frames on their way to each node, in arrival order.
    inbound: Vec<VecDeque<(Time, Frame<P>)>>,
    switch: Option<Switch>,
    /// Frames the switch dropped: (flow, destination, payload bytes), for byte accounting.
    dropped: Vec<(FlowId, NodeAddr, u64)>,
}

impl<P: Copy> Fabric<P> {
    /// `nodes` nodes on links of `rate` and `latency`; through a switch, or point to point
    /// (then exactly two nodes).
    pub fn new(
        nodes: usize,
        rate: BitRate,
        latency: Duration,
        switch: Option<SwitchParams>,
    ) -> Self {
        assert!(
            switch.is_some() || nodes.is_multiple_of(2),
            "links join ports in pairs"
        );
        Fabric {
            uplinks: (0..nodes).map(|_| Lane::new(rate, latency)).collect(),
            to_switch: (0..nodes).map(|_| VecDeque::new()).collect(),
            inbound: (0..nodes).map(|_| VecDeque::new()).collect(),
            switch: switch.map(|p| Switch {
                p,
                ports: (0..nodes)
                    .map(|_| Lane::new(p.port_rate, p.latency))
                    .collect(),
                stats: vec![PortStats::default(); nodes],
            }),
            dropped: Vec::new(),
        }
    }

    /// When port `from`'s link has no more than `keep` of sending time left (its MAC's FIFO).
    pub fn uplink_drained_to(&self, now: Time, from: NodeAddr, keep: Duration) -> Time {
        self.uplinks[from as usize].drained_to(now, keep)
    }

    /// Node `from` puts a frame on its link at `now`: when and where that hop ends.
    pub fn send(&mut self, now: Time, from: NodeAddr, f: Frame<P>) -> (Time, Hop) {
        let t = self.uplinks[from as usize].transmit(now, f.hdr.ip_bytes());
        if self.switch.is_some() {
            self.to_switch[from as usize].push_back((t, f));
            (t, Hop::Switch(from))
        } else {
            let half = self.uplinks.len() / 2;
            let to = ((from as usize + half) % self.uplinks.len()) as NodeAddr;
            self.inbound[to as usize].push_back((t, f));
            (t, Hop::Node(to))
        }
    }

    /// The oldest frame on input port `port` is in the switch at `now`: queued on its output
    /// port (when and where it arrives next), or dropped for want of buffer (None).
    pub fn switch_in(&mut self, now: Time, port: NodeAddr) -> Option<(Time, Hop)> {
        let (_, f) = self.to_switch[port as usize]
            .pop_front()
            .expect("a frame on the input port");
        let sw = self.switch.as_mut().expect("a switch");
        let d = f.hdr.dst as usize;
        let queued = sw.ports[d].backlog_bytes(now);
        let st = &mut sw.stats[d];
        st.frames += 1;
        if queued + wire_bytes(f.hdr.ip_bytes()) > sw.p.buffer_bytes {
            st.dropped_frames += 1;
            st.dropped_payload_bytes += f.hdr.payload_bytes();
            self.dropped
                .push((f.hdr.flow, f.hdr.dst, f.hdr.payload_bytes()));
            return None;
        }
        st.max_queue_bytes = st
            .max_queue_bytes
            .max(queued + wire_bytes(f.hdr.ip_bytes()));
        let t = sw.ports[d].transmit(now, f.hdr.ip_bytes());
        self.inbound[d].push_back((t, f));
        Some((t, Hop::Node(f.hdr.dst)))
    }

    /// The oldest frame on its way to `node`, which has just arrived.
    pub fn arrive(&mut self, node: NodeAddr) -> Frame<P> {
        self.inbound[node as usize]
            .pop_front()
            .expect("an arrival without a frame")
            .1
    }

    /// Every frame on a wire or in the switch now.
    pub fn frames(&self) -> impl Iterator<Item = &Frame<P>> {
        self.to_switch
            .iter()
            .chain(&self.inbound)
            .flat_map(|q| q.iter().map(|(_, f)| f))
    }

    /// Frames the switch dropped: (flow, destination, payload bytes).
    pub fn dropped(&self) -> &[(FlowId, NodeAddr, u64)] {
        &self.dropped
    }

    /// Per output port (one per node): frames forwarded and dropped, the deepest queue.
    pub fn port_stats(&self) -> Option<&[PortStats]> {
        self.switch.as_ref().map(|s| s.stats.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::frame::FrameHeader;

    fn frame(dst: NodeAddr, ip_bytes: u64) -> Frame<()> {
        Frame {
            hdr: FrameHeader::new(1, dst, ip_bytes, ip_bytes - 40, false, false),
            payload: (),
        }
    }

    #[test]
    fn a_switch_forwards_by_destination_and_drops_what_its_buffer_cannot_hold() {
        let gbps = BitRate(1_000_000_000);
        // Room for two 1538-byte frames on the wire, not three.
        let sw = SwitchParams {
            port_rate: gbps,
            latency: Duration::ZERO,
            buffer_bytes: 2 * 1538,
        };
        let mut fab: Fabric<()> = Fabric::new(4, gbps, Duration::ZERO, Some(sw));
        // Three senders hit node 3 at once: the uplinks deliver all three at 12.304 µs.
        let mut at = Vec::new();
        for from in 0..3 {
            let (t, hop) = fab.send(Time(0), from, frame(3, 1500));
            assert_eq!(hop, Hop::Switch(from));
            at.push(t);
        }
        let outs: Vec<_> = (0..3).map(|p| fab.switch_in(at[p as usize], p)).collect();
        assert_eq!(outs[0], Some((Time(2 * 12_304_000), Hop::Node(3))));
        assert_eq!(outs[1], Some((Time(3 * 12_304_000), Hop::Node(3))));
        assert_eq!(outs[2], None, "the third frame finds two ahead of it");
        let st = &fab.port_stats().unwrap()[3];
        assert_eq!((st.frames, st.dropped_frames), (3, 1));
        assert_eq!(fab.dropped(), &[(1, 3, 1460)]);
        assert_eq!(fab.frames().count(), 2);
        assert_eq!(fab.arrive(3).hdr.dst, 3);
    }

    #[test]
    fn a_point_to_point_link_delivers_to_the_other_end() {
        let mut fab: Fabric<()> =
            Fabric::new(2, BitRate(1_000_000_000), Duration::from_ns(1000), None);
        let (t, hop) = fab.send(Time(0), 1, frame(0, 9000));
        assert_eq!((t, hop), (Time(72_304_000 + 1_000_000), Hop::Node(0)));
        assert_eq!(fab.frames().count(), 1);
    }
}
