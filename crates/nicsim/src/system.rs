//! The whole simulated system, wired in reading order: the nodes (clients, then the server),
//! the fabric that joins them (one link, or a switch) and the engine; `workload::drive` runs
//! a workload on it, opening connections and starting threads through it. The only place
//! that turns events into model calls.

use crate::config::{Config, NicIrq, SchedPolicy};
use crate::engine::Engine;
use crate::hw::dma::Chan;
use crate::hw::fabric::SwitchParams;
use crate::hw::frame::{FlowId, NodeAddr};
use crate::hw::nic::rss_queue;
use crate::hw::slices::{Log, SliceLog};
use crate::node::netdev::DevId;
use crate::node::record::Recorder;
use crate::node::{Ev, Node, Wire};
use crate::os::thread::{Op, Priority};
use crate::placement::server_nic_cpus;
use crate::stack::conn::ConnId;
use crate::stack::udp::UdpId;
use crate::stack::Frame;
use crate::units::{Freq, Time};
use crate::validate;
use std::rc::Rc;

/// Flow ids a connection may take: 0 is "no connection", the rest are ephemeral ports.
pub const MAX_CONNECTIONS: usize = FlowId::MAX as usize;

pub struct World {
    pub eng: Engine<Ev>,
    pub nodes: Vec<Node>,
    pub fabric: Wire,
    /// Each flow's two ends (the opener first), as node indices; flow 0 is the generator's.
    /// A node finds its end's socket by the flow id (`Node::conn_of`), once the handshake
    /// has made it.
    pub(crate) flows: Vec<[NodeAddr; 2]>,
    /// The node behind each fabric address, its first device there, and how many (RSS
    /// receive queues, each a device of its own with its ring and interrupt).
    addr_dev: Vec<(usize, DevId, usize)>,
    /// The server's next NIC for a connection through the switch (round-robin).
    next_port: usize,
    /// Payload bytes a workload injected at node1's MAC (they did not come from node0's TCP).
    pub(crate) injected_bytes: u64,
    /// Events executed, per `Ev::kind`.
    pub events_by_kind: [u64; Ev::KINDS.len()],
    /// Finished connections' slots are freed between events (`stack/reap.rs`); off, every
    /// connection keeps its slot for the whole run, which only a test that checks freeing
    /// changes no result wants.
    pub free_slots: bool,
    /// Some node reads the time inside a decision that has no engine at hand (EEVDF's
    /// accounting, the handoff NIC's FCFS order): each event sets its nodes' `now`.
    node_clock: bool,
    pub cfg: Config,
}

impl World {
    /// The nodes and fabric of `cfg`, with no connections or threads yet: the topology is
    /// checked, the fabric's addresses laid out, the nodes built on them, and each node's
    /// periodic events started.
    pub fn new(cfg: &Config) -> Result<World, String> {
        validate::config(cfg)?;
        let addr_dev = addresses(cfg);
        let mut nodes = build_nodes(cfg, &addr_dev)?;
        record(cfg, &mut nodes);
        let mut eng = Engine::with_queue(cfg.run.event_queue);
        start_periodic(cfg, &nodes, &mut eng);
        let switch = cfg.switch.present.then_some(SwitchParams {
            port_rate: cfg.switch.port_rate_bps,
            latency: cfg.switch.latency_ps,
            buffer_bytes: cfg.switch.buffer_bytes,
        });
        let node_clock =
            cfg.sched.policy == SchedPolicy::Eevdf || nodes.iter().any(|n| n.fw().is_some());
        Ok(World {
            eng,
            nodes,
            fabric: Wire::new(
                addr_dev.len(),
                cfg.link.rate_bps,
                cfg.link.latency_ps,
                switch,
            ),
            flows: vec![[0, 1]],
            addr_dev,
            next_port: 0,
            injected_bytes: 0,
            events_by_kind: [0; Ev::KINDS.len()],
            free_slots: true,
            node_clock,
            cfg: cfg.clone(),
        })
    }

    /// The server: the node after the clients.
    pub fn server(&self) -> usize {
        self.nodes.len() - 1
    }

