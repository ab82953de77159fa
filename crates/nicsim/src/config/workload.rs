//! The workloads' settings: NetPIPE, Hpcbench, netperf, the packet generator and the web
//! server (each workload's model is in `workload/`), and how a run is driven and recorded.

use crate::units::{BitRate, Duration};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetpipeMode {
    Stream,
    Pingpong,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrialAggregate {
    Min,
    Mean,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Netpipe {
    pub mode: NetpipeMode,
    pub target_ps: Duration,
    pub start_bytes: u64,
    pub max_bytes: u64,
    pub perturbation_bytes: u64,
    pub trials: u32,
    pub trial_aggregate: TrialAggregate,
    pub stop_ps: Duration,
    pub nodelay: bool,
    /// Only these sizes, if non-empty (for quick checks); otherwise NetPIPE's schedule.
    pub sizes_bytes: Vec<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hpcbench {
    pub message_bytes: u64,
    pub duration_ps: Duration,
    pub warmup_ps: Duration,
    /// Application cycles per received byte (`a` in LAWS, in host cycles); 0 disables the load thread.
    pub app_cycles_per_byte: f64,
    /// Memory references per byte of the load thread's pass over the data.
    pub app_refs_per_byte: f64,
    pub queue_messages: u32,
    pub coupling: HpcCoupling,
    pub nodelay: bool,
}

/// How Hpcbench's receiving process and its load thread share the received messages
/// (`workload.hpcbench.coupling`, host-path §7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HpcCoupling {
    /// Strict alternation: the load thread processes the message just received, in the
    /// receive buffer, while the receiver waits; the next receive starts when it is done.
    Alternate,
    /// The receiver reads on while up to `queue_messages` messages wait for the load thread.
    Queue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    Netpipe,
    Hpcbench,
    PacketGen,
    Netperf,
    Web,
}

/// How a run is driven and recorded (`run.*`), beside what it runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    pub seed: u64,
    /// A label naming the scenario; echoed in the results, ignored by the model.
    pub scenario: String,
    /// Record the frames crossing one node's MAC (`pcap_node`; -1: the last node, the
    /// server), at most `pcap_max_frames`, for a pcap file.
    pub pcap: bool,
    pub pcap_node: i64,
    pub pcap_max_frames: u64,
    /// Record a timeline of `trace_span_ps` from where `trace_start` says: every
    /// processor's slices (at most `trace_max_slices` each), frames and DMA transfers.
    pub trace: bool,
    pub trace_start: TraceStart,
    pub trace_from_ps: Duration,
    pub trace_span_ps: Duration,
    pub trace_max_slices: u64,
    /// The run over time in intervals of this (0: off), at most `series_max_rows` of them.
    pub series_ps: Duration,
    pub series_max_rows: u64,
    /// The engine's pending-event queue (`run.event_queue`); both pop in the same order.
    pub event_queue: EventQueue,
}

/// Which structure holds the engine's pending events (`run.event_queue`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventQueue {
    /// The binary heap while few events are pending, the radix heap while many are.
    #[default]
    Adaptive,
    /// A radix heap over the (time, sequence) keys (`engine/radix.rs`), always.
    Radix,
    /// The standard library's binary heap, the engine's queue before issue 46.
    BinaryHeap,
}

/// Where a trace window starts (`run.trace_start`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceStart {
    /// Where the workload's measured window starts: its warm-up's end (NetPIPE: the start).
    Measured,
    /// At `run.trace_from_ps`.
    Fixed,
}

impl super::Config {
    /// When the trace window opens.
    pub fn trace_from(&self) -> crate::units::Time {
        let w = &self.workload;
        let t = match (self.run.trace_start, w.kind) {
            (TraceStart::Fixed, _) => self.run.trace_from_ps,
            (TraceStart::Measured, WorkloadKind::Netpipe) => Duration(0),
            (TraceStart::Measured, WorkloadKind::Hpcbench) => w.hpcbench.warmup_ps,
            (TraceStart::Measured, WorkloadKind::PacketGen) => w.packet_gen.warmup_ps,
            (TraceStart::Measured, WorkloadKind::Netperf) => w.netperf.warmup_ps,
            (TraceStart::Measured, WorkloadKind::Web) => w.web.warmup_ps,
        };
        crate::units::Time(t.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetperfTest {
    TcpStream,
    TcpRr,
    /// A new connection per transaction: connect, request, response, close.
    TcpCrr,
    /// Datagrams sent back to back on a UDP socket, without flow control.
    UdpStream,
    /// A one-datagram request and a one-datagram response, over and over (no retransmission:
    /// a lost datagram stalls its instance, as netperf's does without a timeout).
    UdpRr,
}

/// netperf instances against one server (`workload::netperf`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Netperf {
    pub test: NetperfTest,
    pub connections: u32,
    /// Send size (TCP_STREAM), or request and response size (TCP_RR, TCP_CRR).
    pub msg_bytes: u64,
    /// Bytes each TCP_STREAM netserver recv() asks for, returning with what is there (0: one
    /// message's worth, every message received whole).
    pub recv_bytes: u64,
    /// The server's listen() backlog (TCP_CRR).
    pub backlog: u32,
    pub duration_ps: Duration,
    pub warmup_ps: Duration,
    /// Connections start at seeded uniform offsets within this time.
    pub start_spread_ps: Duration,
    pub nodelay: bool,
    pub server_threads: ServerThreads,
    pub client_threads: ClientThreads,
    /// UDP_STREAM flows of `udp_flood_bytes` datagrams alongside TCP_STREAM's connections
    /// (stacks.md §B.8's flood).
    pub udp_flood_flows: u32,
    pub udp_flood_bytes: u64,
}

/// Where the netperf clients run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientThreads {
    /// Pinned to the client placement's comm_thread processor.
    Comm,
    /// Starting there, free to migrate when woken (one process per connection on an SMP).
    Free,
}

/// Where the netservers run (stacks.md §A.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerThreads {
    /// Pinned to the placement's comm_thread processor.
    Comm,
    /// Pinned to the CPU that takes its connection's device interrupts (test C).
    Nic,
    /// Starting on comm_thread's processor, free to migrate when woken (test B).
    Free,
}

