//! Reno's congestion control (RFC 5681) as Linux 2.6 grows the window: slow start with
//! Appropriate Byte Counting (RFC 3465, L = 2 MSS), congestion avoidance of one segment per
//! window's worth of bytes acknowledged, and ssthresh at half the flight after a loss. The
//! NewReno part (RFC 6582: recovery until everything outstanding at the loss is acknowledged,
//! a partial ACK resending the next hole) is the endpoint's, shared with CUBIC (`input.rs`).

/// Reno's one piece of state: the byte count towards the next increase.
#[derive(Clone, Copy, Debug, Default)]
pub struct NewReno {
    /// Bytes acknowledged in congestion avoidance since the window last grew (ABC).
    abc_acked: u64,
}

/// Slow start with ABC (RFC 3465 §2.2, L = 2): the window grows by the bytes acknowledged, at
/// most two segments per ACK. CUBIC's slow start is this one too (no HyStart).
pub fn slow_start(cwnd: u64, acked: u64, mss: u64) -> u64 {
    cwnd + acked.min(2 * mss)
}

impl NewReno {
    /// ssthresh after a loss with `flight` bytes outstanding: half of it, at least two
    /// segments (RFC 5681 equation 4).
    pub fn loss_ssthresh(&self, flight: u64, mss: u64) -> u64 {
        (flight / 2).max(2 * mss)
    }

    /// Congestion avoidance with ABC (RFC 3465 §2.1): one segment more once a window's worth
    /// of bytes was acknowledged; the window after `acked` more.
    pub fn avoid(&mut self, cwnd: u64, acked: u64, mss: u64) -> u64 {
        self.abc_acked += acked;
        if self.abc_acked >= cwnd {
            self.abc_acked -= cwnd;
            cwnd + mss
        } else {
            cwnd
        }
    }

    /// A retransmission timeout: the count starts over.
    pub fn on_rto(&mut self) {
        self.abc_acked = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_counts_bytes_up_to_two_segments_an_ack() {
        assert_eq!(slow_start(10_000, 1000, 1448), 11_000);
        assert_eq!(slow_start(10_000, 10 * 1448, 1448), 10_000 + 2 * 1448);
    }

    #[test]
    fn avoidance_adds_a_segment_per_window_acknowledged_and_an_rto_restarts_the_count() {
        let (mut r, mss) = (NewReno::default(), 1000);
        let mut cwnd = 4000;
        for _ in 0..3 {
            cwnd = r.avoid(cwnd, mss, mss);
        }
        assert_eq!(cwnd, 4000);
        cwnd = r.avoid(cwnd, mss, mss);
        assert_eq!((cwnd, r.abc_acked), (5000, 0));
        cwnd = r.avoid(cwnd, 3 * mss, mss);
        r.on_rto();
        assert_eq!((r.avoid(cwnd, 3 * mss, mss), r.abc_acked), (5000, 3000));
    }

    #[test]
    fn a_loss_halves_the_flight_but_leaves_two_segments() {
        let r = NewReno::default();
        assert_eq!(r.loss_ssthresh(100_000, 1448), 50_000);
        assert_eq!(r.loss_ssthresh(2000, 1448), 2 * 1448);
    }
}
