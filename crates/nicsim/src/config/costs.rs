//! The cost profile as the core receives it: every software stage's work per packet and per
//! byte, its category, and the category scales (`python/nicsim/profiles/*.toml` declares
//! them with their sources).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Copy,
    Tcpip,
    Driver,
    Os,
    App,
    /// Connection setup and teardown: connect, accept, SYN and child-socket work, close.
    Conn,
}

/// How many cost categories there are (`Category as usize` indexes per-category arrays).
pub const CATEGORY_COUNT: usize = 6;

/// One work item of the cost profile: `instructions = i_pkt + i_byte * bytes` and
/// `references = r_pkt + r_byte * bytes`, accounted to `category`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageCost {
    pub category: Category,
    pub i_pkt: f64,
    pub i_byte: f64,
    pub r_pkt: f64,
    pub r_byte: f64,
    pub pio_reads: u32,
    pub pio_writes: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scale {
    pub copy: f64,
    pub tcpip: f64,
    pub driver: f64,
    pub os: f64,
    /// Connection setup and teardown; not fitted (no calibration row opens a connection).
    pub conn: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Costs {
    pub scale: Scale,
    pub irq_entry: StageCost,
    pub irq_exit: StageCost,
    pub ipi_handler: StageCost,
    pub rx_hardirq: StageCost,
    pub rx_schedule: StageCost,
    pub softirq_dispatch: StageCost,
    pub rx_poll: StageCost,
    pub rx_poll_end: StageCost,
    pub skb_alloc: StageCost,
    pub skb_free: StageCost,
    pub rx_ip: StageCost,
    pub rx_tcp: StageCost,
    pub csum: StageCost,
    /// Checksum folded into the sender's copy when the NIC does not compute it.
    pub tx_csum_fold: StageCost,
    /// The softirq's payload copy into the socket (`rx.softirq_payload_copy`).
    pub skb_copy: StageCost,
    pub rx_wake: StageCost,
    pub context_switch: StageCost,
    pub rx_syscall: StageCost,
    pub rx_copy: StageCost,
    pub tx_syscall: StageCost,
    pub tx_copy: StageCost,
    pub tx_tcp: StageCost,
    pub tx_ip: StageCost,
    pub tx_dev: StageCost,
    pub tx_complete: StageCost,
    pub tx_ack: StageCost,
    pub timer: StageCost,
    pub app_message: StageCost,
    /// connect(): the system call, the port search and the SYN's construction.
    pub connect_syscall: StageCost,
    /// A listener's work on a SYN: the request socket and the SYN-ACK's construction.
    pub tcp_syn: StageCost,
    /// The ACK that ends SYN_RECV: the child socket, cloned from the listener.
    pub tcp_child: StageCost,
    /// accept(): the system call, dequeuing the child and installing its descriptor.
    pub accept_syscall: StageCost,
    /// close(): the system call and the FIN's queueing.
    pub close_syscall: StageCost,
    /// The socket's destruction (at TIME_WAIT or LAST_ACK's end): timewait bucket, sk_free.
    pub tcp_teardown: StageCost,
    /// GRO's work per received frame: matching it to the flow being merged.
    pub gro_receive: StageCost,
    /// A web server's own work per request (parsing, the file lookup, logging).
    pub http_request: StageCost,
    /// epoll_wait(): the call, the ready-list check, copying the events out.
    pub epoll_wait: StageCost,
    /// A datagram's UDP output: udp_sendmsg, ip_append_data, udp_push_pending_frames.
    pub udp_tx: StageCost,
    /// A datagram's UDP input: udp_rcv, the socket lookup, sock_queue_rcv_skb.
    pub udp_rx: StageCost,
}