/// Frames injected at the receiving NIC with no transport flow control (host-path §7.9).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacketGen {
    /// Ethernet frame length, header and FCS included.
    pub frame_bytes: u64,
    pub rate_pps: f64,
    /// Exponential gaps (seeded) instead of a constant interval.
    pub poisson: bool,
    pub duration_ps: Duration,
    pub warmup_ps: Duration,
    /// A packet trace to replay instead (gap before each frame, and its length); replayed in a
    /// loop until the window ends. Empty: the synthetic generator above.
    pub trace_gaps_ps: Vec<Duration>,
    pub trace_frame_bytes: Vec<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    pub kind: WorkloadKind,
    pub netpipe: Netpipe,
    pub hpcbench: Hpcbench,
    pub packet_gen: PacketGen,
    pub netperf: Netperf,
    pub web: Web,
}

/// Response sizes of the web workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WebMix {
    /// Every response `page_size_bytes`; every connection `requests_per_connection` requests.
    Fixed,
    /// SPECweb99's static file set: four classes by request share.
    Specweb99Static,
    /// Heavy-tailed stand-in (handoff.md §7.5): lognormal sizes and lifetimes, σ = 1.2816.
    Lognormal,
}

/// A static web server under closed-loop users (`workload::web`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Web {
    pub users: u32,
    pub workers: u32,
    pub page_size_bytes: u64,
    pub request_bytes: u64,
    /// Mean of the exponential think time between a response and the next request.
    pub think_ps: Duration,
    /// Each user's line rate: after a batch it waits until its responses would have taken
    /// this long to arrive at the rate (SPECweb99's rated connections); 0: no limit.
    pub user_rate_bps: BitRate,
    pub keep_alive: bool,
    /// Requests a user sends back to back on its kept-alive connection before reading their
    /// responses (HTTP/1.1 pipelining); 1: one at a time.
    pub pipeline_depth: u32,
    /// The server sends responses with sendfile() (no copy into the socket).
    pub sendfile: bool,
    /// Where response sizes (and, with keep-alive, connection lifetimes) come from.
    pub mix: WebMix,
    /// With keep-alive: mean requests per connection (0: a connection lasts for ever).
    pub requests_per_connection: f64,
    /// A request trace, when one is given: each connection's response sizes in request order,
    /// and (if the trace has them) each connection's arrival.
    pub trace_responses: Vec<Vec<u64>>,
    pub trace_arrivals_ps: Vec<u64>,
    pub backlog: u32,
    /// TCP_DEFER_ACCEPT on the listening socket: a connection joins the accept queue only
    /// when its first data arrives, so no worker blocks reading a request not yet sent.
    pub defer_accept: bool,
    /// The interval of the run's health series (requests and server load over time).
    pub health_interval_ps: Duration,
    pub duration_ps: Duration,
    pub warmup_ps: Duration,
    pub start_spread_ps: Duration,
    pub app_work: WebAppWork,
    /// Where the server's workers (their system calls and copies) run.
    pub worker_threads: WebWorkers,
}

/// Where the web server's workers run (`workload.web.worker_threads`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WebWorkers {
    /// Pinned to the placement's `comm_thread` processor.
    Comm,
    /// Starting there, free to move at a wake-up to any idle host CPU but one the placement
    /// dedicates to the protocol (onload's CPU1, CPU-NET's poller).
    Free,
}

/// Where the server's request processing runs (`workload.web.app_work`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WebAppWork {
    /// On the placement's `app` processor: each worker, pinned to `comm_thread` for its reads
    /// and writes (the copies), hands the request to an application thread there and back
    /// (hybrid, thesis Table 5.1: CPU1 copies, CPU0 runs the application).
    AppCpu,
    /// In the worker itself, wherever it runs.
    Worker,
}
