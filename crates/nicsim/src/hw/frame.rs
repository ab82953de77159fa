//! What the hardware carries: frames with a generic header and an opaque payload. The NIC,
//! the DMA engine and the link read the header only; what the payload means (a TCP segment,
//! nothing) is the stack's business.

/// A flow (connection) on one node; up to 65,535, which keeps work items small.
pub type FlowId = u16;

/// The part of a frame the hardware may look at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameHeader {
    /// The flow (connection) the frame belongs to.
    pub flow: FlowId,
    /// IP datagram bytes: what the DMA and the wire move (they add Ethernet framing).
    pub ip_bytes: u64,
    /// Transport payload bytes, for byte accounting.
    pub payload_bytes: u64,
    /// The sender asked for prompt delivery (TCP PUSH): an accumulating NIC flushes on it.
    pub push: bool,
    /// A pure acknowledgement: a NIC that runs the protocol may consume it itself.
    pub pure_ack: bool,
}

#[derive(Clone, Copy, Debug)]
pub struct Frame<P> {
    pub hdr: FrameHeader,
    pub payload: P,
}