    /// The next flow id, from `a` to `b`.
    fn new_flow(&mut self, a: usize, b: usize) -> Result<FlowId, String> {
        let flow = self.flows.len();
        if flow > MAX_CONNECTIONS {
            return Err(format!(
                "more than {MAX_CONNECTIONS} connections in one run: flow ids run out (they are not reused)"
            ));
        }
        self.flows.push([a as NodeAddr, b as NodeAddr]);
        Ok(flow as FlowId)
    }

    /// The devices flow `flow` from node `a` to node `b` uses at each end: `a`'s first, and on
    /// `b` the NIC linked to it, or through the switch the next of `b`'s NICs in turn
    /// (round-robin); on that NIC, the receive queue RSS hashes the flow to.
    fn route(
        &mut self,
        a: usize,
        b: usize,
        flow: FlowId,
    ) -> ((DevId, NodeAddr), (DevId, NodeAddr)) {
        let n = self.addr_dev.len();
        let ports = &self.addr_dev;
        let ports_of = |node: usize| (0..n).filter(move |&p| ports[p].0 == node);
        let (pa, pb) = if self.cfg.switch.present {
            let pb: Vec<usize> = ports_of(b).collect();
            let pa = ports_of(a).next().expect("a node has a port");
            self.next_port += 1;
            (pa, pb[(self.next_port - 1) % pb.len()])
        } else {
            // Port i is linked to port i + n/2: the pair joining a to b.
            ports_of(a)
                .map(|p| (p, (p + n / 2) % n))
                .find(|&(_, q)| ports[q].0 == b)
                .expect("point-to-point links join every client to a server NIC")
        };
        let (pa, pb) = (pa as NodeAddr, pb as NodeAddr);
        ((self.dev_for(pa, flow), pa), (self.dev_for(pb, flow), pb))
    }

    /// The device at fabric address `addr` that receives flow `flow` (its RSS queue).
    fn dev_for(&self, addr: NodeAddr, flow: FlowId) -> DevId {
        let (_, first, queues) = self.addr_dev[addr as usize];
        first + rss_queue(flow, queues)
    }

    /// A connected socket pair between nodes `a` and `b`, established before the run starts
    /// (the benchmarks' connections); their indices there.
    pub fn connect(
        &mut self,
        a: usize,
        b: usize,
        nodelay: bool,
    ) -> Result<(ConnId, ConnId), String> {
        if a == b {
            return self.connect_loopback(a, nodelay);
        }
        let flow = self.new_flow(a, b)?;
        let ((da, aa), (db, ab)) = self.route(a, b, flow);
        let ca = self.nodes[a].open(flow, ab, nodelay, true, true, da)?;
        let cb = self.nodes[b].open(flow, aa, nodelay, false, true, db)?;
        Ok((ca, cb))
    }

    /// A connected pair on one node over its loopback interface. Each end has a flow id of
    /// its own (a node finds a socket by flow id), and loopback hands each segment to the
    /// other's.
    fn connect_loopback(&mut self, a: usize, nodelay: bool) -> Result<(ConnId, ConnId), String> {
        let (fa, fb) = (self.new_flow(a, a)?, self.new_flow(a, a)?);
        let node = &mut self.nodes[a];
        let addr = node.devs[0].addr;
        let ca = node.open(fa, addr, nodelay, true, true, 0)?;
        let cb = node.open(fb, addr, nodelay, false, true, 0)?;
        node.conns[ca].lo_peer = Some(fb);
        node.conns[cb].lo_peer = Some(fa);
        Ok((ca, cb))
    }

    /// A closed socket on `a` for a connection to `b` (which must listen): a thread's
    /// `Op::Connect` on it runs the handshake. Its index on `a`.
    pub fn socket(&mut self, a: usize, b: usize, nodelay: bool) -> Result<ConnId, String> {
        let flow = self.new_flow(a, b)?;
        let ((da, _), (_, ab)) = self.route(a, b, flow);
        self.nodes[a].open(flow, ab, nodelay, true, false, da)
    }

