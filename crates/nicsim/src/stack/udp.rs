//! UDP sockets, Linux 2.6 style: one datagram per call, no acknowledgements and no flow
//! control from the peer. A sender sleeps while its datagrams not yet reclaimed by the driver
//! fill its send buffer (`sock_alloc_send_skb`: it may allocate while `wmem < sndbuf`); a
//! datagram that would overfill the receiver's buffer is dropped and counted
//! (`sock_queue_rcv_skb`: `rmem + truesize >= rcvbuf`). Buffers are charged by truesize as
//! TCP's are (`tcp.skb_overhead_bytes`, `tcp.charge_truesize`).
//!
//! Without local flow control (`tx.local_flow_control`, BSD's UDP) a datagram is not charged
//! at all. Not modelled: IP fragmentation (a datagram fits one frame), UDP-Lite, corking. State only; the node's
//! glue (output, reclaim, input) is in `datagram`.

use crate::derived::UDP_IP_HEADER_BYTES;
use crate::hw::frame::{FlowId, NodeAddr};
use crate::stack::{Frame, Payload};
use std::collections::VecDeque;

/// Index of a UDP socket in its node's table.
pub type UdpId = usize;

/// One UDP socket bound to a flow. Sans-IO: it keeps the buffers' accounting and queue.
#[derive(Clone, Debug)]
pub struct UdpSock {
    pub flow: FlowId,
    pub peer: NodeAddr,
    /// The network device (index on its node) it sends and receives on.
    pub dev: usize,
    sndbuf: u64,
    rcvbuf: u64,
    /// Bytes charged for sent datagrams the driver has not reclaimed.
    wmem: u64,
    /// Bytes charged for datagrams queued for the reader.
    rmem: u64,
    /// Payload bytes an skb is charged beyond its payload.
    overhead: u64,
    queue: VecDeque<u32>,
    pub(crate) reader: Option<usize>,
    pub(crate) writer: Option<usize>,
    /// Payload handed to the driver, queued for the reader, dropped on a full buffer, read.
    pub tx_payload_bytes: u64,
    pub rx_payload_bytes: u64,
    pub dropped_bytes: u64,
    pub dropped_datagrams: u64,
    pub bytes_read: u64,
}

impl UdpSock {
    pub fn new(flow: FlowId, peer: NodeAddr, buffer_bytes: u64, overhead: u64, dev: usize) -> Self {
        UdpSock {
            flow,
            peer,
            dev,
            sndbuf: buffer_bytes,
            rcvbuf: buffer_bytes,
            wmem: 0,
            rmem: 0,
            overhead,
            queue: VecDeque::new(),
            reader: None,
            writer: None,
            tx_payload_bytes: 0,
            rx_payload_bytes: 0,
            dropped_bytes: 0,
            dropped_datagrams: 0,
            bytes_read: 0,
        }
    }

    pub fn truesize(&self, len: u64) -> u64 {
        len + self.overhead
    }

    /// Bytes charged for sent datagrams the driver has not reclaimed.
    pub fn unreclaimed_bytes(&self) -> u64 {
        self.wmem
    }

    /// Whether a datagram may be allocated now (else the sender sleeps).
    pub fn can_send(&self) -> bool {
        self.wmem < self.sndbuf
    }

    /// A datagram of `len` bytes left for the driver, charged to the send buffer until it is
    /// reclaimed, or (`charged` false: BSD) not at all.
    pub fn sent(&mut self, len: u64, charged: bool) {
        if charged {
            self.wmem += self.truesize(len);
        }
        self.tx_payload_bytes += len;
    }

    /// The driver reclaimed a charged datagram of `len` bytes.
    pub fn reclaimed(&mut self, len: u64) {
        self.wmem -= self.truesize(len);
    }

    /// A datagram of `len` bytes arrived: queued (true) or dropped on a full buffer.
    pub fn deliver(&mut self, len: u64) -> bool {
        let ts = self.truesize(len);
        if self.rmem + ts >= self.rcvbuf {
            self.dropped_bytes += len;
            self.dropped_datagrams += 1;
            return false;
        }
        self.rmem += ts;
        self.rx_payload_bytes += len;
        self.queue.push_back(len as u32);
        true
    }

    /// Length of the datagram the next read returns, if one waits.
    pub fn next_len(&self) -> Option<u64> {
        self.queue.front().map(|&l| l as u64)
    }

    /// The reader took the next datagram.
    pub fn read(&mut self) -> u64 {
        let len = self.queue.pop_front().expect("a datagram to read") as u64;
        self.rmem -= self.truesize(len);
        self.bytes_read += len;
        len
    }
}

impl Frame {
    /// A datagram of `len` payload bytes of flow `flow`, from node `src` to `dst`.
    pub fn udp(flow: FlowId, len: u64, src: NodeAddr, dst: NodeAddr) -> Frame {
        let mut hdr = crate::hw::frame::FrameHeader::new(
            flow,
            dst,
            len + UDP_IP_HEADER_BYTES,
            len,
            true,
            false,
        );
        hdr.src = src;
        Frame {
            hdr,
            payload: Payload::Udp,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_receive_buffer_drops_and_counts_and_reading_makes_room() {
        let mut s = UdpSock::new(1, 0, 10_000, 200, 0);
        // 4,000 + 200 per datagram: two fit, the third would reach the limit.
        assert!(s.deliver(4000) && s.deliver(4000));
        assert!(!s.deliver(4000));
        assert_eq!((s.dropped_datagrams, s.dropped_bytes), (1, 4000));
        assert_eq!(s.next_len(), Some(4000));
        assert_eq!(s.read(), 4000);
        assert!(s.deliver(4000));
        assert_eq!((s.rx_payload_bytes, s.bytes_read), (12_000, 4000));
    }

    #[test]
    fn a_sender_may_allocate_while_its_buffer_is_below_the_limit() {
        let mut s = UdpSock::new(1, 0, 10_000, 0, 0);
        s.sent(6000, true);
        assert!(s.can_send());
        s.sent(6000, true);
        assert!(!s.can_send(), "12,000 charged against 10,000");
        s.reclaimed(6000);
        assert!(s.can_send());
        // Without local flow control a datagram is never charged: the sender never sleeps.
        s.sent(60_000, false);
        assert!(s.can_send());
        assert_eq!(s.tx_payload_bytes, 72_000);
    }
}
