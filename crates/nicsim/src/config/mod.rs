//! The complete, normalised configuration the core receives. Every parameter is declared
//! once, with its unit, default and description, in `python/nicsim/params.py`; here every
//! field is required and unknown fields are rejected, so the two cannot drift silently.

use crate::units::{BitRate, Duration, Freq};
use serde::{Deserialize, Serialize};

mod costs;
mod handoff;
mod memory;
mod org;
mod placement;
mod sched;
mod workload;
pub use costs::{stage_name, Category, Costs, Scale, StageCost, CATEGORY_COUNT, STAGE_NAMES};
pub use handoff::{Handoff, NicPriority, OnExcess, SegmentCount, Selection};
pub use memory::{CacheCfg, DmaCachePolicy, Mem, MemMode};
pub use org::{Buffers, LoopbackInput, Org, SocketLock, Wakeup};
pub use placement::{IrqPath, Placement, ProcName, RxMode, TxModel, TxOutput, MAX_HOST_CPUS};
pub use sched::{Ksoftirqd, Sched, SchedPolicy};
pub use workload::{
    ClientThreads, EventQueue, HpcCoupling, Hpcbench, Netperf, NetperfTest, Netpipe, NetpipeMode,
    PacketGen, Run, ServerThreads, TraceStart, TrialAggregate, Web, WebAppWork, WebMix, WebWorkers,
    Workload, WorkloadKind,
};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub run: Run,
    pub cpu: Cpu,
    pub nic_cpu: NicCpu,
    pub mem: Mem,
    pub cache: CacheCfg,
    pub nb: NorthBridge,
    pub io: IoBus,
    pub apic: Apic,
    pub nic: Nic,
    pub napi: Napi,
    pub link: Link,
    pub topology: Topology,
    pub switch: Switch,
    pub tcp: Tcp,
    pub udp: Udp,
    pub sched: Sched,
    pub offload: Offload,
    pub handoff: Handoff,
    pub cpu_net: CpuNet,
    pub smp: Smp,
    pub rx: RxPath,
    pub tx: TxQueue,
    pub onload: Onload,
    pub org: Org,
    /// One resolved placement per node: the clients first (they send in streaming runs),
    /// then the server.
    pub placements: Vec<Placement>,
    pub costs: Costs,
    pub workload: Workload,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cpu {
    pub clock_hz: Freq,
    pub cpi: f64,
    /// Host CPUs per node (cpu0, cpu1, ...).
    pub count: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NicCpu {
    pub present: bool,
    pub speed_fraction: f64,
    pub speed_model: NicSpeedModel,
    pub mem_latency_cycles: f64,
    pub io_latency_cycles: f64,
}

/// What a slower NIC processor is slower at (`nic_cpu.speed_model`, host-path Q14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NicSpeedModel {
    /// Its clock runs at `speed_fraction` of the host's: instructions, memory stalls and
    /// register accesses all count in its own, longer cycles, as a Simics CPU pays the
    /// stall cycles its timing models return.
    Clock,
    /// Only its instruction rate falls (CPI over the fraction); stalls keep host time.
    InstructionRate,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NorthBridge {
    pub collision_penalty_cycles: f64,
    /// Time one bridge transaction (a cache line) occupies the memory bus.
    pub transaction_hold_ps: Duration,
    /// Bytes per transaction: a DMA transfer of n bytes is ⌈n / line_bytes⌉ transactions.
    pub line_bytes: u64,
    /// A pure connector: no hold, no collisions.
    pub ideal: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IoBus {
    pub rate_bps: BitRate,
    pub transaction_overhead_ps: Duration,
    pub dma_chunk_bytes: u64,
    pub pio_write_fraction: f64,
    pub ideal: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Apic {
    pub ioapic_latency_ps: Duration,
    pub ipi_latency_ps: Duration,
    pub ipi_send_cycles: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RxNotify {
    Napi,
    Interrupt,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nic {
    pub mtu_bytes: u64,
    pub rx_ring_entries: u32,
    pub tx_ring_entries: u32,
    pub rx_coalesce_ps: Duration,
    pub rx_coalesce_frames: u32,
    pub tx_coalesce_ps: Duration,
    pub tx_coalesce_frames: u32,
    pub rx_notify: RxNotify,
    pub csum_offload: bool,
    pub descriptor_bytes: u64,
    pub status_block_bytes: u64,
    pub memory_bytes: u64,
    pub ring_slot_overhead_bytes: u64,
    pub ring_flush_idle_ps: Duration,
    pub ring_flush_on_push: bool,
    /// The MAC's transmit FIFO: the NIC fetches the next frame only while the link has no
    /// more than this left to send.
    pub tx_fifo_bytes: u64,
    /// Generic receive offload: a NAPI poll merges in-order frames of a flow (`stack::gro`).
    pub gro: bool,
    /// The largest segment GRO builds.
    pub gro_max_bytes: u64,
    /// TCP segmentation offload: TCP sends up to `tso_max_bytes` at once; the NIC cuts it.
    pub tso: bool,
    /// The largest IP datagram one TSO send carries.
    pub tso_max_bytes: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Napi {
    pub budget: u32,
    /// Frames a device is polled for before the next device with work has its turn.
    pub weight: u32,
    /// Packets `netif_rx` may queue per CPU before dropping (netdev_max_backlog).
    pub backlog_packets: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub rate_bps: BitRate,
    pub latency_ps: Duration,
}

/// Which nodes there are: clients node0 … node{clients−1}, then the server.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    pub clients: u32,
    /// Network devices of the server (clients have one each).
    pub server_nics: u32,
    /// Which processor takes each server NIC's interrupt.
    pub server_nic_irq: NicIrq,
    /// The client nodes' interrupt distribution: `same`, `round_robin` or `lowest_priority`.
    pub client_nic_irq: NicIrq,
    /// netperf's connections join the server to itself over its loopback interface; the
    /// clients idle.
    pub loopback: bool,
    /// An explicit affinity instead: one processor per server device (NIC, or RSS queue),
    /// in order; empty: the policy.
    pub server_nic_cpus: Vec<ProcName>,
    /// Receive queues per server NIC, flows hashed over them (RSS); 1: no RSS.
    pub server_rx_queues: u32,
    /// The client nodes' host CPU clock; 0: the server's (`cpu.clock_hz`).
    pub client_clock_hz: Freq,
    /// How often `PeriodicRebalance` re-affines the server's interrupts.
    pub irq_rebalance_interval_ps: Duration,
}

/// Interrupt affinity of the server's NICs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NicIrq {
    /// Every NIC on the placement's `irq_target` (Linux without irqbalance: all on CPU0).
    Same,
    /// NIC k (with RSS: queue k over all NICs) on host CPU k modulo the number of host CPUs.
    Spread,
    /// Each interrupt to the next host CPU in turn (stacks.md §A.9 note 1, test B).
    RoundRobin,
    /// Each interrupt to the least busy host CPU: an idle one, else one in process context,
    /// the lowest numbered among equals (x86 lowest-priority delivery).
    LowestPriority,
    /// Fixed affinity, re-chosen every `irq_rebalance_interval_ps` (irqbalance): starts as
    /// `Same`, as a kernel boots before the daemon's first pass.
    PeriodicRebalance,
}

/// An output-queued switch joining every node (else one link joins two nodes).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Switch {
    pub present: bool,
    pub port_rate_bps: BitRate,
    pub latency_ps: Duration,
    pub buffer_bytes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BufferSemantics {
    Linux,
    Literal,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tcp {
    pub socket_buffer_bytes: u64,
    /// Linux 2.6's prequeue (`tcp_prequeue`): while a reader waits in recv, segments queue for
    /// it and TCP input runs in its context (`net.ipv4.tcp_low_latency = 0`).
    pub prequeue: bool,
    /// The socket's receive low-water mark (`SO_RCVLOWAT`): a reader asleep in recv wakes
    /// once this much (or all it still wants) can be read.
    pub rcvlowat_bytes: u64,
    pub buffer_semantics: BufferSemantics,
    pub adv_win_scale: u32,
    pub timestamps: bool,
    pub skb_overhead_bytes: u64,
    pub charge_truesize: bool,
    pub initial_window_segments: u32,
    pub delack_min_ps: Duration,
    pub quickack_segments: u32,
    pub rto_min_ps: Duration,
    pub rto_initial_ps: Duration,
    pub fast_retransmit: bool,
    pub dupack_threshold: u32,
    /// Selective acknowledgements (RFC 2018) and SACK-based loss recovery (RFC 6675).
    pub sack: bool,
    /// Retransmissions of a SYN or SYN-ACK before the handshake gives up.
    pub syn_retries: u32,
    /// How long an actively closed connection holds its port in TIME_WAIT.
    pub time_wait_ps: Duration,
    /// Ephemeral ports a node may hold at once for the connections it opens.
    pub ephemeral_ports: u32,
    /// Linux's `net.core.somaxconn`: listen() silently caps its backlog at this.
    pub somaxconn: u32,
    /// How TCP's timers fire: per socket, or on the ticks of periodic routines.
    pub timers: TcpTimers,
    /// When the receiver acknowledges: Linux's quick and delayed ACKs, or BSD's.
    pub ack_policy: AckPolicy,
    pub congestion: Congestion,
    /// Which small segment Nagle's algorithm holds back.
    pub nagle: Nagle,
    /// Linux's `tcp_autocorking`: a short write waits while an earlier send of the socket is
    /// still below TCP (in the qdisc or the NIC's ring).
    pub autocork: bool,
    /// TCP Small Queues' `tcp_limit_output_bytes` (0: no TSQ).
    pub limit_output_bytes: u64,
}

/// Nagle's rule for a segment shorter than the MSS (`tcp.nagle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Nagle {
    /// RFC 896: it waits while any data is unacknowledged.
    Rfc896,
    /// Minshall's variant (Linux `tcp_nagle_check`, `tcp_minshall_check`): it waits only while
    /// an earlier small segment is unacknowledged.
    Minshall,
}

/// The sender's congestion avoidance (`tcp.congestion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Congestion {
    /// Reno's additive increase and halving, with NewReno recovery (RFC 5681, 6582).
    Newreno,
    /// CUBIC (RFC 9438): Linux's default since 2.6.19.
    Cubic,
    /// BBR v1 (Linux 4.9's `tcp_bbr`) with TCP's internal pacing.
    Bbr,
}

/// The receiver's acknowledgement rule (`tcp.ack_policy`, selected by the organisation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckPolicy {
    /// Linux 2.6: every second full-sized segment at once, every segment in quick-ack mode,
    /// else the delayed ACK; reading sends one when the window has grown enough
    /// (`tcp_cleanup_rbuf`).
    Linux,
    /// 4.4BSD: an in-order segment only schedules the delayed ACK (TF_DELACK); an ACK leaves
    /// when the reader's reads open the window by two segments or half the buffer
    /// (`tcp_output`'s window update after PRU_RCVD), or at the delayed ACK's tick.
    Bsd,
}

/// Per-socket timers (Linux), or BSD's periodic routines whose ticks quantise them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpTimers {
    /// Each timer fires at its own deadline.
    Precise,
    /// `tcp_fasttimo` at 5 Hz sends due delayed ACKs; `tcp_slowtimo` at 2 Hz runs the rest.
    Bsd,
    /// The demultiplexed stack's one 4 Hz routine: delayed ACKs every tick, the rest every
    /// other tick (stacks.md §B.4).
    Merged,
}

/// The periodic routines that run TCP's timers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimerTicks {
    /// Between the ticks that send due delayed ACKs.
    pub delack_period: Duration,
    /// Between the ticks that run the retransmission, persist and TIME_WAIT timers.
    pub slow_period: Duration,
    /// Runs of a routine per second, evenly spaced [N], each a walk of the connection list.
    pub runs_per_s: f64,
}