    /// A pair of UDP sockets bound to one flow between nodes `a` and `b`; their indices there.
    pub fn udp_pair(&mut self, a: usize, b: usize) -> Result<(UdpId, UdpId), String> {
        let flow = self.new_flow(a, b)?;
        let ((da, aa), (db, ab)) = self.route(a, b, flow);
        let ua = self.nodes[a].open_udp(flow, ab, da);
        let ub = self.nodes[b].open_udp(flow, aa, db);
        Ok((ua, ub))
    }

    /// Node `node` listens: SYNs for new flows open connections there.
    /// A listening socket on `node`; as Linux's listen(), the backlog the application asks
    /// for is capped at `tcp.somaxconn`.
    pub fn listen(&mut self, node: usize, backlog: u32, nodelay: bool, defer_accept: bool) {
        let cap = self.cfg.tcp.somaxconn;
        self.nodes[node].listen(backlog.min(cap), nodelay, defer_accept);
    }

    /// A thread on `node`, pinned to its processor `proc`.
    pub fn spawn(&mut self, node: usize, proc: usize, prio: Priority) -> Result<usize, String> {
        self.nodes[node].spawn(proc, prio)
    }

    /// A thread on `node` that starts on processor `proc` and may migrate when it wakes.
    pub fn spawn_free(
        &mut self,
        node: usize,
        proc: usize,
        prio: Priority,
    ) -> Result<usize, String> {
        self.nodes[node].spawn_free(proc, prio)
    }

    /// Executes one event; returns false when the queue is empty.
    pub fn step(&mut self) -> bool {
        let Some((_, ev)) = self.eng.pop() else {
            return false;
        };
        self.events_by_kind[ev.kind()] += 1;
        if self.node_clock {
            let now = self.eng.now();
            for n in &mut self.nodes {
                n.now = now;
            }
        }
        let (nodes, e, w) = (&mut self.nodes, &mut self.eng, &mut self.fabric);
        match ev {
            Ev::Chunk { node, proc, gen } => {
                nodes[node as usize].on_chunk(e, w, proc as usize, gen)
            }
            Ev::Dma { node, dev, chan } => {
                nodes[node as usize].on_dma(e, w, dev as usize, Chan::from_index(chan))
            }
            Ev::Arrive { addr } => {
                let f = w.arrive(addr);
                let (node, first, queues) = self.addr_dev[addr as usize];
                let dev = if queues == 1 {
                    first
                } else {
                    first + rss_queue(f.hdr.flow, queues)
                };
                nodes[node].on_arrive(e, w, dev, f);
            }
            Ev::SwitchIn { port } => {
                if let Some((at, hop)) = w.switch_in(e.now(), port) {
                    e.at(at, hop.into());
                }
            }
            Ev::Irq { node, proc, kind } => nodes[node as usize].on_irq(e, w, proc as usize, kind),
            Ev::Coalesce { node, dev, at } => nodes[node as usize].on_coalesce(e, dev as usize, at),
            Ev::TxFifo { node, dev } => nodes[node as usize].dma_next(e, dev as usize, Chan::Tx),
            Ev::AccIdle { node, dev, at } => nodes[node as usize].on_acc_idle(e, dev as usize, at),
            Ev::Timer {
                node,
                cookie,
                kind,
                at,
            } => nodes[node as usize].on_timer(e, w, cookie, kind, at),
            Ev::CrossCall { node, proc } => {
                let per_s = self.cfg.smp.background_ipi_per_s;
                nodes[node as usize].on_cross_call(e, w, proc as usize, per_s);
            }
            Ev::Tick { node, proc } => {
                let hz = self.cfg.sched.tick_hz;
                nodes[node as usize].on_tick(e, w, proc as usize, hz);
            }
            Ev::TcpTimer { node } => nodes[node as usize].on_tcp_timer(e, w),
            Ev::IrqRebalance { node } => {
                let every = self.cfg.topology.irq_rebalance_interval_ps;
                e.after(every, Ev::IrqRebalance { node });
                nodes[node as usize].settle_spans(e);
                nodes[node as usize].rebalance_irqs();
            }
            Ev::Workload => {}
        }
        self.check_spans();
        // Between two events no caller holds a connection's slot: finished ones may be freed
        // (looked at every 64th event, which costs the run nothing).
        if self.free_slots && self.eng.executed().is_multiple_of(64) {
            for n in &mut self.nodes {
                n.sweep();
            }
        }
        true
    }

