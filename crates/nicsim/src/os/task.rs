//! Threads as the scheduler sees them: spawning, pinned or free to migrate, wake-up
//! placement of a free thread, run-queue membership, and handing an operation to a thread
//! (from a workload, or from another thread across processors).

use super::thread::{Op, Priority, Thread};
use crate::engine::Engine;
use crate::hw::cpu::{Ctx, Notice, Then};
use crate::node::{job_of, Ev, Node, Wire};
use crate::stack::conn::ConnId;

impl Node {
    /// A new thread pinned to processor `proc`; returns its id.
    pub fn spawn(&mut self, proc: usize, prio: Priority) -> Result<usize, String> {
        if proc >= self.procs.len() || self.procs[proc].id.is_nic() {
            return Err(format!(
                "a thread pinned to processor {proc}: node{} has host processors {}",
                self.id,
                self.procs
                    .iter()
                    .filter(|p| !p.id.is_nic())
                    .map(|p| p.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        self.threads.push(Thread::new(proc, prio, true));
        Ok(self.threads.len() - 1)
    }

    /// A new thread that starts on processor `proc` and may migrate when it wakes.
    pub fn spawn_free(&mut self, proc: usize, prio: Priority) -> Result<usize, String> {
        let t = self.spawn(proc, prio)?;
        self.threads[t].pinned = false;
        Ok(t)
    }

    /// As `spawn_free`, never moving to the placement's protocol processor when that is a host
    /// CPU other than `proc` (onload's CPU1 and CPU-NET's poller run nothing else).
    pub fn spawn_free_off_protocol(
        &mut self,
        proc: usize,
        prio: Priority,
    ) -> Result<usize, String> {
        let t = self.spawn_free(proc, prio)?;
        let protocol = self.roles.protocol;
        if protocol != proc && !self.procs[protocol].id.is_nic() {
            self.threads[t].not_on = Some(protocol);
        }
        Ok(t)
    }

    /// An unpinned thread about to become runnable stays on its processor if that is idle,
    /// else moves to the first idle host processor, else stays (Linux 2.6's wake-up
    /// balancing, simplified: no periodic rebalancing, no cache-affinity cost).
    pub(crate) fn place(&mut self, tid: usize) {
        let t = &self.threads[tid];
        if t.pinned || self.cpu_idle(t.proc) {
            return;
        }
        let not_on = t.not_on;
        let idle = (0..self.procs.len())
            .find(|&p| !self.procs[p].id.is_nic() && Some(p) != not_on && self.cpu_idle(p));
        if let Some(p) = idle {
            self.threads[tid].proc = p;
            self.stats.migrations += 1;
        }
    }

    /// Processor `p` has nothing to run: no job, interrupt, runnable thread or softirq.
    pub(crate) fn cpu_idle(&self, p: usize) -> bool {
        let (cpu, sq) = (&self.procs[p], &self.sq[p]);
        cpu.running.is_none()
            && cpu.hardirq_q.is_empty()
            && cpu.suspended.iter().all(Option::is_none)
            && self.runq[p].next_after(None).is_none()
            && !sq.pending
            && !sq.running
    }

    /// No thread runs or waits to run on processor `p` (Linux's `nr_running == 0`), though an
    /// interrupt or softirq may.
    pub(crate) fn no_thread_on(&self, p: usize) -> bool {
        let cpu = &self.procs[p];
        !matches!(cpu.running, Some((Ctx::Process, _)))
            && cpu.suspended[Ctx::Process as usize].is_none()
            && self.runq[p].next_after(None).is_none()
    }

    /// The first idle host CPU, if any.
    pub(crate) fn idle_host_cpu(&self) -> Option<usize> {
        (0..self.procs.len()).find(|&p| !self.procs[p].id.is_nic() && self.cpu_idle(p))
    }

    /// A poll set (an epoll instance's interest list) over connections `conns`; its id.
    pub fn poll_set(&mut self, conns: Vec<ConnId>) -> usize {
        self.poll_sets.push(conns);
        self.poll_sets.len() - 1
    }

    /// Adds connection `conn` to poll set `set` (epoll_ctl ADD).
    pub fn poll_add(&mut self, set: usize, conn: ConnId) {
        self.poll_sets[set].push(conn);
    }

    /// Puts thread `tid` on its processor's run queue, or takes it off.
    pub(crate) fn set_runnable(&mut self, tid: usize, on: bool) {
        let fair = self.eevdf();
        match (on, self.threads[tid].queued) {
            (true, None) => {
                if fair {
                    self.fair_enqueue(tid);
                }
                let t = &mut self.threads[tid];
                t.queued = Some(self.runq[t.proc].insert(t.prio, tid, t.fair.vruntime_ps));
                if fair {
                    self.fair_queued(tid);
                }
            }
            (false, Some(k)) => {
                if fair {
                    self.fair_dequeue(tid);
                }
                let t = &mut self.threads[tid];
                self.runq[t.proc].remove(k, t.fair.vruntime_ps);
                t.queued = None;
            }
            _ => {}
        }
    }

    /// Gives thread `tid` an operation and makes it runnable.
    pub fn start_op(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, tid: usize, op: Op) {
        self.assign(tid, op);
        let p = self.threads[tid].proc;
        self.kick(eng, wire, p);
    }

    pub(crate) fn assign(&mut self, tid: usize, op: Op) {
        if !self.threads[tid].continuing {
            self.place(tid);
        }
        let t = &mut self.threads[tid];
        debug_assert!(t.op.is_none(), "thread already busy");
        t.op = Some(op);
        t.left = match op {
            Op::Send { bytes, .. }
            | Op::SendFile { bytes, .. }
            | Op::Recv { bytes, .. }
            | Op::RecvAny { bytes, .. }
            | Op::SendTo { bytes, .. } => bytes,
            Op::Compute { .. }
            | Op::Connect { .. }
            | Op::Accept
            | Op::Close { .. }
            | Op::RecvFrom { .. }
            | Op::Poll { .. } => 1,
        };
        t.in_call = false;
        self.set_runnable(tid, true);
    }

    /// Hands thread `tid` an operation from a thread on processor `from` (the Hpcbench queue
    /// between the receiving and the load thread). Across processors the sleeper is woken with
    /// a reschedule IPI and pays the context switch; on one processor it is a plain wake-up.
    pub fn hand_off(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        from: usize,
        tid: usize,
        op: Op,
    ) {
        self.assign(tid, op);
        self.threads[tid].woken = true;
        let to = self.threads[tid].proc;
        if to != from {
            // The handing thread pays the IPI's send on its own processor (§5.8).
            let send = job_of(Then::Nothing, &[self.notify_cost(to)]);
            self.procs[from].owed.push_back(send);
            self.kick(eng, wire, from);
            self.notify(eng, to, Notice::Reschedule);
        } else {
            self.kick(eng, wire, to);
        }
    }

    pub fn thread_proc(&self, tid: usize) -> usize {
        self.threads[tid].proc
    }

    pub fn thread_idle(&self, tid: usize) -> bool {
        self.threads[tid].op.is_none()
    }
}
