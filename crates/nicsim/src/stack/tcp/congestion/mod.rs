//! Congestion control: one controller per `tcp.congestion` behind one enum the endpoint holds
//! (the shape of smoltcp's `socket/tcp/congestion`), so the endpoint asks one interface rather
//! than testing which algorithm runs. It keeps cwnd, ssthresh and loss recovery, which all
//! three share; a controller says what ssthresh a loss leaves and how an ACK outside recovery
//! grows the window, or, BBR, sets the window from its own model and keeps it through a loss.

mod bbr;
mod cubic;
mod newreno;
pub mod pacing;

use crate::config::Congestion;
use crate::units::Time;
use bbr::Bbr;
use cubic::Cubic;
use newreno::NewReno;
use pacing::Paced;

#[derive(Clone, Debug)]
pub enum Controller {
    /// Reno's increase and halving (RFC 5681), with NewReno recovery (RFC 6582).
    NewReno(NewReno),
    /// CUBIC's increase and β decrease (RFC 9438), slow start as Reno's.
    Cubic(Cubic),
    /// BBR v1 (Linux `tcp_bbr.c`) with the rate sampler and pacing clock it needs.
    Bbr(Box<Paced>),
}

impl Controller {
    /// `kind`'s controller, for segments of `mss` bytes and an initial window of `cwnd`; BBR
    /// takes its first PROBE_BW phase from `flow`.
    pub fn new(kind: Congestion, mss: u64, cwnd: u64, flow: u32) -> Controller {
        match kind {
            Congestion::Newreno => Controller::NewReno(NewReno::default()),
            Congestion::Cubic => Controller::Cubic(Cubic::default()),
            Congestion::Bbr => {
                Controller::Bbr(Box::new(Paced::new(Bbr::new(mss, cwnd, None, flow))))
            }
        }
    }

    /// The controller sets the window itself on every ACK and keeps it through a loss (BBR);
    /// the endpoint's slow start and congestion avoidance do not apply.
    pub fn sets_window(&self) -> bool {
        matches!(self, Controller::Bbr(_))
    }

    /// The ssthresh after a loss at window `cwnd` with `flight` bytes outstanding.
    pub fn loss_ssthresh(&mut self, cwnd: u64, flight: u64, mss: u64) -> u64 {
        match self {
            Controller::NewReno(r) => r.loss_ssthresh(flight, mss),
            Controller::Cubic(c) => c.loss_ssthresh(cwnd, mss),
            // BBR keeps its model's window through a loss (bbr_ssthresh).
            Controller::Bbr(_) => cwnd.max(2 * mss),
        }
    }

    /// The window after an ACK of `acked` new bytes at `now` outside recovery, from `cwnd`:
    /// slow start below `ssthresh`, congestion avoidance (with the smoothed RTT `srtt_s`)
    /// above. BBR's is unchanged here: it sets the window from its model (`pacing.rs`).
    pub fn grow_cwnd(
        &mut self,
        now: Time,
        cwnd: u64,
        ssthresh: u64,
        mss: u64,
        srtt_s: f64,
        acked: u64,
    ) -> u64 {
        match self {
            Controller::Bbr(_) => cwnd,
            _ if cwnd < ssthresh => newreno::slow_start(cwnd, acked, mss),
            Controller::NewReno(r) => r.avoid(cwnd, acked, mss),
            Controller::Cubic(c) => c.avoid(now, srtt_s, cwnd, acked, mss),
        }
    }

    /// A retransmission timeout (after `loss_ssthresh`): Reno's byte count starts over.
    pub fn on_rto(&mut self) {
        if let Controller::NewReno(r) = self {
            r.on_rto();
        }
    }

    /// The device's GSO limit, `bytes` (`nic.tso_max_bytes`): it caps BBR's paced bursts.
    pub fn set_gso_max(&mut self, bytes: u64) {
        if let Controller::Bbr(p) = self {
            p.bbr.set_gso_max(bytes);
        }
    }

    /// The rate sampler and pacing clock, which only BBR has.
    pub fn paced(&self) -> Option<&Paced> {
        match self {
            Controller::Bbr(p) => Some(p),
            _ => None,
        }
    }

    pub fn paced_mut(&mut self) -> Option<&mut Paced> {
        match self {
            Controller::Bbr(p) => Some(p),
            _ => None,
        }
    }
}
