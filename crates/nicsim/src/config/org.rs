//! The host stack's organisation (stacks.md Part B): the mechanisms that differ between BSD,
//! Streams and their variants. The stage costs of each are data (`python/nicsim/orgs/`).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Org {
    /// How a send's data is put in kernel buffers.
    pub buffers: Buffers,
    /// Buffers TCP output allocates per data segment besides the data's own.
    pub segment_buffers: u32,
    /// When a reader blocked in a receive call is woken.
    pub wakeup: Wakeup,
    /// Sends leave through a service routine run from the software interrupt (classic
    /// Streams, §B.3: `putq` from thread context raises it) rather than from the caller.
    pub tx_service: bool,
    /// IP input and output hold one node-wide lock (with `smp.spinlocks`): classic Streams'
    /// one stream between IP and DLPI, whose queue-level synchronisation cannot be switched
    /// off, serialises IP (§B.3).
    pub ip_serialised: bool,
    /// The demultiplexed stack's one private TCP lock, over the TCP context list (§B.4):
    /// held by the anchor driver's demultiplexing of each received packet (`rx_ip`) and by
    /// the timer routine's walk (`timer`), with `smp.spinlocks`.
    pub context_list_lock: bool,
    /// TCP runs in a library in the application's process (user-level TCP, §B.5): the
    /// kernel's demultiplexing driver queues each segment for its socket and wakes the
    /// process, which runs TCP input itself, and every segment crosses into the kernel alone.
    pub tcp_in_library: bool,
    /// Which CPU takes a loopback segment's input.
    pub loopback_input: LoopbackInput,
    /// How long a send or receive call holds its socket's spinlock (with `smp.spinlocks`).
    pub socket_lock: SocketLock,
    /// The ILP library holds small writes until it has a full segment (§B.6's accumulation):
    /// each held write is copied into the library's buffer, and one call passes the segment.
    pub ilp_accumulate: bool,
}

/// The socket spinlock's hold time (`org.socket_lock`, stacks.md §B.7's Socket class).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SocketLock {
    /// Only around TCP input (`bh_lock_sock`): Linux's call marks the socket owned
    /// (`lock_sock`) and input meanwhile goes to the backlog instead of spinning.
    Input,
    /// Also across each send or receive call's work, copies included: AIX's BSD sockets hold
    /// the socket lock over `sosend`/`soreceive` and their `uiomove`, so input on another CPU
    /// spins until the call's copy is done.
    Call,
}

/// Where loopback input runs on an SMP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopbackInput {
    /// The sending CPU's own backlog and softirq (Linux's `netif_rx` from `loopback_xmit`).
    SenderCpu,
    /// BSD's one IP input queue (`looutput`: `ipintrq` and `schednetisr`), served by the
    /// software interrupt on whichever CPU takes it: an idle host CPU if there is one (its
    /// idle loop runs pending software interrupts, no IPI), else the sender's.
    AnyCpu,
}

/// When the receive path wakes a reader whose call is not complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wakeup {
    /// At every segment that brings data (BSD, Linux, classic Streams).
    PerSegment,
    /// Once the call can complete (the demultiplexed stack's M_READ, §B.4 strategy 2): when
    /// the data waiting cover what the call still wants, or half the receive buffer (a call
    /// larger than the window could never fill), or the stream ends.
    PerCall,
    /// When TCP acknowledges what it holds (§B.4 strategy 1): at each immediate ACK (every
    /// second full segment) and each delayed ACK's expiry.
    PerAck,
    /// When the data cover the whole call, or a segment the sender pushed arrives (§B.4
    /// strategy 4: the Stream-Head's forced fill, with the sender's push as its flush).
    FillOrPush,
}

/// The kernel buffers a send allocates (each costs one `skb_alloc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Buffers {
    /// Linux: one sk_buff per copy into the socket.
    Skb,
    /// BSD on AIX (§B.2): clusters and small mbufs by size, new data first appended to the
    /// free tail of the last buffer on the send list.
    BsdMbuf,
    /// Streams (§B.3, §B.7): the Stream-Head cannot see TCP's send list, so every write
    /// allocates its data block and the M_PROTO block carrying T_DATA_REQ.
    StreamsMblk,
}
