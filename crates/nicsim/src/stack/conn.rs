//! A connected socket's state: its TCP endpoint, its peer, the threads waiting on it and its
//! timers; a listening socket's; and the socket table's bookkeeping of slots. What the node
//! does with them is in `socket`, `listen` and `reap`.

use crate::hw::frame::{DevId, FlowId, NodeAddr};
use crate::os::lock::SpinLock;
use crate::stack::tcp::Tcp;
use crate::stack::timers::TimerSet;
use crate::stack::Frame;
use std::collections::{BTreeMap, VecDeque};

/// Index of a connection's slot in its node's socket table. A slot is freed once nothing
/// names the connection any more (`stack/reap.rs`) and may then hold a later connection, so a
/// `ConnId` names a connection only while something holds it: the application (from socket()
/// or accept() until close()) or a queue, job or table of the kernel. An engine event, which
/// may outlive all of them, names a connection by its `cookie` instead.
pub type ConnId = usize;

/// Who runs a connection's TCP on a node with a connection-handoff NIC (handoff.md §2.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Owner {
    #[default]
    Host,
    /// The OS chose it, in the call that will issue its HANDOFF command.
    Chosen,
    /// Its HANDOFF command is on its way or queued on the NIC.
    Pending,
    Nic,
}

/// One connected TCP socket: the endpoint, its peer, the thread waiting on it, its timers.
#[derive(Clone, Debug)]
pub struct Conn {
    pub tcp: Tcp,
    /// Unique on its node for the whole run (Linux's socket cookie): what its timer events
    /// carry, so a stale one finds no connection once the slot holds another.
    pub cookie: u32,
    /// An application holds its descriptor: from socket(), or from accept() for a passive
    /// end, until close() (or, for a connect() that failed, until the application drops it).
    pub(crate) held: bool,
    /// TCP is done with it (`Node::retire` ran): its slot waits to be freed.
    pub(crate) finished: bool,
    /// The node at the other end.
    pub peer: NodeAddr,
    /// This end opened the connection (it holds an ephemeral port until it finishes).
    pub active: bool,
    /// The network device it sends and receives on.
    pub dev: DevId,
    /// A thread asleep until data (or the end of the stream) arrives, or until send space
    /// frees up or the handshake completes.
    pub(crate) reader: Option<usize>,
    /// The reader inside recv with the prequeue armed (Linux's `ucopy.task`): from its first
    /// sleep in the call until the call returns, segments queue for it.
    pub(crate) ucopy: Option<usize>,
    pub(crate) writer: Option<usize>,
    /// A thread in epoll_wait on a set holding this connection.
    pub(crate) poller: Option<usize>,
    pub(crate) timers: TimerSet,
    /// Its timers may have moved since they were last scheduled.
    pub(crate) dirty: bool,
    /// Payload the application has read from this socket.
    pub bytes_read: u64,
    /// Payload this end's TCP input accepted from the wire (duplicates included).
    pub rx_payload_bytes: u64,
    /// Payload this end handed to the driver (retransmissions included).
    pub tx_payload_bytes: u64,
    /// Who runs its TCP on a node with a handoff NIC, and whether a handoff was refused
    /// (never tried again, handoff.md §7.1).
    pub owner: Owner,
    pub handoff_failed: bool,
    /// With `smp.spinlocks`: the thread that owns the socket (`lock_sock`) while it copies,
    /// and the segments the softirq left in its backlog meanwhile (`sk_add_backlog`).
    pub(crate) owned_by: Option<usize>,
    pub(crate) backlog: VecDeque<Frame>,
    /// The socket's spinlock (`sk_lock.slock`): held by the softirq through TCP input
    /// (`bh_lock_sock`), so two processors' softirqs on one socket serialise on it.
    pub(crate) slock: SpinLock,
    /// The processor that last touched its shared state (`smp.coherence_lines`).
    pub(crate) last_cpu: Option<usize>,
    /// Free bytes in the last buffer on its send list (`org.buffers = bsd_mbuf`).
    pub(crate) tail_room: u64,
    /// Over the loopback interface: the flow id of the other end, on this same node.
    pub(crate) lo_peer: Option<FlowId>,
}

impl Conn {
    /// Whether a read would return now: data queued, or the end of the stream.
    pub fn readable(&self) -> bool {
        self.tcp.readable() > 0 || self.tcp.at_eof()
    }

    pub(crate) fn new(tcp: Tcp, peer: NodeAddr, dev: DevId) -> Self {
        Conn {
            tcp,
            cookie: 0,
            held: false,
            finished: false,
            peer,
            active: false,
            dev,
            reader: None,
            ucopy: None,
            writer: None,
            poller: None,
            timers: TimerSet::default(),
            dirty: false,
            bytes_read: 0,
            rx_payload_bytes: 0,
            tx_payload_bytes: 0,
            owner: Owner::Host,
            handoff_failed: false,
            owned_by: None,
            backlog: VecDeque::new(),
            slock: SpinLock::default(),
            last_cpu: None,
            tail_room: 0,
            lo_peer: None,
        }
    }
}

/// A node's listening socket.
#[derive(Clone, Debug, Default)]
pub struct Listener {
    pub backlog: u32,
    /// TCP_NODELAY, which the connections it accepts inherit.
    pub(crate) nodelay: bool,
    /// TCP_DEFER_ACCEPT: a bare ACK does not end SYN_RECV; the first data does.
    pub(crate) defer_accept: bool,
    /// Connections whose handshake completed, waiting for accept().
    pub(crate) ready: VecDeque<ConnId>,
    /// Threads blocked in accept(), woken one at a time.
    pub(crate) waiters: VecDeque<usize>,
}

impl Listener {
    /// Linux's `sk_acceptq_is_full`: more than `backlog` connections wait.
    pub(crate) fn full(&self) -> bool {
        self.ready.len() > self.backlog as usize
    }
}

/// The socket table's bookkeeping (`stack/reap.rs` frees and reuses slots).
#[derive(Clone, Debug, Default)]
pub struct Slots {
    /// Freed slots, the last freed taken first.
    pub(crate) free: Vec<ConnId>,
    /// Finished connections whose slots are not freed yet.
    pub(crate) finished: Vec<ConnId>,
    /// How many finished connections start the next sweep.
    pub(crate) sweep_at: usize,
    /// Each connection's slot by its cookie.
    pub(crate) by_cookie: BTreeMap<u32, ConnId>,
    /// Sockets opened so far (the last cookie given), open now (not finished), and the most
    /// open at once.
    pub opened: u32,
    pub open: u32,
    pub peak_open: u32,
}
