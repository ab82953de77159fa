//! Freeing a finished connection's slot, as Linux frees a socket when its last reference
//! goes: the application has closed it, TCP is done with it (TIME_WAIT over, the FIN of
//! LAST_ACK acknowledged, or the handshake given up) and nothing of the kernel names it any
//! more. Memory then follows the connections open at once, not every connection a run opened.
//!
//! Finished connections wait in a list; once enough wait, a sweep between two events (never
//! inside one, so no caller holds a slot it is using) marks every slot something still names
//! and frees the others. What can name a connection, and how:
//! - by its slot: the dirty list, each softirq's timer and teardown queues and the effect of
//!   the job it runs, each thread's operation and job effect, the accept queue, poll sets, and
//!   the handoff NIC's commands, task in service and restore lists (a thread's last accepted
//!   connection is read only as its accept() returns, when the application holds it);
//! - by its flow (looked up when used): segments queued for output, frames inside the node
//!   (rings, DMA, backlogs, qdiscs, the handoff NIC's queues) and the work processors have
//!   running or queued (a job's data names its flow: socket lock, queue lock, cache lines);
//! - by its cookie: TCP timer events, which may outlive all of these. A freed connection had
//!   no timer armed, so its stale events would have fired nothing; they find no connection.
//!
//! A freed slot's counters are folded into the node's totals (`node::stats::Retired`) and its
//! flow and cookie forgotten, so no report changes. The one thing that differs from keeping
//! every slot: a frame that reaches the node after the sweep, for a connection it freed, finds
//! no socket, as in Linux, instead of the dead one (it was dropped either way).

use crate::hw::cpu::Job;
use crate::hw::frame::FlowId;
use crate::node::effect::Effect;
use crate::node::Node;
use crate::os::thread::Op;
use crate::stack::conn::{Conn, ConnId, Owner};
use crate::stack::tcp::{State, Tcp};
use crate::stack::Frame;

/// Finished connections a sweep waits for beyond those the last sweep had to keep: at least
/// this many, and an eighth of the table (a sweep reads every slot once).
const SWEEP_BATCH: usize = 64;

impl Node {
    /// Puts `conn` in a slot (a freed one if there is one) as flow `flow`'s socket here.
    pub(crate) fn add_conn(&mut self, flow: FlowId, mut conn: Conn) -> Result<ConnId, String> {
        let s = &mut self.slots;
        s.opened = s.opened.checked_add(1).ok_or_else(|| {
            format!(
                "node{}: more than {} sockets opened in one run: socket cookies run out",
                self.id,
                u32::MAX
            )
        })?;
        conn.cookie = s.opened;
        s.open += 1;
        s.peak_open = s.peak_open.max(s.open);
        let c = match s.free.pop() {
            Some(c) => {
                self.conns[c] = conn;
                c
            }
            None => {
                self.conns.push(conn);
                self.conns.len() - 1
            }
        };
        self.slots.by_cookie.insert(self.slots.opened, c);
        self.flows.insert(flow, c);
        Ok(c)
    }

    /// The connection whose cookie is `cookie`, while it has a slot.
    pub(crate) fn conn_by_cookie(&self, cookie: u32) -> Option<ConnId> {
        self.slots.by_cookie.get(&cookie).copied()
    }

    /// TCP is done with connection `c`: its slot waits to be freed.
    pub(crate) fn finish(&mut self, c: ConnId) {
        let conn = &mut self.conns[c];
        if !std::mem::replace(&mut conn.finished, true) {
            self.slots.open -= 1;
            self.slots.finished.push(c);
        }
    }

    /// The application drops connection `c` without closing it (a connect() that failed):
    /// it no longer holds it.
    pub fn discard(&mut self, c: ConnId) {
        self.conns[c].held = false;
    }

    /// Between two events: frees the slots of finished connections nothing names any more,
    /// once enough have finished since the last sweep.
    #[inline]
    pub fn sweep(&mut self) {
        if self.slots.finished.len() >= self.slots.sweep_at.max(SWEEP_BATCH) {
            self.sweep_now();
        }
    }

    #[inline(never)]
    fn sweep_now(&mut self) {
        let named = self.named_slots();
        let finished = std::mem::take(&mut self.slots.finished);
        let (free, keep): (Vec<ConnId>, Vec<ConnId>) = finished
            .into_iter()
            .partition(|&c| !named[c] && self.unused(c));
        let mut freed = vec![false; self.conns.len()];
        for c in free {
            freed[c] = true;
            self.free_slot(c);
        }
        // Connections handed to the NIC are listed until met; a freed slot's entry goes now.
        if let Some(h) = self.devs.iter_mut().find_map(|d| d.handoff.as_deref_mut()) {
            h.handed.retain(|&c| !freed[c]);
        }
        self.slots.sweep_at = keep.len() + SWEEP_BATCH.max(self.conns.len() / 8);
        self.slots.finished = keep;
    }

