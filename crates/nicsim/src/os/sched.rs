//! The scheduler: which context runs next on a processor, chunk by chunk, with preemption of
//! process context by interrupts, the softirq and a woken communication thread (host-path §5).

use crate::config::{Category, Ksoftirqd};
use crate::engine::Engine;
use crate::hw::cpu::{Chunk, Ctx, Job, JobData, LockRef, Notice, Piece, Then};
use crate::node::effect::Effect;
use crate::node::{Ev, Node, Wire};
use crate::os::lock::{Attempt, SpinLock};
use crate::units::{Duration, Time};

/// `last_thread`'s mark for a CPU's ksoftirqd (no thread of the node has this id).
const KSOFTIRQD: usize = usize::MAX;

impl Node {
    /// Starts work on processor `p` if it is idle.
    pub fn kick(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize) {
        if self.procs[p].running.is_none() {
            self.dispatch(eng, wire, p);
        }
    }

    /// Picks the highest-priority work on `p` and starts its first chunk.
    pub(crate) fn dispatch(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize) {
        // A completed job's effect may already have started work here (a wake-up kicks).
        while self.procs[p].running.is_none() {
            let Some((ctx, job)) = self.pick(p) else {
                return;
            };
            self.procs[p].running = Some((ctx, job));
            if self.start_chunk(eng, p) {
                return;
            }
            // An empty job completes at once.
            let then = self.finished(p, eng.now());
            self.complete(eng, wire, p, then);
        }
    }

    /// Inlined into `dispatch`, so the job it returns is not copied on the way.
    #[inline(always)]
    pub(crate) fn pick(&mut self, p: usize) -> Option<(Ctx, Job)> {
        self.switch_away_from_sleeper(p);
        if let Some(j) = self.procs[p].hardirq_q.pop_front() {
            return Some((Ctx::HardIrq, j));
        }
        if let Some(j) = self.procs[p].suspended[Ctx::Softirq as usize].take() {
            return Some((Ctx::Softirq, j));
        }
        let sq = &self.sq[p];
        // Process context interrupted inside a spinlock's section goes on before the softirq
        // (Linux holds them with bottom halves disabled).
        let bh_enabled = self.procs[p].locks_held == 0;
        if bh_enabled && (sq.pending || sq.running) && !sq.yielded {
            if let Some(mut j) = self.softirq_job(p) {
                self.share_connection(p, &mut j);
                return Some((Ctx::Softirq, j));
            }
        }
        self.sq[p].yielded = false;
        if let Some(j) = self.procs[p].owed.pop_front() {
            return Some((Ctx::Process, j));
        }
        if self.eevdf() {
            // EEVDF's choice; a chosen thread with no job blocked on the way (choose again) or
            // returned from its call and waits for its next one (the processor waits too).
            while let Some(tid) = self.fair_next(p) {
                self.fair_set_next(p, tid);
                if let Some(j) = self.thread_job_on(p, tid) {
                    return Some((Ctx::Process, j));
                }
                if self.threads[tid].queued.is_some() {
                    return None;
                }
            }
        } else {
            let mut cursor = None;
            while let Some(key) = self.runq[p].next_after(cursor) {
                cursor = Some(key);
                if let Some(j) = self.thread_job_on(p, key.2) {
                    return Some((Ctx::Process, j));
                }
            }
        }
        if self.sq[p].pending || self.sq[p].running {
            // The softirq yielded to process context and nothing else wants the CPU.
            if let Some(mut j) = self.softirq_job(p) {
                self.share_connection(p, &mut j);
                if self.cfg.sched.ksoftirqd == Ksoftirqd::Thread
                    && self.last_thread[p] != Some(KSOFTIRQD)
                {
                    // ksoftirqd is a thread: switching to it is a context switch.
                    self.switch_to(p, Some(KSOFTIRQD));
                    let cs = self.context_switch_piece();
                    j.add_or_merge(cs, true);
                    j.add_or_merge(self.lock_piece(&[cs]), true);
                    self.last_thread[p] = Some(KSOFTIRQD);
                }
                return Some((Ctx::Softirq, j));
            }
        }
        if self.current[p] == Some(KSOFTIRQD) {
            // ksoftirqd found nothing more and sleeps.
            self.switch_to(p, None);
        }
        None
    }

    /// Thread `tid`'s next job on `p`, with the context switch to it when it is another
    /// thread or it slept; None if it has none (it blocked, or its call returned).
    fn thread_job_on(&mut self, p: usize, tid: usize) -> Option<Job> {
        // Switching threads, or resuming one that slept, costs a context switch.
        let woke = std::mem::take(&mut self.threads[tid].woken);
        let switch = self.last_thread[p] != Some(tid) || woke;
        let mut j = match self.threads[tid].saved.take() {
            Some(j) => j,
            None => self.thread_job(tid)?,
        };
        self.share_connection(p, &mut j);
        if woke && self.current[p] == Some(tid) {
            // It slept and woke again before anything else ran here: idle between.
            self.switch_to(p, None);
        }
        self.switch_to(p, Some(tid));
        if switch {
            let cs = self.context_switch_piece();
            j.add_or_merge(cs, true);
            j.add_or_merge(self.lock_piece(&[cs]), true);
            self.last_thread[p] = Some(tid);
        }
        Some(j)
    }

