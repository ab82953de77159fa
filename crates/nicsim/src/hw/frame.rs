//! What the hardware carries: frames with a generic header and an opaque payload. The NIC,
//! the DMA engine and the link read the header only; what the payload means (a TCP segment,
//! nothing) is the stack's business.

/// A flow (connection); both ends use the same id. 32 bits keep the frame header at 16 bytes.
pub type FlowId = u32;
/// A node's address on the fabric (its MAC, in effect); up to 255 nodes.
pub type NodeAddr = u8;

/// A network device's index in its node's table (a NIC, or one receive queue of it with RSS).
pub type DevId = usize;

/// The part of a frame the hardware may look at. Sizes are kept in 32 bits (a datagram is
/// at most 4 GiB) so that a frame with a TCP segment stays at 48 bytes: frames are copied
/// through every queue on the path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameHeader {
    /// The flow (connection) the frame belongs to.
    pub flow: FlowId,
    /// The node the frame is addressed to: what a switch forwards on.
    pub dst: NodeAddr,
    /// The node that sent it (a listener learns its new peer from the SYN).
    pub src: NodeAddr,
    ip_bytes: u32,
    payload_bytes: u32,
    /// The sender asked for prompt delivery (TCP PUSH): an accumulating NIC flushes on it.
    pub push: bool,
    /// A pure acknowledgement: a NIC that runs the protocol may consume it itself.
    pub pure_ack: bool,
}

impl FrameHeader {
    pub fn new(
        flow: FlowId,
        dst: NodeAddr,
        ip_bytes: u64,
        payload_bytes: u64,
        push: bool,
        pure_ack: bool,
    ) -> Self {
        let size = |b: u64| u32::try_from(b).expect("a frame is at most 4 GiB");
        FrameHeader {
            flow,
            dst,
            src: 0,
            ip_bytes: size(ip_bytes),
            payload_bytes: size(payload_bytes),
            push,
            pure_ack,
        }
    }

    /// IP datagram bytes: what the DMA and the wire move (they add Ethernet framing).
    pub fn ip_bytes(&self) -> u64 {
        self.ip_bytes as u64
    }

    /// The frame carries `bytes` more payload (receive offload merged another frame into it).
    pub fn grow(&mut self, bytes: u64) {
        let add = u32::try_from(bytes).expect("a frame is at most 4 GiB");
        self.ip_bytes += add;
        self.payload_bytes += add;
    }

    /// Transport payload bytes, for byte accounting.
    pub fn payload_bytes(&self) -> u64 {
        self.payload_bytes as u64
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Frame<P> {
    pub hdr: FrameHeader,
    pub payload: P,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tcp_sized_frame_stays_at_48_bytes() {
        // Frames move through every queue on the path; a 32-byte payload plus the header.
        assert_eq!(std::mem::size_of::<FrameHeader>(), 16);
        assert_eq!(std::mem::size_of::<Frame<[u64; 4]>>(), 48);
    }
}
