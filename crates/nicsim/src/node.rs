//! One host: its processors, buses, NIC, TCP endpoint and threads, and the Linux 2.6 receive
//! and transmit paths as work items (host-path §2). Which processor runs what comes from the
//! placement's `Roles`; what each stage costs comes from the cost profile.
//!
//! Receive path (base placement, all on cpu0):
//! ```text
//!  wire → MAC → rx DMA → [coalesce/NAPI] → APIC → hardirq(driver) → softirq: poll, IP, TCP
//!       → wake → context switch → read(): syscall, copy → application
//! ```

use crate::config::{
    Category, Config, Costs, IrqPath, NotificationHandler, RxMode, RxNotify, SoftirqKick,
    StageCost, TxOutput,
};
use crate::engine::Engine;
use crate::hw::bus::{Initiator, IoBus, NorthBridge};
use crate::hw::cpu::{Ctx, Job, MemPath, MemoryModel, Notice, Piece, Processor, Then};
use crate::hw::link::Lane;
use crate::hw::nic::{FlushCause, Frame, IrqDecision, Nic, NicParams};
use crate::placement::{processor_names, Roles};
use crate::stack::tcp::{Segment, Tcp, IP_HEADER_BYTES, TCP_HEADER_BYTES, TIMESTAMP_OPTION_BYTES};
use crate::units::{Duration, Time};
use std::collections::VecDeque;
use std::rc::Rc;

/// Engine events. Every variant names the node it concerns.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    Chunk {
        node: u8,
        proc: u8,
    },
    Dma {
        node: u8,
        chan: u8,
    },
    Arrive {
        node: u8,
    },
    Irq {
        node: u8,
        proc: u8,
        kind: IrqKind,
    },
    Coalesce {
        node: u8,
        at: Time,
    },
    AccIdle {
        node: u8,
        at: Time,
    },
    Delack {
        node: u8,
        at: Time,
    },
    Rto {
        node: u8,
        at: Time,
    },
    Persist {
        node: u8,
        at: Time,
    },
    /// A background cross-call reaches a host CPU (`smp.background_ipi_per_s`).
    CrossCall {
        node: u8,
        proc: u8,
    },
    Workload,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqKind {
    Nic,
    Notice(Notice),
}

/// A thread operation the workload asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    Send(u64),
    Recv(u64),
    /// Application work on received data: cycles and memory references.
    Compute {
        cycles: f64,
        refs: f64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    Data,
    Space,
}

#[derive(Clone, Copy, Debug)]
enum Effect {
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Delack,
    Rto,
    Persist,
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub proc: usize,
    op: Option<Op>,
    left: u64,
    in_call: bool,
    blocked: Option<Wait>,
    runnable: bool,
    woken: bool,
    saved: Option<Job>,
    effect: Effect,
    xmit: VecDeque<Segment>,
    pub bytes_read: u64,
    /// Bytes of messages the load thread finished processing.
    pub consumed: u64,
}

impl Thread {
    fn new(proc: usize) -> Self {
        Thread {
            proc,
            op: None,
            left: 0,
            in_call: false,
            blocked: None,
            runnable: false,
            woken: false,
            saved: None,
            effect: Effect::None,
            xmit: VecDeque::new(),
            bytes_read: 0,
            consumed: 0,
        }
    }

    pub fn credit(&mut self, bytes: u64) {
        self.consumed += bytes;
    }
}

#[derive(Clone, Debug, Default)]
struct Softirq {
    pending: bool,
    running: bool,
    yielded: bool,
    budget_used: u32,
    poll_ending: bool,
    effect: Option<EffectBox>,
    xmit: VecDeque<Segment>,
    wake: VecDeque<usize>,
    timers: VecDeque<TimerKind>,
    /// Frames handed over by ring accumulation or netif_rx, waiting for the protocol.
    backlog: VecDeque<Frame>,
}

#[derive(Clone, Copy, Debug)]
struct EffectBox(Effect);

/// A DMA channel (0: receive writes, 1: transmit reads) working through its requests.
#[derive(Clone, Debug, Default)]
struct DmaChan {
    queue: VecDeque<(Vec<Frame>, u64)>,
    left: u64,
    busy: bool,
}

pub const COMM: usize = 0;
pub const LOAD: usize = 1;

#[derive(Clone, Debug, Default)]
pub struct NodeStats {
    /// Generator frames that reached the top of the receive path, and their bytes.
    pub raw_delivered: u64,
    pub raw_delivered_bytes: u64,
    /// Frames `netif_rx` dropped because the backlog was full.
    pub backlog_dropped: u64,
    pub backlog_dropped_bytes: u64,
    pub payload_tx_bytes: u64,
    pub payload_rx_tcp_bytes: u64,
    pub payload_consumed_on_nic: u64,
    pub dma_bytes: u64,
    pub copy_bytes: u64,
    pub wakeups: u64,
    pub ipis_sent: u64,
}

