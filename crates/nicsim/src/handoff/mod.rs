//! The connection-handoff NIC (Kim & Rixner 2006, handoff.md): one NIC processor that both
//! forwards host packets, as a conventional programmable NIC does, and runs TCP for the
//! connections the OS has handed to it. The node keeps one TCP endpoint per connection;
//! ownership decides which processor runs it. Pure parts (queues, lookup, load control)
//! are here as components; `firmware` is the NIC's side and `host` the OS's.

pub mod device;
pub mod firmware;
pub mod host;
pub mod load_control;
pub mod lookup;
pub mod queues;

use crate::config::Config;
use crate::derived;
use crate::hw::dma::Chan;
use crate::stack::conn::ConnId;
use crate::stack::tcp::Segment;
use crate::stack::Frame;
use crate::units::{Duration, Time};
use load_control::{LoadControl, LoadState};
use lookup::Lookup;
use queues::{Class, Queues};

/// A unit of the NIC processor's work.
#[derive(Clone, Debug)]
pub enum Task {
    /// A host packet from the wire, to forward to the host ring.
    ForwardRx(Frame),
    /// A host packet the host sent, to hand to the MAC.
    ForwardTx(Frame),
    /// A received segment of an owned connection.
    Receive(Frame),
    /// HANDOFF(conn).
    Handoff(ConnId),
    /// SEND, RECV_POST or CLOSE: output the host's TCP calls produced for an owned connection.
    Output(Vec<Segment>),
    /// RESTORE(conn): the connection's state goes back to the host.
    Restore(ConnId),
}

/// Delay samples of one class, each direction: when the packet was done, and its delay in
/// picoseconds (a window keeps the samples that ended inside it).
#[derive(Clone, Debug, Default)]
pub struct Delays {
    pub rx_ps: Vec<(Time, u64)>,
    pub tx_ps: Vec<(Time, u64)>,
}

#[derive(Clone, Debug, Default)]
pub struct HandoffStats {
    pub attempts: u64,
    pub handoffs: u64,
    pub nacks_limit: u64,
    pub nacks_closed: u64,
    /// Owned connections whose slot was freed (TIME_WAIT or closed).
    pub released: u64,
    pub connections_seen: u64,
    pub rx_frames: [u64; 2],
    pub tx_frames: [u64; 2],
    pub queue_drops: [u64; 2],
    pub commands: u64,
    pub events: u64,
    /// Bytes the NIC moved over the I/O bus by DMA: payload and TCP state.
    pub payload_dma_bytes: u64,
    pub state_dma_bytes: u64,
    /// Command descriptors read and event records written by the NIC's DMA.
    pub descriptor_dma_bytes: u64,
    pub max_owned: u32,
    pub restores: u64,
    /// Tasks for owned connections started while a host packet waited (0 with host-first).
    pub nic_past_host: u64,
    /// Owned connections' pending work served while a queued task that arrived before it
    /// waited (0 under FCFS), and queued tasks served first because they arrived first.
    pub pending_past_older: u64,
    pub older_before_pending: u64,
    /// Evaluations that found more owned connections than the soft limit (§11).
    pub over_soft_limit: u64,
    pub delays: [Delays; 2],
}

/// The NIC's state: the processor it runs on, its queues, lookup table and load control.
pub struct HandoffNic {
    pub queues: Queues<Task>,
    /// Received segments of owned connections queued (Qlen, §6.1).
    pub qlen: u32,
    pub lookup: Lookup,
    pub lc: LoadControl,
    pub owned: u32,
    /// Owned connections in handoff order (stale entries dropped as they are met), and those
    /// the OS is restoring or about to (`on_excess = restore_excess`).
    pub handed: Vec<ConnId>,
    pub restoring: Vec<ConnId>,
    pub to_restore: Vec<ConnId>,
    /// An excess event is on its way to the host.
    pub excess_raised: bool,
    /// The task in service: its class, arrival and the task (for its effect).
    pub serving: Option<(Class, Time, Task)>,
    /// When the owned connections' pending work (segments to build, events, timers) was
    /// first seen waiting: its place in FCFS's arrival order.
    pub pending_since: Option<Time>,
    pub stats: HandoffStats,
    /// The soft limit, owned connections, Qlen and load state over time, one sample per
    /// `handoff.sample_interval_ps` at the first arrival after it (§11).
    pub timeline: Vec<(Time, u32, u32, u32, LoadState)>,
    sample_every: Duration,
}

