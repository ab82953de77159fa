//! BBR congestion control, version 1 (Cardwell et al., ACM Queue 2016; Linux `tcp_bbr.c`):
//! the sender estimates the bottleneck's bandwidth (the windowed maximum of delivery-rate
//! samples over 10 round trips) and the path's propagation delay (the minimum RTT over 10 s),
//! paces at a gain times that bandwidth and caps what is in flight at twice their product.
//! STARTUP doubles the rate each round until the bandwidth stops growing by 25% for three
//! rounds, DRAIN empties the queue it built, PROBE_BW cycles its pacing gain through
//! 5/4, 3/4 and six rounds of 1, and PROBE_RTT drops to four segments for 200 ms when the
//! minimum RTT is 10 s old. Sans-IO: it is given rate samples and returns the window and rate.
//!
//! Not modelled: the ACK-aggregation allowance (`bbr_extra_acked`), the long-term (policer)
//! bandwidth mode, packet conservation during loss recovery, and the idle restart. PROBE_BW's
//! first phase is Linux's random choice made deterministic: from the flow id.

use crate::stack::tcp::MAX_TCP_HEADER_BYTES;
use crate::units::{Duration, Time};

/// 2/ln 2: the smallest gain that doubles the delivery rate each round in STARTUP.
pub const HIGH_GAIN: f64 = 2.885;
const DRAIN_GAIN: f64 = 1.0 / HIGH_GAIN;
const CWND_GAIN: f64 = 2.0;
/// PROBE_BW's pacing gains, one phase per minimum RTT.
pub const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Rounds the bandwidth filter remembers (`bbr_bw_rtts`: the cycle plus 2).
const BW_ROUNDS: u64 = 10;
const MIN_RTT_WINDOW: Duration = Duration(10_000_000_000_000);
const PROBE_RTT_HOLD: Duration = Duration(200_000_000_000);
const MIN_CWND_SEGMENTS: u64 = 4;
/// Pacing 1% below the estimate drains the queue a full-rate sender would keep.
const PACING_MARGIN: f64 = 0.99;
/// Linux's default device `gso_max_size` (GSO_MAX_SIZE), until `set_gso_max` says the NIC's.
const GSO_MAX_SIZE: u64 = 65_536;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// What Linux's rate sampler (`tcp_rate.c`) measured over one ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateSample {
    /// Bytes delivered between the newest acknowledged segment's send and this ACK, over
    /// `interval_s`; no sample (interval 0) when it is shorter than the minimum RTT.
    pub delivered_bytes: u64,
    pub interval_s: f64,
    /// The connection's delivered count when that segment left.
    pub prior_delivered: u64,
    /// It left while the sender had nothing more to send: a low rate means nothing.
    pub app_limited: bool,
    /// RTT of the newest acknowledged segment that was not retransmitted.
    pub rtt_s: Option<f64>,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    pub mode: Mode,
    /// Per round (index round % 10), the best delivery rate seen, bytes per second.
    bw_by_round: [(u64, f64); BW_ROUNDS as usize],
    min_rtt_s: Option<f64>,
    min_rtt_at: Time,
    round: u64,
    next_round_delivered: u64,
    round_start: bool,
    cycle: usize,
    cycle_at: Time,
    /// STARTUP's check for a full pipe: the estimate when it last grew by 25%, the rounds
    /// since, and whether three passed.
    full_bw_bytes_per_s: f64,
    full_bw_rounds: u32,
    full_bw_reached: bool,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
    mss: u64,
    /// The initial window: the target until an RTT is known.
    initial: u64,
    /// The largest send the device's GSO takes (`sk_gso_max_size`, `nic.tso_max_bytes`).
    gso_max_bytes: u64,
    /// Bytes per second the sender paces at.
    pub pacing_bytes_per_s: f64,
}

impl Bbr {
    /// A connection of segments of `mss` bytes starting with window `cwnd` and, if known,
    /// smoothed RTT `srtt_s`; its first PROBE_BW phase comes from `flow`.
    pub fn new(mss: u64, cwnd: u64, srtt_s: Option<f64>, flow: u32) -> Bbr {
        Bbr {
            mode: Mode::Startup,
            bw_by_round: [(0, 0.0); BW_ROUNDS as usize],
            min_rtt_s: None,
            min_rtt_at: Time::ZERO,
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            // Linux picks uniformly among the phases other than the 3/4 one.
            cycle: [2, 3, 4, 5, 6, 7, 0][flow as usize % 7],
            cycle_at: Time::ZERO,
            full_bw_bytes_per_s: 0.0,
            full_bw_rounds: 0,
            full_bw_reached: false,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: cwnd,
            mss,
            initial: cwnd,
            gso_max_bytes: GSO_MAX_SIZE,
            // bbr_init_pacing_rate_from_rtt: the initial window per RTT (1 ms unknown).
            pacing_bytes_per_s: HIGH_GAIN * cwnd as f64 / srtt_s.unwrap_or(1e-3) * PACING_MARGIN,
        }
    }