pub struct Node {
    pub id: u8,
    pub procs: Vec<Processor>,
    pub roles: Roles,
    pub nb: NorthBridge,
    pub io: IoBus,
    pub nic: Nic,
    dma: [DmaChan; 2],
    pub tcp: Tcp,
    pub threads: Vec<Thread>,
    sq: Softirq,
    /// Packets waiting for a transmit descriptor (the queueing discipline).
    qdisc: VecDeque<Frame>,
    /// Frames a ring-accumulation burst put in host memory, waiting for the driver.
    delivered: VecDeque<Frame>,
    /// Shared so that building a job borrows the profile instead of copying it.
    costs: Rc<Costs>,
    cfg_napi_budget: u32,
    napi: bool,
    csum_offload: bool,
    pio_write_fraction: f64,
    dma_chunk: u64,
    softirq_copy: bool,
    desc_bytes: u64,
    status_bytes: u64,
    ioapic_lat: Duration,
    ipi_lat: Duration,
    ipi_send_cycles: f64,
    kick: SoftirqKick,
    notification_handler: NotificationHandler,
    ack_on_nic: bool,
    flush_on_push: bool,
    flush_idle: Duration,
    backlog_limit: u32,
    wakeup_preempts: bool,
    header_bytes: u64,
    /// Messages waiting for the load thread (hpcbench), in bytes each.
    pub load_queue: VecDeque<u64>,
    pub load_queue_cap: u32,
    scheduled_delack: Option<Time>,
    scheduled_rto: Option<Time>,
    scheduled_persist: Option<Time>,
    last_thread: Vec<Option<usize>>,
    /// Threads whose operation finished, for the workload to act on.
    pub done: VecDeque<usize>,
    pub stats: NodeStats,
}

/// Where an outgoing frame goes: this node's lane and the peer's arrival queue.
pub struct Wire<'a> {
    pub lane: &'a mut Lane,
    pub frames: &'a mut VecDeque<(Time, Frame)>,
}

