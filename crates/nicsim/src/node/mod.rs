//! One host: its processors, buses, NIC, TCP endpoint and threads, and the Linux 2.6 receive
//! and transmit paths as work items (host-path §2). Which processor runs what comes from the
//! placement's `Roles`; what each stage costs comes from the cost profile.
//!
//! Receive path (base placement, all on cpu0):
//! ```text
//!  wire → MAC → rx DMA → [coalesce/NAPI] → APIC → hardirq(driver) → softirq: poll, IP, TCP
//!       → wake → context switch → read(): syscall, copy → application
//! ```

pub mod effect;
pub mod events;
pub mod netdev;
pub mod record;
pub mod stats;

use crate::config::{Config, Costs, DeviceIrqs, MemMode, NicIrq, ProcName, StageCost};
use crate::derived;
use crate::handoff::HandoffNic;
use crate::hw::apic::Apic;
use crate::hw::bus::IoBus;
use crate::hw::cpu::{Job, JobData, LockRef, Piece, Processor, Then, Touches};
use crate::hw::dma::{Chan, DmaEngine};
use crate::hw::fabric::Fabric;
use crate::hw::frame::{FlowId, NodeAddr};
use crate::hw::memory::{Detailed, MemPath, MemoryHierarchy};
use crate::hw::nic::{Nic, NicParams};
use crate::os::lock::SpinLock;
use crate::os::thread::{RunQueue, Thread};
use crate::placement::{processors, Policies, Receive, Roles};
use crate::stack::conn::{Conn, ConnId, Listener, Slots};
use crate::stack::softirq::Softirq;
use crate::stack::udp::UdpSock;
use crate::stack::FlowMap;
use crate::stack::{Frame, Payload};
use effect::Effect;
use netdev::NetDev;
use stats::{NodeStats, Retired};
use std::collections::VecDeque;
use std::rc::Rc;

pub use events::{Ev, IrqKind, TimerKind};

/// One host. Its parts live in their own modules (hardware in `hw`, the kernel's network path
/// in `stack`, threads, scheduling and interrupts in `os`, byte accounting in `stats`); the
/// node owns their state and the configuration they read, which is never copied.
pub struct Node {
    pub id: u8,
    pub procs: Vec<Processor>,
    pub roles: Roles,
    pub mem: MemoryHierarchy,
    pub io: IoBus,
    pub apic: Apic,
    /// Its network devices; a connection or socket uses one (`Conn::dev`).
    pub devs: Vec<NetDev>,
    /// How its devices' interrupts are distributed: fixed affinity (`same`, `spread`), or
    /// chosen per interrupt (`round_robin`, `lowest_priority`; the server only).
    pub(crate) irq_distribution: NicIrq,
    /// The host CPU the last round-robin interrupt went to.
    pub(crate) irq_turn: usize,
    /// At the last periodic rebalance: each device's interrupts raised, each processor's busy
    /// time (what the next one measures the interval by).
    pub(crate) rebalance_mark: (Vec<u64>, Vec<u64>),
    /// TCP sockets, and their index here by flow id: a slot per connection not yet freed
    /// (`stack/reap.rs`), with the table's bookkeeping, and what freed slots had counted.
    pub conns: Vec<Conn>,
    pub(crate) flows: FlowMap,
    pub slots: Slots,
    pub retired: Retired,
    /// UDP sockets, and their index here by flow id.
    pub udp: Vec<UdpSock>,
    pub(crate) udp_flows: FlowMap,
    /// Poll sets (epoll interest lists) of connections.
    pub(crate) poll_sets: Vec<Vec<ConnId>>,
    /// The listening socket, if anything listens here.
    pub listener: Option<Listener>,
    /// Ephemeral ports held by connections this node opened (until each finishes).
    pub ports_in_use: u32,
    /// Connections whose timers may have moved since they were last scheduled.
    pub(crate) dirty: Vec<ConnId>,
    pub threads: Vec<Thread>,
    /// Runnable threads per processor, in the order the scheduler picks them.
    pub(crate) runq: Vec<RunQueue>,
    /// EEVDF's per-processor state (`os/eevdf.rs`), and the time of the event being handled.
    pub(crate) fair: Vec<crate::os::thread::FairRq>,
    pub(crate) now: crate::units::Time,
    /// The network softirq's state, per processor.
    pub(crate) sq: Vec<Softirq>,
    /// The configuration, shared: stage costs and the kernel's and NIC's settings.
    pub(crate) cfg: Rc<Config>,
    pub(crate) last_thread: Vec<Option<usize>>,
    /// Processors running a span of chunks ahead (`os/span.rs`), one bit each.
    pub(crate) spanning: u64,
    /// The task each processor's process context runs or last ran (None: the idle task), for
    /// counting switches as Linux does (`os/sched.rs`).
    pub(crate) current: Vec<Option<usize>>,
    /// Threads whose operation finished, for the workload to act on.
    pub done: VecDeque<usize>,
    pub stats: NodeStats,
    /// The buffer allocator's lock (`smp.allocator_lock`), the dispatcher's
    /// (`smp.thread_lock`), IP's (`org.ip_serialised`) and the TCP context list's
    /// (`org.context_list_lock`): one each per node.
    pub alloc_lock: SpinLock,
    pub thread_lock: SpinLock,
    pub(crate) ip_lock: SpinLock,
    pub(crate) contexts_lock: SpinLock,
    /// What it records for tools outside (`run.pcap`, `run.trace`), when asked.
    pub record: Option<Box<record::Recorder>>,
}

