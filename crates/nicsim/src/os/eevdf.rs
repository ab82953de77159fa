//! Linux 6.6+'s fair scheduler, EEVDF (`sched.policy = eevdf`), as 6.9's
//! `kernel/sched/fair.c` decides who runs among a processor's threads (all nice 0, so
//! virtual time is run time):
//! - a thread's virtual runtime grows while it is the processor's current thread
//!   (`update_curr`; the interrupts and softirqs it is charged for included, as without
//!   IRQ time accounting);
//! - it is *eligible* when its virtual runtime is at most the queue's average (`entity_eligible`),
//!   and its virtual deadline is its virtual runtime when it last got a slice plus the slice
//!   (`update_deadline`, the base slice times `1 + ilog2(min(cpus, 8))`, `update_sysctl`);
//! - `pick_eevdf`: the only thread; or the current one while RUN_TO_PARITY protects its slice
//!   (from its pick until its deadline moves); else the eligible thread with the earliest
//!   deadline, the current one kept on a tie;
//! - a thread that sleeps keeps its lag (average less its virtual runtime, clamped to two
//!   slices, `update_entity_lag`) and wakes placed that far behind the average, scaled by the
//!   queue it joins (`place_entity`);
//! - a wake-up preempts the current thread only if `pick_eevdf` would now choose the woken one
//!   (`check_preempt_wakeup_fair`; a batch thread never preempts); a used-up slice asks for a
//!   reschedule when another thread waits, noticed at the next tick (`sched.tick_hz`), or at
//!   the next chunk without one (as HRTICK would);
//! - a thread whose call returns stays current: it does not queue behind the others.

use crate::node::Node;
use crate::os::thread::INTERACTIVE;

impl Node {
    pub(crate) fn eevdf(&self) -> bool {
        self.cfg.sched.policy == crate::config::SchedPolicy::Eevdf
    }

    /// The slice: the base slice times `1 + ilog2(min(host CPUs, 8))` (SCHED_TUNABLESCALING_LOG).
    fn slice_ps(&self) -> i64 {
        let cpus = self
            .procs
            .iter()
            .filter(|p| !p.id.is_nic())
            .count()
            .clamp(1, 8);
        let factor = 1 + cpus.ilog2() as i64;
        self.cfg.sched.base_slice_ps.0 as i64 * factor
    }

