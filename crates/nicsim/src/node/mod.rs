//! One host: its processors, buses, NIC, TCP endpoint and threads, and the Linux 2.6 receive
//! and transmit paths as work items (host-path §2). Which processor runs what comes from the
//! placement's `Roles`; what each stage costs comes from the cost profile.
//!
//! Receive path (base placement, all on cpu0):
//! ```text
//!  wire → MAC → rx DMA → [coalesce/NAPI] → APIC → hardirq(driver) → softirq: poll, IP, TCP
//!       → wake → context switch → read(): syscall, copy → application
//! ```

pub mod events;

use crate::config::{
    Category, Config, Costs, NotificationHandler, RxMode, RxNotify, SoftirqKick, StageCost,
};
use crate::hw::bus::{IoBus, NorthBridge};
use crate::hw::cpu::{Job, MemPath, MemoryModel, Piece, Processor, Then};
use crate::hw::link::Lane;
use crate::hw::nic::{Frame, Nic, NicParams};
use crate::os::thread::Thread;
use crate::placement::{processor_names, Roles};
use crate::stack::softirq::Softirq;
use crate::stack::tcp::{Segment, Tcp, IP_HEADER_BYTES, TCP_HEADER_BYTES, TIMESTAMP_OPTION_BYTES};
use crate::stats::conservation::NodeStats;
use crate::units::{Duration, Time};
use std::collections::VecDeque;
use std::rc::Rc;

pub use events::{Ev, IrqKind, TimerKind};

#[derive(Clone, Copy, Debug)]
pub(crate) enum Effect {
    None,
    Copied { bytes: u64, push: bool },
    Read { bytes: u64 },
    Xmit(Segment),
    RxPacket(Frame),
    Wake(usize),
    Reclaim(u32),
    PollEnd,
    Timer(TimerKind),
    ComputeDone,
}

/// A DMA channel (0: receive writes, 1: transmit reads) working through its requests.
#[derive(Clone, Debug, Default)]
pub(crate) struct DmaChan {
    pub(crate) queue: VecDeque<(Vec<Frame>, u64)>,
    pub(crate) left: u64,
    pub(crate) busy: bool,
}

pub struct Node {
    pub id: u8,
    pub procs: Vec<Processor>,
    pub roles: Roles,
    pub nb: NorthBridge,
    pub io: IoBus,
    pub nic: Nic,
    pub(crate) dma: [DmaChan; 2],
    pub tcp: Tcp,
    pub threads: Vec<Thread>,
    pub(crate) sq: Softirq,
    /// Packets waiting for a transmit descriptor (the queueing discipline).
    pub(crate) qdisc: VecDeque<Frame>,
    /// Frames a ring-accumulation burst put in host memory, waiting for the driver.
    pub(crate) delivered: VecDeque<Frame>,
    /// Shared so that building a job borrows the profile instead of copying it.
    pub(crate) costs: Rc<Costs>,
    pub(crate) cfg_napi_budget: u32,
    pub(crate) napi: bool,
    pub(crate) csum_offload: bool,
    pub(crate) pio_write_fraction: f64,
    pub(crate) dma_chunk: u64,
    pub(crate) softirq_copy: bool,
    pub(crate) desc_bytes: u64,
    pub(crate) status_bytes: u64,
    pub(crate) ioapic_lat: Duration,
    pub(crate) ipi_lat: Duration,
    pub(crate) ipi_send_cycles: f64,
    pub(crate) kick: SoftirqKick,
    pub(crate) notification_handler: NotificationHandler,
    pub(crate) ack_on_nic: bool,
    pub(crate) flush_on_push: bool,
    pub(crate) flush_idle: Duration,
    pub(crate) backlog_limit: u32,
    pub(crate) wakeup_preempts: bool,
    pub(crate) header_bytes: u64,
    /// Messages waiting for the load thread (hpcbench), in bytes each.
    pub load_queue: VecDeque<u64>,
    pub load_queue_cap: u32,
    pub(crate) scheduled_delack: Option<Time>,
    pub(crate) scheduled_rto: Option<Time>,
    pub(crate) scheduled_persist: Option<Time>,
    pub(crate) last_thread: Vec<Option<usize>>,
    /// Threads whose operation finished, for the workload to act on.
    pub done: VecDeque<usize>,
    pub stats: NodeStats,
}

/// Where an outgoing frame goes: this node's lane and the peer's arrival queue.
pub struct Wire<'a> {
    pub lane: &'a mut Lane,
    pub frames: &'a mut VecDeque<(Time, Frame)>,
}

pub(crate) fn scaled(c: &StageCost, costs: &Costs, bytes: f64, count: f64) -> Piece {
    let s = match c.category {
        Category::Copy => costs.scale.copy,
        Category::Tcpip => costs.scale.tcpip,
        Category::Driver => costs.scale.driver,
        Category::Os => costs.scale.os,
        Category::App => 1.0,
    };
    Piece {
        cat: Some(c.category),
        cycles: s * (c.i_pkt * count + c.i_byte * bytes),
        refs: s * (c.r_pkt * count + c.r_byte * bytes),
        pio_reads: c.pio_reads * count as u32,
        pio_writes: c.pio_writes * count as u32,
    }
}

