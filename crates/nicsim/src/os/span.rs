//! Spans (`mem.chunk_spans`): a job's chunks advanced in one event while nothing can change
//! them. A chunk boundary decides something only if work that preempts the job has arrived
//! or another initiator reached the north bridge in between; until then the chunks that
//! follow are cut, priced and accounted ahead (their bridge requests planned,
//! `NorthBridge::plan`), under one event at the last one's end. After every event the node
//! looks again (`check_spans`): a span that something reached is cut back to its first
//! boundary after it, with every figure as chunk-by-chunk execution gives it. Readers of a
//! processor's busy time settle the spans first (`settle_spans`).

use super::thread::INTERACTIVE;
use crate::engine::Engine;
use crate::hw::cpu::{Ctx, Then};
use crate::node::{Ev, Node};
use crate::units::Time;

/// At most this many chunks ahead in one span (a bound on the work a cut-back replays).
const MAX_SPAN: usize = 256;

impl Node {
    /// Whether a chunk boundary on `p` now would hand it to other work (`on_chunk`'s test).
    pub(crate) fn preempts(&self, p: usize) -> bool {
        let Some((ctx, job)) = self.procs[p].running.as_ref() else {
            return false;
        };
        let (ctx, then) = (*ctx, job.then);
        let hard_waiting = !self.procs[p].hardirq_q.is_empty();
        let soft_waiting = self.sq[p].pending && !self.sq[p].running;
        // With wakeup preemption, a runnable thread of a more urgent class preempts this one.
        let urgent_waiting = if self.eevdf() {
            self.fair[p].need_resched && ctx == Ctx::Process
        } else {
            self.cfg.sched.wakeup_preempts
                && match then {
                    // An interactive thread is never preempted by a thread (the common case:
                    // checked before the run queue).
                    Then::Thread(tid) => {
                        let prio = self.threads[tid].prio;
                        prio > INTERACTIVE
                            && self.runq[p].next_after(None).is_some_and(|k| k.0 < prio)
                    }
                    _ => false,
                }
        };
        let holds_lock = self.procs[p].locks_held > 0;
        let masked = self.procs[p].irqs_masked > 0;
        (ctx > Ctx::HardIrq && hard_waiting && !masked)
            || (ctx == Ctx::Process && !holds_lock && (soft_waiting || urgent_waiting))
    }

    /// Whether the job on `p`, whose chunk just started, may run the chunks after it ahead.
    fn may_span(&self, p: usize) -> bool {
        let cfg = &self.cfg;
        let proc = &self.procs[p];
        // EEVDF without a tick updates the running thread at every boundary.
        let per_chunk_sched = self.eevdf()
            && cfg.sched.tick_hz == 0.0
            && matches!(proc.running, Some((Ctx::Process, _)));
        cfg.mem.chunk_spans
            && !cfg.smp.spinlocks
            && p < 64
            && proc.slices.is_none()
            && !per_chunk_sched
            && proc.next_is_plain()
            && self.mem.can_plan(p)
            && !self.preempts(p)
    }

    /// The chunk that started on `p` ends at `end`: runs the chunks after it ahead while they
    /// access no register, take no lock and the job has work left; returns when the last ends.
    pub(crate) fn span(&mut self, p: usize, end: Time) -> Time {
        if !self.may_span(p) {
            return end;
        }
        let (proc, mem) = (&mut self.procs[p], &mut self.mem);
        proc.span_open();
        let clock = proc.clock;
        let mut t = end;
        while proc.span_len() < MAX_SPAN && proc.next_is_plain() {
            t = proc.span_chunk(t, |c| mem.plan_access(t, p, clock, c));
        }
        self.spanning |= 1 << p;
        t
    }

    /// The span on `p` ended at `now`: its planned bridge requests are all made.
    pub(crate) fn span_over(&mut self, p: usize, now: Time) {
        if self.spanning & (1 << p) != 0 {
            if self.mem.nb.planner() == Some(p) {
                self.mem.nb.commit(Time(now.0 + 1));
            }
            self.procs[p].span_close();
            self.spanning &= !(1 << p);
        }
    }

    /// After an event, or a workload's step: cuts back every span that work preempting it
    /// reached, or whose bridge plan another request cut.
    pub fn check_spans(&mut self, eng: &mut Engine<Ev>) {
        let cut = self.mem.nb.cut.take();
        let now = eng.now();
        let mut mask = self.spanning;
        while mask != 0 {
            let p = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let bridge = cut.filter(|c| c.0 == p).map(|c| c.1);
            let work = self.preempts(p).then_some(now);
            let at = match (bridge, work) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if let Some(at) = at {
                self.cut_span(eng, p, at);
            }
        }
    }

    /// Cuts back every span at now, so a processor's state is what chunk-by-chunk execution
    /// has at this instant (before its busy time is read).
    pub fn settle_spans(&mut self, eng: &mut Engine<Ev>) {
        let mut mask = self.spanning;
        while mask != 0 {
            let p = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            self.cut_span(eng, p, eng.now());
        }
    }

    /// Cuts the span on `p` back to its first boundary at or after `at`; that boundary's
    /// chunk event replaces the span's.
    fn cut_span(&mut self, eng: &mut Engine<Ev>, p: usize, at: Time) {
        let now = eng.now();
        if self.mem.nb.planner() == Some(p) {
            self.mem.nb.commit(now);
            self.mem.nb.unplan();
        }
        let proc = &mut self.procs[p];
        if let Some(b) = proc.span_cut(at) {
            proc.span.gen = proc.span.gen.wrapping_add(1);
            eng.at(
                b,
                Ev::Chunk {
                    node: self.id,
                    proc: p as u8,
                    gen: proc.span.gen,
                },
            );
        }
        proc.span_close();
        self.spanning &= !(1 << p);
    }
}
