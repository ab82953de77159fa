//! The whole simulated system, wired in reading order: two nodes, a full-duplex link, the
//! engine, and the workload driver. The only place that turns events into model calls.

use crate::config::{Config, NetpipeMode, TrialAggregate, WorkloadKind};
use crate::engine::Engine;
use crate::hw::dma::Chan;
use crate::hw::link::Lane;
use crate::hw::nic::Frame;
use crate::node::{Ev, Node, Wire};
use crate::os::thread::{Op, COMM, LOAD};
use crate::stats::{Snapshot, Window};
use crate::units::{Duration, Time};
use crate::workload::{hpcbench, netpipe};
use std::collections::VecDeque;

pub struct World {
    pub eng: Engine<Ev>,
    pub nodes: Vec<Node>,
    /// `lanes[i]` carries frames from node i to the other node.
    lanes: [Lane; 2],
    wires: [VecDeque<(Time, Frame)>; 2],
    pub link_payload_bps: f64,
    /// Payload bytes a packet generator injected at node1 (they did not come from node0's TCP).
    gen_injected_bytes: u64,
    pub cfg: Config,
}

impl World {
    pub fn new(cfg: &Config) -> Result<World, String> {
        let nodelay = match cfg.workload.kind {
            WorkloadKind::Netpipe => cfg.workload.netpipe.nodelay,
            WorkloadKind::Hpcbench => cfg.workload.hpcbench.nodelay,
            WorkloadKind::PacketGen => true,
        };
        let shared = std::rc::Rc::new(cfg.clone());
        let mut nodes = vec![
            Node::new(0, &shared, nodelay)?,
            Node::new(1, &shared, nodelay)?,
        ];
        nodes[1].load_queue_cap = cfg.workload.hpcbench.queue_messages.max(1);
        let lane = || Lane::new(cfg.link.rate_bps, cfg.link.latency_ps);
        // Payload rate of the link with full-sized segments (host-path §4.8).
        let mss = nodes[0].tcp.mss as f64;
        let wire = crate::hw::link::wire_bytes(cfg.nic.mtu_bytes) as f64;
        let mut eng = Engine::new();
        for n in &nodes {
            n.start_cross_calls(&mut eng, cfg.smp.background_ipi_per_s);
        }
        Ok(World {
            eng,
            nodes,
            lanes: [lane(), lane()],
            wires: [VecDeque::new(), VecDeque::new()],
            link_payload_bps: cfg.link.rate_bps.0 as f64 * mss / wire,
            gen_injected_bytes: 0,
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
        Snapshot::take(self)
    }

    /// Payload bytes between the two TCPs in direction `src` → other, by where they are.
    pub fn conservation(&self, src: usize) -> crate::stats::Conservation {
        let a = &self.nodes[src];
        let b = &self.nodes[1 - src];
        let on_wire: u64 = self.wires[src].iter().map(|(_, f)| f.seg.len as u64).sum();
        let injected = if src == 0 { self.gen_injected_bytes } else { 0 };
        crate::stats::Conservation {
            sent_bytes: a.stats.payload_tx_bytes - a.tx_payload_in_flight() + injected,
            delivered_bytes: b.stats.payload_rx_tcp_bytes + b.stats.raw_delivered_bytes,
            in_flight_bytes: on_wire + b.rx_payload_in_flight(),
            dropped_bytes: b.nic.stats.rx_dropped_ring_bytes + b.stats.backlog_dropped_bytes,
        }
    }
}

/// One measured NetPIPE point.
#[derive(Clone, Debug)]
pub struct NetpipePoint {
    pub size_bytes: u64,
    pub repetitions: u64,
    pub time_s: f64,
    pub window: Window,
}

/// Runs NetPIPE as configured; returns the points in schedule order, and the error that
/// stopped the run early, if any (the points measured before it are kept).
pub fn run_netpipe(w: &mut World) -> (Vec<NetpipePoint>, Option<String>) {
    let mut out = Vec::new();
    let err = netpipe_points(w, &mut out).err();
    (out, err)
}

fn netpipe_points(w: &mut World, out: &mut Vec<NetpipePoint>) -> Result<(), String> {
    let np = w.cfg.workload.netpipe.clone();
    let plan: Vec<netpipe::Planned> = if np.sizes_bytes.is_empty() {
        netpipe::schedule(np.start_bytes, np.max_bytes, np.perturbation_bytes)
    } else {
        np.sizes_bytes
            .iter()
            .map(|&s| netpipe::Planned {
                size_bytes: s,
                inc_bytes: 1,
            })
            .collect()
    };
    // t_last starts from 100 round trips of the start size (unmeasured warm-up).
    let warm = transfer(
        w,
        np.mode,
        np.start_bytes.max(1),
        100,
        NetpipeMode::Pingpong,
    )?;
    let mut t_last = warm;
    let mut prev = np.start_bytes.max(1);
    for p in plan {
        if t_last >= Duration(np.stop_ps.0).as_secs_f64() {
            break;
        }
        let reps = if np.sizes_bytes.is_empty() {
            netpipe::repetitions(
                Duration(np.target_ps.0).as_secs_f64(),
                prev,
                p.inc_bytes,
                t_last,
                np.trials,
            )
        } else {
            // Explicit sizes jump, so one unmeasured transfer of this size sets t_last.
            let probe = transfer(w, np.mode, p.size_bytes, 1, np.mode)?;
            netpipe::repetitions(
                Duration(np.target_ps.0).as_secs_f64(),
                1,
                1,
                probe,
                np.trials,
            )
        };
        let before = w.snapshot();
        let mut times = Vec::new();
        for _ in 0..np.trials.max(1) {
            times.push(transfer(w, np.mode, p.size_bytes, reps, np.mode)?);
        }
        let after = w.snapshot();
        let t = match np.trial_aggregate {
            TrialAggregate::Min => times.iter().cloned().fold(f64::INFINITY, f64::min),
            TrialAggregate::Mean => times.iter().sum::<f64>() / times.len() as f64,
        };
        t_last = t;
        prev = p.size_bytes;
        out.push(NetpipePoint {
            size_bytes: p.size_bytes,
            repetitions: reps,
            time_s: t,
            window: Window::between(&before, &after),
        });
        crate::stats::check_window(w, &out.last().unwrap().window)?;
    }
    Ok(())
}

/// `reps` transfers of `size` bytes; returns the time per transfer (one-way in ping-pong).
fn transfer(
    w: &mut World,
    _cfg_mode: NetpipeMode,
    size: u64,
    reps: u64,
    mode: NetpipeMode,
) -> Result<f64, String> {
    let t0 = w.eng.now();
    let size = size.max(1);
    let mut sent = 0u64;
    let mut steps = [0u64; 2];
    match mode {
        NetpipeMode::Stream => {
            w.start_op(0, COMM, Op::Send(size));
            w.start_op(1, COMM, Op::Recv(size));
        }
        NetpipeMode::Pingpong => {
            w.start_op(0, COMM, Op::Send(size));
            w.start_op(1, COMM, Op::Recv(size));
        }
    }
    // A transfer that cannot finish (for example a connection that keeps timing out) stops
    // the run with an error instead of simulating forever.
    let give_up = t0 + Duration(np_limit_ps(w));
    loop {
        if w.eng.now() > give_up {
            let tcp: Vec<String> = w
                .nodes
                .iter()
                .map(|n| format!("node{}: {}", n.id, n.tcp.describe()))
                .collect();
            return Err(format!(
                "a {size}-byte transfer made no progress for {:.0} s simulated; {}",
                (give_up - t0).as_secs_f64(),
                tcp.join("; ")
            ));
        }
        if !w.step() {
            let tcp: Vec<String> = w
                .nodes
                .iter()
                .map(|n| format!("node{}: {}", n.id, n.tcp.describe()))
                .collect();
            return Err(format!("simulation stalled: no events left during a {size}-byte transfer (a deadlock in the model); {}", tcp.join("; ")));
        }
        while let Some((node, tid)) = w.take_done() {
            if tid != COMM {
                continue;
            }
            steps[node] += 1;
            match mode {
                NetpipeMode::Stream => {
                    if node == 0 {
                        sent += 1;
                        if sent < reps {
                            w.start_op(0, COMM, Op::Send(size));
                        }
                    } else if steps[1] < reps {
                        w.start_op(1, COMM, Op::Recv(size));
                    } else {
                        return Ok((w.eng.now() - t0).as_secs_f64() / reps as f64);
                    }
                }
                NetpipeMode::Pingpong => {
                    // node0: send, recv, send, recv …; node1: recv, send, recv, send …
                    let s = steps[node];
                    if node == 0 && s == 2 * reps {
                        return Ok((w.eng.now() - t0).as_secs_f64() / (2 * reps) as f64);
                    }
                    if node == 1 && s == 2 * reps {
                        continue;
                    }
                    let send_next = (node == 0) == (s % 2 == 0);
                    let op = if send_next {
                        Op::Send(size)
                    } else {
                        Op::Recv(size)
                    };
                    w.start_op(node, COMM, op);
                }
            }
        }
    }
}

/// How long one NetPIPE transfer may take: a hundred times NetPIPE's own stop time.
fn np_limit_ps(w: &World) -> u64 {
    w.cfg.workload.netpipe.stop_ps.0.saturating_mul(100)
}

/// Result of an Hpcbench run: bytes the receiving application consumed in the window.
#[derive(Clone, Debug)]
pub struct HpcResult {
    pub message_bytes: u64,
    pub received_bytes: u64,
    pub window: Window,
}

pub fn run_hpcbench(w: &mut World) -> Result<HpcResult, String> {
    let h = w.cfg.workload.hpcbench.clone();
    let m = h.message_bytes.max(1);
    let load = h.app_cycles_per_byte > 0.0;
    let warm_end = Time(h.warmup_ps.0);
    let end = warm_end + h.duration_ps;
    w.start_op(0, COMM, Op::Send(m));
    w.start_op(1, COMM, Op::Recv(m));
    let mut comm_waiting = false;
    let mut before: Option<(crate::stats::Snapshot, u64)> = None;
    // Bytes read from the socket: finer-grained than whole messages, and with a bounded load
    // queue the same long-run rate as the load thread's.
    let consumed = |w: &World| w.nodes[1].threads[COMM].bytes_read;
    loop {
        if before.is_none() && w.eng.peek_time().is_some_and(|t| t >= warm_end) {
            before = Some((crate::stats::Snapshot::take_at(w, warm_end), consumed(w)));
        }
        if w.eng.peek_time().is_none_or(|t| t >= end) {
            break;
        }
        w.step();
        while let Some((node, tid)) = w.take_done() {
            match (node, tid) {
                (0, COMM) => w.start_op(0, COMM, Op::Send(m)),
                (1, COMM) if !load => w.start_op(1, COMM, Op::Recv(m)),
                (1, COMM) => {
                    let n = &mut w.nodes[1];
                    if (n.load_queue.len() as u32) < n.load_queue_cap {
                        n.load_queue.push_back(m);
                        w.start_op(1, COMM, Op::Recv(m));
                    } else {
                        comm_waiting = true;
                    }
                    start_load(w, &h);
                }
                (1, LOAD) => {
                    w.nodes[1].threads[LOAD].credit(m);
                    if comm_waiting {
                        comm_waiting = false;
                        w.nodes[1].load_queue.push_back(m);
                        w.hand_off(1, LOAD, COMM, Op::Recv(m));
                    }
                    start_load(w, &h);
                }
                _ => {}
            }
        }
    }
    let (b, c0) = before.ok_or("hpcbench: the run ended before its warm-up finished")?;
    let after = crate::stats::Snapshot::take_at(w, end);
    let window = Window::between(&b, &after);
    crate::stats::check_window(w, &window)?;
    Ok(HpcResult {
        message_bytes: m,
        received_bytes: consumed(w) - c0,
        window,
    })
}

fn start_load(w: &mut World, h: &crate::config::Hpcbench) {
    if !w.nodes[1].thread_idle(LOAD) {
        return;
    }
    if let Some(bytes) = w.nodes[1].load_queue.pop_front() {
        let (cycles, refs) =
            hpcbench::message_work(bytes, h.app_cycles_per_byte, h.app_refs_per_byte);
        w.hand_off(1, COMM, LOAD, Op::Compute { cycles, refs });
    }
}

/// Result of a packet-generator run at node1.
#[derive(Clone, Debug)]
pub struct GenResult {
    pub offered_frames: u64,
    pub delivered_frames: u64,
    pub window: Window,
}

/// Frames of `frame_bytes` arrive at node1's MAC at `rate_pps` (constant or Poisson gaps)
/// and climb the receive path without TCP: the open-loop load that shows receive livelock.
pub fn run_packet_gen(w: &mut World) -> Result<GenResult, String> {
    let g = w.cfg.workload.packet_gen.clone();
    let gap_ps = 1e12 / g.rate_pps;
    let trace = !g.trace_frame_bytes.is_empty();
    let mut idx = 0usize;
    let mut rng = crate::engine::Rng::new(w.cfg.run.seed);
    let warm_end = Time(g.warmup_ps.0);
    let end = warm_end + g.duration_ps;
    let mut next = if trace {
        Time(g.trace_gaps_ps[0].0)
    } else {
        Time(0)
    };
    let (mut before, mut offered) = (None, (0u64, 0u64));
    loop {
        let ev_t = w.eng.peek_time();
        if ev_t.is_none_or(|t| t > next) && next < end {
            // The next arrival comes strictly before every pending event: advance the clock
            // to it through the engine (so the event count stays honest) and inject it.
            if before.is_none() && next >= warm_end {
                before = Some((
                    crate::stats::Snapshot::take_at(w, warm_end),
                    w.nodes[1].stats.raw_delivered,
                ));
                offered.1 = offered.0;
            }
            w.eng.at(next, Ev::Workload);
            w.eng.pop();
            let frame_bytes = if trace {
                g.trace_frame_bytes[idx % g.trace_frame_bytes.len()]
            } else {
                g.frame_bytes
            };
            let ip_bytes = frame_bytes.saturating_sub(18).max(46);
            let payload = ip_bytes.saturating_sub(40);
            let seg = crate::stack::tcp::Segment {
                seq: 0,
                len: payload as u32,
                ack: 0,
                win: 0,
                push: false,
            };
            let f = Frame {
                seg,
                ip_bytes,
                raw: true,
            };
            w.gen_injected_bytes += payload;
            offered.0 += 1;
            let (n, e, mut wire) = w.split(1);
            n.on_arrive(e, &mut wire, f);
            idx += 1;
            let gap = if trace {
                g.trace_gaps_ps[idx % g.trace_gaps_ps.len()].0 as f64
            } else if g.poisson {
                rng.exp(gap_ps)
            } else {
                gap_ps
            };
            next = Time(next.0 + gap.max(1.0) as u64);
            continue;
        }
        if ev_t.is_none_or(|t| t >= end) {
            break;
        }
        w.step();
    }
    let (b, d0) = before.ok_or("packet_gen: the run ended before its warm-up finished")?;
    let after = crate::stats::Snapshot::take_at(w, end);
    let window = Window::between(&b, &after);
    crate::stats::check_window(w, &window)?;
    Ok(GenResult {
        offered_frames: offered.0 - offered.1,
        delivered_frames: w.nodes[1].stats.raw_delivered - d0,
        window,
    })
}
