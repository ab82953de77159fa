//! The packet generator (host-path §7.9): frames of `frame_bytes` arrive at node1's MAC at
//! `rate_pps` (constant or Poisson gaps) or as a replayed trace, and climb the receive path
//! without TCP: the open-loop load that shows receive livelock.

use super::{Flow, When, Workload};
use crate::config::{Config, PacketGen as Params};
use crate::engine::Rng;
use crate::node::Ev;
use crate::report::window_json;
use crate::stack::Frame;
use crate::stats::{Snapshot, Window};
use crate::system::World;
use crate::units::Time;
use serde_json::{json, Value};

pub struct PacketGen {
    g: Params,
    gap_ps: f64,
    trace: bool,
    idx: usize,
    rng: Rng,
    warm_end: Time,
    end: Time,
    /// The next arrival.
    next: Time,
    /// Counters and frames delivered at the start of the window.
    before: Option<(Snapshot, u64)>,
    /// Frames offered in all, and by the start of the window.
    offered: (u64, u64),
    result: Option<(Window, u64)>,
}

impl PacketGen {
    pub fn new(cfg: &Config) -> Self {
        let g = cfg.workload.packet_gen.clone();
        let trace = !g.trace_frame_bytes.is_empty();
        let warm_end = Time(g.warmup_ps.0);
        PacketGen {
            gap_ps: 1e12 / g.rate_pps,
            next: if trace {
                Time(g.trace_gaps_ps[0].0)
            } else {
                Time(0)
            },
            trace,
            idx: 0,
            rng: Rng::new(cfg.run.seed),
            warm_end,
            end: warm_end + g.duration_ps,
            before: None,
            offered: (0, 0),
            result: None,
            g,
        }
    }

    /// One generated frame at node1's MAC.
    fn inject(&mut self, w: &mut World) {
        let frame_bytes = if self.trace {
            self.g.trace_frame_bytes[self.idx % self.g.trace_frame_bytes.len()]
        } else {
            self.g.frame_bytes
        };
        // Ethernet header and FCS off; the IP datagram is at least the minimum payload.
        let ip_bytes = frame_bytes.saturating_sub(18).max(46);
        let payload = ip_bytes.saturating_sub(40);
        let f = Frame::raw(1, ip_bytes, payload);
        self.offered.0 += 1;
        w.inject(1, f, payload);
        self.idx += 1;
        let gap = if self.trace {
            self.g.trace_gaps_ps[self.idx % self.g.trace_gaps_ps.len()].0 as f64
        } else if self.g.poisson {
            self.rng.exp(self.gap_ps)
        } else {
            self.gap_ps
        };
        self.next = Time(self.next.0 + gap.max(1.0) as u64);
    }
}

impl Workload for PacketGen {
    fn start(&mut self, _w: &mut World) -> Result<(), String> {
        Ok(())
    }

    fn next_time(&self) -> Option<When> {
        Some(if self.before.is_none() && self.next >= self.warm_end {
            // The window opens before anything at or after its start has run.
            When::Before(self.warm_end)
        } else if self.next < self.end {
            When::After(self.next)
        } else {
            When::Before(self.end)
        })
    }

    fn on_time(&mut self, w: &mut World) -> Result<Flow, String> {
        if self.before.is_none() && self.next >= self.warm_end {
            let delivered = w.nodes[1].stats.raw_delivered;
            self.before = Some((w.snapshot_at(self.warm_end), delivered));
            self.offered.1 = self.offered.0;
            return Ok(Flow::Continue);
        }
        if self.next < self.end {
            // The arrival advances the clock through the engine, so the event count is honest.
            w.eng.at(self.next, Ev::Workload);
            w.eng.pop();
            self.inject(w);
            return Ok(Flow::Continue);
        }
        let (b, d0) = self
            .before
            .as_ref()
            .expect("the window opened before it closed");
        let window = Window::between(b, &w.snapshot_at(self.end));
        w.check(&window)?;
        let delivered = w.nodes[1].stats.raw_delivered - d0;
        self.result = Some((window, delivered));
        Ok(Flow::Stop)
    }

    fn on_done(&mut self, _w: &mut World, _node: usize, _tid: usize) -> Result<Flow, String> {
        Ok(Flow::Continue)
    }

    fn stalled(&self, _w: &World) -> String {
        "packet_gen: the simulation ran out of events before the window ended".into()
    }

    fn report(&self, w: &World) -> Value {
        let Some((window, delivered)) = &self.result else {
            return json!({});
        };
        let (procs, nodes) = window_json(w, window);
        let secs = window.seconds().max(1e-12);
        let n1 = &w.nodes[1];
        json!({"packet_gen": {
            "window_s": secs,
            "offered_pps": (self.offered.0 - self.offered.1) as f64 / secs,
            "delivered_pps": *delivered as f64 / secs,
            "ring_dropped_frames": n1.devs[0].nic.stats.rx_dropped_ring,
            "backlog_dropped_frames": n1.stats.backlog_dropped,
            "processors": procs,
            "nodes": nodes,
        }})
    }
}