impl TimerTicks {
    /// Between two runs of a routine.
    pub fn run_interval(&self) -> Duration {
        Duration((1e12 / self.runs_per_s) as u64)
    }
}

impl TcpTimers {
    /// The routines' ticks (None: per-socket timers).
    pub fn ticks(self) -> Option<TimerTicks> {
        const MS: u64 = 1_000_000_000;
        let (delack_ms, runs_per_s) = match self {
            TcpTimers::Precise => return None,
            TcpTimers::Bsd => (200, 7.0),
            TcpTimers::Merged => (250, 4.0),
        };
        Some(TimerTicks {
            delack_period: Duration(delack_ms * MS),
            slow_period: Duration(500 * MS),
            runs_per_s,
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Udp {
    /// Send and receive buffer of a UDP socket (not doubled: no setsockopt asked for it).
    pub socket_buffer_bytes: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Smp {
    /// Background cross-calls per second on every host CPU (Q28).
    pub background_ipi_per_s: f64,
    /// How a notification (IPI, softirq kick, doorbell) is handled on its target.
    pub notification_handler: NotificationHandler,
    /// Model the stack's spinlocks (`os/lock.rs`): the devices' transmit queue locks, the
    /// sockets', and those below.
    pub spinlocks: bool,
    /// Every buffer allocation and free takes the node's one allocator lock (AIX 4.1's
    /// memory services, stacks.md §B.7); false: per-CPU caches, no shared lock (Linux slab).
    pub allocator_lock: bool,
    /// Every wake-up and context switch takes the node's one dispatcher lock (a global run
    /// queue, §B.7's thread-management class); false: per-CPU run queues (Linux 2.6).
    pub thread_lock: bool,
    /// Share (0 to 1) of each buffer allocation's and free's work held under the allocator
    /// lock. §B.7: "Every buffer allocation and free takes the allocator's lock", which
    /// "protects memory-management services"; §B.9 counts those services ("memory") apart
    /// from the locking ("synchronisation") [I]: 1, the whole service (params.py: sources).
    pub allocator_hold_share: f64,
    /// Instructions each system call holds the thread-management lock: §B.7's class covers
    /// "system calls, thread and timer management" [S]; no hold is given: ~one lock pair [N].
    pub syscall_hold_instr: f64,
    /// Instructions each timer expiry holds the thread-management lock (as above).
    pub timer_hold_instr: f64,
    /// Lines of a connection's shared state (its socket lock, queues and TCB) that move to a
    /// CPU that touches the connection after another did, each a full miss, in the
    /// mean-access mode (mode B's caches keep coherence themselves); 0: none.
    pub coherence_lines: u32,
}

/// A device's transmit queue (the qdisc, BSD's ifq) behind its ring, and what a full one
/// does to a sender (stacks.md §B.8's local flow control).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TxQueue {
    /// Frames the queue holds while the ring is full; 0: no limit.
    pub queue_frames: u32,
    /// A full queue blocks the sender (UDP senders sleep, TCP's window-bounded output waits
    /// in it) rather than dropping what it sends; without it a UDP datagram is not charged
    /// to its socket, so its sender never sleeps.
    pub local_flow_control: bool,
    /// Who runs send-initiated output where the protocol runs on the NIC processor.
    pub model: TxModel,
}

/// The onload NIC's notification (host-path Q13).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Onload {
    /// One interrupt per received packet, no NAPI, on a node whose protocol runs on a host
    /// CPU of its own (the literal reading of the onload NIC).
    pub per_packet_irq: bool,
}

/// The dedicated network CPU (CPU-NET, stacks.md §A.8), where a placement polls.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuNet {
    pub device_irqs: DeviceIrqs,
    pub idle_accounting: IdleAccounting,
}

/// Whether the devices CPU-NET polls still interrupt it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceIrqs {
    /// Masked for good: the poll loop finds their work.
    Masked,
    /// Routed to CPU-NET as ordinary interrupts (NAPI masks them while it polls).
    ToCpuNet,
}

/// How the poll loop's empty passes count in a sar-like %idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleAccounting {
    /// Every cycle of the loop is system time (a thread that never sleeps).
    BusyPoll,
    /// An empty pass counts as idle.
    EmptyPollIsIdle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotificationHandler {
    /// Linux 2.6's IPI vectors: a short entry stub, APIC EOI and return (`ipi_handler`).
    Ipi,
    /// The full device-interrupt path, `do_IRQ` with `irq_entry` and `irq_exit`.
    Irq,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SoftirqKick {
    Doorbell,
    Ipi,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckPath {
    NicLocal,
    ViaHostDriver,
}

/// Open choices of the receive path (host-path §2.3 notes).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RxPath {
    /// The softirq copies each payload from the DMA buffer into the socket (`skb_copy`, on
    /// the protocol processor), as the thesis's Appendix III says `data_ready` does.
    pub softirq_payload_copy: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Offload {
    pub softirq_kick: SoftirqKick,
    pub ack_path: AckPath,
}
