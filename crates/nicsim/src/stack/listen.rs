//! Opening and closing connections on a node: listening, passive opens on a SYN, the accept
//! queue's rules, active opens with their ephemeral ports, and retiring a finished
//! connection (the listener's state is in `conn`). Linux 2.6 rules:
//! a SYN or handshake-ending ACK that finds the accept queue full is dropped
//! (`sk_acceptq_is_full`: more than `backlog` waiting) and the peer's retransmission tries
//! again; accept() wakes one waiter (exclusive wait).

use crate::engine::Engine;
use crate::hw::frame::{FlowId, FrameHeader, NodeAddr};
use crate::hw::nic::rss_queue;
use crate::node::netdev::DevId;
use crate::node::{Ev, Node};
use crate::stack::conn::{Conn, ConnId, Listener};
use crate::stack::tcp::{Segment, State, Tcp};

impl Node {
    /// listen(): SYNs for flows without a socket open connections here from now on.
    pub fn listen(&mut self, backlog: u32, nodelay: bool, defer_accept: bool) {
        self.listener = Some(Listener {
            backlog,
            nodelay,
            defer_accept,
            ..Listener::default()
        });
    }

    /// The device at fabric address `addr` here that receives flow `flow` (its RSS queue).
    pub(crate) fn dev_for(&self, addr: NodeAddr, flow: FlowId) -> DevId {
        let first = self.devs.iter().position(|d| d.addr == addr);
        let first = first.expect("a frame addressed to one of this node's devices");
        let queues = self.devs.iter().filter(|d| d.addr == addr).count();
        first + rss_queue(flow, queues)
    }

    /// A socket for flow `flow` to node `peer`: established at once (the benchmarks' connections,
    /// opened before anything is measured) or closed until `connect`. `active` ends hold one of
    /// this node's ephemeral ports until they finish.
    pub fn open(
        &mut self,
        flow: FlowId,
        peer: NodeAddr,
        nodelay: bool,
        active: bool,
        established: bool,
        dev: DevId,
    ) -> Result<ConnId, String> {
        let cfg = &self.cfg;
        if active && self.ports_in_use >= cfg.tcp.ephemeral_ports {
            return Err(format!(
                "node{}: no free ephemeral port for a new connection: all tcp.ephemeral_ports = {} are held by open connections or in TIME_WAIT (tcp.time_wait_ps)",
                self.id, cfg.tcp.ephemeral_ports
            ));
        }
        let (mtu, tcp) = (cfg.nic.mtu_bytes, &cfg.tcp);
        let mut tcp = if established {
            Tcp::new(tcp, mtu, nodelay, flow)
        } else {
            Tcp::new_closed(tcp, mtu, nodelay, flow)
        };
        tcp.set_gso_max(cfg.nic.tso_max_bytes);
        if cfg.nic.tso {
            // The IP datagram of one send is at most nic.tso_max_bytes (Linux's GSO_MAX_SIZE).
            let headers = mtu - tcp.mss as u64;
            tcp.set_tso(
                cfg.nic
                    .tso_max_bytes
                    .saturating_sub(headers)
                    .min(u32::MAX as u64) as u32,
            );
        }
        self.ports_in_use += active as u32;
        let mut conn = Conn::new(tcp, peer, dev);
        conn.active = active;
        // A passive end opened by a SYN is the application's once accept() returns it.
        conn.held = active || established;
        self.add_conn(flow, conn)
    }

    /// A SYN for a flow without a live socket: a new connection in SYN_RECV, answered with a
    /// SYN-ACK, when the listener has room; a full accept queue drops it (counted). Returns
    /// false when nothing listens here.
    pub(crate) fn passive_open(
        &mut self,
        eng: &mut Engine<Ev>,
        p: usize,
        seg: &Segment,
        hdr: &FrameHeader,
    ) -> bool {
        let Some(l) = &self.listener else {
            return false;
        };
        if l.full() {
            self.stats.listen_drops += 1;
            return true;
        }
        let nodelay = l.nodelay;
        let c = self
            .open(
                seg.flow,
                hdr.src,
                nodelay,
                false,
                false,
                self.dev_for(hdr.dst, seg.flow),
            )
            .expect("a passive end holds no ephemeral port");
        let now = eng.now();
        let tcp = self.tcp_mut(c);
        tcp.passive_open(now, seg);
        let synack = tcp.output(now);
        self.sq[p].xmit.extend(synack);
        true
    }

    /// Whether the segment that ends connection `c`'s SYN_RECV must be dropped: the accept
    /// queue is full (the SYN-ACK's retransmission will try again).
    pub(crate) fn accept_queue_full(&self, c: ConnId) -> bool {
        self.conns[c].tcp.state() == State::SynRcvd
            && self.listener.as_ref().is_some_and(|l| l.full())
    }

    /// Whether `seg` is a bare ACK that TCP_DEFER_ACCEPT leaves unanswered: connection `c`
    /// stays in SYN_RECV (its SYN-ACK timer still running) until data arrives, as Linux 2.6's
    /// `tcp_check_req` does (`rskq_defer_accept` and a segment without payload).
    pub(crate) fn accept_deferred(&self, c: ConnId, seg: &Segment) -> bool {
        self.conns[c].tcp.state() == State::SynRcvd
            && seg.len == 0
            && !seg.fin()
            && self.listener.as_ref().is_some_and(|l| l.defer_accept)
    }

    /// Connection `c` finished its handshake: a connecting thread goes on; a passive end
    /// joins the accept queue and wakes one thread blocked in accept().
    pub(crate) fn established(&mut self, p: usize, c: ConnId) {
        if self.conns[c].active {
            if let Some(t) = self.conns[c].writer.take() {
                self.unblock(p, t);
            }
            return;
        }
        let l = self
            .listener
            .as_mut()
            .expect("a passive connection has a listener");
        l.ready.push_back(c);
        if let Some(t) = l.waiters.pop_front() {
            self.unblock(p, t);
        }
    }

    /// The next connection accept() returns, if one waits.
    pub(crate) fn take_accepted(&mut self) -> Option<ConnId> {
        let c = self.listener.as_mut()?.ready.pop_front()?;
        self.stats.connections_accepted += 1;
        self.conns[c].held = true;
        Some(c)
    }

    /// Connection `c`'s handshake gave up: a connecting thread's connect() returns (the socket
    /// ends `Done`), and its port is free.
    pub(crate) fn handshake_failed(&mut self, p: usize, c: ConnId) {
        if let Some(t) = self.conns[c].writer.take() {
            self.unblock(p, t);
        }
        self.retire(c);
    }

    /// Connection `c` is done (TIME_WAIT expired, or LAST_ACK acknowledged): its port is
    /// free, and its slot once nothing names it.
    pub(crate) fn retire(&mut self, c: ConnId) {
        self.stats.connections_closed += 1;
        if self.conns[c].active {
            self.ports_in_use -= 1;
        }
        self.finish(c);
    }
}
