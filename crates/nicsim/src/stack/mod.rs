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

/// A node's sockets by flow id, in pages of `FLOW_PAGE` flows (a slot's index plus one; 0 for
/// none). Flow ids only grow and each names one connection for the run, so a page whose
/// sockets have all gone is dropped: the map holds the pages of the flows open now, not one
/// entry per connection the run opened.
#[derive(Clone, Debug, Default)]
pub struct FlowMap(Vec<Option<Box<FlowPage>>>);

const FLOW_PAGE: usize = 64;

#[derive(Clone, Debug)]
struct FlowPage {
    index: [u32; FLOW_PAGE],
    used: u32,
}

impl FlowMap {
    #[inline]
    pub fn get(&self, flow: crate::hw::frame::FlowId) -> Option<usize> {
        let f = flow as usize;
        match self.0.get(f / FLOW_PAGE) {
            Some(Some(page)) => match page.index[f % FLOW_PAGE] {
                0 => None,
                i => Some(i as usize - 1),
            },
            _ => None,
        }
    }

    pub fn insert(&mut self, flow: crate::hw::frame::FlowId, index: usize) {
        let (p, i) = (flow as usize / FLOW_PAGE, flow as usize % FLOW_PAGE);
        if self.0.len() <= p {
            self.0.resize(p + 1, None);
        }
        let page = self.0[p].get_or_insert_with(|| {
            Box::new(FlowPage {
                index: [0; FLOW_PAGE],
                used: 0,
            })
        });
        page.used += (page.index[i] == 0) as u32;
        page.index[i] = index as u32 + 1;
    }

    /// Flow `flow` has no socket here any more.
    pub fn remove(&mut self, flow: crate::hw::frame::FlowId) {
        let (p, i) = (flow as usize / FLOW_PAGE, flow as usize % FLOW_PAGE);
        let Some(Some(page)) = self.0.get_mut(p) else {
            return;
        };
        if page.index[i] != 0 {
            page.index[i] = 0;
            page.used -= 1;
            if page.used == 0 {
                self.0[p] = None;
            }
        }
    }

    /// Pages held (for tests: the map's size follows the flows open).
    pub fn pages(&self) -> usize {
        self.0.iter().flatten().count()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flow_page_goes_when_its_last_socket_does_and_comes_back_for_a_new_one() {
        let mut m = FlowMap::default();
        m.insert(3, 0);
        m.insert(70, 1);
        assert_eq!(
            (m.get(3), m.get(70), m.get(4), m.get(1 << 20)),
            (Some(0), Some(1), None, None)
        );
        assert_eq!(m.pages(), 2);
        m.insert(3, 5);
        assert_eq!(m.get(3), Some(5));
        m.remove(3);
        m.remove(3);
        assert_eq!((m.get(3), m.pages()), (None, 1));
        m.insert(5, 2);
        assert_eq!((m.get(5), m.get(70), m.pages()), (Some(2), Some(1), 2));
    }
}
