//! Software above the hardware: the NIC driver, the receive softirq, the socket glue and the
//! TCP endpoint. What each stage costs comes from the cost profile; where it runs, from the
//! placement.

pub mod buffers;
pub mod conn;
pub mod datagram;
pub mod driver;
pub mod gro;
pub mod listen;
pub mod net_rx;
pub mod reap;
pub mod socket;
pub mod softirq;
pub mod tcp;
pub mod timers;
pub mod udp;

use crate::hw::frame::{FrameHeader, NodeAddr};
use tcp::Segment;

/// What a frame carries above the hardware.
#[derive(Clone, Copy, Debug)]
pub enum Payload {
    Tcp(Segment),
    /// A UDP datagram (its length is the header's payload bytes).
    Udp,
    /// A generator's frame (host-path §7.9): it climbs the receive path without a transport.
    Raw,
}

/// A node's sockets by flow id (index plus one; 0 for none).
#[derive(Clone, Debug, Default)]
pub struct FlowMap(Vec<u32>);

impl FlowMap {
    pub fn get(&self, flow: crate::hw::frame::FlowId) -> Option<usize> {
        match self.0.get(flow as usize) {
            Some(&i) if i > 0 => Some(i as usize - 1),
            _ => None,
        }
    }

    pub fn insert(&mut self, flow: crate::hw::frame::FlowId, index: usize) {
        let f = flow as usize;
        if self.0.len() <= f {
            self.0.resize(f + 1, 0);
        }
        self.0[f] = index as u32 + 1;
    }

    /// Flow `flow` has no socket here any more.
    pub fn remove(&mut self, flow: crate::hw::frame::FlowId) {
        if let Some(i) = self.0.get_mut(flow as usize) {
            *i = 0;
        }
    }
}

/// A frame as the stack sees it.
pub type Frame = crate::hw::frame::Frame<Payload>;

impl Frame {
    /// A TCP segment behind `header_bytes` of IP and TCP headers, from node `src` to `dst`.
    /// SYN and FIN are pushed: an accumulating NIC flushes on them.
    pub fn tcp(seg: Segment, header_bytes: u64, src: NodeAddr, dst: NodeAddr) -> Frame {
        let mut hdr = FrameHeader::new(
            seg.flow,
            dst,
            seg.len as u64 + header_bytes,
            seg.len as u64,
            seg.push || seg.ctl != 0,
            seg.is_pure_ack(),
        );
        hdr.src = src;
        Frame {
            hdr,
            payload: Payload::Tcp(seg),
        }
    }

    /// A frame without a transport for node `dst`: `ip_bytes` of datagram, `payload_bytes` of
    /// it payload. Flow 0 is no connection.
    pub fn raw(dst: NodeAddr, ip_bytes: u64, payload_bytes: u64) -> Frame {
        Frame {
            hdr: FrameHeader::new(0, dst, ip_bytes, payload_bytes, false, false),
            payload: Payload::Raw,
        }
    }

    pub fn is_raw(&self) -> bool {
        matches!(self.payload, Payload::Raw)
    }
}
