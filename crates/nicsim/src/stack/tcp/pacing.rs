//! What BBR needs of the sender (`tcp.congestion = bbr`): Linux's delivery-rate sampler
//! (`tcp_rate.c`: each segment remembers how much had been delivered when it left, so an ACK
//! yields the rate over the segment's flight) and TCP's internal pacing (`tcp_wstamp_ns` with
//! its hrtimer, what Linux uses for BBR without the fq qdisc): one burst of about a
//! millisecond's bytes leaves at a time, and the next waits until the burst has left at the
//! pacing rate. Not modelled: the pacing credit of an idle flow (`tcp_update_skb_after_send`
//! shortens the next gap by up to half of the time it lagged); retransmissions are not gated.

use super::congestion::bbr::{Bbr, RateSample};
use super::*;

/// Per segment: the sampler's state when it (last) left.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SendStamp {
    delivered: u64,
    delivered_at: Time,
    first_tx_at: Time,
    app_limited: bool,
}

/// The paced sender: BBR, its rate sampler and the pacing clock.
#[derive(Clone, Debug)]
pub(super) struct Paced {
    pub(super) bbr: Bbr,
    /// Bytes delivered (cumulatively acknowledged) so far, and when the count last grew.
    delivered: u64,
    delivered_at: Time,
    /// When the newest delivered segment was sent (the start of the current send interval).
    first_tx_at: Time,
    /// Delivered count after which samples stop being application-limited (0: not limited).
    app_limited_until: u64,
    /// Earliest departure of the next burst, and bytes of the current burst so far.
    next_send: Time,
    burst_sent: u64,
}

impl Paced {
    pub(super) fn new(bbr: Bbr) -> Paced {
        Paced {
            bbr,
            delivered: 0,
            delivered_at: Time::ZERO,
            first_tx_at: Time::ZERO,
            app_limited_until: 0,
            next_send: Time::ZERO,
            burst_sent: 0,
        }
    }
}

/// The sample an ACK builds, from the newest segment it acknowledged.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Newest {
    stamp: Option<SendStamp>,
    sent_at: Time,
}

impl Tcp {
    /// Whether pacing holds output back at `now`; if so the pacing timer is armed.
    pub(super) fn pace_wait(&mut self, now: Time) -> bool {
        let Some(p) = self.paced.as_ref() else {
            return false;
        };
        if now >= p.next_send {
            return false;
        }
        self.pace_deadline = Some(p.next_send);
        true
    }

    /// Segment `i` leaves at `now`: stamp it for the sampler and count it against the burst.
    pub(super) fn paced_sent(&mut self, now: Time, i: usize) {
        let in_flight = self.in_flight();
        let Some(p) = self.paced.as_mut() else {
            return;
        };
        if in_flight == 0 {
            p.first_tx_at = now;
            p.delivered_at = now;
        }
        let skb = &mut self.skbs[i];
        skb.rate = SendStamp {
            delivered: p.delivered,
            delivered_at: p.delivered_at,
            first_tx_at: p.first_tx_at,
            app_limited: p.app_limited_until > 0,
        };
        p.burst_sent += skb.len as u64;
        if p.burst_sent >= p.bbr.burst_bytes() {
            let gap_s = p.burst_sent as f64 / p.bbr.pacing_bytes_per_s;
            p.next_send = p.next_send.max(now) + Duration::from_secs_f64(gap_s);
            p.burst_sent = 0;
        }
    }

    /// After output: with less than a segment left to send and room in the window, what is
    /// in flight now is all the application gave (`tcp_rate_check_app_limited`).
    pub(super) fn check_app_limited(&mut self) {
        let in_flight = self.in_flight();
        let idle = self.write_seq - self.snd_nxt < self.mss as u64 && in_flight < self.cwnd;
        if let Some(p) = self.paced.as_mut().filter(|_| idle) {
            p.app_limited_until = (p.delivered + in_flight).max(1);
        }
    }

    /// A fully acknowledged segment: the newest one sent is the sample's.
    pub(super) fn note_delivered(&self, skb: &TxSkb, newest: &mut Newest) {
        if self.paced.is_none() {
            return;
        }
        if newest
            .stamp
            .is_none_or(|s| skb.rate.delivered >= s.delivered)
        {
            newest.stamp = Some(skb.rate);
            newest.sent_at = skb.sent_at.unwrap_or(Time::ZERO);
        }
    }

    /// After an ACK delivered `acked` bytes (`prior_inflight` in flight before it): the rate
    /// sample (`tcp_rate_gen`), and BBR's window and pacing rate from it.
    pub(super) fn bbr_on_ack(
        &mut self,
        now: Time,
        acked: u64,
        prior_inflight: u64,
        newest: Newest,
    ) {
        let karn = self.backoff == 0 && self.recover.is_none();
        let cwnd = self.cwnd;
        let Some(p) = self.paced.as_mut() else {
            return;
        };
        p.delivered += acked;
        if acked > 0 {
            p.delivered_at = now;
        }
        if p.app_limited_until > 0 && p.delivered > p.app_limited_until {
            p.app_limited_until = 0;
        }
        let mut rs = RateSample::default();
        if let Some(s) = newest.stamp {
            p.first_tx_at = newest.sent_at;
            let send = (newest.sent_at - s.first_tx_at).as_secs_f64();
            let ack = (now - s.delivered_at).as_secs_f64();
            let interval = send.max(ack);
            rs = RateSample {
                delivered_bytes: p.delivered - s.delivered,
                // Shorter than the path's RTT: an ACK compression artefact (tcp_rate_gen).
                interval_s: if interval < p.bbr.min_rtt_s().unwrap_or(0.0) {
                    0.0
                } else {
                    interval
                },
                prior_delivered: s.delivered,
                app_limited: s.app_limited,
                rtt_s: karn.then(|| (now - newest.sent_at).as_secs_f64()),
            };
        }
        self.cwnd = p
            .bbr
            .on_ack(now, &rs, acked, p.delivered, prior_inflight, cwnd);
    }

    /// The pacing timer fired at `now`: output may go on, if it is still waiting.
    pub fn on_pace(&mut self, now: Time) -> bool {
        if self.pace_deadline != Some(now) {
            return false;
        }
        self.pace_deadline = None;
        true
    }
}
