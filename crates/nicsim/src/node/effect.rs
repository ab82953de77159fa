//! What a job stands for: the state change the node applies when the job's work is done.

use crate::node::events::TimerKind;
use crate::node::netdev::DevId;
use crate::stack::conn::ConnId;
use crate::stack::tcp::Segment;
use crate::stack::udp::UdpId;
use crate::stack::Frame;

/// What happens when a job completes: the state change its work stands for.
#[derive(Clone, Copy, Debug)]
pub enum Effect {
    None,
    Copied {
        conn: ConnId,
        bytes: u64,
        push: bool,
        /// sendfile(): the socket takes page references, nothing is copied.
        zero_copy: bool,
    },
    Read {
        conn: ConnId,
        bytes: u64,
    },
    Xmit(Segment),
    RxPacket(Frame),
    Wake(usize),
    /// Device `dev`'s transmitted frames are reclaimed.
    Reclaim {
        dev: DevId,
        frames: u32,
    },
    PollEnd,
    Timer(ConnId, TimerKind),
    ComputeDone,
    Connect(ConnId),
    Accept,
    Close(ConnId),
    UdpSent {
        sock: UdpId,
        bytes: u64,
    },
    UdpRead(UdpId),
    /// The handoff NIC's processor finished the task it is serving.
    Firmware,
    /// A segment for a socket a process owns went to its backlog (softirq).
    Backlogged(Frame),
    /// A segment for a reader waiting in recv went to its prequeue (softirq).
    Prequeued(Frame),
    /// The socket's owner processed a backlogged segment at release_sock (process context),
    /// or the reader a prequeued one.
    BacklogRx(Frame),
    /// An owned connection's NIC slot is freed (it reached TIME_WAIT or closed).
    Released(ConnId),
}
