//! A web run's health over time: requests completed and the server's busiest processor in
//! each interval of `workload.web.health_interval_ps`, warm-up included, so the ramp and the
//! steady state show, and a stall (the server idle while users wait for it) is counted and
//! named instead of averaged into the window's mean.

use crate::system::World;
use crate::units::{Duration, Time};
use serde_json::{json, Value};

/// Below this utilisation of its busiest processor the server counts as idle.
const IDLE_UTILISATION: f64 = 0.05;

struct Point {
    end: Time,
    requests: u64,
    busiest: f64,
    waiting: usize,
    /// Users with a request open when the interval began.
    waiting_before: usize,
}

impl Point {
    /// No request completed and the server idled while users waited for it through the
    /// interval: requests were open at its start and at its end. (One open only at its end
    /// may just have started: a lightly loaded server between paced users' requests.)
    fn stalled(&self) -> bool {
        self.requests == 0
            && self.waiting_before > 0
            && self.waiting > 0
            && self.busiest < IDLE_UTILISATION
    }
}

pub(super) struct Health {
    interval: Duration,
    next: Time,
    /// Each server processor's busy time when the interval began.
    busy_before_ps: Vec<u64>,
    requests: u64,
    points: Vec<Point>,
}

fn busy_ps(w: &World, at: Time) -> Vec<u64> {
    let server = &w.nodes[w.server()];
    server.procs.iter().map(|p| p.busy_ps_until(at)).collect()
}

impl Health {
    pub(super) fn new(interval: Duration) -> Self {
        Health {
            interval,
            next: Time::ZERO + interval,
            busy_before_ps: Vec::new(),
            requests: 0,
            points: Vec::new(),
        }
    }

    /// When the current interval ends.
    pub(super) fn next(&self) -> Time {
        self.next
    }

    /// A request completed (in or out of the measured window).
    pub(super) fn completed(&mut self) {
        self.requests += 1;
    }

    /// The interval ending now is over: `waiting` users have a request open.
    pub(super) fn tick(&mut self, w: &mut World, waiting: usize) {
        w.settle();
        let busy = busy_ps(w, self.next);
        let before = std::mem::replace(&mut self.busy_before_ps, busy);
        let span_ps = self.interval.0 as f64;
        let busiest = self
            .busy_before_ps
            .iter()
            .enumerate()
            .map(|(j, &b)| (b - before.get(j).copied().unwrap_or(0)) as f64 / span_ps)
            .fold(0.0, f64::max);
        self.points.push(Point {
            end: self.next,
            requests: std::mem::take(&mut self.requests),
            busiest,
            waiting,
            waiting_before: self.points.last().map_or(0, |p| p.waiting),
        });
        self.next += self.interval;
    }

    /// The series as JSON (documented in docs/output.md), with the stalled intervals counted
    /// over the run and within [from, to].
    pub(super) fn report(&self, from: Time, to: Time) -> Value {
        let secs = self.interval.as_secs_f64();
        let stalled_in = |p: &&Point| p.stalled() && p.end > from && p.end <= to;
        json!({
            "interval_s": secs,
            "end_s": self.points.iter().map(|p| p.end.as_secs_f64()).collect::<Vec<_>>(),
            "requests_per_s": self.points.iter().map(|p| p.requests as f64 / secs).collect::<Vec<_>>(),
            "server_busiest_utilisation": self.points.iter().map(|p| p.busiest).collect::<Vec<_>>(),
            "users_waiting": self.points.iter().map(|p| p.waiting).collect::<Vec<_>>(),
            "stalled_intervals": self.points.iter().filter(|p| p.stalled()).count(),
            "stalled_intervals_in_window": self.points.iter().filter(stalled_in).count(),
        })
    }
}