/// Where an outgoing frame goes: the links and the switch between the nodes.
pub type Wire = Fabric<Payload>;

#[inline]
pub(crate) fn scaled(c: &StageCost, costs: &Costs, bytes: f64, count: f64) -> Piece {
    let (cycles, refs) = c.work(&costs.scale, bytes, count);
    Piece {
        cat: Some(c.category),
        cycles,
        refs,
        pio_reads: register_accesses(c.pio_reads, count),
        pio_writes: register_accesses(c.pio_writes, count),
        touches: Touches::Private,
        stage: c.id,
        done: 0,
        lock: LockRef::None,
    }
}

impl Node {
    /// Node `id` with one network device per entry of `devs`: its fabric address and the
    /// processor its interrupt is steered to (None: the placement's `irq_target`). Built in
    /// wiring order: who does what, the processors, their memory, the devices.
    pub fn new(
        id: u8,
        cfg: &Rc<Config>,
        devs: &[(NodeAddr, Option<usize>)],
    ) -> Result<Node, String> {
        let placement = &cfg.placements[id as usize];
        let ids = processors(cfg.cpu.count, cfg.nic_cpu.present);
        let roles = Roles::resolve(placement, &ids, Policies::of(cfg));
        let procs: Vec<Processor> = ids.iter().map(|&p| processor(cfg, p)).collect();
        let mem = memory(cfg, &ids)?;
        let mut devs = net_devices(cfg, &roles, devs);
        if roles.firmware.is_some() {
            devs[0].handoff = Some(Box::new(HandoffNic::new(cfg)));
        }
        Ok(Node {
            id,
            roles,
            mem,
            io: derived::io_bus(cfg),
            apic: Apic::new(
                cfg.apic.ioapic_latency_ps,
                cfg.apic.ipi_latency_ps,
                cfg.apic.ipi_send_cycles,
                roles.kick,
            ),
            devs,
            irq_distribution: NicIrq::Same,
            irq_turn: 0,
            rebalance_mark: (Vec::new(), Vec::new()),
            conns: Vec::new(),
            flows: FlowMap::default(),
            slots: Slots::default(),
            retired: Retired::default(),
            udp: Vec::new(),
            udp_flows: FlowMap::default(),
            poll_sets: Vec::new(),
            listener: None,
            ports_in_use: 0,
            dirty: Vec::new(),
            threads: Vec::new(),
            runq: vec![RunQueue::default(); procs.len()],
            fair: vec![Default::default(); procs.len()],
            now: crate::units::Time::ZERO,
            sq: vec![Softirq::default(); procs.len()],
            cfg: Rc::clone(cfg),
            last_thread: vec![None; procs.len()],
            spanning: 0,
            current: vec![None; procs.len()],
            done: VecDeque::new(),
            procs,
            stats: NodeStats::default(),
            alloc_lock: SpinLock::default(),
            ip_lock: SpinLock::default(),
            contexts_lock: SpinLock::default(),
            thread_lock: SpinLock::default(),
            record: None,
        })
    }

