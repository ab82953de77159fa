//! What each request of the web workload asks for: a response size from the fixed page, the
//! SPECweb99 static classes or the heavy-tailed stand-in; how many requests a connection
//! carries; and, with a trace, the next trace connection and its arrival.

use super::{Step, Web};
use crate::config::WebMix;
use crate::system::World;
use crate::units::Time;
use std::cmp::Reverse;

impl Web {
    /// A lognormal draw with shape σ = 1.2816 (the smaller half carries 10% of the total,
    /// handoff.md §7.5) and mean `mean`, rounded to an integer of at least 1.
    fn lognormal(&mut self, mean: f64) -> u64 {
        const SIGMA: f64 = 1.2816;
        let (a, b) = (self.rng.uniform_open0(), self.rng.uniform_open0());
        let z = (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos();
        let mu = mean.ln() - SIGMA * SIGMA / 2.0;
        ((mu + SIGMA * z).exp().round() as u64).max(1)
    }

    /// The response size of the next request.
    pub(super) fn response_size(&mut self) -> u64 {
        match self.p.mix {
            WebMix::Fixed => self.p.page_size_bytes,
            WebMix::Specweb99Static => {
                // Class shares 35 / 50 / 14 / 1 %; nine files per class, of (k + 1) tenths of
                // the class's decade (102 B … 921 KiB); a file chosen evenly within its class.
                let u = self.rng.uniform_open0();
                let class = [0.35, 0.85, 0.99].iter().filter(|&&c| u > c).count() as u32;
                let k = (self.rng.uniform_open0() * 9.0).ceil().clamp(1.0, 9.0) as u64;
                k * 1024 * 10u64.pow(class) / 10
            }
            WebMix::Lognormal => self.lognormal(self.p.page_size_bytes as f64),
        }
    }

    /// Requests a new connection carries (0: no limit); 1 without keep-alive.
    pub(super) fn lifetime(&mut self) -> u32 {
        let mean = self.p.requests_per_connection;
        match (self.p.keep_alive, self.p.mix) {
            (false, _) => 1,
            (true, _) if mean <= 0.0 => 0,
            (true, WebMix::Lognormal) => self.lognormal(mean).min(u32::MAX as u64) as u32,
            (true, _) => mean.round().max(1.0) as u32,
        }
    }

    /// Whether connections outlive one request: keep-alive, or a trace's connections.
    pub(super) fn persistent(&self) -> bool {
        self.p.keep_alive || !self.p.trace_responses.is_empty()
    }

    /// A user about to open a connection takes the next trace connection; if it has not
    /// arrived yet, the user waits for it (true).
    pub(super) fn take_trace(&mut self, w: &World, u: usize) -> bool {
        let trace = &self.p.trace_responses;
        if trace.is_empty() || self.users[u].conn.is_some() {
            return false;
        }
        if self.users[u].replay.is_none() {
            let c = self.next_trace % trace.len();
            // Arrivals repeat with the trace, shifted by its span on each pass.
            let pass = (self.next_trace / trace.len()) as u64;
            self.next_trace += 1;
            self.users[u].replay = Some((c, 0));
            let span = self.p.trace_arrivals_ps.iter().max().copied().unwrap_or(0) + 1;
            if let Some(&at) = self.p.trace_arrivals_ps.get(c) {
                let at = Time(at + pass * span);
                if at > w.eng.now() {
                    self.users[u].step = Step::Thinking;
                    self.thinking.push(Reverse((at, u)));
                    return true;
                }
            }
        }
        false
    }
}
