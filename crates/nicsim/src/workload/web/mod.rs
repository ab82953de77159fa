//! A static web server under many users (thesis §4.9, host-path §7.8): an Apache-like pool of
//! worker threads on the server, each blocking in accept() and in reads, and closed-loop
//! users on the client nodes (round-robin) that connect, send a request, read the response,
//! close, think and repeat. With keep-alive a user keeps its connection for
//! `requests_per_connection` requests (Apache's MaxKeepAliveRequests) and only the first pays
//! the handshake. Without it the server closes first, after the response (HTTP/1.0), and the
//! user reads to the end of the stream before it closes, so TIME_WAIT sits on the server and
//! no client runs out of ports.
//!
//! A request's response time runs from the user's connect() (or, on a kept-alive connection,
//! its send) to the response's last byte read. Everything is priced by the cost profile: the
//! socket path's stages, the connection stages, and `http_request` for Apache's own work per
//! request (parsing, the file lookup, logging). Responses are copied (§7.8 Q26), or sent
//! with sendfile() (`sendfile`, the handoff study's zero-copy server, handoff.md §9.2).

mod health;
mod requests;
mod users;

use super::netperf::percentile;
use super::{Flow, Measured, When, Workload};
use crate::config::{Config, Web as Params, WebAppWork, WebMix, WebWorkers};
use crate::engine::Rng;
use crate::hw::frame::FlowId;
use crate::os::thread::{Op, INTERACTIVE};
use crate::report::window_json;
use crate::stack::conn::ConnId;
use crate::stats::Window;
use crate::system::World;
use crate::units::Time;
use health::Health;
use serde_json::{json, Value};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use users::{Step, User};

/// A server worker's operation on the connection it serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Work {
    Accept,
    Request,
    Process,
    Respond,
    Close,
}

#[derive(Clone, Debug)]
struct Worker {
    thread: usize,
    /// Its application thread on the `app` processor (`workload.web.app_work = app_cpu` where
    /// that differs from `comm_thread`'s), which processes its requests.
    app: Option<usize>,
    conn: ConnId,
    work: Work,
}

pub struct Web {
    p: Params,
    seed: u64,
    rng: Rng,
    users: Vec<User>,
    workers: Vec<Worker>,
    /// The response sizes of each connection's requests not yet served, in order, by flow id
    /// (the worker's file, as the request names it).
    sizes: HashMap<FlowId, VecDeque<u64>>,
    /// (node, thread) → user index (clients) or worker index (server).
    by_thread: Vec<Vec<usize>>,
    /// Users thinking, by the time they start their next request.
    thinking: BinaryHeap<Reverse<(Time, usize)>>,
    win: Measured,
    /// In the window: requests completed, response payload read, response times.
    requests: u64,
    response_bytes: u64,
    response_ps: Vec<u64>,
    accepted_at_start: u64,
    failed_connects: u64,
    /// The next trace connection a user takes (the trace repeats).
    next_trace: usize,
    health: Health,
    result: Option<Window>,
}

impl Web {
    pub fn new(cfg: &Config) -> Self {
        let p = cfg.workload.web.clone();
        Web {
            win: Measured::new(p.warmup_ps, p.duration_ps),
            seed: cfg.run.seed,
            rng: Rng::new(cfg.run.seed),
            p,
            users: Vec::new(),
            workers: Vec::new(),
            sizes: HashMap::new(),
            by_thread: Vec::new(),
            thinking: BinaryHeap::new(),
            requests: 0,
            response_bytes: 0,
            response_ps: Vec::new(),
            accepted_at_start: 0,
            failed_connects: 0,
            next_trace: 0,
            health: Health::new(cfg.workload.web.health_interval_ps),
            result: None,
        }
    }

