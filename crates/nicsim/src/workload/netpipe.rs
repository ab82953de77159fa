//! NetPIPE 3.7 (host-path §7.2): its message schedule and repetition rule, and the benchmark
//! itself as an event source: an unmeasured warm-up, then for each size (after a probe when
//! sizes are given explicitly) `trials` timed runs of `reps` transfers, stream or ping-pong.

use super::{Flow, Pair, When, Workload};
use crate::config::{Config, Netpipe, NetpipeMode, TrialAggregate};
use crate::report::window_json;
use crate::stats::{Snapshot, Window};
use crate::system::World;
use crate::units::{Duration, Time};
use serde_json::{json, Value};

/// Increments above this get ±perturbation points (NetPIPE's PERT_START).
const PERT_START: u64 = 4;

/// One scheduled point: the block size and the increment in force when it was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Planned {
    pub size_bytes: u64,
    pub inc_bytes: u64,
}

/// NetPIPE's sizes: start at `start`, the increment doubles on every second nominal size after
/// the third, and sizes with an increment above 4 are also measured at ±`pert` bytes.
pub fn schedule(start: u64, upper: u64, pert: u64) -> Vec<Planned> {
    let mut out = Vec::new();
    let mut inc: u64 = if start > 1 { start / 2 } else { 1 };
    let mut len = start.max(1);
    let mut nq = 0u64;
    while len <= upper {
        if nq > 2 && nq % 2 == 1 {
            inc *= 2;
        }
        if inc > PERT_START && pert > 0 {
            for p in [len.saturating_sub(pert), len, len + pert] {
                out.push(Planned {
                    size_bytes: p,
                    inc_bytes: inc,
                });
            }
        } else {
            out.push(Planned {
                size_bytes: len,
                inc_bytes: inc,
            });
        }
        len += inc;
        nq += 1;
    }
    out
}

/// Repetitions for a point, from the previous block size and its time (NetPIPE's
/// `MAX(RUNTM / ((bufflen / (bufflen - inc + 1)) * tlast), TRIALS)`).
pub fn repetitions(target_s: f64, prev_size: u64, inc: u64, t_last_s: f64, min_reps: u32) -> u64 {
    let denom = (prev_size as f64 - inc as f64 + 1.0).max(1.0);
    let ratio = prev_size.max(1) as f64 / denom;
    let n = target_s / (ratio * t_last_s.max(1e-12));
    (n.floor() as u64).max(min_reps.max(1) as u64)
}

/// One measured NetPIPE point.
#[derive(Clone, Debug)]
pub struct NetpipePoint {
    pub size_bytes: u64,
    pub repetitions: u64,
    pub time_s: f64,
    pub window: Window,
}

#[derive(Clone, Copy, Debug)]
enum Stage {
    /// 100 ping-pongs of the start size set the first `t_last` (unmeasured).
    Warmup,
    /// One unmeasured transfer of an explicitly given size sets its repetitions.
    Probe(Planned),
    Measure(Planned),
}

/// `reps` transfers of `size` bytes in progress.
#[derive(Clone, Copy, Debug)]
struct Transfer {
    mode: NetpipeMode,
    size: u64,
    reps: u64,
    t0: Time,
    sent: u64,
    steps: [u64; 2],
    /// A transfer that cannot finish (a connection that keeps timing out) stops the run.
    give_up: Time,
}

pub struct NetPipe {
    np: Netpipe,
    plan: Vec<Planned>,
    next: usize,
    stage: Stage,
    xfer: Transfer,
    t_last_s: f64,
    prev_bytes: u64,
    reps: u64,
    before: Option<Snapshot>,
    times_s: Vec<f64>,
    points: Vec<NetpipePoint>,
    pair: Option<Pair>,
}

impl NetPipe {
    pub fn new(cfg: &Config) -> Self {
        let np = cfg.workload.netpipe.clone();
        let plan = if np.sizes_bytes.is_empty() {
            schedule(np.start_bytes, np.max_bytes, np.perturbation_bytes)
        } else {
            np.sizes_bytes
                .iter()
                .map(|&s| Planned {
                    size_bytes: s,
                    inc_bytes: 1,
                })
                .collect()
        };
        let xfer = Transfer {
            mode: np.mode,
            size: 1,
            reps: 0,
            t0: Time::ZERO,
            sent: 0,
            steps: [0; 2],
            give_up: Time::ZERO,
        };
        NetPipe {
            prev_bytes: np.start_bytes.max(1),
            np,
            plan,
            next: 0,
            stage: Stage::Warmup,
            xfer,
            t_last_s: 0.0,
            reps: 0,
            before: None,
            times_s: Vec::new(),
            points: Vec::new(),
            pair: None,
        }
    }

