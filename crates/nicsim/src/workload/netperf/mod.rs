//! netperf-style tests over many connections (TCP_STREAM, TCP_RR, TCP_CRR): each instance has
//! a client thread on a client node (round-robin over the clients) and a server thread on the
//! server, like netperf instances against one netserver. Connections start at seeded random
//! offsets within `start_spread_ps` (instances never start in lockstep); one window is
//! measured after a warm-up.
//!
//! TCP_STREAM: the client sends `msg_bytes` messages back to back, the server reads them;
//! throughput is payload the server read. TCP_RR: the client sends a `msg_bytes` request and
//! waits for a `msg_bytes` response; a transaction's latency runs from the request's send call
//! to the response's last byte read. UDP_STREAM: the client sends `msg_bytes` datagrams back to
//! back on a UDP socket (it sleeps only on its own send buffer), the server reads them; the
//! report gives what the server read and what the client sent, and the datagrams lost on the
//! way. TCP_CRR: each transaction opens a new connection
//! (connect, request, response, close, as netperf's client does); the server's threads accept
//! on one listener, read the request, answer, read to the end of the stream and close, so
//! the client closes first and holds the port in TIME_WAIT. A transaction's latency runs from
//! connect() to the return of close().

mod crr;
mod report;

use super::{Flow, Measured, When, Workload};
use crate::config::{ClientThreads, Config, Netperf as Params, NetperfTest, ServerThreads};
use crate::derived;
use crate::engine::Rng;
use crate::os::thread::{Op, INTERACTIVE};
use crate::stack::conn::ConnId;
use crate::stack::tcp::mss_bytes;
use crate::stats::Window;
use crate::system::World;
use crate::units::Time;
use crr::{ClientStep, ServerStep};
use serde_json::Value;

/// One netperf instance: a connection (or a UDP flow) and the thread at each end.
#[derive(Clone, Debug)]
struct Instance {
    /// A UDP_STREAM flow: the test's own, or a flood beside TCP_STREAM's connections.
    udp: bool,
    /// What each send carries.
    msg_bytes: u64,
    /// TCP_STREAM: what each of the server's recv() calls asks for (0: a message, whole).
    stream_recv_bytes: u64,
    client: usize,
    client_thread: usize,
    client_conn: ConnId,
    server_thread: usize,
    server_conn: ConnId,
    start: Time,
    /// RR: the client is waiting for a response; the server for a request.
    client_awaits_response: bool,
    server_awaits_request: bool,
    /// CRR: the operation each end's thread is in.
    client_step: ClientStep,
    server_step: ServerStep,
    /// RR: when the current transaction's request was issued.
    txn_start: Time,
    /// Transactions completed (RR), and at the window's start.
    transactions: u64,
    transactions_at_start: u64,
    /// Payload the server has read (STREAM) and the client sent (UDP) at the window's start,
    /// and the client dropped at its full transmit queue.
    read_at_start: u64,
    sent_at_start: u64,
    tx_dropped_at_start: u64,
    /// TCP_STREAM with the ILP library's accumulation: writes it holds for the next segment.
    held: u64,
}

impl Instance {
    /// A send of one message on the server's or the client's socket.
    fn send_op(&self, server: bool) -> Op {
        let c = if server {
            self.server_conn
        } else {
            self.client_conn
        };
        let bytes = self.msg_bytes;
        match self.udp {
            true => Op::SendTo { sock: c, bytes },
            false => Op::Send { conn: c, bytes },
        }
    }

    /// A receive of one message (one datagram over UDP).
    fn recv_op(&self, server: bool) -> Op {
        let c = if server {
            self.server_conn
        } else {
            self.client_conn
        };
        match (self.udp, self.stream_recv_bytes) {
            (true, _) => Op::RecvFrom { sock: c },
            (false, 0) => Op::Recv {
                conn: c,
                bytes: self.msg_bytes,
            },
            (false, bytes) => Op::RecvAny { conn: c, bytes },
        }
    }
}

