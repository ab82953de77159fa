//! Software above the hardware: the NIC driver, the receive softirq, the socket glue and the
//! TCP endpoint. What each stage costs comes from the cost profile; where it runs, from the
//! placement.

pub mod driver;
pub mod net_rx;
pub mod socket;
pub mod softirq;
pub mod tcp;
pub mod timers;

use crate::hw::frame::{FlowId, FrameHeader};
use tcp::Segment;

/// What a frame carries above the hardware.
#[derive(Clone, Copy, Debug)]
pub enum Payload {
    Tcp(Segment),
    /// A generator's frame (host-path §7.9): it climbs the receive path without a transport.
    Raw,
}

/// A frame as the stack sees it.
pub type Frame = crate::hw::frame::Frame<Payload>;

/// The one TCP connection's flow id (more connections get their own).
pub const FLOW: FlowId = 1;

impl Frame {
    /// A TCP segment behind `header_bytes` of IP and TCP headers.
    pub fn tcp(seg: Segment, header_bytes: u64) -> Frame {
        Frame {
            hdr: FrameHeader::new(
                FLOW,
                seg.len as u64 + header_bytes,
                seg.len as u64,
                seg.push,
                seg.is_pure_ack(),
            ),
            payload: Payload::Tcp(seg),
        }
    }

    /// A frame without a transport: `ip_bytes` of datagram, `payload_bytes` of it payload.
    pub fn raw(ip_bytes: u64, payload_bytes: u64) -> Frame {
        Frame {
            hdr: FrameHeader::new(0, ip_bytes, payload_bytes, false, false),
            payload: Payload::Raw,
        }
    }

    pub fn is_raw(&self) -> bool {
        matches!(self.payload, Payload::Raw)
    }
}
