//! A run over simulated time (`run.series_ps`): per interval, each node's throughput in and
//! each processor's utilisation, and at each interval's end the queues that explain them
//! (frames waiting in receive rings and the qdisc, runnable threads, bytes waiting in sockets).
//! Whole run, warm-up included; bounded by `run.series_max_rows`.

use crate::node::Node;
use crate::units::{Duration, Time};
use serde_json::{json, Value};

pub struct Series {
    interval: Duration,
    next: Time,
    max_rows: usize,
    columns: Vec<String>,
    rows: Vec<Vec<f64>>,
    /// Per node, then per processor: busy ps, app bytes read and wire bytes in at the last edge.
    last: Vec<(Vec<u64>, u64, u64)>,
    pub left_out: u64,
}

fn counters(nodes: &[Node], at: Time) -> Vec<(Vec<u64>, u64, u64)> {
    nodes
        .iter()
        .map(|n| {
            let busy = n.procs.iter().map(|p| p.busy_ps_until(at)).collect();
            let read = n.app_bytes_read();
            (busy, read, n.stats.wire_arrived_bytes)
        })
        .collect()
}

impl Series {
    pub fn new(nodes: &[Node], interval: Duration, max_rows: usize) -> Self {
        let mut columns = vec!["end_s".to_string()];
        for n in nodes {
            let node = format!("node{}", n.id);
            for p in &n.procs {
                columns.push(format!("{node}.{}.utilisation", p.id.as_str()));
            }
            for c in [
                "app_read_mbps",
                "wire_in_mbps",
                "rx_ring_frames",
                "qdisc_frames",
                "runnable_threads",
                "socket_unread_bytes",
            ] {
                columns.push(format!("{node}.{c}"));
            }
        }
        Series {
            interval,
            next: Time::ZERO + interval,
            max_rows,
            columns,
            rows: Vec::new(),
            last: counters(nodes, Time::ZERO),
            left_out: 0,
        }
    }

    /// Whether a row is due before `t`.
    pub fn due_before(&self, t: Time) -> bool {
        self.next < t
    }

    /// Rows for every interval that ends before `t` (the next event's time).
    pub fn until(&mut self, nodes: &[Node], t: Time) {
        while self.next < t {
            if self.rows.len() >= self.max_rows {
                // Full: the rest are counted, not sampled.
                let skipped = (t.0 - self.next.0).div_ceil(self.interval.0);
                self.left_out += skipped;
                self.next = Time(self.next.0 + skipped * self.interval.0);
                return;
            }
            self.sample(nodes);
            self.next += self.interval;
        }
    }

    fn sample(&mut self, nodes: &[Node]) {
        let now = counters(nodes, self.next);
        let span_ps = self.interval.0 as f64;
        let mbps = |bytes: u64| bytes as f64 * 8.0 / (span_ps * 1e-12) / 1e6;
        let mut row = vec![self.next.as_secs_f64()];
        for (n, ((busy, read, wire), (busy0, read0, wire0))) in
            nodes.iter().zip(now.iter().zip(&self.last))
        {
            row.extend(
                busy.iter()
                    .zip(busy0)
                    .map(|(b, b0)| (b - b0) as f64 / span_ps),
            );
            let ring: usize = n.devs.iter().map(|d| d.ring_waiting()).sum();
            let qdisc: usize = n.devs.iter().map(|d| d.qdisc_len()).sum();
            let unread = n.unread_bytes();
            row.extend([
                mbps(read - read0),
                mbps(wire - wire0),
                ring as f64,
                qdisc as f64,
                n.runnable() as f64,
                unread as f64,
            ]);
        }
        self.rows.push(row);
        self.last = now;
    }

    pub fn to_json(&self) -> Value {
        json!({
            "interval_s": self.interval.as_secs_f64(),
            "columns": self.columns,
            "rows": self.rows,
            "left_out": self.left_out,
        })
    }
}