    /// Worker `k`'s thread `tid` (the worker, or its application thread) finished a step.
    fn worker_done(&mut self, w: &mut World, k: usize, tid: usize) {
        let persistent = self.persistent();
        let server = w.server();
        let wk = &mut self.workers[k];
        if wk.work == Work::Accept {
            wk.conn = w.nodes[server]
                .accepted(wk.thread)
                .expect("accept returned");
        }
        let conn = wk.conn;
        let at_eof = || w.nodes[server].conns[conn].tcp.at_eof();
        let (next, op) = match wk.work {
            Work::Accept => (
                Work::Request,
                Op::Recv {
                    conn,
                    bytes: self.p.request_bytes,
                },
            ),
            // A kept-alive connection the user closed: the worker closes it too.
            Work::Request if at_eof() => (Work::Close, Op::Close { conn }),
            Work::Request => {
                let c = &w.cfg.costs.http_request;
                let (cycles, refs) = (c.i_pkt, c.r_pkt);
                (Work::Process, Op::Compute { cycles, refs })
            }
            Work::Process => {
                let flow = w.nodes[server].conns[conn].tcp.flow;
                let queued = self.sizes.get_mut(&flow);
                let bytes = queued
                    .and_then(|q| q.pop_front())
                    .expect("a request was sent");
                if self.sizes.get(&flow).is_some_and(VecDeque::is_empty) {
                    self.sizes.remove(&flow);
                }
                let op = if self.p.sendfile {
                    Op::SendFile { conn, bytes }
                } else {
                    Op::Send { conn, bytes }
                };
                (Work::Respond, op)
            }
            Work::Respond if persistent => (
                Work::Request,
                Op::Recv {
                    conn,
                    bytes: self.p.request_bytes,
                },
            ),
            Work::Respond => (Work::Close, Op::Close { conn }),
            Work::Close => (Work::Accept, Op::Accept),
        };
        wk.work = next;
        let thread = wk.thread;
        match wk.app {
            // The request goes to the application thread, and the response back to the worker.
            Some(a) if next == Work::Process => w.hand_off(server, thread, a, op),
            Some(a) if tid == a => w.hand_off(server, a, thread, op),
            _ => w.start_op(server, thread, op),
        }
    }
}

impl Workload for Web {
    fn start(&mut self, w: &mut World) -> Result<(), String> {
        let server = w.server();
        w.listen(server, self.p.backlog, true, self.p.defer_accept);
        self.by_thread = vec![Vec::new(); w.nodes.len()];
        let index = |by: &mut Vec<Vec<usize>>, node: usize, t: usize, i: usize| {
            let v = &mut by[node];
            if v.len() <= t {
                v.resize(t + 1, usize::MAX);
            }
            v[t] = i;
        };
        let roles = w.nodes[server].roles;
        let app_cpu = self.p.app_work == WebAppWork::AppCpu && roles.app != roles.comm;
        for k in 0..self.p.workers as usize {
            let thread = match self.p.worker_threads {
                WebWorkers::Comm => w.spawn(server, roles.comm, INTERACTIVE)?,
                WebWorkers::Free => {
                    w.nodes[server].spawn_free_off_protocol(roles.comm, INTERACTIVE)?
                }
            };
            index(&mut self.by_thread, server, thread, k);
            let app = if app_cpu {
                let a = w.spawn(server, roles.app, INTERACTIVE)?;
                index(&mut self.by_thread, server, a, k);
                Some(a)
            } else {
                None
            };
            self.workers.push(Worker {
                thread,
                app,
                conn: 0,
                work: Work::Accept,
            });
            w.start_op(server, thread, Op::Accept);
        }
        let mut start = Rng::new(self.seed ^ 0x5745_4221);
        let spread = self.p.start_spread_ps.0 as f64;
        for u in 0..self.p.users as usize {
            let node = u % server;
            let thread = w.spawn(node, w.nodes[node].roles.comm, INTERACTIVE)?;
            index(&mut self.by_thread, node, thread, u);
            self.users.push(User::new(node, thread));
            let at = Time((start.uniform_open0() * spread) as u64);
            self.thinking.push(Reverse((at, u)));
        }
        Ok(())
    }

    fn next_time(&self) -> Option<When> {
        let b = self.win.boundary().min(self.health.next());
        Some(When::Before(match self.thinking.peek() {
            Some(Reverse((t, _))) => (*t).min(b),
            None => b,
        }))
    }

    fn on_time(&mut self, w: &mut World) -> Result<Flow, String> {
        // The earliest of a health tick, a user's start and the window's edge acts first.
        let tick = self.health.next();
        let user_first = self.thinking.peek().is_some_and(|r| r.0 .0 < tick);
        if tick <= self.win.boundary() && !user_first {
            let waiting = self
                .users
                .iter()
                .filter(|u| u.step != Step::Thinking)
                .count();
            self.health.tick(w, waiting);
            return Ok(Flow::Continue);
        }
        if let Some(&Reverse((t, u))) = self.thinking.peek() {
            if t <= self.win.boundary() {
                self.thinking.pop();
                self.request(w, u)?;
                return Ok(Flow::Continue);
            }
        }
        let server = w.server();
        if self.win.before.is_none() {
            self.win.open(w);
            self.accepted_at_start = w.nodes[server].stats.connections_accepted;
            return Ok(Flow::Continue);
        }
        self.result = Some(self.win.close(w)?);
        Ok(Flow::Stop)
    }