    /// A job of a connection starts on `p`: if another processor touched the connection's
    /// shared state last, its lines move here first, each a full miss (`smp.coherence_lines`,
    /// mean-access mode only; the detailed caches keep coherence themselves).
    #[inline]
    fn share_connection(&mut self, p: usize, j: &mut Job) {
        let lines = self.cfg.smp.coherence_lines;
        // The NIC processor reaches host state by DMA, not through a host cache.
        if lines == 0 || self.mem.detailed.is_some() || self.procs[p].id.is_nic() {
            return;
        }
        let Some(c) = self.flows.get(j.data.flow) else {
            return;
        };
        let moved = matches!(self.conns[c].last_cpu, Some(q) if q != p);
        self.conns[c].last_cpu = Some(p);
        if moved {
            self.procs[p].stats.coherence_lines += lines as u64;
            let transfer = Piece {
                cat: Some(Category::Os),
                cycles: lines as f64 * self.cfg.mem.miss_cycles,
                ..Piece::default()
            };
            j.add_or_merge(transfer, true);
        }
    }

    /// The scheduler switches processor `p`'s process context to `task` (None: the idle
    /// task), counted as Linux counts `nr_switches` and sar reports cswch/s: every change of
    /// task, to and from idle included. What a switch costs is priced apart, once per thread
    /// that resumes (`pick`).
    fn switch_to(&mut self, p: usize, task: Option<usize>) {
        if self.current[p] != task {
            self.current[p] = task;
            self.procs[p].stats.context_switches += 1;
        }
    }

    /// A thread that went to sleep on `p` left it for the idle task (or the next thread), even
    /// if an interrupt or the softirq runs before anything else does.
    #[inline]
    fn switch_away_from_sleeper(&mut self, p: usize) {
        if let Some(t) = self.current[p] {
            if t != KSOFTIRQD && self.threads[t].blocked.is_some() {
                self.switch_to(p, None);
            }
        }
    }

    /// Prices the next chunk of the running job and schedules its end; false if the job is done.
    pub(crate) fn start_chunk(&mut self, eng: &mut Engine<Ev>, p: usize) -> bool {
        let now = eng.now();
        while self.cfg.smp.spinlocks {
            let next = self.procs[p]
                .running
                .as_ref()
                .and_then(|(_, j)| j.lock_to_take());
            let Some((lock, held)) = next else { break };
            if let Some(until) = self.take_lock(p, lock, now) {
                {
                    // Spin (busy, interruptible) until the holder releases, then try again.
                    let (ctx, job) = self.procs[p].running.as_ref().unwrap();
                    let (ctx, data) = (*ctx, job.data);
                    let proc = &mut self.procs[p];
                    proc.chunk = Chunk::spin(data);
                    proc.account_chunk(ctx, now, now, now, until);
                    eng.at(
                        until,
                        Ev::Chunk {
                            node: self.id,
                            proc: p as u8,
                            gen: self.procs[p].span.gen,
                        },
                    );
                    return true;
                }
            }
            if !held {
                break;
            }
            self.procs[p].running.as_mut().unwrap().1.holding = true;
        }
        if !self.procs[p].cut_chunk() {
            return false;
        }
        let proc = &self.procs[p];
        let (c, clock) = (&proc.chunk, proc.clock);
        let regs_end = self
            .mem
            .registers(now, p, clock, c.pio_reads, c.pio_writes, &mut self.io);
        let stall_end = self.mem.access(now, regs_end, p, clock, c);
        let t = stall_end + proc.instr_time(c.cycles);
        let (first, data) = (c.parts[0], c.data);
        let ctx = proc.running.as_ref().unwrap().0;
        self.procs[p].account_chunk(ctx, now, regs_end, stall_end, t);
        if first.lock != LockRef::None && first.to >= 1.0 {
            self.release_lock(p, first.lock, &data, t);
        }
        // The chunks after it run ahead while nothing can change them (`os/span.rs`).
        let t = self.span(p, t);
        eng.at(
            t,
            Ev::Chunk {
                node: self.id,
                proc: p as u8,
                gen: self.procs[p].span.gen,
            },
        );
        true
    }

