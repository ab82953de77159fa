//! CUBIC congestion avoidance (RFC 9438; Linux's default since 2.6.19): after a loss the window
//! follows W(t) = C·(t − K)³ + W_max in segments, t the time since the epoch began and
//! K = ∛(W_max·(1 − β)/C), so it returns quickly towards the window where the loss happened,
//! flattens there and then probes beyond it; never below what Reno would have reached
//! (the TCP-friendly estimate). Sans-IO: it is given times, the smoothed RTT and the window.
//! Not modelled: HyStart (slow start is Reno's, with ABC: `newreno.rs`) and the
//! window-validation rules.

use crate::units::Time;

/// RFC 9438's constants: C in segments per s³, β the multiplicative decrease.
pub const C: f64 = 0.4;
pub const BETA: f64 = 0.7;

#[derive(Clone, Copy, Debug, Default)]
pub struct Cubic {
    /// Window when the last loss was seen (segments), and the one before (fast convergence).
    w_max: f64,
    last_w_max: f64,
    /// When this congestion-avoidance epoch began, and its K (s).
    epoch: Option<Time>,
    k_s: f64,
    /// Reno's window estimate for the TCP-friendly region (segments).
    w_est: f64,
}

impl Cubic {
    /// A loss at window `cwnd_seg`: remembers W_max (reduced by fast convergence when the
    /// window keeps shrinking) and returns the new ssthresh, β·cwnd, in segments.
    pub fn on_loss(&mut self, cwnd_seg: f64) -> f64 {
        self.w_max = if cwnd_seg < self.last_w_max {
            cwnd_seg * (1.0 + BETA) / 2.0
        } else {
            cwnd_seg
        };
        self.last_w_max = cwnd_seg;
        self.epoch = None;
        (cwnd_seg * BETA).max(2.0)
    }

    /// The ssthresh in bytes after a loss at window `cwnd` (segments of `mss` bytes): β of it,
    /// at least two segments.
    pub fn loss_ssthresh(&mut self, cwnd: u64, mss: u64) -> u64 {
        ((self.on_loss(cwnd as f64 / mss as f64) * mss as f64) as u64).max(2 * mss)
    }

    /// Congestion avoidance in bytes: the window after `acked` bytes were acknowledged at
    /// `now` from `cwnd`, never smaller (`on_ack`).
    pub fn avoid(&mut self, now: Time, rtt_s: f64, cwnd: u64, acked: u64, mss: u64) -> u64 {
        let m = mss as f64;
        let w = self.on_ack(now, rtt_s, cwnd as f64 / m, acked as f64 / m);
        ((w * m) as u64).max(cwnd)
    }

    /// W(t) of the current epoch, in segments.
    pub fn window_at(&self, t_s: f64) -> f64 {
        C * (t_s - self.k_s).powi(3) + self.w_max
    }

    /// The window after `acked_seg` segments were acknowledged at `now` in congestion
    /// avoidance, from `cwnd_seg`, with smoothed RTT `rtt_s`: towards W(t + RTT), at most
    /// half a segment more per segment acknowledged (RFC 9438 §4.4), and not below Reno's.
    pub fn on_ack(&mut self, now: Time, rtt_s: f64, cwnd_seg: f64, acked_seg: f64) -> f64 {
        let start = *self.epoch.get_or_insert_with(|| {
            self.k_s = if cwnd_seg < self.w_max {
                (self.w_max * (1.0 - BETA) / C).cbrt()
            } else {
                self.w_max = cwnd_seg;
                0.0
            };
            self.w_est = cwnd_seg;
            now
        });
        let t = (now - start).as_secs_f64();
        let target = self.window_at(t + rtt_s).clamp(cwnd_seg, 1.5 * cwnd_seg);
        let cubic = cwnd_seg + (target - cwnd_seg) / cwnd_seg * acked_seg;
        self.w_est += 3.0 * (1.0 - BETA) / (1.0 + BETA) * acked_seg / cwnd_seg;
        cubic.max(self.w_est)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Duration;

    /// ACK-clocked growth after a loss at 100 segments: every RTT a window's worth of ACKs.
    fn grow(rtt_s: f64, rtts: u32, mut check: impl FnMut(f64, f64)) -> Cubic {
        let mut c = Cubic::default();
        let mut cwnd = c.on_loss(100.0);
        assert_eq!(cwnd, 70.0);
        let mut now = Time::ZERO;
        for step in 1..=rtts {
            let acks = cwnd.floor().max(1.0);
            let per = Duration::from_secs_f64(rtt_s / acks);
            for _ in 0..acks as u32 {
                now += per;
                cwnd = c.on_ack(now, rtt_s, cwnd, 1.0);
            }
            check(step as f64 * rtt_s, cwnd);
        }
        c
    }

    /// With a 100 ms RTT the cubic function is above Reno's line: the window follows
    /// W(t) = C(t − K)³ + W_max, flat near W_max at t = K ≈ 4.2 s, then probing beyond.
    #[test]
    fn the_window_follows_the_cubic_function() {
        let k = (100.0 * (1.0 - BETA) / C).cbrt();
        let c = grow(0.1, 80, |t, cwnd| {
            let formula = C * (t - k).powi(3) + 100.0;
            assert!(
                (cwnd - formula).abs() <= 0.03 * formula + 1.0,
                "t {t}: cwnd {cwnd} vs W(t) {formula}"
            );
        });
        assert!((c.k_s - k).abs() < 1e-12);
    }

    /// With a 10 ms RTT Reno would grow faster than the cubic function near W_max: the
    /// window is never below Reno's 0.53 segments per RTT from β·W_max (the TCP-friendly region).
    #[test]
    fn the_window_is_never_below_renos() {
        grow(0.01, 300, |t, cwnd| {
            let reno = 70.0 + 3.0 * (1.0 - BETA) / (1.0 + BETA) * t / 0.01;
            assert!(cwnd >= reno - 1.0, "t {t}: cwnd {cwnd} below Reno's {reno}");
        });
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_losses_come_at_smaller_windows() {
        let mut c = Cubic::default();
        c.on_loss(100.0);
        c.on_loss(80.0);
        assert_eq!(c.w_max, 80.0 * (1.0 + BETA) / 2.0);
    }
}