    fn on_done(&mut self, w: &mut World, node: usize, tid: usize) -> Result<Flow, String> {
        let Some(&i) = self.by_thread[node].get(tid) else {
            return Ok(Flow::Continue);
        };
        if node == w.server() {
            self.worker_done(w, i, tid);
        } else {
            self.user_done(w, i)?;
        }
        Ok(Flow::Continue)
    }

    fn stalled(&self, _w: &World) -> String {
        "web: the simulation ran out of events before the window ended".into()
    }

    fn report(&self, w: &World) -> Value {
        let Some(window) = &self.result else {
            return json!({});
        };
        let secs = window.seconds();
        let mut rt = self.response_ps.clone();
        rt.sort_unstable();
        let ms = |q: f64| percentile(&rt, q).map(|ps| ps as f64 * 1e-9);
        let mean_ms =
            (!rt.is_empty()).then(|| rt.iter().sum::<u64>() as f64 * 1e-9 / rt.len() as f64);
        let accepted = w.nodes[w.server()].stats.connections_accepted - self.accepted_at_start;
        let (procs, nodes) = window_json(w, window);
        // Each node's busiest processor in the window: the server's, and each client's (the
        // users' side must not be the bottleneck).
        let busiest = |n: usize| {
            let prefix = format!("node{n}.");
            let (name, util) = procs
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| k.starts_with(&prefix))
                .map(|(k, v)| (k.clone(), v["utilisation"].as_f64().unwrap_or(0.0)))
                .fold((String::new(), -1.0), |a, b| if b.1 > a.1 { b } else { a });
            json!({"node": format!("node{n}"), "busiest": name, "busiest_utilisation": util})
        };
        let clients: Vec<Value> = (0..w.server()).map(busiest).collect();
        let server = busiest(w.server());
        let sharing = sharing(&procs, w.server(), secs, self.requests);
        json!({
            "web": {
                "users": self.p.users,
                "workers": self.p.workers,
                "page_size_bytes": self.p.page_size_bytes,
                "mix": if !self.p.trace_responses.is_empty() { "trace" } else { match self.p.mix {
                    WebMix::Fixed => "fixed",
                    WebMix::Specweb99Static => "specweb99_static",
                    WebMix::Lognormal => "lognormal (a stand-in for traces, not a trace)",
                }},
                "request_bytes": self.p.request_bytes,
                "keep_alive": self.p.keep_alive,
                "window_s": secs,
                "requests_per_s": self.requests as f64 / secs,
                // ApacheBench's "Time per request (mean)": concurrency x time / requests.
                "time_per_request_ms": (self.requests > 0)
                    .then(|| self.p.users as f64 * secs * 1e3 / self.requests as f64),
                "response_time_ms": {
                    "count": rt.len(), "mean": mean_ms,
                    "p50": ms(50.0), "p90": ms(90.0), "p99": ms(99.0),
                },
                "bandwidth_mbps": self.response_bytes as f64 * 8.0 / secs / 1e6,
                "connections_per_s": accepted as f64 / secs,
                "server": server,
                "sharing": sharing,
                "clients": clients,
                "failed_connects_run": self.failed_connects,
                "health": self.health.report(self.win.warm_end, self.win.end),
            },
            "processors": procs,
            "nodes": nodes,
        })
    }
}

/// What sharing the server's memory path costs each of its processors per request (issue 48
/// item 2): the time its references waited at the north bridge for the other initiators
/// (host CPUs, the NIC's DMA), and the lines of connection state its caches took from another
/// processor's (mode B; `smp.coherence_lines` in mode A).
fn sharing(procs: &Value, server: usize, secs: f64, requests: u64) -> Value {
    let prefix = format!("node{server}.");
    let per_request = |x: f64| (requests > 0).then(|| x / requests as f64);
    let rows: serde_json::Map<String, Value> = procs
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.starts_with(&prefix))
        .map(|(k, v)| {
            let wait_s = v["busy_bridge_wait"].as_f64().unwrap_or(0.0) * secs;
            let lines = v["coherence_transfers_per_s"].as_f64().unwrap_or(0.0) * secs;
            let lines = v["coherence"]["transfers"]
                .as_f64()
                .map_or(lines, |t| lines + t);
            (
                k.trim_start_matches(&prefix).to_string(),
                json!({
                    "bridge_wait_us_per_request": per_request(wait_s * 1e6),
                    "coherence_transfers_per_request": per_request(lines),
                }),
            )
        })
        .collect();
    Value::Object(rows)
}