    fn target_s(&self) -> f64 {
        Duration(self.np.target_ps.0).as_secs_f64()
    }

    /// Starts `reps` transfers of `size` bytes.
    fn begin(&mut self, w: &mut World, mode: NetpipeMode, size: u64, reps: u64) {
        let t0 = w.eng.now();
        // A hundred times NetPIPE's own stop time, or ten times the requested window when that
        // is longer (a point's repetitions are sized to fill the window).
        let limit = Duration(
            self.np
                .stop_ps
                .0
                .saturating_mul(100)
                .max(self.np.target_ps.0.saturating_mul(10)),
        );
        let size = size.max(1);
        self.xfer = Transfer {
            mode,
            size,
            reps,
            t0,
            sent: 0,
            steps: [0; 2],
            give_up: t0 + limit,
        };
        let pair = self.pair.expect("connections opened at start");
        pair.send(w, 0, size);
        pair.recv(w, 1, size);
    }

    fn measure(&mut self, w: &mut World, p: Planned) {
        self.before = Some(w.snapshot());
        self.times_s.clear();
        self.stage = Stage::Measure(p);
        self.begin(w, self.np.mode, p.size_bytes, self.reps);
    }

    /// Moves on to the next size, or stops at the end of the schedule or at STOPTM.
    fn next_point(&mut self, w: &mut World) -> Result<Flow, String> {
        let Some(&p) = self.plan.get(self.next) else {
            return Ok(Flow::Stop);
        };
        self.next += 1;
        if self.t_last_s >= Duration(self.np.stop_ps.0).as_secs_f64() {
            return Ok(Flow::Stop);
        }
        if self.np.sizes_bytes.is_empty() {
            self.reps = repetitions(
                self.target_s(),
                self.prev_bytes,
                p.inc_bytes,
                self.t_last_s,
                self.np.trials,
            );
            self.measure(w, p);
        } else {
            // Explicit sizes jump, so one unmeasured transfer of this size sets t_last.
            self.stage = Stage::Probe(p);
            self.begin(w, self.np.mode, p.size_bytes, 1);
        }
        Ok(Flow::Yield)
    }

    /// The transfers in progress finished, taking `t_s` each.
    fn transfer_done(&mut self, w: &mut World, t_s: f64) -> Result<Flow, String> {
        match self.stage {
            Stage::Warmup => {
                self.t_last_s = t_s;
                self.next_point(w)
            }
            Stage::Probe(p) => {
                self.reps = repetitions(self.target_s(), 1, 1, t_s, self.np.trials);
                self.measure(w, p);
                Ok(Flow::Yield)
            }
            Stage::Measure(p) => {
                self.times_s.push(t_s);
                if self.times_s.len() < self.np.trials.max(1) as usize {
                    self.begin(w, self.np.mode, p.size_bytes, self.reps);
                    return Ok(Flow::Yield);
                }
                let after = w.snapshot();
                let t = match self.np.trial_aggregate {
                    TrialAggregate::Min => {
                        self.times_s.iter().cloned().fold(f64::INFINITY, f64::min)
                    }
                    TrialAggregate::Mean => {
                        self.times_s.iter().sum::<f64>() / self.times_s.len() as f64
                    }
                };
                self.t_last_s = t;
                self.prev_bytes = p.size_bytes;
                let before = self.before.take().expect("a measured point has a start");
                self.points.push(NetpipePoint {
                    size_bytes: p.size_bytes,
                    repetitions: self.reps,
                    time_s: t,
                    window: Window::between(&before, &after),
                });
                w.check(&self.points.last().unwrap().window)?;
                self.next_point(w)
            }
        }
    }

    fn tcp_states(w: &World) -> String {
        let tcp: Vec<String> = w
            .nodes
            .iter()
            .flat_map(|n| n.conns.iter().map(move |c| (n.id, c)))
            .map(|(id, c)| format!("node{id}: {}", c.tcp.describe()))
            .collect();
        tcp.join("; ")
    }
}