    /// Threads runnable on `p`, the current one included, in pick order (which decides ties).
    fn queued(&self, p: usize) -> impl Iterator<Item = usize> + '_ {
        self.runq[p].tids()
    }

    /// The queue's average virtual runtime (sum and count, to test eligibility exactly), as
    /// the run queue keeps it; debug builds and the crate's unit tests check it against a scan.
    fn v_sum(&self, p: usize) -> (i128, i128) {
        let kept = self.runq[p].v_sum();
        #[cfg(any(test, debug_assertions))]
        assert_eq!(
            kept,
            self.v_sum_scan(p),
            "processor {p}'s kept virtual runtime sum"
        );
        kept
    }

    /// The sum and count by walking the queue: what the kept ones must equal.
    #[cfg(any(test, debug_assertions))]
    fn v_sum_scan(&self, p: usize) -> (i128, i128) {
        self.queued(p).fold((0, 0), |(s, n), t| {
            (s + self.threads[t].fair.vruntime_ps as i128, n + 1)
        })
    }

    fn avg_v(&self, p: usize) -> i64 {
        match self.v_sum(p) {
            (_, 0) => self.fair[p].idle_v_ps,
            (s, n) => (s.div_euclid(n)) as i64,
        }
    }

    /// Charges the current thread's run time up to now; a used-up slice gets a new deadline
    /// and, with another thread waiting, a reschedule (`update_curr`, `update_deadline`).
    pub(crate) fn update_curr(&mut self, p: usize) {
        let now = self.now;
        let slice = self.slice_ps();
        let rq = &mut self.fair[p];
        let Some(t) = rq.curr else { return };
        let delta = now.0.saturating_sub(rq.exec_start.0) as i64;
        rq.exec_start = now;
        let th = &mut self.threads[t];
        th.fair.vruntime_ps += delta;
        if th.queued.is_some() {
            self.runq[p].charge(delta);
        }
        let e = &mut th.fair;
        if e.vruntime_ps >= e.deadline_ps {
            e.deadline_ps = e.vruntime_ps + slice;
            e.protected = false;
            if self.runq[p].len() > 1 {
                self.fair[p].need_resched = true;
            }
        }
    }

    /// The slice check where there is no tick to make it: at a chunk boundary.
    pub(crate) fn slice_check(&mut self, p: usize) {
        if self.cfg.sched.tick_hz == 0.0 {
            self.update_curr(p);
        }
    }

    /// Thread `tid` woke (or started) and joins its processor's queue: placed behind the
    /// average by its lag (`place_entity`), and the current thread preempted if EEVDF would
    /// now pick the woken one (`check_preempt_wakeup_fair`). Called before it is queued.
    pub(crate) fn fair_enqueue(&mut self, tid: usize) {
        let p = self.threads[tid].proc;
        self.update_curr(p);
        let slice = self.slice_ps();
        let n = self.runq[p].len() as i64;
        let v = self.avg_v(p);
        let e = &mut self.threads[tid].fair;
        let lag = if n > 0 { e.vlag_ps * (n + 1) / n } else { 0 };
        e.vruntime_ps = v - lag;
        e.deadline_ps = e.vruntime_ps + slice;
        e.protected = false;
    }

    /// After `tid` is queued: it joins the timeline, and the wake-up preemption check against
    /// the current thread.
    pub(crate) fn fair_queued(&mut self, tid: usize) {
        self.timeline_set(tid, true);
        let p = self.threads[tid].proc;
        let curr = self.fair[p].curr;
        if self.threads[tid].prio > INTERACTIVE || curr.is_none_or(|c| c == tid) {
            return;
        }
        if self.pick_eevdf(p) == Some(tid) {
            self.fair[p].need_resched = true;
        }
    }

    /// Thread `tid` sleeps: it keeps its lag, clamped to two slices (`update_entity_lag`).
    /// Called while it is still queued.
    pub(crate) fn fair_dequeue(&mut self, tid: usize) {
        let p = self.threads[tid].proc;
        if self.fair[p].curr == Some(tid) {
            self.update_curr(p);
            self.fair[p].curr = None;
        } else {
            self.timeline_set(tid, false);
        }
        let limit = 2 * self.slice_ps();
        let v = self.avg_v(p);
        let e = &mut self.threads[tid].fair;
        e.vlag_ps = (v - e.vruntime_ps).clamp(-limit, limit);
        if self.runq[p].len() == 1 {
            self.fair[p].idle_v_ps = v;
        }
    }

    /// Queued thread `tid` joins its processor's timeline (`on`) or leaves it. The timeline
    /// holds every queued thread but the current one: only the current thread's virtual
    /// runtime and deadline change, so every entry stays as it went in.
    fn timeline_set(&mut self, tid: usize, on: bool) {
        let t = &self.threads[tid];
        let Some(k) = t.queued else { return };
        let (place, line) = ((t.fair.vruntime_ps, k), &mut self.fair[t.proc].timeline);
        if on {
            line.insert(place, t.fair.deadline_ps);
        } else {
            line.remove(place);
        }
    }

    /// The thread EEVDF runs next on `p` (`pick_eevdf`, 6.9); debug builds and the crate's
    /// unit tests check it against the scan over the whole queue.
    pub(crate) fn pick_eevdf(&self, p: usize) -> Option<usize> {
        let picked = self.pick_by_timeline(p);
        #[cfg(any(test, debug_assertions))]
        {
            let rq = &self.fair[p];
            let curr_queued = rq.curr.is_some_and(|c| self.threads[c].queued.is_some());
            assert_eq!(rq.timeline.len() + curr_queued as usize, self.runq[p].len());
            assert_eq!(picked, self.pick_by_scan(p), "processor {p}'s pick");
        }
        picked
    }

    /// The pick from the timeline, which leaves out the current thread: an eligible current
    /// thread wins a tie with the timeline's earliest deadline, as it wins one in the scan.
    fn pick_by_timeline(&self, p: usize) -> Option<usize> {
        let (sum, n) = self.v_sum(p);
        let curr = self.fair[p]
            .curr
            .filter(|&c| self.threads[c].queued.is_some());
        if n <= 1 {
            return curr.or_else(|| self.queued(p).next());
        }
        let curr = curr.filter(|&c| self.threads[c].fair.vruntime_ps as i128 * n <= sum);
        if let Some(c) = curr {
            if self.cfg.sched.run_to_parity && self.threads[c].fair.protected {
                return Some(c);
            }
        }
        // Eligible: v * n <= sum, so v at most the average rounded down (an i64, as every v is).
        let best = self.fair[p]
            .timeline
            .first(sum.div_euclid(n) as i64)
            .map(|k| k.2);
        let deadline = |t: usize| self.threads[t].fair.deadline_ps;
        match (best, curr) {
            (Some(b), Some(c)) if deadline(c) <= deadline(b) => Some(c),
            (None, c) => c,
            (b, _) => b,
        }
    }

    /// The pick by a scan of the whole queue, the first in queue order on a tie: what the
    /// timeline's must equal.
    #[cfg(any(test, debug_assertions))]
    fn pick_by_scan(&self, p: usize) -> Option<usize> {
        let (sum, n) = self.v_sum(p);
        let eligible = |t: usize| self.threads[t].fair.vruntime_ps as i128 * n <= sum;
        let curr = self.fair[p]
            .curr
            .filter(|&c| self.threads[c].queued.is_some());
        if n == 1 {
            return curr.or_else(|| self.queued(p).next());
        }
        let curr = curr.filter(|&c| eligible(c));
        if let Some(c) = curr {
            if self.cfg.sched.run_to_parity && self.threads[c].fair.protected {
                return Some(c);
            }
        }
        let deadline = |t: usize| self.threads[t].fair.deadline_ps;
        let best = self
            .queued(p)
            .filter(|&t| eligible(t))
            .min_by_key(|&t| deadline(t));
        match (best, curr) {
            (Some(b), Some(c)) if deadline(c) <= deadline(b) => Some(c),
            (None, c) => c,
            (b, _) => b,
        }
    }

    /// The thread `p`'s process context runs now: the current one until a reschedule is
    /// asked for (a return from an interrupt or softirq does not pick), else `pick_eevdf`.
    pub(crate) fn fair_next(&self, p: usize) -> Option<usize> {
        match self.fair[p].curr {
            Some(c) if !self.fair[p].need_resched && self.threads[c].queued.is_some() => Some(c),
            _ => self.pick_eevdf(p),
        }
    }

    /// `tid` becomes `p`'s current thread (`set_next_entity`): its slice is protected.
    pub(crate) fn fair_set_next(&mut self, p: usize, tid: usize) {
        self.fair[p].need_resched = false;
        if self.fair[p].curr == Some(tid) {
            return;
        }
        self.update_curr(p);
        if let Some(old) = self.fair[p].curr {
            self.timeline_set(old, true);
        }
        self.timeline_set(tid, false);
        self.fair[p].curr = Some(tid);
        self.fair[p].exec_start = self.now;
        self.threads[tid].fair.protected = true;
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{ClientThreads, Config, NetperfTest, SchedPolicy, ServerThreads};
    use crate::os::thread::{BATCH, INTERACTIVE};
    use crate::units::{Duration, Time};

    fn eevdf() -> Config {
        let fixture = include_str!("../../tests/fixtures/base-short.json");
        let mut c = crate::parse_config(fixture).unwrap();
        c.sched.policy = SchedPolicy::Eevdf;
        c
    }

    /// Seeded joins, leaves, picks and charged run time on one processor, with RUN_TO_PARITY
    /// and without: after each, the kept sum equals a fresh scan, and the timeline picks as
    /// the scan does.
    #[test]
    fn the_kept_sum_and_the_pick_follow_joins_leaves_picks_and_charges() {
        for parity in [true, false] {
            let mut c = eevdf();
            c.sched.run_to_parity = parity;
            let mut w = crate::system::World::new(&c).unwrap();
            let n = &mut w.nodes[1];
            let tids: Vec<usize> = (0..12)
                .map(|i| n.spawn(0, if i % 4 == 3 { BATCH } else { INTERACTIVE }))
                .collect::<Result<_, _>>()
                .unwrap();
            let (mut x, mut longest, mut charged) = (46u64, 0, false);
            for _ in 0..5000 {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let r = (x >> 33) as usize;
                let t = tids[r % tids.len()];
                // Coarse steps, often none, so threads share virtual runtimes and deadlines.
                n.now = Time(n.now.0 + (r as u64 >> 8) % 4 * 250_000_000);
                match (r >> 4) % 4 {
                    0 => n.set_runnable(t, true),
                    1 => n.set_runnable(t, false),
                    2 => {
                        if let Some(c) = n.fair_next(0) {
                            n.fair_set_next(0, c);
                        }
                    }
                    _ => n.update_curr(0),
                }
                assert_eq!(n.runq[0].v_sum(), n.v_sum_scan(0));
                // Checks the timeline's pick against the scan's.
                n.pick_eevdf(0);
                longest = longest.max(n.runq[0].len());
                charged |= n.runq[0].v_sum().0 != 0;
            }
            assert!(longest >= 8 && charged, "{longest} threads at most");
        }
    }

    /// Threads that join at one instant tie on their deadlines: the pick is the first in run
    /// queue order (class, then arrival), and without RUN_TO_PARITY an eligible current thread
    /// keeps a tie even with one before it in that order.
    #[test]
    fn a_tie_goes_to_the_current_thread_else_the_first_in_queue_order() {
        let mut c = eevdf();
        c.sched.run_to_parity = false;
        let mut w = crate::system::World::new(&c).unwrap();
        let n = &mut w.nodes[1];
        let load = n.spawn(0, BATCH).unwrap();
        let a = n.spawn(0, INTERACTIVE).unwrap();
        let b = n.spawn(0, INTERACTIVE).unwrap();
        for t in [load, b, a] {
            n.set_runnable(t, true);
        }
        assert_eq!(n.pick_eevdf(0), Some(b));
        n.fair_set_next(0, a);
        assert_eq!(n.pick_eevdf(0), Some(a));
        n.set_runnable(a, false);
        assert_eq!(n.pick_eevdf(0), Some(b));
    }

    /// netperf TCP_RR under EEVDF, the sum and the pick checked at every use (this build
    /// asserts them): two CPUs with threads free to migrate and a tick, and one CPU without.
    #[test]
    fn the_kept_sum_equals_a_scan_at_every_use_in_whole_runs() {
        for (cpus, tick_hz) in [(2, 250.0), (1, 0.0)] {
            let mut c = eevdf();
            c.cpu.count = cpus;
            c.sched.tick_hz = tick_hz;
            c.sched.wake_list = cpus > 1;
            let np = &mut c.workload.netperf;
            np.test = NetperfTest::TcpRr;
            np.connections = 64;
            np.duration_ps = Duration(30_000_000_000);
            np.warmup_ps = Duration(5_000_000_000);
            np.server_threads = ServerThreads::Free;
            np.client_threads = ClientThreads::Free;
            c.workload.kind = crate::config::WorkloadKind::Netperf;
            (c.topology.clients, c.switch.present) = (2, true);
            c.placements = vec![c.placements[0].clone(); 3];
            let v = crate::run(&c).unwrap();
            let tps = &v["netperf"]["aggregate"]["transactions_per_s"];
            assert!(tps.as_f64().unwrap() > 0.0, "{cpus} CPUs: {tps}");
        }
    }
}
