//! Hpcbench-style streaming with an application-load thread (host-path §7.3, §7.4): node0
//! sends messages back to back; node1's receiving thread hands each message to a load thread,
//! which spends `a` cycles per byte on it. Under strict alternation (the thesis's modified
//! Hpcbench) the receiver waits for the load thread before it reads again; under a queue it
//! reads on until the queue is full. Either way a waiting receiver backs up into the TCP
//! window, so no data is lost however heavy the load. A monitor (like Hpcbench's sysmon)
//! measures one window after a warm-up.

use super::{Flow, Pair, When, Workload};
use crate::config::{Config, HpcCoupling, Hpcbench as Params};
use crate::os::thread::{Op, BATCH};
use crate::report::window_json;
use crate::stats::{Snapshot, Window};
use crate::system::World;
use crate::units::Time;
use serde_json::{json, Value};
use std::collections::VecDeque;

/// Load-thread work for one message of `bytes`: (cycles, memory references).
pub fn message_work(bytes: u64, cycles_per_byte: f64, refs_per_byte: f64) -> (f64, f64) {
    (cycles_per_byte * bytes as f64, refs_per_byte * bytes as f64)
}

pub struct Hpcbench {
    h: Params,
    message_bytes: u64,
    /// With no load work, the receiver reads straight on.
    load: bool,
    warm_end: Time,
    end: Time,
    /// Messages waiting for the load thread, in bytes each.
    queue: VecDeque<u64>,
    queue_cap: usize,
    /// The receiver finished a read while the queue was full.
    comm_waiting: bool,
    /// Counters and bytes read at the start of the window.
    before: Option<(Snapshot, u64)>,
    result: Option<(Window, u64)>,
    /// The benchmark's connection, and node1's load thread.
    pair: Option<Pair>,
    load_thread: usize,
}

impl Hpcbench {
    pub fn new(cfg: &Config) -> Self {
        let h = cfg.workload.hpcbench.clone();
        let warm_end = Time(h.warmup_ps.0);
        Hpcbench {
            message_bytes: h.message_bytes.max(1),
            load: h.app_cycles_per_byte > 0.0,
            warm_end,
            end: warm_end + h.duration_ps,
            queue: VecDeque::new(),
            queue_cap: h.queue_messages.max(1) as usize,
            comm_waiting: false,
            before: None,
            result: None,
            pair: None,
            load_thread: 0,
            h,
        }
    }

    /// Bytes read from the socket: finer-grained than whole messages, and with a bounded load
    /// queue the same long-run rate as the load thread's.
    fn consumed(w: &World) -> u64 {
        w.nodes[1].app_bytes_read()
    }

    fn pair(&self) -> Pair {
        self.pair.expect("connections opened at start")
    }

    fn start_load(&mut self, w: &mut World) {
        if !w.nodes[1].thread_idle(self.load_thread) {
            return;
        }
        if let Some(bytes) = self.queue.pop_front() {
            let (cycles, refs) =
                message_work(bytes, self.h.app_cycles_per_byte, self.h.app_refs_per_byte);
            let comm = self.pair().thread[1];
            w.hand_off(1, comm, self.load_thread, Op::Compute { cycles, refs });
        }
    }
}

impl Workload for Hpcbench {
    fn start(&mut self, w: &mut World) -> Result<(), String> {
        let pair = Pair::open(w, self.h.nodelay)?;
        self.pair = Some(pair);
        self.load_thread = w.spawn(1, w.nodes[1].roles.app, BATCH)?;
        pair.send(w, 0, self.message_bytes);
        pair.recv(w, 1, self.message_bytes);
        Ok(())
    }

    fn next_time(&self) -> Option<When> {
        Some(When::Before(if self.before.is_none() {
            self.warm_end
        } else {
            self.end
        }))
    }

    fn on_time(&mut self, w: &mut World) -> Result<Flow, String> {
        let Some((b, c0)) = &self.before else {
            self.before = Some((w.snapshot_at(self.warm_end), Self::consumed(w)));
            return Ok(Flow::Continue);
        };
        let window = Window::between(b, &w.snapshot_at(self.end));
        let received = Self::consumed(w) - c0;
        w.check(&window)?;
        self.result = Some((window, received));
        Ok(Flow::Stop)
    }

    fn on_done(&mut self, w: &mut World, node: usize, tid: usize) -> Result<Flow, String> {
        let m = self.message_bytes;
        let pair = self.pair();
        let comm = pair.thread[node];
        match node {
            0 if tid == comm => pair.send(w, 0, m),
            1 if tid == comm && !self.load => pair.recv(w, 1, m),
            1 if tid == comm && self.h.coupling == HpcCoupling::Alternate => {
                // The message is handed over in the receive buffer; the receiver waits.
                self.queue.push_back(m);
                self.start_load(w);
            }
            1 if tid == self.load_thread && self.h.coupling == HpcCoupling::Alternate => {
                let op = Op::Recv {
                    conn: pair.conn[1],
                    bytes: m,
                };
                w.hand_off(1, self.load_thread, comm, op);
            }
            1 if tid == comm => {
                if self.queue.len() < self.queue_cap {
                    self.queue.push_back(m);
                    pair.recv(w, 1, m);
                } else {
                    self.comm_waiting = true;
                }
                self.start_load(w);
            }
            1 if tid == self.load_thread => {
                if self.comm_waiting {
                    self.comm_waiting = false;
                    self.queue.push_back(m);
                    let op = Op::Recv {
                        conn: pair.conn[1],
                        bytes: m,
                    };
                    w.hand_off(1, self.load_thread, comm, op);
                }
                self.start_load(w);
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn stalled(&self, _w: &World) -> String {
        "hpcbench: the simulation ran out of events before the window ended".into()
    }

    fn report(&self, w: &World) -> Value {
        let Some((window, received)) = &self.result else {
            return json!({});
        };
        let (procs, nodes) = window_json(w, window);
        json!({"hpcbench": {
            "message_bytes": self.message_bytes,
            "window_s": window.seconds(),
            "received_bytes": received,
            "throughput_mbps": *received as f64 * 8.0 / window.seconds() / 1e6,
            "processors": procs,
            "nodes": nodes,
        }})
    }
}
