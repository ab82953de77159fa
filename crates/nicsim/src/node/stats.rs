//! A node's own counters (those not kept by a hardware model or the TCP).

use crate::hw::frame::FrameHeader;

/// Counted by the node as work completes; snapshots read them.
#[derive(Clone, Debug, Default)]
pub struct NodeStats {
    /// TCP segments the softirq put in an owned socket's backlog.
    pub socket_backlogged: u64,
    /// TCP segments the softirq put on a waiting reader's prequeue.
    pub prequeued: u64,
    /// Generator frames that reached the top of the receive path, and their bytes.
    pub raw_delivered: u64,
    pub raw_delivered_bytes: u64,
    /// Frames `netif_rx` dropped because the backlog was full.
    pub backlog_dropped: u64,
    pub backlog_dropped_bytes: u64,
    /// TCP payload that arrived for a flow with no socket here.
    pub no_socket_dropped_bytes: u64,
    pub payload_tx_bytes: u64,
    pub payload_rx_tcp_bytes: u64,
    /// Wire bytes (framing included) of every frame that reached this node's MACs, accepted
    /// or dropped: what its links carried in, the quantity the link rate bounds.
    pub wire_arrived_bytes: u64,
    pub copy_bytes: u64,
    pub wakeups: u64,
    /// Unpinned threads moved to another processor when they woke.
    pub migrations: u64,
    pub ipis_sent: u64,
    /// Connections this node opened by handshake, accepted, and saw finish.
    pub connections_opened: u64,
    pub connections_accepted: u64,
    pub connections_closed: u64,
    /// SYNs and handshake-ending ACKs dropped because the accept queue was full.
    pub listen_drops: u64,
    /// Bare ACKs that did not end SYN_RECV because the listener defers accept (TCP_DEFER_ACCEPT).
    pub deferred_acks: u64,
    /// Payload dropped on the way in (ring, backlog, no socket), by flow id.
    pub dropped_by_flow: Vec<u64>,
    /// Payload this node dropped on the way out, at a full transmit queue, by flow id.
    pub tx_dropped_by_flow: Vec<u64>,
    /// Frames dropped at a full transmit queue.
    pub tx_queue_drops: u64,
}

impl NodeStats {
    /// A frame addressed here was dropped: its payload is charged to its flow.
    pub fn count_drop(&mut self, h: &FrameHeader) {
        charge(&mut self.dropped_by_flow, h);
    }

    /// A frame this node sent was dropped at its full transmit queue.
    pub fn count_tx_drop(&mut self, h: &FrameHeader) {
        self.tx_queue_drops += 1;
        charge(&mut self.tx_dropped_by_flow, h);
    }
}

fn charge(by_flow: &mut Vec<u64>, h: &FrameHeader) {
    let f = h.flow as usize;
    if by_flow.len() <= f {
        by_flow.resize(f + 1, 0);
    }
    by_flow[f] += h.payload_bytes();
}
