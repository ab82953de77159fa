//! UDP on a node: opening a socket on a flow, a datagram's output to the driver, freeing the
//! send buffer when the driver reclaims it, and input on the protocol processor. The socket's
//! own rules are in `udp`.

use crate::engine::Engine;
use crate::hw::frame::{FlowId, NodeAddr};
use crate::node::netdev::DevId;
use crate::node::{Ev, Node};
use crate::stack::udp::{UdpId, UdpSock};
use crate::stack::Frame;

impl Node {
    /// A UDP socket for flow `flow` to node `peer`; its index here.
    pub fn open_udp(&mut self, flow: FlowId, peer: NodeAddr, dev: DevId) -> UdpId {
        let cfg = &self.cfg;
        let overhead = if cfg.tcp.charge_truesize {
            cfg.tcp.skb_overhead_bytes
        } else {
            0
        };
        let buffer = cfg.udp.socket_buffer_bytes;
        self.udp
            .push(UdpSock::new(flow, peer, buffer, overhead, dev));
        let id = self.udp.len() - 1;
        self.udp_flows.insert(flow, id);
        id
    }

    /// The UDP socket a flow id names here, if any.
    pub fn udp_of(&self, flow: FlowId) -> Option<UdpId> {
        self.udp_flows.get(flow)
    }

    /// A datagram's frame to the driver, with its socket charged until it is reclaimed (with
    /// local flow control; without it, BSD's: the datagram leaves the socket at once).
    pub(crate) fn udp_xmit(&mut self, eng: &mut Engine<Ev>, u: UdpId, len: u64) {
        let charged = self.cfg.tx.local_flow_control;
        let s = &mut self.udp[u];
        s.sent(len, charged);
        let d = s.dev;
        let dev = &mut self.devs[d];
        let f = Frame::udp(s.flow, len, dev.addr, s.peer);
        self.stats.payload_tx_bytes += len;
        if charged {
            dev.udp_unreclaimed.push_back((dev.tx_queued, u, len));
        }
        self.queue_tx(eng, d, f);
    }

    /// Whether UDP socket `u` may send now: room in its send buffer and, with local flow
    /// control, in its device's transmit queue.
    pub(crate) fn udp_may_send(&self, u: UdpId) -> bool {
        let s = &self.udp[u];
        s.can_send() && !(self.cfg.tx.local_flow_control && self.tx_queue_full(s.dev))
    }

    /// `n` more transmitted frames were reclaimed: their datagrams' send buffer is free, and
    /// a sender that slept on it goes on.
    pub(crate) fn udp_reclaimed(&mut self, p: usize, d: DevId) {
        while let Some(&(seq, u, len)) = self.devs[d].udp_unreclaimed.front() {
            if seq >= self.devs[d].tx_reclaimed {
                break;
            }
            self.devs[d].udp_unreclaimed.pop_front();
            self.udp[u].reclaimed(len);
            self.wake_udp_writer(p, u);
        }
        // Senders asleep on the full queue may have nothing of their own left to reclaim.
        if self.cfg.tx.local_flow_control && self.cfg.tx.queue_frames > 0 {
            for u in 0..self.udp.len() {
                if self.udp[u].dev == d {
                    self.wake_udp_writer(p, u);
                }
            }
        }
    }

    /// UDP socket `u`'s sleeping sender goes on, if it may send now.
    fn wake_udp_writer(&mut self, p: usize, u: UdpId) {
        if self.udp[u].writer.is_some() && self.udp_may_send(u) {
            let t = self.udp[u].writer.take().expect("a sleeping sender");
            self.unblock(p, t);
        }
    }

    /// UDP input on the protocol processor: queue the datagram for its socket, or drop it.
    pub(crate) fn udp_input(&mut self, p: usize, f: Frame) {
        let len = f.hdr.payload_bytes();
        let Some(u) = self.udp_of(f.hdr.flow) else {
            self.stats.no_socket_dropped_bytes += len;
            self.stats.count_drop(&f.hdr);
            return;
        };
        if !self.udp[u].deliver(len) {
            self.stats.count_drop(&f.hdr);
            return;
        }
        if let Some(t) = self.udp[u].reader.take() {
            self.unblock(p, t);
        }
    }
}