    /// Moves the clock to a workload's own time `t` (no event there), the nodes' clocks with it.
    pub fn advance_to(&mut self, t: Time) {
        self.eng.advance_to(t);
        if self.node_clock {
            let now = self.eng.now();
            for n in &mut self.nodes {
                n.now = now;
            }
        }
    }

    /// Cuts back the spans of chunks that something reached (`os/span.rs`): after every
    /// event and every step of a workload.
    pub fn check_spans(&mut self) {
        for n in &mut self.nodes {
            if n.spanning != 0 {
                n.check_spans(&mut self.eng);
            }
        }
    }

    /// Cuts back every span at now: each processor's state is then what chunk-by-chunk
    /// execution has at this instant (before anything reads busy time).
    pub fn settle(&mut self) {
        for n in &mut self.nodes {
            if n.spanning != 0 {
                n.settle_spans(&mut self.eng);
            }
        }
    }

    pub fn start_op(&mut self, node: usize, tid: usize, op: Op) {
        self.nodes[node].start_op(&mut self.eng, &mut self.fabric, tid, op);
    }

    /// One thread of `node` hands another an operation (see `Node::hand_off`).
    pub fn hand_off(&mut self, node: usize, from_tid: usize, tid: usize, op: Op) {
        let n = &mut self.nodes[node];
        let from = n.thread_proc(from_tid);
        n.hand_off(&mut self.eng, &mut self.fabric, from, tid, op);
    }

    /// Thread `tid` of `node` is no longer between two calls: the workload gave it nothing
    /// when its last one returned, so it sleeps, and its next operation is a wake-up.
    pub fn done_handled(&mut self, node: usize, tid: usize) {
        let n = &mut self.nodes[node];
        n.threads[tid].continuing = false;
        if n.threads[tid].op.is_none() {
            // Under EEVDF it stayed queued for its next call: now it sleeps.
            n.set_runnable(tid, false);
        }
    }

    /// Threads whose operations finished since the last call, as (node, thread).
    pub fn take_done(&mut self) -> Option<(usize, usize)> {
        for (i, n) in self.nodes.iter_mut().enumerate() {
            if let Some(t) = n.done.pop_front() {
                return Some((i, t));
            }
        }
        None
    }

    /// A frame of `payload_bytes` from outside reaches `node`'s MAC now.
    pub fn inject(&mut self, node: usize, f: Frame, payload_bytes: u64) {
        self.injected_bytes += payload_bytes;
        self.nodes[node].on_arrive(&mut self.eng, &mut self.fabric, 0, f);
    }

    /// A switch port's name in results: `to_nodeN`, or `to_nodeN.nicK` on a node with
    /// several NICs.
    pub fn port_name(&self, addr: NodeAddr) -> String {
        let (node, first, queues) = self.addr_dev[addr as usize];
        let nics = self.nodes[node].devs.len() / queues;
        if nics == 1 {
            format!("to_node{node}")
        } else {
            format!("to_node{node}.nic{}", first / queues)
        }
    }

    /// The node behind fabric address `addr`.
    pub fn node_at(&self, addr: NodeAddr) -> usize {
        self.addr_dev[addr as usize].0
    }
}

/// The fabric's addresses: clients have one device each, at addresses 0 .. clients; the
/// server's NICs follow, each with one device per receive queue. Per address: the node, its
/// first device there and how many.
fn addresses(cfg: &Config) -> Vec<(usize, DevId, usize)> {
    let (clients, nics) = (
        cfg.topology.clients as usize,
        cfg.topology.server_nics as usize,
    );
    let queues = cfg.topology.server_rx_queues.max(1) as usize;
    let mut addr_dev: Vec<(usize, DevId, usize)> = (0..clients).map(|i| (i, 0, 1)).collect();
    addr_dev.extend((0..nics).map(|k| (clients, k * queues, queues)));
    addr_dev
}