    /// The propagation delay estimate (the minimum RTT of the last 10 s), if any.
    pub fn min_rtt_s(&self) -> Option<f64> {
        self.min_rtt_s
    }

    /// The bottleneck bandwidth estimate, bytes per second.
    pub fn max_bw_bytes_per_s(&self) -> f64 {
        self.bw_by_round
            .iter()
            .filter(|(r, _)| r + BW_ROUNDS > self.round)
            .map(|&(_, b)| b)
            .fold(0.0, f64::max)
    }

    pub fn pacing_gain(&self) -> f64 {
        match self.mode {
            Mode::Startup => HIGH_GAIN,
            Mode::Drain => DRAIN_GAIN,
            Mode::ProbeBw => CYCLE[self.cycle],
            Mode::ProbeRtt => 1.0,
        }
    }

    fn cwnd_gain(&self) -> f64 {
        match self.mode {
            Mode::Startup | Mode::Drain => HIGH_GAIN,
            Mode::ProbeBw => CWND_GAIN,
            Mode::ProbeRtt => 1.0,
        }
    }

    /// The device's GSO limit, bytes (`sk_gso_max_size`: `nic.tso_max_bytes`, which software
    /// GSO has too, so with or without `nic.tso`).
    pub fn set_gso_max(&mut self, bytes: u64) {
        self.gso_max_bytes = bytes;
    }

    /// Bytes one paced burst may carry (TSO autosizing, `tcp_tso_autosize` as 4.9's
    /// `bbr_set_tso_segs_goal` calls it): about a millisecond at the pacing rate, at least two
    /// segments, at most what one GSO send carries (`sk_gso_max_size - 1 - MAX_TCP_HEADER`),
    /// in whole segments.
    pub fn burst_bytes(&self) -> u64 {
        let mss = self.mss;
        let per_ms = (self.pacing_bytes_per_s / 1024.0) as u64;
        let gso = self.gso_max_bytes.saturating_sub(1 + MAX_TCP_HEADER_BYTES);
        per_ms.min(gso).max(2 * mss) / mss * mss
    }

    /// `gain` times the estimated bandwidth-delay product, plus three bursts for the hosts'
    /// batching (`bbr_quantization_budget`); the initial window before any RTT is known.
    fn inflight(&self, gain: f64) -> u64 {
        let Some(rtt) = self.min_rtt_s else {
            return self.initial;
        };
        let bdp = (gain * self.max_bw_bytes_per_s() * rtt).ceil() as u64;
        let mut w = bdp + 3 * self.burst_bytes();
        if self.mode == Mode::ProbeBw && self.cycle == 0 {
            w += 2 * self.mss;
        }
        w
    }