    /// The frames inside this node's receive side: rings, DMA, accumulation and delivered
    /// bursts, backlogs (the CPUs', sockets' and threads'), the frame a softirq or a thread
    /// has in hand, and the handoff NIC's queues.
    pub fn rx_frames(&self) -> impl Iterator<Item = &Frame> {
        let in_hand = self.sq.iter().filter_map(|q| match &q.effect {
            Some(Effect::RxPacket(f) | Effect::Backlogged(f) | Effect::Prequeued(f)) => Some(f),
            _ => None,
        });
        // Segments waiting in owned sockets' backlogs, or in their owners' hands.
        let backlogs =
            self.conns
                .iter()
                .flat_map(|c| &c.backlog)
                .chain(self.threads.iter().flat_map(|t| {
                    let held = match &t.effect {
                        Effect::BacklogRx(f) => Some(f),
                        _ => None,
                    };
                    t.backlog.iter().chain(held)
                }));
        let devs = self.devs.iter().flat_map(|d| {
            d.nic
                .rx_ready
                .iter()
                .chain(d.dma.pending(Chan::Rx))
                .chain(&d.nic.acc)
                .chain(&d.delivered)
        });
        let fw = self
            .handoff_nic()
            .into_iter()
            .flat_map(|h| h.frames(Chan::Rx));
        devs.chain(self.sq.iter().flat_map(|q| &q.backlog))
            .chain(in_hand)
            .chain(backlogs)
            .chain(fw)
    }

    /// The frames posted for transmission here and not yet on the wire: the qdiscs, the
    /// transmit DMA, the handoff NIC's queues.
    pub fn tx_frames(&self) -> impl Iterator<Item = &Frame> {
        self.devs
            .iter()
            .flat_map(|d| d.qdisc.iter().chain(d.dma.pending(Chan::Tx)))
            .chain(
                self.handoff_nic()
                    .into_iter()
                    .flat_map(|h| h.frames(Chan::Tx)),
            )
    }

    /// Threads runnable and waiting for a processor here.
    pub fn runnable(&self) -> usize {
        self.runq.iter().map(|q| q.len()).sum()
    }

    /// What a job of connection `flow` touches: its socket buffer from stream offset `seq`,
    /// `bytes` long (the user's buffer and the ring slot are set where they are known).
    pub(crate) fn data(flow: FlowId, seq: u64, bytes: u64) -> JobData {
        JobData {
            flow,
            buffer_addr: seq as u32,
            buffer_bytes: bytes as u32,
            ..Default::default()
        }
    }

    /// The processor a role runs on, by its typed id.
    pub(crate) fn proc_id(&self, p: usize) -> ProcName {
        self.procs[p].id
    }

    #[inline]
    pub(crate) fn piece(&self, c: &StageCost, bytes: u64, count: u32) -> Piece {
        scaled(c, &self.cfg.costs, bytes as f64, count as f64)
    }

    /// The uncontended spinlock pairs `pieces` take on an SMP kernel (`smp.spinlocks`), as one
    /// `spin_lock` piece; empty (and so never queued) without spinlocks or locks.
    pub(crate) fn lock_piece(&self, pieces: &[Piece]) -> Piece {
        let costs = &self.cfg.costs;
        if !self.cfg.smp.spinlocks {
            return Piece::default();
        }
        let pairs: u32 = pieces
            .iter()
            .map(|p| costs.locks_by_id[p.stage as usize])
            .sum();
        self.piece(&costs.spin_lock, 0, pairs)
    }

    /// A job of `pieces`, with the spinlock pairs they take on an SMP kernel and the node-wide
    /// locks that serialise it (stacks.md §B.7): every buffer allocation and free holds the
    /// allocator's for its share of the buffer's work (`smp.allocator_hold_share`), one section
    /// per buffer; every system call and timer expiry holds the thread-management lock for
    /// its instructions (`smp.syscall_hold_instr`, `smp.timer_hold_instr`), and a wake-up for
    /// its whole work (a context switch takes it in `os/sched.rs`).
    #[inline(always)]
    pub(crate) fn priced_job(&self, then: Then, pieces: &[Piece]) -> Job {
        let mut j = job_of(then, pieces);
        j.add_or_merge(self.lock_piece(pieces), false);
        let (smp, costs) = (&self.cfg.smp, &self.cfg.costs);
        if !smp.spinlocks {
            return j;
        }
        if self.cfg.org.ip_serialised {
            j.lock_stage(costs.tx_ip.id, LockRef::Ip);
            j.lock_stage(costs.rx_ip.id, LockRef::Ip);
        }
        if self.cfg.org.context_list_lock {
            j.lock_stage(costs.rx_ip.id, LockRef::TcpContexts);
            j.lock_stage(costs.timer.id, LockRef::TcpContexts);
        }
        if smp.allocator_lock {
            for c in [&costs.skb_alloc, &costs.skb_free] {
                let unit = self.piece(c, 0, 1).cycles;
                j.lock_sections(c.id, LockRef::Allocator, unit, smp.allocator_hold_share);
            }
        }
        if smp.thread_lock {
            j.lock_stage(costs.rx_wake.id, LockRef::Threads);
            let calls = [
                (&costs.tx_syscall, smp.syscall_hold_instr),
                (&costs.rx_syscall, smp.syscall_hold_instr),
                (&costs.epoll_wait, smp.syscall_hold_instr),
                (&costs.connect_syscall, smp.syscall_hold_instr),
                (&costs.accept_syscall, smp.syscall_hold_instr),
                (&costs.close_syscall, smp.syscall_hold_instr),
                (&costs.timer, smp.timer_hold_instr),
            ];
            for (c, instr) in calls {
                let held = match c.i_pkt > 0.0 {
                    true => instr / c.i_pkt,
                    false => 1.0,
                };
                j.lock_sections(c.id, LockRef::Threads, self.piece(c, 0, 1).cycles, held);
            }
        }
        j
    }
}