    /// Whether finished connection `c` holds nothing a reference could still reach: no
    /// application descriptor, no timer armed, no segment in its backlog, its lock free, the
    /// host owning it.
    fn unused(&self, c: ConnId) -> bool {
        let conn = &self.conns[c];
        let t = &conn.tcp;
        t.state() == State::Done
            && !conn.held
            && t.deadlines().iter().all(Option::is_none)
            && conn.backlog.is_empty()
            && conn.slock.holder().is_none()
            && conn.owner == Owner::Host
    }

    /// Frees slot `c`: its counters go to the node's totals, its flow and cookie are
    /// forgotten, and an empty connection holds the slot until the next one takes it.
    fn free_slot(&mut self, c: ConnId) {
        let cfg = &self.cfg;
        let empty = Conn::new(Tcp::new_closed(&cfg.tcp, cfg.nic.mtu_bytes, false, 0), 0, 0);
        let dead = std::mem::replace(&mut self.conns[c], empty);
        self.retired.fold(&dead);
        if self.flows.get(dead.tcp.flow) == Some(c) {
            self.flows.remove(dead.tcp.flow);
        }
        self.slots.by_cookie.remove(&dead.cookie);
        self.slots.free.push(c);
    }

    /// Every slot something of the node names now, by slot or by flow.
    fn named_slots(&self) -> Vec<bool> {
        let mut named = vec![false; self.conns.len()];
        let flows = &self.flows;
        let mut flow = |f: FlowId| {
            if let Some(c) = flows.get(f) {
                named[c] = true;
            }
        };
        for q in &self.sq {
            q.xmit.iter().for_each(|s| flow(s.flow));
            q.effect.iter().for_each(|e| effect_flow(e, &mut flow));
        }
        for t in &self.threads {
            t.xmit.iter().for_each(|s| flow(s.flow));
            effect_flow(&t.effect, &mut flow);
            t.saved.iter().for_each(|j| flow(j.data.flow));
        }
        for p in &self.procs {
            let running = p.running.iter().map(|(_, j)| j);
            let queued = p
                .hardirq_q
                .iter()
                .chain(&p.owed)
                .chain(p.suspended.iter().flatten());
            running.chain(queued).for_each(|j: &Job| flow(j.data.flow));
        }
        self.rx_frames()
            .chain(self.tx_frames())
            .for_each(|f: &Frame| flow(f.hdr.flow));
        if let Some(h) = self.handoff_nic() {
            h.segments().for_each(|s| flow(s.flow));
        }
        for c in self.named_by_slot() {
            named[c] = true;
        }
        named
    }

    /// The slots the node's queues, threads and tables name directly.
    fn named_by_slot(&self) -> Vec<ConnId> {
        let mut v: Vec<ConnId> = self.dirty.clone();
        for q in &self.sq {
            v.extend(q.timers.iter().map(|&(c, _)| c));
            v.extend(&q.teardown);
            v.extend(q.effect.as_ref().and_then(effect_conn));
        }
        for t in &self.threads {
            v.extend(t.op.and_then(op_conn));
            v.extend(effect_conn(&t.effect));
        }
        if let Some(l) = &self.listener {
            v.extend(&l.ready);
        }
        v.extend(self.poll_sets.iter().flatten());
        if let Some(h) = self.handoff_nic() {
            v.extend(h.conns_named());
        }
        v
    }
}

/// The connection an operation is on.
fn op_conn(op: Op) -> Option<ConnId> {
    match op {
        Op::Send { conn, .. }
        | Op::SendFile { conn, .. }
        | Op::Recv { conn, .. }
        | Op::RecvAny { conn, .. }
        | Op::Connect { conn }
        | Op::Close { conn } => Some(conn),
        _ => None,
    }
}

/// The connection a job's effect names by its slot.
fn effect_conn(e: &Effect) -> Option<ConnId> {
    match *e {
        Effect::Copied { conn, .. }
        | Effect::Read { conn, .. }
        | Effect::Timer(conn, _)
        | Effect::Connect(conn)
        | Effect::Close(conn)
        | Effect::Released(conn) => Some(conn),
        _ => None,
    }
}

/// The flow of the segment or frame a job's effect carries.
fn effect_flow(e: &Effect, mark: &mut impl FnMut(FlowId)) {
    match e {
        Effect::Xmit(s) => mark(s.flow),
        Effect::RxPacket(f)
        | Effect::Backlogged(f)
        | Effect::Prequeued(f)
        | Effect::BacklogRx(f) => mark(f.hdr.flow),
        _ => {}
    }
}
