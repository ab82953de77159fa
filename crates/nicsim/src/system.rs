//! The whole simulated system, wired in reading order: two nodes, a full-duplex link and the
//! engine; `workload::drive` runs a workload on it. The only place that turns events into model calls.

use crate::config::Config;
use crate::engine::Engine;
use crate::hw::dma::Chan;
use crate::hw::link::Lane;
use crate::node::{Ev, Node, Wire};
use crate::os::thread::Op;
use crate::stack::Frame;
use crate::stats::{check_window, Conservation, Snapshot, Window};
use crate::units::Time;
use std::collections::VecDeque;

pub struct World {
    pub eng: Engine<Ev>,
    pub nodes: Vec<Node>,
    /// `lanes[i]` carries frames from node i to the other node.
    lanes: [Lane; 2],
    wires: [VecDeque<(Time, Frame)>; 2],
    pub link_payload_bps: f64,
    /// Payload bytes a workload injected at node1's MAC (they did not come from node0's TCP).
    injected_bytes: u64,
    pub cfg: Config,
}

impl World {
    /// Two nodes of `cfg` joined by the link; `nodelay` is the workload's socket option.
    pub fn new(cfg: &Config, nodelay: bool) -> Result<World, String> {
        let shared = std::rc::Rc::new(cfg.clone());
        let nodes = vec![
            Node::new(0, &shared, nodelay)?,
            Node::new(1, &shared, nodelay)?,
        ];
        let lane = || Lane::new(cfg.link.rate_bps, cfg.link.latency_ps);
        let mut eng = Engine::new();
        for n in &nodes {
            n.start_cross_calls(&mut eng, cfg.smp.background_ipi_per_s);
        }
        Ok(World {
            eng,
            nodes,
            lanes: [lane(), lane()],
            wires: [VecDeque::new(), VecDeque::new()],
            link_payload_bps: crate::derived::link_payload_bps(cfg),
            injected_bytes: 0,
            cfg: cfg.clone(),
        })
    }

    fn split(&mut self, n: usize) -> (&mut Node, &mut Engine<Ev>, Wire<'_>) {
        (
            &mut self.nodes[n],
            &mut self.eng,
            Wire {
                lane: &mut self.lanes[n],
                frames: &mut self.wires[n],
            },
        )
    }

    /// Executes one event; returns false when the queue is empty.
    pub fn step(&mut self) -> bool {
        let Some((_, ev)) = self.eng.pop() else {
            return false;
        };
        match ev {
            Ev::Chunk { node, proc } => {
                let (n, e, mut w) = self.split(node as usize);
                n.on_chunk(e, &mut w, proc as usize);
            }
            Ev::Dma { node, chan } => {
                let (n, e, mut w) = self.split(node as usize);
                n.on_dma(e, &mut w, Chan::from_index(chan));
            }
            Ev::Arrive { node } => {
                let (_, f) = self.wires[1 - node as usize]
                    .pop_front()
                    .expect("arrival without a frame");
                let (n, e, mut w) = self.split(node as usize);
                n.on_arrive(e, &mut w, f);
            }
            Ev::Irq { node, proc, kind } => {
                let (n, e, mut w) = self.split(node as usize);
                n.on_irq(e, &mut w, proc as usize, kind);
            }
            Ev::Coalesce { node, at } => {
                let (n, e, _) = self.split(node as usize);
                n.on_coalesce(e, at);
            }
            Ev::AccIdle { node, at } => {
                let (n, e, _) = self.split(node as usize);
                n.on_acc_idle(e, at);
            }
            Ev::Timer { node, kind, at } => {
                let (n, e, mut w) = self.split(node as usize);
                n.on_timer(e, &mut w, kind, at);
            }
            Ev::CrossCall { node, proc } => {
                let per_s = self.cfg.smp.background_ipi_per_s;
                let (n, e, mut w) = self.split(node as usize);
                n.on_cross_call(e, &mut w, proc as usize, per_s);
            }
            Ev::Workload => {}
        }
        true
    }

    pub fn start_op(&mut self, node: usize, tid: usize, op: Op) {
        let (n, e, mut w) = self.split(node);
        n.start_op(e, &mut w, tid, op);
    }

    /// One thread of `node` hands another an operation (see `Node::hand_off`).
    pub fn hand_off(&mut self, node: usize, from_tid: usize, tid: usize, op: Op) {
        let (n, e, mut w) = self.split(node);
        let from = n.thread_proc(from_tid);
        n.hand_off(e, &mut w, from, tid, op);
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

    pub fn snapshot(&self) -> Snapshot {
        Snapshot::take_at(&self.nodes, self.eng.now())
    }

    /// Counters as of `at` (no earlier than the last executed event).
    pub fn snapshot_at(&self, at: Time) -> Snapshot {
        Snapshot::take_at(&self.nodes, at)
    }

    /// Conservation and the physical bounds, for a measured window.
    pub fn check(&self, win: &Window) -> Result<(), String> {
        let cons = [self.conservation(0), self.conservation(1)];
        check_window(&cons, self.link_payload_bps, win)
    }

    /// A frame of `payload_bytes` from outside reaches `node`'s MAC now.
    pub fn inject(&mut self, node: usize, f: Frame, payload_bytes: u64) {
        self.injected_bytes += payload_bytes;
        let (n, e, mut wire) = self.split(node);
        n.on_arrive(e, &mut wire, f);
    }

    /// Payload bytes between the two TCPs in direction `src` → other, by where they are.
    pub fn conservation(&self, src: usize) -> Conservation {
        let a = &self.nodes[src];
        let b = &self.nodes[1 - src];
        let on_wire: u64 = self.wires[src]
            .iter()
            .map(|(_, f)| f.hdr.payload_bytes())
            .sum();
        let injected = if src == 0 { self.injected_bytes } else { 0 };
        Conservation {
            sent_bytes: a.stats.payload_tx_bytes - a.tx_payload_in_flight() + injected,
            delivered_bytes: b.stats.payload_rx_tcp_bytes + b.stats.raw_delivered_bytes,
            in_flight_bytes: on_wire + b.rx_payload_in_flight(),
            dropped_bytes: b.nic.stats.rx_dropped_ring_bytes + b.stats.backlog_dropped_bytes,
        }
    }
}
