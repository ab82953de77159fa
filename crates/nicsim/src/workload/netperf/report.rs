//! netperf's report over the measured window: the test's connections (throughput or
//! transactions, fairness, latency) and any UDP flood beside them, flow by flow.

use super::{jain, percentile, Instance, Netperf};
use crate::config::NetperfTest;
use crate::report::{bound, window_json};
use crate::system::World;
use serde_json::{json, Value};

impl Netperf {
    pub(super) fn report_window(&self, w: &World) -> Value {
        let Some(window) = &self.result else {
            return json!({});
        };
        let secs = window.seconds();
        let rr = self.rr() || self.p.test == NetperfTest::TcpCrr;
        let udp = self.p.test == NetperfTest::UdpStream;
        let mbps = |bytes: u64| bytes as f64 * 8.0 / secs / 1e6;
        // The test's own connections, then any UDP flood beside them.
        let (test, floods) = self.inst.split_at(self.p.connections as usize);
        let queue_limited = w.cfg.tx.queue_frames > 0;
        let per: Vec<f64> = test
            .iter()
            .map(|s| {
                if rr {
                    (s.transactions - s.transactions_at_start) as f64 / secs
                } else {
                    mbps(self.read(w, s) - s.read_at_start)
                }
            })
            .collect();
        let rate_key = if rr {
            "transactions_per_s"
        } else {
            "throughput_mbps"
        };
        let total: f64 = per.iter().sum();
        let per_connection: Vec<Value> = test
            .iter()
            .zip(&per)
            .enumerate()
            .map(|(i, (s, v))| {
                let mut o =
                    json!({"connection": i, "client": format!("node{}", s.client), rate_key: v});
                if udp {
                    o["sent_mbps"] = mbps(self.sent(w, s) - s.sent_at_start).into();
                    let sock = &w.nodes[w.server()].udp[s.server_conn];
                    o["socket_drops"] = sock.dropped_datagrams.into();
                }
                if queue_limited {
                    o["sender_dropped_mbps"] =
                        mbps(self.tx_dropped(w, s) - s.tx_dropped_at_start).into();
                }
                o
            })
            .collect();
        let mut aggregate = json!({rate_key: total});
        if udp {
            let sent: u64 = test.iter().map(|s| self.sent(w, s) - s.sent_at_start).sum();
            aggregate["sent_mbps"] = mbps(sent).into();
        }
        let mut lat = self.latencies_ps.clone();
        lat.sort_unstable();
        let us = |q: f64| percentile(&lat, q).map(|ps| ps as f64 * 1e-6);
        let latency = if rr {
            json!({
                "count": lat.len(),
                "mean": (!lat.is_empty()).then(|| lat.iter().sum::<u64>() as f64 * 1e-6 / lat.len() as f64),
                "p50": us(50.0), "p90": us(90.0), "p99": us(99.0),
            })
        } else {
            Value::Null
        };
        let (procs, nodes) = window_json(w, window);
        if !rr {
            let link = (!w.cfg.topology.loopback).then_some(w.cfg.link.rate_bps.0 as f64);
            aggregate["bound"] = bound(&procs, total * 1e6, link);
        }
        let mut out = json!({
            "netperf": {
                "test": self.test_name(),
                "connections": test.len(),
                "clients": w.server(),
                "server": format!("node{}", w.server()),
                "msg_bytes": self.p.msg_bytes,
                "window_s": secs,
                "aggregate": aggregate,
                "fairness_jain": jain(&per),
                "latency_us": latency,
                "per_connection": per_connection,
                // Over the whole run, warm-up included: a SYN a full accept queue or receive
                // ring dropped waits the initial RTO before it is sent again.
                "listen_drops_run": w.nodes[w.server()].stats.listen_drops,
                "ring_drops_run": w.nodes[w.server()].devs.iter().map(|d| d.nic.stats.rx_dropped_ring).sum::<u64>(),
                "failed_connects_run": self.failed_connects,
            },
            "processors": procs,
            "nodes": nodes,
        });
        if !floods.is_empty() {
            out["netperf"]["udp_flood"] = self.flood_json(w, floods, secs);
        }
        out
    }

    /// Each flood flow's rates over the window: what its client sent, what the server read,
    /// what the client's full transmit queue dropped, and the datagrams lost after leaving
    /// (at the server's ring or socket).
    fn flood_json(&self, w: &World, floods: &[Instance], secs: f64) -> Value {
        let mbps = |bytes: u64| bytes as f64 * 8.0 / secs / 1e6;
        let flows: Vec<Value> = floods
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let sock = &w.nodes[w.server()].udp[s.server_conn];
                json!({
                    "flow": k,
                    "client": format!("node{}", s.client),
                    "msg_bytes": s.msg_bytes,
                    "sent_mbps": mbps(self.sent(w, s) - s.sent_at_start),
                    "received_mbps": mbps(self.read(w, s) - s.read_at_start),
                    "sender_dropped_mbps": mbps(self.tx_dropped(w, s) - s.tx_dropped_at_start),
                    "socket_drops_run": sock.dropped_datagrams,
                })
            })
            .collect();
        let sum = |key: &str| {
            flows
                .iter()
                .map(|f| f[key].as_f64().unwrap_or(0.0))
                .sum::<f64>()
        };
        json!({
            "flows": flows.len(),
            "sent_mbps": sum("sent_mbps"),
            "received_mbps": sum("received_mbps"),
            "sender_dropped_mbps": sum("sender_dropped_mbps"),
            "per_flow": flows,
        })
    }
}
