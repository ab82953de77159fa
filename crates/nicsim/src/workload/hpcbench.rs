//! Hpcbench-style streaming with an application-load thread (host-path §7.3, §7.4): node0
//! sends messages back to back; node1's receiving thread hands each message to a load thread
//! through a bounded queue, and the load thread spends `a` cycles per byte on it. A full queue
//! blocks the receiver, which backs up into the TCP window, so no data is lost however heavy
//! the load. A monitor (like Hpcbench's sysmon) measures one window after a warm-up.

use super::{Flow, When, Workload};
use crate::config::{Config, Hpcbench as Params};
use crate::os::thread::{Op, COMM, LOAD};
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
            h,
        }
    }

    /// Bytes read from the socket: finer-grained than whole messages, and with a bounded load
    /// queue the same long-run rate as the load thread's.
    fn consumed(w: &World) -> u64 {
        w.nodes[1].threads[COMM].bytes_read
    }

    fn start_load(&mut self, w: &mut World) {
        if !w.nodes[1].thread_idle(LOAD) {
            return;
        }
        if let Some(bytes) = self.queue.pop_front() {
            let (cycles, refs) =
                message_work(bytes, self.h.app_cycles_per_byte, self.h.app_refs_per_byte);
            w.hand_off(1, COMM, LOAD, Op::Compute { cycles, refs });
        }
    }
}

impl Workload for Hpcbench {
    fn nodelay(&self) -> bool {
        self.h.nodelay
    }

    fn start(&mut self, w: &mut World) -> Result<(), String> {
        w.start_op(0, COMM, Op::Send(self.message_bytes));
        w.start_op(1, COMM, Op::Recv(self.message_bytes));
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
        match (node, tid) {
            (0, COMM) => w.start_op(0, COMM, Op::Send(m)),
            (1, COMM) if !self.load => w.start_op(1, COMM, Op::Recv(m)),
            (1, COMM) => {
                if self.queue.len() < self.queue_cap {
                    self.queue.push_back(m);
                    w.start_op(1, COMM, Op::Recv(m));
                } else {
                    self.comm_waiting = true;
                }
                self.start_load(w);
            }
            (1, LOAD) => {
                if self.comm_waiting {
                    self.comm_waiting = false;
                    self.queue.push_back(m);
                    w.hand_off(1, LOAD, COMM, Op::Recv(m));
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
