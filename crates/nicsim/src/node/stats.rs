//! A node's own counters (those not kept by a hardware model or the TCP), what the freed
//! connection slots held, and the totals over the node's connections that include them.

use crate::hw::frame::{FrameHeader, NodeAddr};
use crate::node::Node;
use crate::os::lock::LockStats;
use crate::stack::conn::Conn;
use crate::stack::tcp::TcpStats;

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
    /// TCP timer events that found their connection's slot freed (they fire nothing).
    pub stale_timers: u64,
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

/// What the connections whose slots were freed (`stack/reap.rs`) had counted, folded in when
/// each was freed, so that every total over connections stays whole after its slot holds
/// another connection.
#[derive(Clone, Debug, Default)]
pub struct Retired {
    pub tcp: TcpStats,
    pub socket_lock: LockStats,
    pub bytes_read: u64,
    /// Payload that arrived and was never read.
    pub unread_bytes: u64,
    /// Payload handed to the driver and taken from the wire, by the peer's fabric address.
    pub tx_payload_bytes_to: Vec<u64>,
    pub rx_payload_bytes_from: Vec<u64>,
}

impl Retired {
    /// Connection `c`'s counts, as its slot is freed.
    pub(crate) fn fold(&mut self, c: &Conn) {
        self.tcp.add(&c.tcp.stats);
        self.socket_lock.add(&c.slock.stats);
        self.bytes_read += c.bytes_read;
        self.unread_bytes += c.tcp.readable();
        let peer = c.peer as usize;
        for v in [
            &mut self.tx_payload_bytes_to,
            &mut self.rx_payload_bytes_from,
        ] {
            if v.len() <= peer {
                v.resize(peer + 1, 0);
            }
        }
        self.tx_payload_bytes_to[peer] += c.tx_payload_bytes;
        self.rx_payload_bytes_from[peer] += c.rx_payload_bytes;
    }

    /// Payload the freed connections to fabric address `peer` sent and received.
    pub fn payload_bytes_with(&self, peer: NodeAddr) -> (u64, u64) {
        let at = |v: &Vec<u64>| v.get(peer as usize).copied().unwrap_or(0);
        (
            at(&self.tx_payload_bytes_to),
            at(&self.rx_payload_bytes_from),
        )
    }
}

/// Totals over the node's connections: those in the socket table and those freed.
impl Node {
    /// A TCP counter summed over every connection the node had.
    pub fn tcp_total(&self, f: impl Fn(&TcpStats) -> u64) -> u64 {
        self.conns.iter().map(|c| f(&c.tcp.stats)).sum::<u64>() + f(&self.retired.tcp)
    }

    /// A socket-lock counter summed over every connection the node had.
    pub fn socket_lock_total(&self, f: impl Fn(&LockStats) -> u64) -> u64 {
        self.conns.iter().map(|c| f(&c.slock.stats)).sum::<u64>() + f(&self.retired.socket_lock)
    }

    /// Payload the applications read from the node's connections.
    pub fn app_bytes_read(&self) -> u64 {
        self.conns.iter().map(|c| c.bytes_read).sum::<u64>() + self.retired.bytes_read
    }

    /// Payload the node's connections handed to the driver (retransmissions included).
    pub fn payload_handed_bytes(&self) -> u64 {
        let freed: u64 = self.retired.tx_payload_bytes_to.iter().sum();
        self.conns.iter().map(|c| c.tx_payload_bytes).sum::<u64>() + freed
    }

    /// Payload queued in the node's sockets and not yet read.
    pub fn unread_bytes(&self) -> u64 {
        self.conns.iter().map(|c| c.tcp.readable()).sum::<u64>() + self.retired.unread_bytes
    }
}