    /// One ACK at `now`: the sample, the bytes it newly delivered (`acked`), the connection's
    /// delivered count, what was in flight before it and the window. Returns the new window.
    pub fn on_ack(
        &mut self,
        now: Time,
        rs: &RateSample,
        acked: u64,
        delivered: u64,
        prior_inflight: u64,
        cwnd: u64,
    ) -> u64 {
        self.update_bw(rs, delivered);
        if self.mode == Mode::ProbeBw && self.next_phase(now, prior_inflight) {
            self.cycle = (self.cycle + 1) % CYCLE.len();
            self.cycle_at = now;
        }
        self.check_full_bw(rs);
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
        }
        if self.mode == Mode::Drain && prior_inflight <= self.inflight(1.0) {
            self.enter_probe_bw(now);
        }
        let was = self.mode;
        self.update_min_rtt(now, rs, delivered, prior_inflight);
        if self.mode == Mode::ProbeRtt && was != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        }
        let rate = self.pacing_gain() * self.max_bw_bytes_per_s() * PACING_MARGIN;
        if rate > 0.0 && (self.full_bw_reached || rate > self.pacing_bytes_per_s) {
            self.pacing_bytes_per_s = rate;
        }
        self.cwnd(cwnd, acked, delivered)
    }

    fn update_bw(&mut self, rs: &RateSample, delivered: u64) {
        self.round_start = false;
        if rs.interval_s <= 0.0 {
            return;
        }
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = delivered;
            self.round += 1;
            self.round_start = true;
        }
        let bw = rs.delivered_bytes as f64 / rs.interval_s;
        if !rs.app_limited || bw >= self.max_bw_bytes_per_s() {
            let slot = &mut self.bw_by_round[(self.round % BW_ROUNDS) as usize];
            if slot.0 != self.round {
                *slot = (self.round, 0.0);
            }
            slot.1 = slot.1.max(bw);
        }
    }

    /// PROBE_BW moves on after a minimum RTT at gain 1; at 5/4 once the queue it builds shows
    /// (in flight at 5/4 of the product); at 3/4 as soon as the product alone is in flight.
    fn next_phase(&self, now: Time, inflight: u64) -> bool {
        let full = (now - self.cycle_at).as_secs_f64() > self.min_rtt_s.unwrap_or(0.0);
        let gain = CYCLE[self.cycle];
        if gain > 1.0 {
            full && inflight >= self.inflight(gain)
        } else if gain < 1.0 {
            full || inflight <= self.inflight(1.0)
        } else {
            full
        }
    }

    fn check_full_bw(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.app_limited {
            return;
        }
        let bw = self.max_bw_bytes_per_s();
        if bw >= 1.25 * self.full_bw_bytes_per_s {
            self.full_bw_bytes_per_s = bw;
            self.full_bw_rounds = 0;
            return;
        }
        self.full_bw_rounds += 1;
        self.full_bw_reached = self.full_bw_rounds >= 3;
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cycle = (self.cycle + 1) % CYCLE.len();
        self.cycle_at = now;
    }

    fn update_min_rtt(&mut self, now: Time, rs: &RateSample, delivered: u64, inflight: u64) {
        let expired = now > self.min_rtt_at + MIN_RTT_WINDOW;
        if let Some(rtt) = rs.rtt_s {
            if self.min_rtt_s.is_none_or(|m| rtt < m || expired) {
                self.min_rtt_s = Some(rtt);
                self.min_rtt_at = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if inflight <= MIN_CWND_SEGMENTS * self.mss => {
                self.probe_rtt_done = Some(now + PROBE_RTT_HOLD);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = delivered;
            }
            Some(done) => {
                self.probe_rtt_round_done |= self.round_start;
                if self.probe_rtt_round_done && now > done {
                    self.min_rtt_at = now;
                    if self.full_bw_reached {
                        self.enter_probe_bw(now);
                    } else {
                        self.mode = Mode::Startup;
                    }
                }
            }
            None => {}
        }
    }

    /// `bbr_set_cwnd`: towards the gain's share of the product, growing by what was acked
    /// (freely until the pipe is full); four segments at least, and at most in PROBE_RTT.
    fn cwnd(&mut self, cwnd: u64, acked: u64, delivered: u64) -> u64 {
        let mss = self.mss;
        let target = self.inflight(self.cwnd_gain());
        let mut w = if self.full_bw_reached {
            (cwnd + acked).min(target)
        } else if cwnd < target || delivered < self.initial {
            cwnd + acked
        } else {
            cwnd
        };
        w = w.max(MIN_CWND_SEGMENTS * mss);
        if self.mode == Mode::ProbeRtt {
            w = w.min(MIN_CWND_SEGMENTS * mss);
        } else if self.probe_rtt_done.take().is_some() {
            // Leaving PROBE_RTT restores the window it had.
            w = w.max(self.prior_cwnd);
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bottleneck of `bw` bytes/s with a queue in front of it, acknowledging once a round
    /// trip: each round the sender sends what its pacing rate and its window (less the queue)
    /// allow, the bottleneck delivers at most a round's worth, and the rest waits.
    #[derive(Default)]
    struct Pipe {
        now: Time,
        delivered: u64,
        cwnd: u64,
        queue: u64,
    }

    impl Pipe {
        /// `n` rounds of propagation delay `rtt_s`: the window and pacing gain after each.
        fn rounds(&mut self, b: &mut Bbr, bw: f64, rtt_s: f64, n: usize) -> Vec<(u64, f64)> {
            if self.cwnd == 0 {
                self.cwnd = b.initial;
            }
            let mut out = Vec::new();
            for _ in 0..n {
                let paced = (b.pacing_bytes_per_s / PACING_MARGIN * rtt_s) as u64;
                let sent = paced.min(self.cwnd.saturating_sub(self.queue));
                let inflight = sent + self.queue;
                let got = inflight.min((bw * rtt_s) as u64);
                self.queue = inflight - got;
                self.now += Duration::from_us_f64(rtt_s * 1e6);
                let rs = RateSample {
                    delivered_bytes: got,
                    interval_s: rtt_s,
                    prior_delivered: self.delivered,
                    app_limited: false,
                    rtt_s: Some(rtt_s + self.queue as f64 / bw),
                };
                self.delivered += got;
                self.cwnd = b.on_ack(self.now, &rs, got, self.delivered, inflight, self.cwnd);
                out.push((self.cwnd, b.pacing_gain()));
            }
            out
        }
    }

    #[test]
    fn startup_finds_the_bottleneck_then_probe_bw_cycles_its_gain_around_it() {
        let (bw, rtt) = (125e6, 0.01); // 1 Gb/s, 10 ms: a 1.25 MB product
        let mut b = Bbr::new(1448, 10 * 1448, None, 3);
        let log = Pipe::default().rounds(&mut b, bw, rtt, 48);
        assert_eq!(b.mode, Mode::ProbeBw);
        assert!(
            (b.max_bw_bytes_per_s() - bw).abs() < 0.01 * bw,
            "max_bw_bytes_per_s {}",
            b.max_bw_bytes_per_s()
        );
        // Twice the product plus three bursts of (at most) 64 KiB.
        let target = (2.0 * bw * rtt) as u64 + 3 * b.burst_bytes();
        assert!(
            log.last().unwrap().0.abs_diff(target) <= 2 * 1448,
            "{:?}",
            log.last()
        );
        // STARTUP paces at 2/ln 2 and reaches the pipe within a dozen rounds.
        assert_eq!(log[0].1, HIGH_GAIN);
        let startup = log.iter().take_while(|(_, g)| *g == HIGH_GAIN).count();
        assert!(
            (5..=14).contains(&startup),
            "startup lasted {startup} rounds"
        );
        // PROBE_BW's cycle: as long above as below, six times as long at 1. (With one ACK a
        // round trip a phase ends on the round after its minimum RTT: two rounds each.)
        let tail: Vec<f64> = log[log.len() - 16..].iter().map(|&(_, g)| g).collect();
        let n = |x: f64| tail.iter().filter(|&&g| g == x).count();
        assert!(
            n(1.25) > 0 && n(1.25) == n(0.75) && n(1.0) == 6 * n(1.25),
            "{tail:?}"
        );
    }

    #[test]
    fn the_burst_cap_follows_the_tso_limit() {
        let mut b = Bbr::new(1448, 10 * 1448, None, 0);
        b.pacing_bytes_per_s = 1e12; // a millisecond's bytes beyond any GSO send
        assert_eq!(
            b.burst_bytes(),
            45 * 1448,
            "Linux's default: 65,215 B in whole segments"
        );
        b.set_gso_max(32 * 1024);
        assert_eq!(b.burst_bytes(), (32_768 - 1 - 320) / 1448 * 1448);
        assert_eq!(b.burst_bytes(), 22 * 1448);
        b.set_gso_max(1024); // below two segments: two segments still
        assert_eq!(b.burst_bytes(), 2 * 1448);
        b.set_gso_max(32 * 1024);
        b.pacing_bytes_per_s = 10.0 * 1448.0 * 1024.0; // ten segments a millisecond
        assert_eq!(b.burst_bytes(), 10 * 1448);
    }

    #[test]
    fn a_minimum_rtt_ten_seconds_old_sends_it_to_four_segments_then_back_to_probe_bw() {
        let (mut b, mut pipe) = (Bbr::new(1448, 10 * 1448, None, 0), Pipe::default());
        pipe.rounds(&mut b, 125e6, 0.01, 40);
        let before = pipe.cwnd;
        // Twelve seconds at twice the delay: the 10 ms minimum expires and is replaced.
        let log = pipe.rounds(&mut b, 125e6, 0.02, 600);
        let four = MIN_CWND_SEGMENTS * 1448;
        let at_four = log.iter().filter(|&&(w, _)| w == four).count();
        // Held for 200 ms (ten 20 ms rounds) and at least a round.
        assert!(
            (10..=13).contains(&at_four),
            "{at_four} rounds at four segments"
        );
        assert_eq!(b.min_rtt_s(), Some(0.02));
        assert_eq!(b.mode, Mode::ProbeBw);
        assert!(
            pipe.cwnd >= before,
            "window {} after, {before} before",
            pipe.cwnd
        );
    }
}