/// The clients, then the server, each with its devices at their fabric addresses. The
/// clients differ from the server only in their CPUs' clock, when one is given; the server's
/// devices take their interrupt processor from `topology.server_nic_cpus`, or spread.
fn build_nodes(cfg: &Config, addr_dev: &[(usize, DevId, usize)]) -> Result<Vec<Node>, String> {
    let clients = cfg.topology.clients as usize;
    let shared = Rc::new(cfg.clone());
    let client_cfg = match cfg.topology.client_clock_hz {
        Freq(0) => shared.clone(),
        hz => {
            let mut c = cfg.clone();
            c.cpu.clock_hz = hz;
            Rc::new(c)
        }
    };
    let steer = server_nic_cpus(cfg);
    let irq = |d: usize| match (steer.get(d), cfg.topology.server_nic_irq) {
        (Some(&p), _) => Some(p),
        (
            None,
            NicIrq::Same | NicIrq::RoundRobin | NicIrq::LowestPriority | NicIrq::PeriodicRebalance,
        ) => None,
        (None, NicIrq::Spread) => Some(d % cfg.cpu.count),
    };
    (0..=clients)
        .map(|i| {
            let server = i == clients;
            let mut devs: Vec<(NodeAddr, Option<usize>)> = Vec::new();
            for (a, &(node, first, count)) in addr_dev.iter().enumerate() {
                if node == i {
                    devs.extend(
                        (first..first + count).map(|d| (a as NodeAddr, irq(d).filter(|_| server))),
                    );
                }
            }
            let node_cfg = if server { &shared } else { &client_cfg };
            let mut node = Node::new(i as u8, node_cfg, &devs)?;
            if server && cfg.topology.server_nic_cpus.is_empty() {
                node.irq_distribution = cfg.topology.server_nic_irq;
            } else if !server {
                node.irq_distribution = cfg.topology.client_nic_irq;
            }
            Ok(node)
        })
        .collect()
}

/// Each node's periodic events (background cross-calls, the scheduler tick, polling, TCP's
/// timer ticks) and the server's periodic interrupt rebalance.
fn start_periodic(cfg: &Config, nodes: &[Node], eng: &mut Engine<Ev>) {
    for node in nodes {
        let cross_call = |node, proc| Ev::CrossCall { node, proc };
        let tick = |node, proc| Ev::Tick { node, proc };
        node.start_periodic(eng, cfg.smp.background_ipi_per_s, cross_call);
        node.start_periodic(eng, cfg.sched.tick_hz, tick);
        node.start_polling(eng);
        if let Some(t) = cfg.tcp.timers.ticks() {
            eng.after(t.run_interval(), Ev::TcpTimer { node: node.id });
        }
    }
    if cfg.topology.server_nic_irq == NicIrq::PeriodicRebalance {
        let every = cfg.topology.irq_rebalance_interval_ps;
        let server = cfg.topology.clients as u8;
        eng.after(every, Ev::IrqRebalance { node: server });
    }
}

/// Recorders where `run.pcap` and `run.trace` ask for them.
fn record(cfg: &Config, nodes: &mut [Node]) {
    let r = &cfg.run;
    let last = nodes.len() as i64 - 1;
    let pcap_node = if r.pcap_node < 0 { last } else { r.pcap_node };
    let from = cfg.trace_from();
    for (i, n) in nodes.iter_mut().enumerate() {
        if !(r.trace || r.pcap && i as i64 == pcap_node) {
            continue;
        }
        let mut rec = Recorder::default();
        if r.pcap && i as i64 == pcap_node {
            rec.pcap = Some(Log::new(r.pcap_max_frames as usize));
        }
        if r.trace {
            let max = r.trace_max_slices as usize;
            rec.window = Some((from, from + r.trace_span_ps));
            rec.wire = Log::new(max);
            rec.dma = Log::new(max);
            for p in &mut n.procs {
                p.slices = Some(Box::new(SliceLog::new(from, from + r.trace_span_ps, max)));
            }
        }
        n.record = Some(Box::new(rec));
    }
}