fn scaled(c: &StageCost, costs: &Costs, bytes: f64, count: f64) -> Piece {
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

    fn piece(&self, c: &StageCost, bytes: u64, count: u32) -> Piece {
        scaled(c, &self.costs, bytes as f64, count as f64)
    }

    // ------------------------------------------------------------------ processors

    /// Starts work on processor `p` if it is idle.
    pub fn kick(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize) {
        if self.procs[p].running.is_none() {
            self.dispatch(eng, wire, p);
        }
    }

    /// Picks the highest-priority work on `p` and starts its first chunk.
    fn dispatch(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize) {
        // A completed job's effect may already have started work here (a wake-up kicks).
        while self.procs[p].running.is_none() {
            let Some((ctx, job)) = self.pick(p) else {
                return;
            };
            self.procs[p].running = Some((ctx, job));
            if self.start_chunk(eng, p) {
                return;
            }
            // An empty job completes at once.
            let (_, job) = self.procs[p].running.take().unwrap();
            self.complete(eng, wire, p, job.then);
        }
    }

    fn pick(&mut self, p: usize) -> Option<(Ctx, Job)> {
        if let Some(j) = self.procs[p].hardirq_q.pop_front() {
            return Some((Ctx::HardIrq, j));
        }
        if let Some(j) = self.procs[p].suspended[Ctx::Softirq as usize].take() {
            return Some((Ctx::Softirq, j));
        }
        if p == self.roles.protocol && (self.sq.pending || self.sq.running) && !self.sq.yielded {
            if let Some(j) = self.softirq_job() {
                return Some((Ctx::Softirq, j));
            }
        }
        self.sq.yielded = false;
        if let Some(j) = self.procs[p].owed.pop_front() {
            return Some((Ctx::Process, j));
        }
        for tid in [COMM, LOAD] {
            if self.threads[tid].proc != p || !self.threads[tid].runnable {
                continue;
            }
            // Switching threads, or resuming one that slept, costs a context switch.
            let switch = self.last_thread[p] != Some(tid) || self.threads[tid].woken;
            self.threads[tid].woken = false;
            let job = match self.threads[tid].saved.take() {
                Some(j) => Some(j),
                None => self.thread_job(tid),
            };
            if let Some(mut j) = job {
                if switch {
                    self.procs[p].stats.context_switches += 1;
                    let cs = self.piece(&self.costs.context_switch, 0, 1);
                    j = prepend(j, cs);
                    self.last_thread[p] = Some(tid);
                }
                return Some((Ctx::Process, j));
            }
        }
        if p == self.roles.protocol && (self.sq.pending || self.sq.running) {
            // The softirq yielded to process context and nothing else wants the CPU.
            if let Some(j) = self.softirq_job() {
                return Some((Ctx::Softirq, j));
            }
        }
        None
    }

    /// Prices the next chunk of the running job and schedules its end; false if the job is done.
    fn start_chunk(&mut self, eng: &mut Engine<Ev>, p: usize) -> bool {
        let now = eng.now();
        let Some(c) = self.procs[p].next_chunk() else {
            return false;
        };
        let proc = &self.procs[p];
        let mut t = now;
        match proc.mem.local_io_cycles {
            Some(cyc) => {
                t += proc
                    .clock
                    .duration_of(cyc * (c.pio_reads + c.pio_writes) as f64)
            }
            None => {
                for _ in 0..c.pio_reads {
                    // A read waits for the full round trip.
                    t = self.io.pio(t) + self.io.hold(8);
                }
                for _ in 0..c.pio_writes {
                    let done = self.io.pio(t);
                    let posted = Duration(((done - t).0 as f64 * self.pio_write_fraction) as u64);
                    t += posted;
                }
            }
        }
        let proc = &self.procs[p];
        if c.refs > 0.0 {
            // Only the misses reach the bridge; the stall is the mean access time either way.
            if proc.mem.contended {
                t += self
                    .nb
                    .request(t, Initiator::Cpu(p), proc.mem.model.transactions(c.refs));
            }
            t += proc.clock.duration_of(proc.mem.model.stall_cycles(c.refs));
        }
        t += proc.instr_time(c.cycles);
        let ctx = self.procs[p].running.as_ref().unwrap().0;
        let pr = &mut self.procs[p];
        pr.account(ctx, c.cat, t - now);
        pr.chunk_end = t;
        pr.chunk_cat = c.cat;
        pr.chunk_ctx = ctx;
        eng.at(
            t,
            Ev::Chunk {
                node: self.id,
                proc: p as u8,
            },
        );
        true
    }

    /// A chunk ended on `p`: preempt for higher-priority work, continue, or complete the job.
    pub fn on_chunk(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize) {
        let (ctx, then) = {
            let r = self.procs[p].running.as_ref().expect("chunk without a job");
            (r.0, r.1.then)
        };
        let hard_waiting = !self.procs[p].hardirq_q.is_empty();
        let soft_waiting = p == self.roles.protocol && self.sq.pending && !self.sq.running;
        // With wakeup preemption, the woken communication thread preempts the load thread.
        let comm_waiting = self.wakeup_preempts
            && then == Then::Thread(LOAD)
            && self.threads[COMM].proc == p
            && self.threads[COMM].runnable;
        if (ctx > Ctx::HardIrq && hard_waiting)
            || (ctx == Ctx::Process && (soft_waiting || comm_waiting))
        {
            let (ctx, job) = self.procs[p].running.take().unwrap();
            match job.then {
                Then::Thread(tid) => self.threads[tid].saved = Some(job),
                _ => self.procs[p].suspended[ctx as usize] = Some(job),
            }
            self.dispatch(eng, wire, p);
            return;
        }
        if self.start_chunk(eng, p) {
            return;
        }
        let (_, job) = self.procs[p].running.take().unwrap();
        self.complete(eng, wire, p, job.then);
        self.dispatch(eng, wire, p);
    }

    fn complete(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize, then: Then) {
        match then {
            Then::HardIrq(taken) => self.after_hardirq(eng, wire, p, taken),
            Then::Notified(Notice::RaiseSoftirq) => self.raise_softirq_local(),
            Then::Notified(Notice::Reschedule | Notice::CrossCall) | Then::Nothing => {}
            Then::Softirq => {
                let e = self.sq.effect.take().map(|b| b.0).unwrap_or(Effect::None);
                self.apply_softirq(eng, wire, e);
            }
            Then::Thread(tid) => {
                let e = std::mem::replace(&mut self.threads[tid].effect, Effect::None);
                self.apply_thread(eng, wire, tid, e);
            }
        }
    }

    /// Sends a notification to processor `to` (IPI, or a doorbell to the NIC processor).
    /// The sender pays `notify_cost` in a job of its own; this is the flight and delivery.
    fn notify(&mut self, eng: &mut Engine<Ev>, to: usize, notice: Notice) {
        self.stats.ipis_sent += 1;
        let lat = if self.procs[to].name == "nic_cpu" && self.kick == SoftirqKick::Doorbell {
            self.io.hold(8)
        } else {
            self.ipi_lat
        };
        eng.after(
            lat,
            Ev::Irq {
                node: self.id,
                proc: to as u8,
                kind: IrqKind::Notice(notice),
            },
        );
    }

    fn notify_cost(&self, to: usize) -> Piece {
        if self.procs[to].name == "nic_cpu" && self.kick == SoftirqKick::Doorbell {
            Piece {
                cat: Some(Category::Driver),
                pio_writes: 1,
                ..Default::default()
            }
        } else {
            Piece {
                cat: Some(Category::Os),
                cycles: self.ipi_send_cycles,
                ..Default::default()
            }
        }
    }

    /// An interrupt reached processor `p`.
    pub fn on_irq(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize, kind: IrqKind) {
        let c = Rc::clone(&self.costs);
        let job = match kind {
            IrqKind::Nic => {
                self.procs[p].stats.irqs_nic += 1;
                // NAPI schedules one poll; netif_rx (no NAPI, or a flushed burst) queues
                // every frame the handler finds.
                let taken = match (self.roles.rx_mode, self.napi) {
                    (RxMode::RingAccumulate, _) => self.delivered.len() as u32,
                    (RxMode::HostRing, true) => 0,
                    (RxMode::HostRing, false) => self.nic.rx_ready.len() as u32,
                };
                let mut j = Job::new(Then::HardIrq(taken))
                    .with(self.piece(&c.irq_entry, 0, 1))
                    .with(self.piece(&c.rx_hardirq, 0, 1))
                    .with(self.piece(&c.rx_schedule, 0, taken.max(1)));
                if self.roles.protocol != p {
                    j.push(self.notify_cost(self.roles.protocol));
                }
                j.with(self.piece(&c.irq_exit, 0, 1))
            }
            IrqKind::Notice(n) => {
                self.procs[p].stats.irqs_ipi += 1;
                match self.notification_handler {
                    NotificationHandler::Ipi => {
                        Job::new(Then::Notified(n)).with(self.piece(&c.ipi_handler, 0, 1))
                    }
                    NotificationHandler::Irq => Job::new(Then::Notified(n))
                        .with(self.piece(&c.irq_entry, 0, 1))
                        .with(self.piece(&c.irq_exit, 0, 1)),
                }
            }
        };
        self.procs[p].hardirq_q.push_back(job);
        self.kick(eng, wire, p);
    }

    fn after_hardirq(&mut self, eng: &mut Engine<Ev>, _wire: &mut Wire, p: usize, taken: u32) {
        // netif_rx moved the frames the handler found to the protocol's backlog.
        for _ in 0..taken {
            let f = match self.roles.rx_mode {
                RxMode::RingAccumulate => self.delivered.pop_front(),
                RxMode::HostRing => self.nic.take_rx(),
            };
            let Some(f) = f else { break };
            if self.sq.backlog.len() as u32 >= self.backlog_limit {
                self.stats.backlog_dropped += 1;
                self.stats.backlog_dropped_bytes += f.seg.len as u64;
            } else {
                self.sq.backlog.push_back(f);
            }
        }
        if self.roles.protocol == p {
            self.raise_softirq_local();
        } else {
            let to = self.roles.protocol;
            self.notify(eng, to, Notice::RaiseSoftirq);
        }
    }

    fn raise_softirq_local(&mut self) {
        self.sq.pending = true;
    }

    // ------------------------------------------------------------------ softirq

    /// The next step of the receive softirq on the protocol processor, or None when it ends.
    fn softirq_job(&mut self) -> Option<Job> {
        let c = Rc::clone(&self.costs);
        let mk = |s: &mut Self, e: Effect, pieces: &[Piece]| {
            s.sq.effect = Some(EffectBox(e));
            Some(job_of(Then::Softirq, pieces))
        };
        if !self.sq.running {
            self.sq.running = true;
            self.sq.pending = false;
            self.sq.budget_used = 0;
            self.sq.poll_ending = false;
            return mk(self, Effect::None, &[self.piece(&c.softirq_dispatch, 0, 1)]);
        }
        if let Some(seg) = self.sq.xmit.pop_front() {
            return mk(self, Effect::Xmit(seg), &self.xmit_pieces(&seg));
        }
        if let Some(tid) = self.sq.wake.pop_front() {
            let to = self.threads[tid].proc;
            let ipi = if to != self.roles.protocol {
                self.notify_cost(to)
            } else {
                Piece::default()
            };
            return mk(
                self,
                Effect::Wake(tid),
                &[self.piece(&c.rx_wake, 0, 1), ipi],
            );
        }
        if let Some(k) = self.sq.timers.pop_front() {
            return mk(self, Effect::Timer(k), &[self.piece(&c.timer, 0, 1)]);
        }
        if self.nic.tx_done > 0 {
            let n = self.nic.tx_done;
            self.nic.tx_done = 0;
            return mk(
                self,
                Effect::Reclaim(n),
                &[
                    self.piece(&c.tx_complete, 0, n),
                    self.piece(&c.skb_free, 0, n),
                ],
            );
        }
        if self.sq.budget_used >= self.cfg_napi_budget {
            // Budget spent: defer the rest and let process context run (ksoftirqd-like).
            self.sq.running = false;
            self.sq.pending = true;
            self.sq.yielded = true;
            return None;
        }
        {
            let frame = match self.roles.rx_mode {
                RxMode::HostRing if self.napi => self.nic.take_rx(),
                _ => self.sq.backlog.pop_front(),
            };
            if let Some(f) = frame {
                self.sq.budget_used += 1;
                let bytes = f.seg.len as u64;
                let mut pieces = vec![
                    self.piece(&c.rx_poll, bytes, 1),
                    self.piece(&c.skb_alloc, 0, 1),
                    self.piece(&c.rx_ip, bytes, 1),
                    self.piece(&c.rx_tcp, bytes, 1),
                ];
                if !self.csum_offload {
                    pieces.push(self.piece(&c.csum, bytes, 1));
                }
                if self.softirq_copy && bytes > 0 && !f.raw {
                    pieces.push(self.piece(&c.skb_copy, bytes, 1));
                }
                if f.raw {
                    // Consumed at the top of the stack; nothing queues it for a reader.
                    pieces.push(self.piece(&c.skb_free, 0, 1));
                } else if f.seg.is_pure_ack() {
                    pieces.push(self.piece(&c.tx_ack, 0, 1));
                    pieces.push(self.piece(&c.skb_free, 0, 1));
                }
                return mk(self, Effect::RxPacket(f), &pieces);
            }
        }
        // Nothing left: a NAPI poll ends by re-enabling device interrupts.
        if self.roles.rx_mode == RxMode::HostRing && self.napi && !self.sq.poll_ending {
            self.sq.poll_ending = true;
            return mk(self, Effect::PollEnd, &[self.piece(&c.rx_poll_end, 0, 1)]);
        }
        self.sq.running = false;
        self.sq.poll_ending = false;
        None
    }

    fn xmit_pieces(&self, seg: &Segment) -> Vec<Piece> {
        let c = &self.costs;
        let mut v = vec![self.piece(&c.tx_tcp, 0, 1), self.piece(&c.tx_ip, 0, 1)];
        if !(self.ack_on_nic && seg.is_pure_ack()) {
            v.push(self.piece(&c.tx_dev, 0, 1));
        }
        v
    }

    fn apply_softirq(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, e: Effect) {
        match e {
            Effect::None => {}
            Effect::Xmit(seg) => self.nic_xmit(eng, wire, seg),
            Effect::Wake(tid) => self.wake(eng, wire, tid),
            Effect::Timer(k) => self.fire_timer(eng, k),
            Effect::Reclaim(n) => self.reclaim(eng, n),
            Effect::RxPacket(f) => self.tcp_input(eng, f),
            Effect::PollEnd => {
                if self.nic.unmask() {
                    self.raise_nic_irq(eng);
                }
            }
            _ => unreachable!("thread effect in softirq"),
        }
        self.sync_timers(eng);
    }

    /// IP and TCP input for one frame, on the protocol processor.
    fn tcp_input(&mut self, eng: &mut Engine<Ev>, f: Frame) {
        if f.raw {
            self.stats.raw_delivered += 1;
            self.stats.raw_delivered_bytes += f.seg.len as u64;
            return;
        }
        let now = eng.now();
        self.stats.payload_rx_tcp_bytes += f.seg.len as u64;
        if self.softirq_copy {
            self.stats.copy_bytes += f.seg.len as u64;
        }
        let r = self.tcp.on_segment(now, &f.seg);
        if r.ack_now {
            let a = self.tcp.make_ack();
            self.sq.xmit.push_back(a);
        }
        if r.acked_new {
            let segs = self.tcp.output(now);
            self.sq.xmit.extend(segs);
        }
        if r.delivered_bytes > 0 && self.threads[COMM].blocked == Some(Wait::Data) {
            self.threads[COMM].blocked = None;
            self.sq.wake.push_back(COMM);
        }
        if r.space_freed
            && self.threads[COMM].blocked == Some(Wait::Space)
            && self.tcp.send_space() > 0
        {
            self.threads[COMM].blocked = None;
            self.sq.wake.push_back(COMM);
        }
    }

    fn fire_timer(&mut self, eng: &mut Engine<Ev>, k: TimerKind) {
        let now = eng.now();
        match k {
            TimerKind::Delack => {
                let a = self.tcp.make_ack();
                self.sq.xmit.push_back(a);
            }
            TimerKind::Rto => {
                let segs = self.tcp.output(now);
                self.sq.xmit.extend(segs);
            }
            TimerKind::Persist => self.sq.xmit.extend(self.tcp.on_persist(now)),
        }
    }

    /// Makes a sleeping thread runnable, with a reschedule IPI if it sleeps elsewhere.
    fn wake(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, tid: usize) {
        self.stats.wakeups += 1;
        let t = &mut self.threads[tid];
        t.runnable = true;
        t.woken = true;
        let p = t.proc;
        if p != self.roles.protocol {
            self.notify(eng, p, Notice::Reschedule);
        } else {
            self.kick(eng, wire, p);
        }
    }

    /// The timer events the TCP wants, scheduled once each.
    fn sync_timers(&mut self, eng: &mut Engine<Ev>) {
        if let Some(t) = self.tcp.delack_deadline {
            if self.scheduled_delack != Some(t) {
                self.scheduled_delack = Some(t);
                eng.at(
                    t.max(eng.now()),
                    Ev::Delack {
                        node: self.id,
                        at: t,
                    },
                );
            }
        }
        if let Some(t) = self.tcp.rto_deadline {
            if self.scheduled_rto != Some(t) {
                self.scheduled_rto = Some(t);
                eng.at(
                    t.max(eng.now()),
                    Ev::Rto {
                        node: self.id,
                        at: t,
                    },
                );
            }
        }
        if let Some(t) = self.tcp.persist_deadline {
            if self.scheduled_persist != Some(t) {
                self.scheduled_persist = Some(t);
                eng.at(
                    t.max(eng.now()),
                    Ev::Persist {
                        node: self.id,
                        at: t,
                    },
                );
            }
        }
    }

    pub fn on_timer(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, k: TimerKind, at: Time) {
        let fire = match k {
            TimerKind::Delack => self.tcp.on_delack(at),
            TimerKind::Rto => self.tcp.on_rto(at),
            TimerKind::Persist => self.tcp.persist_deadline == Some(at),
        };
        if fire {
            self.sq.timers.push_back(k);
            self.sq.pending = true;
            let p = self.roles.protocol;
            self.kick(eng, wire, p);
        }
    }

    // ------------------------------------------------------------------ threads

    /// Gives thread `tid` an operation and makes it runnable.
    pub fn start_op(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, tid: usize, op: Op) {
        self.assign(tid, op);
        let p = self.threads[tid].proc;
        self.kick(eng, wire, p);
    }

    fn assign(&mut self, tid: usize, op: Op) {
        let t = &mut self.threads[tid];
        debug_assert!(t.op.is_none(), "thread already busy");
        t.op = Some(op);
        t.left = match op {
            Op::Send(n) | Op::Recv(n) => n,
            Op::Compute { .. } => 1,
        };
        t.in_call = false;
        t.runnable = true;
    }

    /// Hands thread `tid` an operation from a thread on processor `from` (the Hpcbench queue
    /// between the receiving and the load thread). Across processors the sleeper is woken with
    /// a reschedule IPI and pays the context switch; on one processor it is a plain wake-up.
    pub fn hand_off(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        from: usize,
        tid: usize,
        op: Op,
    ) {
        self.assign(tid, op);
        self.threads[tid].woken = true;
        let to = self.threads[tid].proc;
        if to != from {
            // The handing thread pays the IPI's send on its own processor (§5.8).
            let send = job_of(Then::Nothing, &[self.notify_cost(to)]);
            self.procs[from].owed.push_back(send);
            self.kick(eng, wire, from);
            self.notify(eng, to, Notice::Reschedule);
        } else {
            self.kick(eng, wire, to);
        }
    }

    pub fn thread_proc(&self, tid: usize) -> usize {
        self.threads[tid].proc
    }

    pub fn thread_idle(&self, tid: usize) -> bool {
        self.threads[tid].op.is_none()
    }

    /// The next job of thread `tid`: pending output first, then its operation one step on.
    fn thread_job(&mut self, tid: usize) -> Option<Job> {
        let c = Rc::clone(&self.costs);
        let op = self.threads[tid].op?;
        let mk = |s: &mut Self, e: Effect, pieces: &[Piece]| {
            s.threads[tid].effect = e;
            Some(job_of(Then::Thread(tid), pieces))
        };
        if let Some(seg) = self.threads[tid].xmit.pop_front() {
            return mk(self, Effect::Xmit(seg), &self.xmit_pieces(&seg));
        }
        // A send or receive enters the kernel once per call.
        let syscall = match op {
            Op::Send(_) => Some(c.tx_syscall),
            Op::Recv(_) => Some(c.rx_syscall),
            Op::Compute { .. } => None,
        };
        if let Some(sc) = syscall {
            if !self.threads[tid].in_call {
                self.threads[tid].in_call = true;
                return mk(self, Effect::None, &[self.piece(&sc, 0, 1)]);
            }
        }
        let left = self.threads[tid].left;
        if left == 0 {
            return self.op_finished(tid);
        }
        match op {
            Op::Send(_) => {
                let space = self.tcp.send_space();
                if space == 0 {
                    self.block(tid, Wait::Space);
                    return None;
                }
                let n = left.min(space);
                let bell = self.toe_doorbell(tid);
                // Without checksum offload, csum_partial_copy folds the sum into this copy.
                let fold = if self.csum_offload {
                    Piece::default()
                } else {
                    self.piece(&c.tx_csum_fold, n, 1)
                };
                mk(
                    self,
                    Effect::Copied {
                        bytes: n,
                        push: n == left,
                    },
                    &[
                        self.piece(&c.tx_copy, n, 1),
                        fold,
                        self.piece(&c.skb_alloc, 0, 1),
                        bell,
                    ],
                )
            }
            Op::Recv(_) => {
                let avail = self.tcp.readable().min(left);
                if avail == 0 {
                    self.block(tid, Wait::Data);
                    return None;
                }
                let skbs = avail.div_ceil(self.tcp.mss as u64) as u32;
                let bell = self.toe_doorbell(tid);
                mk(
                    self,
                    Effect::Read { bytes: avail },
                    &[
                        self.piece(&c.rx_copy, avail, skbs),
                        self.piece(&c.skb_free, 0, skbs),
                        bell,
                    ],
                )
            }
            Op::Compute { cycles, refs } => {
                let p = Piece {
                    cat: Some(Category::App),
                    cycles,
                    refs,
                    ..Default::default()
                };
                mk(
                    self,
                    Effect::ComputeDone,
                    &[self.piece(&c.app_message, 0, 1), p],
                )
            }
        }
    }

    /// With a TOE (`tx_output = protocol`) each send or read call rings the NIC processor's
    /// doorbell, so the output work runs there; Linux sends from the calling thread.
    fn toe_doorbell(&self, tid: usize) -> Piece {
        let to = self.roles.protocol;
        if self.roles.tx_output == TxOutput::Protocol && self.threads[tid].proc != to {
            self.notify_cost(to)
        } else {
            Piece::default()
        }
    }

    fn output_from_thread(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        tid: usize,
        segs: Vec<Segment>,
    ) {
        if segs.is_empty() {
            return;
        }
        if self.roles.tx_output == TxOutput::Thread {
            self.threads[tid].xmit.extend(segs);
            return;
        }
        self.sq.xmit.extend(segs);
        let to = self.roles.protocol;
        if self.threads[tid].proc == to {
            self.raise_softirq_local();
            self.kick(eng, wire, to);
        } else {
            self.notify(eng, to, Notice::RaiseSoftirq);
        }
    }

    fn block(&mut self, tid: usize, w: Wait) {
        let t = &mut self.threads[tid];
        t.blocked = Some(w);
        t.runnable = false;
    }

    fn op_finished(&mut self, tid: usize) -> Option<Job> {
        let t = &mut self.threads[tid];
        t.op = None;
        t.in_call = false;
        t.runnable = false;
        self.done.push_back(tid);
        None
    }

    fn apply_thread(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, tid: usize, e: Effect) {
        let now = eng.now();
        match e {
            Effect::None => {}
            Effect::Xmit(seg) => self.nic_xmit(eng, wire, seg),
            Effect::Copied { bytes, push } => {
                self.stats.copy_bytes += bytes;
                self.tcp.write(bytes, push);
                self.threads[tid].left -= bytes;
                let segs = self.tcp.output(now);
                self.output_from_thread(eng, wire, tid, segs);
            }
            Effect::Read { bytes } => {
                self.stats.copy_bytes += bytes;
                let (n, _, ack) = self.tcp.read(bytes);
                let t = &mut self.threads[tid];
                t.left -= n;
                t.bytes_read += n;
                if ack {
                    let a = self.tcp.make_ack();
                    self.output_from_thread(eng, wire, tid, vec![a]);
                }
                // read() returns once the queue is drained; the next read is a new call.
                if self.tcp.readable() == 0 {
                    self.threads[tid].in_call = false;
                }
            }
            Effect::ComputeDone => self.threads[tid].left = 0,
            _ => unreachable!("softirq effect in thread"),
        }
        self.sync_timers(eng);
    }

    // ------------------------------------------------------------------ NIC, DMA, wire

    /// The driver posted a segment for transmission (or the NIC processor built an ACK).
    fn nic_xmit(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, seg: Segment) {
        let f = Frame {
            seg,
            ip_bytes: seg.len as u64 + self.header_bytes,
            raw: false,
        };
        self.stats.payload_tx_bytes += seg.len as u64;
        if self.ack_on_nic && seg.is_pure_ack() {
            // Built in NIC memory and handed to the MAC: no descriptor, no DMA.
            self.send_frame(eng, wire, f);
            return;
        }
        if self.nic.tx_used >= self.nic.p.tx_ring_entries {
            // Ring full: the driver stops the queue; the qdisc holds the packet (Q32).
            self.qdisc.push_back(f);
            return;
        }
        self.post_tx(eng, f);
    }

    fn post_tx(&mut self, eng: &mut Engine<Ev>, f: Frame) {
        self.nic.tx_used += 1;
        let bytes = f.ip_bytes + 14 + self.desc_bytes;
        self.dma[1].queue.push_back((vec![f], bytes));
        self.dma_next(eng, 1);
    }

    /// Transmit buffers reclaimed: descriptors free up for packets the qdisc held.
    fn reclaim(&mut self, eng: &mut Engine<Ev>, n: u32) {
        self.nic.tx_used -= n.min(self.nic.tx_used);
        while self.nic.tx_used < self.nic.p.tx_ring_entries {
            let Some(f) = self.qdisc.pop_front() else {
                break;
            };
            self.post_tx(eng, f);
        }
    }

    fn send_frame(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, f: Frame) {
        let arrive = wire.lane.transmit(eng.now(), f.ip_bytes);
        wire.frames.push_back((arrive, f));
        eng.at(arrive, Ev::Arrive { node: 1 - self.id });
    }

    /// Starts the next DMA transaction on channel `ch` if it is idle.
    fn dma_next(&mut self, eng: &mut Engine<Ev>, ch: usize) {
        let chan = &mut self.dma[ch];
        if chan.busy {
            return;
        }
        let Some((_, total)) = chan.queue.front() else {
            return;
        };
        if chan.left == 0 {
            chan.left = *total;
        }
        let bytes = chan.left.min(self.dma_chunk);
        chan.left -= bytes;
        chan.busy = true;
        let (start, end) = self.io.transact(eng.now(), bytes);
        self.io.dma_bytes += bytes;
        self.stats.dma_bytes += bytes;
        // The transfer's memory lines cross the bridge; the I/O bus is the slower of the two.
        let end = end.max(self.nb.dma(start, bytes));
        eng.at(
            end,
            Ev::Dma {
                node: self.id,
                chan: ch as u8,
            },
        );
    }

    pub fn on_dma(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, ch: usize) {
        self.dma[ch].busy = false;
        if self.dma[ch].left == 0 {
            let (frames, _) = self.dma[ch].queue.pop_front().expect("dma without request");
            if ch == 1 {
                for f in frames {
                    self.send_frame(eng, wire, f);
                    let d = self.nic.tx_sent(eng.now());
                    self.irq_decision(eng, d);
                }
            } else {
                self.rx_dma_done(eng, frames);
            }
        }
        self.dma_next(eng, ch);
    }

    fn rx_dma_done(&mut self, eng: &mut Engine<Ev>, frames: Vec<Frame>) {
        match self.roles.rx_mode {
            RxMode::HostRing => {
                for f in frames {
                    let d = self.nic.rx_dma_done(eng.now(), f);
                    self.irq_decision(eng, d);
                }
            }
            RxMode::RingAccumulate => {
                // One interrupt per flushed burst; the frames wait for the driver's netif_rx.
                self.delivered.extend(frames);
                self.raise_nic_irq(eng);
            }
        }
    }

    fn irq_decision(&mut self, eng: &mut Engine<Ev>, d: IrqDecision) {
        match d {
            IrqDecision::Raise => self.raise_nic_irq(eng),
            IrqDecision::ArmTimer(t) => eng.at(
                t,
                Ev::Coalesce {
                    node: self.id,
                    at: t,
                },
            ),
            IrqDecision::None => {}
        }
    }

    /// Schedules the periodic background cross-calls of every host CPU, spread in phase.
    /// The exclusive NIC processor receives none (host-path §5.8).
    pub fn start_cross_calls(&self, eng: &mut Engine<Ev>, per_s: f64) {
        if per_s <= 0.0 {
            return;
        }
        let host: Vec<usize> = (0..self.procs.len())
            .filter(|&p| self.procs[p].name != "nic_cpu")
            .collect();
        let period = 1e12 / per_s;
        for (k, &p) in host.iter().enumerate() {
            let phase = period * (k + 1) as f64 / (host.len() + 1) as f64;
            eng.at(
                Time(phase as u64),
                Ev::CrossCall {
                    node: self.id,
                    proc: p as u8,
                },
            );
        }
    }

    pub fn on_cross_call(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize, per_s: f64) {
        eng.after(
            Duration((1e12 / per_s) as u64),
            Ev::CrossCall {
                node: self.id,
                proc: p as u8,
            },
        );
        self.on_irq(eng, wire, p, IrqKind::Notice(Notice::CrossCall));
    }

    pub fn on_coalesce(&mut self, eng: &mut Engine<Ev>, at: Time) {
        let d = self.nic.coalesce_timer(at);
        self.irq_decision(eng, d);
    }

    fn raise_nic_irq(&mut self, eng: &mut Engine<Ev>) {
        self.nic.raise();
        let lat = match self.roles.irq_path {
            IrqPath::Ioapic => self.ioapic_lat,
            IrqPath::Direct => Duration::ZERO,
        };
        eng.after(
            lat,
            Ev::Irq {
                node: self.id,
                proc: self.roles.irq_target as u8,
                kind: IrqKind::Nic,
            },
        );
    }

    /// A frame's last bit reached this node's MAC.
    pub fn on_arrive(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, f: Frame) {
        match self.roles.rx_mode {
            RxMode::HostRing => {
                if self.nic.accept_rx(&f) {
                    let bytes = f.ip_bytes + 14 + self.desc_bytes + self.status_bytes;
                    self.dma[0].queue.push_back((vec![f], bytes));
                    self.dma_next(eng, 0);
                }
            }
            RxMode::RingAccumulate => {
                if self.ack_on_nic && f.seg.is_pure_ack() {
                    // The NIC recognises a pure ACK and hands it to its own processor.
                    self.nic.stats.acks_consumed_on_nic += 1;
                    self.nic.stats.rx_frames += 1;
                    self.sq.backlog.push_back(f);
                    let p = self.roles.protocol;
                    self.sq.pending = true;
                    self.kick(eng, wire, p);
                    return;
                }
                let mut cause = self.nic.accumulate(f, self.flush_on_push);
                if cause == Some(FlushCause::Full)
                    && !self
                        .nic
                        .acc
                        .iter()
                        .any(|x| x.seg.seq == f.seg.seq && x.seg.len == f.seg.len)
                {
                    self.flush(eng, FlushCause::Full);
                    cause = self.nic.accumulate(f, self.flush_on_push);
                }
                match cause {
                    Some(c) => self.flush(eng, c),
                    None => {
                        let t = eng.now() + self.flush_idle;
                        self.nic.idle_deadline = Some(t);
                        eng.at(
                            t,
                            Ev::AccIdle {
                                node: self.id,
                                at: t,
                            },
                        );
                    }
                }
            }
        }
    }

    pub fn on_acc_idle(&mut self, eng: &mut Engine<Ev>, at: Time) {
        if self.nic.idle_deadline == Some(at) && !self.nic.acc.is_empty() {
            self.flush(eng, FlushCause::Idle);
        }
    }

    fn flush(&mut self, eng: &mut Engine<Ev>, cause: FlushCause) {
        let frames = self.nic.flush(cause);
        if frames.is_empty() {
            return;
        }
        let bytes: u64 = frames
            .iter()
            .map(|f| f.ip_bytes + 14 + self.desc_bytes)
            .sum::<u64>()
            + self.status_bytes;
        self.dma[0].queue.push_back((frames, bytes));
        self.dma_next(eng, 0);
    }

    // ------------------------------------------------------------------ accounting

    /// Payload bytes held anywhere inside this node's receive side (rings, DMA, backlog).
    pub fn rx_payload_in_flight(&self) -> u64 {
        let ring: u64 = self.nic.rx_ready.iter().map(|f| f.seg.len as u64).sum();
        let dma: u64 = self.dma[0]
            .queue
            .iter()
            .flat_map(|(v, _)| v.iter())
            .map(|f| f.seg.len as u64)
            .sum();
        let acc: u64 = self.nic.acc.iter().map(|f| f.seg.len as u64).sum();
        let backlog: u64 = self
            .sq
            .backlog
            .iter()
            .chain(&self.delivered)
            .map(|f| f.seg.len as u64)
            .sum();
        let effect = match self.sq.effect {
            Some(EffectBox(Effect::RxPacket(f))) => f.seg.len as u64,
            _ => 0,
        };
        ring + dma + acc + backlog + effect
    }

    /// Payload bytes posted for transmission but not yet on the wire.
    pub fn tx_payload_in_flight(&self) -> u64 {
        let q = self.qdisc.iter().map(|f| f.seg.len as u64).sum::<u64>();
        q + self.dma[1]
            .queue
            .iter()
            .flat_map(|(v, _)| v.iter())
            .map(|f| f.seg.len as u64)
            .sum::<u64>()
    }

    /// Payload decided by TCP but whose transmit work has not run yet.
    pub fn tx_payload_pending(&self) -> u64 {
        let q = |v: &VecDeque<Segment>| v.iter().map(|s| s.len as u64).sum::<u64>();
        let eff = |e: &Effect| {
            if let Effect::Xmit(s) = e {
                s.len as u64
            } else {
                0
            }
        };
        q(&self.sq.xmit)
            + self
                .threads
                .iter()
                .map(|t| q(&t.xmit) + eff(&t.effect))
                .sum::<u64>()
            + self.sq.effect.map(|b| eff(&b.0)).unwrap_or(0)
    }
}

fn job_of(then: Then, pieces: &[Piece]) -> Job {
    let mut j = Job::new(then);
    for p in pieces {
        j.push(*p);
    }
    j
}

fn prepend(j: Job, p: Piece) -> Job {
    let rest: Vec<Piece> = j.pieces().collect();
    job_of(j.then, &[&[p][..], &rest].concat())
}