pub struct Netperf {
    p: Params,
    seed: u64,
    inst: Vec<Instance>,
    /// (node, thread) → instance.
    by_thread: Vec<Vec<usize>>,
    /// Instances not yet started, by start time.
    pending: Vec<usize>,
    win: Measured,
    /// RR transaction latencies completed in the window, picoseconds.
    latencies_ps: Vec<u64>,
    /// TCP_CRR: connect() calls whose handshake gave up (`tcp.syn_retries`).
    failed_connects: u64,
    /// `org.ilp_accumulate` on a stream of writes smaller than a segment: the writes one
    /// segment holds, and the library's copy of one write (cycles, references).
    accumulate: Option<(u64, f64, f64)>,
    result: Option<Window>,
}

impl Netperf {
    pub fn new(cfg: &Config) -> Self {
        let mut p = cfg.workload.netperf.clone();
        p.msg_bytes = derived::netperf_msg_bytes(cfg);
        let mss = mss_bytes(cfg.nic.mtu_bytes, cfg.tcp.timestamps);
        let small = p.test == NetperfTest::TcpStream && !p.nodelay && p.msg_bytes < mss;
        // The library's copy into its own buffer is a plain copy loop: priced as `rx_copy`,
        // the kernel's copy out to the user [N] (§B.6 gives no figure for it).
        let accumulate = (cfg.org.ilp_accumulate && small).then(|| {
            let (c, s, n) = (&cfg.costs.rx_copy, cfg.costs.scale.copy, p.msg_bytes as f64);
            let cycles = s * (c.i_pkt + c.i_byte * n) / c.ipc;
            (mss / p.msg_bytes, cycles, s * (c.r_pkt + c.r_byte * n))
        });
        Netperf {
            accumulate,
            win: Measured::new(p.warmup_ps, p.duration_ps),
            seed: cfg.run.seed,
            p,
            inst: Vec::new(),
            by_thread: Vec::new(),
            pending: Vec::new(),
            latencies_ps: Vec::new(),
            failed_connects: 0,
            result: None,
        }
    }

    fn begin(&mut self, w: &mut World, i: usize) -> Result<(), String> {
        if self.p.test == NetperfTest::TcpCrr {
            let s = &self.inst[i];
            let (server, st) = (w.server(), s.server_thread);
            w.start_op(server, st, Op::Accept);
            return self.connect(w, i);
        }
        let rr = self.rr();
        let s = &mut self.inst[i];
        s.txn_start = w.eng.now();
        s.client_awaits_response = false;
        s.server_awaits_request = true;
        let (recv, rr_send) = (s.recv_op(true), s.send_op(false));
        let (c, ct, st) = (s.client, s.client_thread, s.server_thread);
        let send = if rr { rr_send } else { self.stream_op(i) };
        let server = w.server();
        w.start_op(c, ct, send);
        w.start_op(server, st, recv);
        Ok(())
    }

    /// The stream client's next operation: a send of one message; with the ILP library's
    /// accumulation, a copy into the library's buffer for each write but the segment's last,
    /// which passes the whole segment in one call (§B.6).
    fn stream_op(&mut self, i: usize) -> Op {
        let s = &mut self.inst[i];
        match self.accumulate {
            Some((k, cycles, refs)) if !s.udp => {
                if s.held + 1 < k {
                    s.held += 1;
                    return Op::Compute { cycles, refs };
                }
                let bytes = s.msg_bytes * (s.held + 1);
                s.held = 0;
                Op::Send {
                    conn: s.client_conn,
                    bytes,
                }
            }
            _ => s.send_op(false),
        }
    }

    /// Payload the server has read on instance `i`'s connection.
    fn read(&self, w: &World, s: &Instance) -> u64 {
        let server = &w.nodes[w.server()];
        match s.udp {
            true => server.udp[s.server_conn].bytes_read,
            false => server.conns[s.server_conn].bytes_read,
        }
    }

    /// Payload the client has handed to its driver (UDP_STREAM).
    fn sent(&self, w: &World, s: &Instance) -> u64 {
        match s.udp {
            true => w.nodes[s.client].udp[s.client_conn].tx_payload_bytes,
            false => 0,
        }
    }