/// Processor `p` with its clock, CPI and each stage's IPC.
fn processor(cfg: &Config, p: ProcName) -> Processor {
    let mut proc = Processor::new(
        p,
        derived::clock(cfg, p),
        derived::cpi(cfg, p),
        cfg.mem.batch_refs,
    );
    for (slot, &ipc) in proc.stage_ipc.iter_mut().zip(&cfg.costs.ipc_by_id) {
        *slot = ipc;
    }
    proc
}

/// The node's memory hierarchy: each processor's path to memory (the NIC processor reaches
/// its own memory, the host CPUs share the north bridge), and the caches in mode B.
fn memory(cfg: &Config, ids: &[ProcName]) -> Result<MemoryHierarchy, String> {
    let paths = ids
        .iter()
        .map(|p| {
            if p.is_nic() {
                MemPath {
                    model: derived::nic_cpu_memory_model(cfg),
                    contended: false,
                    local_io_cycles: Some(cfg.nic_cpu.io_latency_cycles),
                }
            } else {
                MemPath {
                    model: derived::host_memory_model(cfg),
                    contended: !cfg.nb.ideal,
                    local_io_cycles: None,
                }
            }
        })
        .collect();
    let host_cpus = ids.iter().filter(|p| !p.is_nic()).count();
    let nb = derived::north_bridge(cfg, host_cpus);
    let mem = MemoryHierarchy::new(nb, paths, cfg.io.pio_write_fraction);
    Ok(match cfg.mem.mode {
        MemMode::Detailed => mem.with_caches(Detailed::from_config(cfg, host_cpus)?),
        _ => mem,
    })
}

/// One network device per `(address, interrupt processor)`. The protocol runs in the
/// interrupted processor's softirq unless the placement gives it a processor of its own;
/// CPU-NET's devices never interrupt (its poll loop finds their work).
fn net_devices(cfg: &Config, roles: &Roles, devs: &[(NodeAddr, Option<usize>)]) -> Vec<NetDev> {
    let params = NicParams {
        rx_ring_entries: cfg.nic.rx_ring_entries,
        tx_ring_entries: cfg.nic.tx_ring_entries,
        rx_coalesce: cfg.nic.rx_coalesce_ps,
        rx_coalesce_frames: cfg.nic.rx_coalesce_frames,
        tx_coalesce: cfg.nic.tx_coalesce_ps,
        tx_coalesce_frames: cfg.nic.tx_coalesce_frames,
        // Ring accumulation raises one interrupt per flush and never masks (netif_rx path).
        napi: roles.receive == Receive::NapiPoll,
        ring_bytes: cfg.nic.memory_bytes,
        ring_slot_overhead: cfg.nic.ring_slot_overhead_bytes,
    };
    let own_protocol = roles.protocol != roles.driver;
    let masked = roles.poller.is_some() && cfg.cpu_net.device_irqs == DeviceIrqs::Masked;
    devs.iter()
        .map(|&(addr, irq)| {
            let irq = irq.unwrap_or(roles.irq_target);
            let protocol = if own_protocol { roles.protocol } else { irq };
            let dma = DmaEngine::new(cfg.io.dma_chunk_bytes);
            let fifo = cfg.link.rate_bps.time_to_send(cfg.nic.tx_fifo_bytes);
            let mut dev = NetDev::new(Nic::new(params), dma, addr, irq, protocol, fifo);
            dev.nic.masked = masked && Some(protocol) == roles.poller;
            dev
        })
        .collect()
}

fn register_accesses(per_item: u32, count: f64) -> u8 {
    u8::try_from(per_item * count as u32)
        .expect("a stage's register accesses per work item (pio_reads, pio_writes) exceed 255")
}

#[inline(always)]
pub(crate) fn job_of(then: Then, pieces: &[Piece]) -> Job {
    let mut j = Job::new(then);
    for p in pieces {
        j.push(*p);
    }
    j
}