impl Node {
    pub fn new(id: u8, cfg: &Config, nodelay: bool) -> Result<Node, String> {
        let placement = cfg
            .placements
            .get(id as usize)
            .ok_or_else(|| format!("placements: node{id} has no placement"))?;
        let names = processor_names(cfg.cpu.count, cfg.nic_cpu.present);
        let roles = Roles::resolve(placement, &names)?;
        let host_mem = if cfg.nb.ideal {
            MemoryModel::flat(0.0)
        } else {
            MemoryModel::MeanAccess {
                hit_ratio: cfg.mem.hit_ratio,
                hit_cycles: cfg.mem.hit_cycles,
                miss_cycles: cfg.mem.miss_cycles,
            }
        };
        let procs = names
            .iter()
            .map(|&n| {
                if n == "nic_cpu" {
                    let mem = MemPath {
                        model: MemoryModel::flat(cfg.nic_cpu.mem_latency_cycles),
                        contended: false,
                        local_io_cycles: Some(cfg.nic_cpu.io_latency_cycles),
                    };
                    Processor::new(
                        n,
                        cfg.cpu.clock_hz,
                        cfg.cpu.cpi / cfg.nic_cpu.speed_fraction,
                        mem,
                        cfg.mem.batch_refs,
                    )
                } else {
                    let mem = MemPath {
                        model: host_mem,
                        contended: !cfg.nb.ideal,
                        local_io_cycles: None,
                    };
                    Processor::new(n, cfg.cpu.clock_hz, cfg.cpu.cpi, mem, cfg.mem.batch_refs)
                }
            })
            .collect::<Vec<_>>();
        let host_cpus = procs.iter().filter(|p| p.name != "nic_cpu").count();
        // NAPI unless the placement asks for one interrupt per packet.
        let napi = cfg.nic.rx_notify == RxNotify::Napi && !placement.per_packet_irq;
        let nic = Nic::new(NicParams {
            rx_ring_entries: cfg.nic.rx_ring_entries,
            tx_ring_entries: cfg.nic.tx_ring_entries,
            rx_coalesce: cfg.nic.rx_coalesce_ps,
            rx_coalesce_frames: cfg.nic.rx_coalesce_frames,
            tx_coalesce: cfg.nic.tx_coalesce_ps,
            tx_coalesce_frames: cfg.nic.tx_coalesce_frames,
            // Ring accumulation raises one interrupt per flush and never masks (netif_rx path).
            napi: napi && roles.rx_mode == RxMode::HostRing,
            ring_bytes: cfg.nic.memory_bytes,
            ring_slot_overhead: cfg.nic.ring_slot_overhead_bytes,
        });
        let clock = cfg.cpu.clock_hz;
        let opt = if cfg.tcp.timestamps {
            TIMESTAMP_OPTION_BYTES
        } else {
            0
        };
        Ok(Node {
            id,
            roles,
            nb: NorthBridge::new(
                clock.duration_of(cfg.nb.collision_penalty_cycles),
                cfg.nb.transaction_hold_ps,
                cfg.nb.line_bytes,
                cfg.nb.ideal,
                host_cpus,
            ),
            io: IoBus::new(
                cfg.io.rate_bps,
                cfg.io.transaction_overhead_ps,
                cfg.io.ideal,
            ),
            nic,
            dma: Default::default(),
            tcp: Tcp::new(&cfg.tcp, cfg.nic.mtu_bytes, nodelay),
            threads: vec![Thread::new(roles.comm), Thread::new(roles.app)],
            sq: Softirq::default(),
            qdisc: VecDeque::new(),
            delivered: VecDeque::new(),
            costs: Rc::new(cfg.costs.clone()),
            cfg_napi_budget: cfg.napi.budget,
            napi,
            csum_offload: cfg.nic.csum_offload,
            pio_write_fraction: cfg.io.pio_write_fraction,
            dma_chunk: cfg.io.dma_chunk_bytes.max(1),
            softirq_copy: cfg.rx.softirq_payload_copy,
            desc_bytes: cfg.nic.descriptor_bytes,
            status_bytes: cfg.nic.status_block_bytes,
            ioapic_lat: cfg.apic.ioapic_latency_ps,
            ipi_lat: cfg.apic.ipi_latency_ps,
            ipi_send_cycles: cfg.apic.ipi_send_cycles,
            kick: cfg.offload.softirq_kick,
            notification_handler: cfg.smp.notification_handler,
            ack_on_nic: roles.rx_mode == RxMode::RingAccumulate
                && cfg.offload.ack_path == crate::config::AckPath::NicLocal,
            flush_on_push: cfg.nic.ring_flush_on_push,
            flush_idle: cfg.nic.ring_flush_idle_ps,
            backlog_limit: cfg.napi.backlog_packets,
            wakeup_preempts: cfg.sched.wakeup_preempts,
            header_bytes: IP_HEADER_BYTES + TCP_HEADER_BYTES + opt,
            load_queue: VecDeque::new(),
            load_queue_cap: 1,
            scheduled_delack: None,
            scheduled_rto: None,
            scheduled_persist: None,
            last_thread: vec![None; procs.len()],
            done: VecDeque::new(),
            procs,
            stats: NodeStats::default(),
        })
    }

    pub(crate) fn piece(&self, c: &StageCost, bytes: u64, count: u32) -> Piece {
        scaled(c, &self.costs, bytes as f64, count as f64)
    }
}

pub(crate) fn job_of(then: Then, pieces: &[Piece]) -> Job {
    let mut j = Job::new(then);
    for p in pieces {
        j.push(*p);
    }
    j
}

pub(crate) fn prepend(j: Job, p: Piece) -> Job {
    let rest: Vec<Piece> = j.pieces().collect();
    job_of(j.then, &[&[p][..], &rest].concat())
}
