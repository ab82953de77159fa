//! What BBR needs of the sender (`tcp.congestion = bbr`): Linux's delivery-rate sampler
//! (`tcp_rate.c`: each segment remembers how much had been delivered when it left, so an ACK
//! yields the rate over the segment's flight) and TCP's internal pacing (`tcp_wstamp_ns` with
//! its hrtimer, what Linux uses for BBR without the fq qdisc): one burst of about a
//! millisecond's bytes leaves at a time, and the next waits until the burst has left at the
//! pacing rate. Sans-IO like the controllers: the endpoint tells it of each departure
//! (`output.rs`) and ACK (`input.rs`). Not modelled: the pacing credit of an idle flow
//! (`tcp_update_skb_after_send` shortens the next gap by up to half of the time it lagged);
//! retransmissions are not gated.

use super::bbr::{Bbr, RateSample};
use crate::units::{Duration, Time};

/// Per segment: the sampler's state when it (last) left.
#[derive(Clone, Copy, Debug, Default)]
pub struct SendStamp {
    delivered: u64,
    delivered_at: Time,
    first_tx_at: Time,
    app_limited: bool,
}

/// The paced sender: BBR, its rate sampler and the pacing clock.
#[derive(Clone, Debug)]
pub struct Paced {
    pub bbr: Bbr,
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

/// The sample an ACK builds, from the newest segment it acknowledged.
#[derive(Clone, Copy, Debug, Default)]
pub struct Newest {
    stamp: Option<SendStamp>,
    sent_at: Time,
}

impl Newest {
    /// A fully acknowledged segment, stamped `rate` when it left at `sent_at`: the newest one
    /// sent is the sample's.
    pub fn note(&mut self, rate: SendStamp, sent_at: Option<Time>) {
        if self.stamp.is_none_or(|s| rate.delivered >= s.delivered) {
            self.stamp = Some(rate);
            self.sent_at = sent_at.unwrap_or(Time::ZERO);
        }
    }
}

impl Paced {
    pub fn new(bbr: Bbr) -> Paced {
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

    /// When output held back by pacing at `now` may go on; None: it need not wait.
    pub fn wait_until(&self, now: Time) -> Option<Time> {
        (now < self.next_send).then_some(self.next_send)
    }

    /// A segment of `len` bytes leaves at `now`, `in_flight` bytes outstanding before it: its
    /// stamp for the sampler; it counts against the burst, and a full burst sets the next
    /// departure.
    pub fn sent(&mut self, now: Time, in_flight: u64, len: u64) -> SendStamp {
        if in_flight == 0 {
            self.first_tx_at = now;
            self.delivered_at = now;
        }
        let stamp = SendStamp {
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            first_tx_at: self.first_tx_at,
            app_limited: self.app_limited_until > 0,
        };
        self.burst_sent += len;
        if self.burst_sent >= self.bbr.burst_bytes() {
            let gap_s = self.burst_sent as f64 / self.bbr.pacing_bytes_per_s;
            self.next_send = self.next_send.max(now) + Duration::from_secs_f64(gap_s);
            self.burst_sent = 0;
        }
        stamp
    }

    /// What is in flight (`in_flight` bytes) is all the application gave
    /// (`tcp_rate_check_app_limited`): samples until it is delivered say nothing of the path.
    pub fn app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered + in_flight).max(1);
    }

    /// An ACK delivered `acked` bytes (`prior_inflight` in flight before it; `karn`: its RTT
    /// may be sampled): the rate sample (`tcp_rate_gen`), and BBR's window, from `cwnd`, and
    /// pacing rate from it. Returns the window.
    pub fn on_ack(
        &mut self,
        now: Time,
        acked: u64,
        prior_inflight: u64,
        newest: Newest,
        karn: bool,
        cwnd: u64,
    ) -> u64 {
        self.delivered += acked;
        if acked > 0 {
            self.delivered_at = now;
        }
        if self.app_limited_until > 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let mut rs = RateSample::default();
        if let Some(s) = newest.stamp {
            self.first_tx_at = newest.sent_at;
            let send = (newest.sent_at - s.first_tx_at).as_secs_f64();
            let ack = (now - s.delivered_at).as_secs_f64();
            let interval = send.max(ack);
            rs = RateSample {
                delivered_bytes: self.delivered - s.delivered,
                // Shorter than the path's RTT: an ACK compression artefact (tcp_rate_gen).
                interval_s: if interval < self.bbr.min_rtt_s().unwrap_or(0.0) {
                    0.0
                } else {
                    interval
                },
                prior_delivered: s.delivered,
                app_limited: s.app_limited,
                rtt_s: karn.then(|| (now - newest.sent_at).as_secs_f64()),
            };
        }
        self.bbr
            .on_ack(now, &rs, acked, self.delivered, prior_inflight, cwnd)
    }
}