    /// Payload of instance `s`'s flow its client dropped at a full transmit queue.
    fn tx_dropped(&self, w: &World, s: &Instance) -> u64 {
        let client = &w.nodes[s.client];
        let flow = match s.udp {
            true => client.udp[s.client_conn].flow,
            false => client.conns[s.client_conn].tcp.flow,
        };
        let by_flow = &client.stats.tx_dropped_by_flow;
        by_flow.get(flow as usize).copied().unwrap_or(0)
    }

    /// Request/response: TCP_RR, UDP_RR (TCP_CRR has its own steps).
    fn rr(&self) -> bool {
        matches!(self.p.test, NetperfTest::TcpRr | NetperfTest::UdpRr)
    }

    fn test_name(&self) -> &'static str {
        match self.p.test {
            NetperfTest::TcpStream => "TCP_STREAM",
            NetperfTest::TcpRr => "TCP_RR",
            NetperfTest::TcpCrr => "TCP_CRR",
            NetperfTest::UdpStream => "UDP_STREAM",
            NetperfTest::UdpRr => "UDP_RR",
        }
    }
}

/// Jain's fairness index of `x`: 1 when all are equal, 1/n when one has everything.
pub fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    if sq == 0.0 {
        1.0
    } else {
        sum * sum / (x.len() as f64 * sq)
    }
}

pub use crate::stats::quantile::percentile;

impl Netperf {
    /// The netserver of a connection: on the placement's comm_thread processor, pinned to the
    /// CPU its device interrupts (a TCP_CRR server's connections come later: comm_thread), or
    /// free to migrate.
    fn server_thread(
        &self,
        w: &mut World,
        server: usize,
        conn: usize,
        crr: bool,
        udp: bool,
    ) -> Result<usize, String> {
        let node = &w.nodes[server];
        let comm = node.roles.comm;
        match self.p.server_threads {
            ServerThreads::Comm => w.spawn(server, comm, INTERACTIVE),
            ServerThreads::Free => w.spawn_free(server, comm, INTERACTIVE),
            ServerThreads::Nic if crr => w.spawn(server, comm, INTERACTIVE),
            ServerThreads::Nic => {
                let dev = if udp {
                    node.udp[conn].dev
                } else {
                    node.conns[conn].dev
                };
                let cpu = node.devs[dev].irq;
                w.spawn(server, cpu, INTERACTIVE)
            }
        }
    }
}

impl Workload for Netperf {
    fn start(&mut self, w: &mut World) -> Result<(), String> {
        let n = self.p.connections as usize;
        let server = w.server();
        let clients = server; // nodes 0 .. server-1
        let crr = self.p.test == NetperfTest::TcpCrr;
        let udp = matches!(self.p.test, NetperfTest::UdpStream | NetperfTest::UdpRr);
        if crr {
            w.listen(server, self.p.backlog, self.p.nodelay, false);
        }
        let floods = self.p.udp_flood_flows as usize;
        self.by_thread = vec![Vec::new(); w.nodes.len()];
        let mut rng = Rng::new(self.seed);
        let spread = self.p.start_spread_ps.0 as f64;
        let lo = w.cfg.topology.loopback;
        for i in 0..n + floods {
            let client = if lo { server } else { i % clients };
            let (udp, msg_bytes) = match i < n {
                true => (udp, self.p.msg_bytes),
                false => (true, self.p.udp_flood_bytes),
            };
            // CRR opens its connections as it goes.
            let (client_conn, server_conn) = if crr {
                (0, 0)
            } else if udp {
                w.udp_pair(client, server)?
            } else {
                w.connect(client, server, self.p.nodelay)?
            };
            let comm = w.nodes[client].roles.comm;
            let client_thread = match self.p.client_threads {
                ClientThreads::Comm => w.spawn(client, comm, INTERACTIVE)?,
                ClientThreads::Free => w.spawn_free(client, comm, INTERACTIVE)?,
            };
            let server_thread = self.server_thread(w, server, server_conn, crr, udp)?;
            for (node, t) in [(client, client_thread), (server, server_thread)] {
                let v = &mut self.by_thread[node];
                if v.len() <= t {
                    v.resize(t + 1, usize::MAX);
                }
                v[t] = i;
            }
            let offset_ps = (rng.uniform_open0() * spread) as u64;
            let start = Time(offset_ps.min(self.p.start_spread_ps.0.saturating_sub(1)));
            let stream = self.p.test == NetperfTest::TcpStream && !udp;
            self.inst.push(Instance {
                udp,
                msg_bytes,
                stream_recv_bytes: if stream { self.p.recv_bytes } else { 0 },
                client,
                client_thread,
                client_conn,
                server_thread,
                server_conn,
                start,
                client_awaits_response: false,
                server_awaits_request: true,
                client_step: ClientStep::Connect,
                server_step: ServerStep::Accept,
                txn_start: Time::ZERO,
                transactions: 0,
                transactions_at_start: 0,
                read_at_start: 0,
                sent_at_start: 0,
                tx_dropped_at_start: 0,
                held: 0,
            });
        }
        // Started latest-first from the back of the list.
        self.pending = (0..n + floods).collect();
        self.pending
            .sort_by_key(|&i| std::cmp::Reverse((self.inst[i].start, i)));
        Ok(())
    }