    /// A chunk ended on `p` (the chunk event of generation `gen`; an older one is stale):
    /// preempt for higher-priority work, continue, or complete the job.
    pub fn on_chunk(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize, gen: u32) {
        if gen != self.procs[p].span.gen {
            return;
        }
        self.span_over(p, eng.now());
        let then = {
            let r = self.procs[p].running.as_ref().expect("chunk without a job");
            r.1.then
        };
        if self.eevdf() && matches!(then, Then::Thread(_)) {
            self.slice_check(p);
        }
        if self.preempts(p) {
            let (ctx, job) = self.procs[p].running.take().unwrap();
            match job.then {
                Then::Thread(tid) => self.threads[tid].saved = Some(job),
                _ => self.procs[p].suspended[ctx as usize] = Some(job),
            }
            self.dispatch(eng, wire, p);
            return;
        }
        if self.start_chunk(eng, p) {
            return;
        }
        let then = self.finished(p, eng.now());
        self.complete(eng, wire, p, then);
        self.dispatch(eng, wire, p);
    }

    /// The running job on `p` is done at `now`: releases a lock it held throughout, clears it
    /// in place and returns what follows.
    fn finished(&mut self, p: usize, now: Time) -> Then {
        let job = &self.procs[p].running.as_ref().expect("a running job").1;
        let (then, hold, data) = (job.then, job.holding.then_some(job.hold), job.data);
        if let Some(lock) = hold {
            self.release_lock(p, lock, &data, now);
        }
        self.procs[p].running = None;
        then
    }

    pub(crate) fn complete(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize, then: Then) {
        match then {
            Then::HardIrq { dev, taken } => self.after_hardirq(eng, p, dev as usize, taken),
            Then::Notified(Notice::RaiseSoftirq) => self.raise_softirq_local(p),
            Then::Notified(Notice::NicExcess) => self.restore_issue(eng, wire),
            Then::Notified(
                Notice::Reschedule | Notice::WakeList | Notice::CrossCall | Notice::NicEvent,
            )
            | Then::Nothing => {}
            Then::Softirq => {
                let e = self.sq[p].effect.take().unwrap_or(Effect::None);
                self.apply_softirq(eng, wire, p, e);
            }
            Then::Thread(tid) => {
                let e = std::mem::replace(&mut self.threads[tid].effect, Effect::None);
                self.apply_thread(eng, wire, tid, e);
            }
        }
    }
}

impl Node {
    /// A context switch: the dispatcher's work, under its lock with `smp.thread_lock`.
    fn context_switch_piece(&self) -> Piece {
        let cs = self.piece(&self.cfg.costs.context_switch, 0, 1);
        match self.cfg.smp.spinlocks && self.cfg.smp.thread_lock {
            true => cs.locking(LockRef::Threads),
            false => cs,
        }
    }

    /// The spinlock `lock` of a job with `data`: None when what it names is gone (a socket
    /// closed meanwhile), so there is nothing to take.
    fn lock_of(&mut self, lock: LockRef, data: &JobData) -> Option<&mut SpinLock> {
        match lock {
            LockRef::Socket => {
                let c = self.flows.get(data.flow)?;
                return Some(&mut self.conns[c].slock);
            }
            LockRef::Allocator => return Some(&mut self.alloc_lock),
            LockRef::Ip => return Some(&mut self.ip_lock),
            LockRef::TcpContexts => return Some(&mut self.contexts_lock),
            LockRef::Threads => return Some(&mut self.thread_lock),
            LockRef::None | LockRef::DevQueue => {}
        }
        let dev = self
            .flows
            .get(data.flow)
            .map(|c| self.conns[c].dev)
            .or_else(|| self.udp_flows.get(data.flow).map(|s| self.udp[s].dev))
            .unwrap_or(0);
        Some(&mut self.devs[dev].queue_lock)
    }

    /// Processor `p` takes the lock its next piece runs under: None when it has it, or the
    /// time to spin until (the holder's release, or the end of the holder's current chunk
    /// when its release is not yet known; at least one cycle on).
    fn take_lock(&mut self, p: usize, lock: LockRef, now: Time) -> Option<Time> {
        let data = self.procs[p].running.as_ref().unwrap().1.data;
        let cycle = self.procs[p].clock.duration_of(1.0).max(Duration(1));
        let holder = self.lock_of(lock, &data)?.holder();
        let holder_end = holder.map_or(now, |q| self.procs[q].chunk_end);
        let attempt = self
            .lock_of(lock, &data)?
            .try_acquire(p, now, holder_end.max(now + cycle));
        match attempt {
            Attempt::Acquired => {
                self.procs[p].locks_held += 1;
                self.procs[p].irqs_masked += u8::from(lock.masks_irqs());
                None
            }
            Attempt::Spin { until } => Some(until.max(now + cycle)),
        }
    }

    fn release_lock(&mut self, p: usize, lock: LockRef, data: &JobData, at: Time) {
        if let Some(l) = self.lock_of(lock, data) {
            l.release(at);
            self.procs[p].locks_held -= 1;
            self.procs[p].irqs_masked -= u8::from(lock.masks_irqs());
        }
    }
}
