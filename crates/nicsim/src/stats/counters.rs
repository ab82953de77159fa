//! A node's own counters (those not kept by a hardware model or the TCP).

/// Counted by the node as work completes; snapshots read them.
#[derive(Clone, Debug, Default)]
pub struct NodeStats {
    /// Generator frames that reached the top of the receive path, and their bytes.
    pub raw_delivered: u64,
    pub raw_delivered_bytes: u64,
    /// Frames `netif_rx` dropped because the backlog was full.
    pub backlog_dropped: u64,
    pub backlog_dropped_bytes: u64,
    pub payload_tx_bytes: u64,
    pub payload_rx_tcp_bytes: u64,
    pub copy_bytes: u64,
    pub wakeups: u64,
    pub ipis_sent: u64,
}