    fn next_time(&self) -> Option<When> {
        let boundary = self.win.boundary();
        Some(When::Before(match self.pending.last() {
            Some(&i) => self.inst[i].start.min(boundary),
            None => boundary,
        }))
    }

    fn on_time(&mut self, w: &mut World) -> Result<Flow, String> {
        if let Some(&i) = self.pending.last() {
            if self.inst[i].start <= self.win.boundary() {
                self.pending.pop();
                self.begin(w, i)?;
                return Ok(Flow::Continue);
            }
        }
        if self.win.before.is_none() {
            self.win.open(w);
            for k in 0..self.inst.len() {
                let s = &self.inst[k];
                let (read, sent, dropped) =
                    (self.read(w, s), self.sent(w, s), self.tx_dropped(w, s));
                let s = &mut self.inst[k];
                s.read_at_start = read;
                s.sent_at_start = sent;
                s.tx_dropped_at_start = dropped;
                s.transactions_at_start = s.transactions;
            }
            return Ok(Flow::Continue);
        }
        self.result = Some(self.win.close(w)?);
        Ok(Flow::Stop)
    }

    fn on_done(&mut self, w: &mut World, node: usize, tid: usize) -> Result<Flow, String> {
        let Some(&i) = self.by_thread[node].get(tid) else {
            return Ok(Flow::Continue);
        };
        let server = w.server();
        if self.p.test == NetperfTest::TcpCrr {
            let server_side = node == server && tid == self.inst[i].server_thread;
            self.crr_step(w, i, server_side)?;
            return Ok(Flow::Continue);
        }
        let now = w.eng.now();
        // A flood beside TCP_STREAM streams, whatever the test.
        let rr = self.rr() && i < self.p.connections as usize;
        let in_window = self.win.in_window(now);
        let s = &mut self.inst[i];
        if node == server && tid == s.server_thread {
            let op = if rr && s.server_awaits_request {
                s.server_awaits_request = false;
                s.send_op(true)
            } else {
                s.server_awaits_request = true;
                s.recv_op(true)
            };
            w.start_op(server, tid, op);
            return Ok(Flow::Continue);
        }
        let op = if !rr {
            self.stream_op(i)
        } else if !s.client_awaits_response {
            s.client_awaits_response = true;
            s.recv_op(false)
        } else {
            s.client_awaits_response = false;
            s.transactions += 1;
            if in_window {
                self.latencies_ps.push((now - s.txn_start).0);
            }
            s.txn_start = now;
            s.send_op(false)
        };
        w.start_op(node, tid, op);
        Ok(Flow::Continue)
    }

    fn stalled(&self, _w: &World) -> String {
        "netperf: the simulation ran out of events before the window ended".into()
    }

    fn report(&self, w: &World) -> Value {
        self.report_window(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_a_monopoly() {
        assert!((jain(&[3.0, 3.0, 3.0, 3.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[5.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), Some(50));
        assert_eq!(percentile(&v, 99.0), Some(99));
        assert_eq!(percentile(&[7], 90.0), Some(7));
        assert_eq!(percentile(&[], 50.0), None);
    }
}