impl HandoffNic {
    /// The firmware of a NIC on a node configured by `cfg` (`validate::config` checked its
    /// memory and watermarks).
    pub fn new(cfg: &Config) -> Self {
        let h = &cfg.handoff;
        let (lowat, hiwat) = derived::handoff_watermarks(cfg, cfg.cpu.clock_hz);
        HandoffNic {
            queues: Queues::new(h.priority, h.queue_packets),
            qlen: 0,
            lookup: Lookup::new(h.lookup_buckets, h.max_connections),
            lc: LoadControl::new(
                h.load_control,
                h.max_connections,
                hiwat,
                lowat,
                h.step_packets,
                h.soft_min,
            ),
            owned: 0,
            handed: Vec::new(),
            restoring: Vec::new(),
            to_restore: Vec::new(),
            excess_raised: false,
            serving: None,
            pending_since: None,
            stats: HandoffStats::default(),
            timeline: Vec::new(),
            sample_every: h.sample_interval_ps,
        }
    }

    /// Queues task `t` of `class` that arrived `at`; a full queue drops it, counted per class,
    /// and gives it back.
    pub fn enqueue(&mut self, class: Class, at: Time, t: Task) -> Result<(), Task> {
        self.queues.push(class, at, t).inspect_err(|_| {
            self.stats.queue_drops[class as usize] += 1;
        })
    }

    /// Samples the NIC's load state if the last sample is an interval old.
    pub fn sample(&mut self, now: Time) {
        let due = self
            .timeline
            .last()
            .is_none_or(|s| now >= s.0 + self.sample_every);
        if due {
            let s = (
                now,
                self.lc.soft_limit,
                self.owned,
                self.qlen,
                self.lc.state,
            );
            self.timeline.push(s);
        }
    }

    /// Its tasks queued or in service.
    fn tasks(&self) -> impl Iterator<Item = &Task> {
        let serving = self.serving.as_ref().map(|(_, _, t)| t);
        self.queues.iter().chain(serving)
    }

    /// The connections it names by slot: its HANDOFF and RESTORE commands, queued or in
    /// service, and those being restored (`stack/reap.rs` frees none of them).
    pub fn conns_named(&self) -> impl Iterator<Item = ConnId> + '_ {
        let commands = self.tasks().filter_map(|t| match t {
            Task::Handoff(c) | Task::Restore(c) => Some(*c),
            _ => None,
        });
        commands
            .chain(self.restoring.iter().copied())
            .chain(self.to_restore.iter().copied())
    }

    /// The segments its output commands carry, queued or in service.
    pub fn segments(&self) -> impl Iterator<Item = &Segment> {
        self.tasks().flat_map(|t| match t {
            Task::Output(segs) => segs.as_slice(),
            _ => &[],
        })
    }

    /// Frames inside the NIC processor's queues or in its hands, by direction.
    pub fn frames(&self, ch: Chan) -> impl Iterator<Item = &Frame> {
        let serving = self.serving.as_ref().map(|(_, _, t)| t);
        self.queues
            .iter()
            .chain(serving)
            .filter_map(move |t| match (t, ch) {
                (Task::ForwardRx(f) | Task::Receive(f), Chan::Rx) => Some(f),
                (Task::ForwardTx(f), Chan::Tx) => Some(f),
                _ => None,
            })
    }
}