impl Workload for NetPipe {
    fn start(&mut self, w: &mut World) -> Result<(), String> {
        self.pair = Some(Pair::open(w, self.np.nodelay)?);
        let start = self.np.start_bytes.max(1);
        self.begin(w, NetpipeMode::Pingpong, start, 100);
        Ok(())
    }

    fn next_time(&self) -> Option<When> {
        Some(When::After(self.xfer.give_up))
    }

    fn on_time(&mut self, w: &mut World) -> Result<Flow, String> {
        let x = &self.xfer;
        Err(format!(
            "a {}-byte transfer made no progress for {:.0} s simulated (the watchdog: 100 x workload.netpipe.stop_ps or 10 x target_ps); its connections: {}",
            x.size,
            (x.give_up - x.t0).as_secs_f64(),
            Self::tcp_states(w)
        ))
    }

    fn on_done(&mut self, w: &mut World, node: usize, tid: usize) -> Result<Flow, String> {
        let pair = self.pair.expect("connections opened at start");
        if tid != pair.thread[node] {
            return Ok(Flow::Continue);
        }
        let x = &mut self.xfer;
        x.steps[node] += 1;
        let (size, reps) = (x.size, x.reps);
        let elapsed_s = (w.eng.now() - x.t0).as_secs_f64();
        match x.mode {
            NetpipeMode::Stream => {
                if node == 0 {
                    x.sent += 1;
                    if x.sent < reps {
                        pair.send(w, 0, size);
                    }
                } else if x.steps[1] < reps {
                    pair.recv(w, 1, size);
                } else {
                    return self.transfer_done(w, elapsed_s / reps as f64);
                }
            }
            NetpipeMode::Pingpong => {
                // node0: send, recv, send, recv …; node1: recv, send, recv, send …
                let s = x.steps[node];
                if node == 0 && s == 2 * reps {
                    return self.transfer_done(w, elapsed_s / (2 * reps) as f64);
                }
                if node == 1 && s == 2 * reps {
                    return Ok(Flow::Continue);
                }
                let send_next = (node == 0) == s.is_multiple_of(2);
                if send_next {
                    pair.send(w, node, size);
                } else {
                    pair.recv(w, node, size);
                }
            }
        }
        Ok(Flow::Continue)
    }

    fn stalled(&self, w: &World) -> String {
        format!(
            "simulation stalled: no events left during a {}-byte transfer (a deadlock in the model); {}",
            self.xfer.size,
            Self::tcp_states(w)
        )
    }

    fn report(&self, w: &World) -> Value {
        let pts: Vec<Value> = self
            .points
            .iter()
            .map(|p| {
                let (procs, nodes) = window_json(w, &p.window);
                json!({
                    "size_bytes": p.size_bytes,
                    "repetitions": p.repetitions,
                    "time_us": p.time_s * 1e6,
                    "latency_us": p.time_s * 1e6,
                    "throughput_mbps": p.size_bytes as f64 * 8.0 / p.time_s / 1e6,
                    "throughput_netpipe_mbps": p.size_bytes as f64 * 8.0 / p.time_s / 1048576.0,
                    "processors": procs,
                    "nodes": nodes,
                })
            })
            .collect();
        json!({ "points": pts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_matches_netpipe() {
        let s: Vec<u64> = schedule(1, 70, 3).iter().map(|p| p.size_bytes).collect();
        assert_eq!(
            s,
            vec![1, 2, 3, 4, 6, 8, 12, 13, 16, 19, 21, 24, 27, 29, 32, 35, 45, 48, 51, 61, 64, 67]
        );
    }

    #[test]
    fn schedule_reaches_two_mebibytes() {
        let s = schedule(1, 2 * 1024 * 1024, 3);
        let last = s.iter().rfind(|p| p.size_bytes <= 2 * 1024 * 1024).unwrap();
        assert_eq!(last.size_bytes, 2 * 1024 * 1024);
    }

    #[test]
    fn repetitions_fill_the_target_time() {
        // 1 ms per transfer, 2 s target, ratio 1: 2000 repetitions.
        assert_eq!(repetitions(2.0, 1, 1, 1e-3, 1), 2000);
        assert_eq!(repetitions(2.0, 1, 1, 10.0, 3), 3);
    }
}
