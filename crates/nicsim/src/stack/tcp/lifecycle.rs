//! Connection setup and teardown (RFC 793 as Linux 2.6 runs it): the three-way handshake with
//! SYN and SYN-ACK retransmission on the initial RTO, the handshake's RTT sample, FIN in
//! sequence space after the last data byte, and TIME_WAIT.
//!
//! A SYN takes no sequence number here (stream offsets start at 0 on both ends, so a
//! connection that opens by handshake carries its data at the same offsets as one that
//! starts established); the handshake's segments are told apart by their flags. A FIN takes
//! the one sequence number after the last data byte, as in TCP, so it is acknowledged,
//! retransmitted and ordered behind lost data by the same machinery as data.
//!
//! Not modelled: simultaneous open, RST (a segment for a closed socket is dropped and
//! counted by the node), half-close by `shutdown`, SO_LINGER, and a FIN carried on the last
//! data segment (Linux's `tcp_send_fin` joins them when that segment has not left yet; in
//! request-response use it has, and the FIN goes alone).

use super::*;

/// The RFC 793 states a connection passes through (LISTEN lives on the node's listener).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Created, no SYN sent yet.
    Closed,
    SynSent,
    SynRcvd,
    Established,
    FinWait1,
    FinWait2,
    Closing,
    TimeWait,
    CloseWait,
    LastAck,
    /// Finished: TIME_WAIT expired, or our FIN was acknowledged after the peer's.
    Done,
}

/// Control flags a segment carries.
pub const SYN: u8 = 1;
pub const FIN: u8 = 2;

impl Segment {
    pub fn syn(&self) -> bool {
        self.ctl & SYN != 0
    }

    pub fn fin(&self) -> bool {
        self.ctl & FIN != 0
    }

    /// Option bytes a SYN carries beyond an established segment's: MSS (4) and window scale
    /// (NOP + 3); SACK-permitted rides in the timestamp option's NOPs, or takes 4 without it.
    pub fn syn_option_bytes(&self, timestamps: bool) -> u64 {
        match (self.syn(), timestamps) {
            (false, _) => 0,
            (true, true) => 8,
            (true, false) => 12,
        }
    }
}

impl Tcp {
    pub fn state(&self) -> State {
        self.state
    }

    /// connect(): the SYN goes out with the next `output`.
    pub fn connect(&mut self, now: Time) {
        debug_assert_eq!(self.state, State::Closed);
        self.state = State::SynSent;
        self.syn_due = true;
        self.syn_sent_at = Some(now);
    }

    /// A listener took `syn` for this new endpoint: SYN_RECV, the SYN-ACK goes out with the
    /// next `output`.
    pub fn passive_open(&mut self, now: Time, syn: &Segment) {
        debug_assert_eq!(self.state, State::Closed);
        self.state = State::SynRcvd;
        self.syn_due = true;
        self.syn_sent_at = Some(now);
        self.peer_wnd = syn.win as u64;
        self.max_peer_wnd = self.peer_wnd;
    }

    /// close(): a FIN follows the data already written (it takes the next sequence number).
    pub fn close(&mut self) {
        self.state = match self.state {
            State::Established => State::FinWait1,
            State::CloseWait => State::LastAck,
            // Before the handshake ends Linux simply discards the socket.
            State::Closed | State::SynSent | State::SynRcvd => {
                self.state = State::Done;
                self.syn_due = false;
                self.rto_deadline = None;
                return;
            }
            s => s,
        };
        self.fin_seq.get_or_insert(self.write_seq);
    }

    /// The peer's FIN has arrived and every byte before it has been read: read() returns 0.
    pub fn at_eof(&self) -> bool {
        self.rcv_fin && self.readable() == 0
    }

    /// The SYN or SYN-ACK, when one is due; stamped like any segment.
    pub(super) fn syn_output(&mut self, now: Time) -> Option<Segment> {
        if !std::mem::take(&mut self.syn_due) {
            return None;
        }
        self.rto_deadline = Some(self.slow_at(now + self.rto));
        self.stats.syns_sent += 1;
        let mut s = self.stamp(Segment::pure_ack(0));
        s.ctl = SYN;
        Some(s)
    }

    /// The FIN, once every data byte before it has left.
    pub(super) fn fin_output(&mut self, now: Time) -> Option<Segment> {
        let f = self.fin_seq?;
        if self.snd_nxt != f || self.send_head < self.skbs.len() {
            return None;
        }
        self.snd_nxt = f + 1;
        self.snd_max = self.snd_max.max(f + 1);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.slow_at(now + self.rto));
        }
        self.stats.fins_sent += 1;
        let mut s = self.stamp(Segment::pure_ack(f));
        s.ctl = FIN;
        s.push = true;
        Some(s)
    }

    /// A segment reached an endpoint still in its handshake. Returns true when the segment
    /// is consumed here; false when it continues through normal input (the ACK that ends
    /// SYN_RECV may carry data).
    pub(super) fn handshake_input(&mut self, now: Time, seg: &Segment, r: &mut Input) -> bool {
        match self.state {
            State::SynSent if seg.syn() => {
                self.open_now(now, seg, r);
                r.ack_now = true;
                true
            }
            State::SynRcvd if seg.syn() => {
                // Our SYN-ACK was lost, or is late: answer the retransmitted SYN.
                self.syn_due = true;
                r.acked_new = true;
                true
            }
            State::SynRcvd => {
                self.open_now(now, seg, r);
                false
            }
            // A retransmitted SYN-ACK: our ACK of it was lost, send it again.
            _ if seg.syn() => {
                r.ack_now = self.state != State::Done;
                true
            }
            State::Closed | State::SynSent | State::Done => true,
            _ => false,
        }
    }

    fn open_now(&mut self, now: Time, seg: &Segment, r: &mut Input) {
        self.state = State::Established;
        self.peer_wnd = seg.win as u64;
        self.max_peer_wnd = self.peer_wnd;
        // The handshake's RTT sample (Karn: not after a retransmitted SYN).
        if let Some(t) = self.syn_sent_at.take() {
            if self.backoff == 0 {
                self.rtt_sample((now - t).as_secs_f64());
            }
        }
        self.backoff = 0;
        self.rto_deadline = None;
        r.established = true;
    }

    /// The handshake's retransmission timer fired: resend the SYN or SYN-ACK, backed off; or,
    /// after `tcp.syn_retries` retransmissions, give up (connect fails with ETIMEDOUT, a
    /// half-open passive end is forgotten) and end `Done`.
    pub(super) fn handshake_rto(&mut self) -> bool {
        self.stats.rto_expiries += 1;
        if self.backoff >= self.syn_retries {
            self.state = State::Done;
            self.rto_deadline = None;
            return true;
        }
        self.stats.syn_retransmits += 1;
        self.syn_due = true;
        self.syn_sent_at = None;
        self.backoff += 1;
        self.rto = Duration(self.rto.0.saturating_mul(2)).min(Duration(120_000_000_000_000));
        self.rto_deadline = None;
        true
    }

    /// Our FIN is acknowledged: FIN_WAIT_1 → FIN_WAIT_2, CLOSING → TIME_WAIT, LAST_ACK → done.
    pub(super) fn on_fin_acked(&mut self, now: Time, r: &mut Input) {
        if self.fin_seq.is_none_or(|f| self.snd_una <= f) {
            return;
        }
        match self.state {
            State::FinWait1 => self.state = State::FinWait2,
            State::Closing => self.enter_time_wait(now, r),
            State::LastAck => {
                self.state = State::Done;
                r.closed = true;
            }
            _ => {}
        }
    }

    /// The peer's FIN at `seq`: taken once every byte before it has arrived.
    pub(super) fn fin_input(&mut self, now: Time, seq: u64, r: &mut Input) {
        r.ack_now = true;
        if self.rcv_fin {
            return;
        }
        if seq != self.rcv_nxt {
            self.peer_fin_seq = Some(seq);
            return;
        }
        self.take_fin(now, r);
    }

    /// A hole before the peer's FIN has filled.
    pub(super) fn fin_reached(&mut self, now: Time, r: &mut Input) {
        if self.peer_fin_seq == Some(self.rcv_nxt) && !self.rcv_fin {
            self.take_fin(now, r);
        }
    }

    fn take_fin(&mut self, now: Time, r: &mut Input) {
        self.rcv_fin = true;
        self.peer_fin_seq = None;
        self.delack_deadline = None;
        r.fin = true;
        r.ack_now = true;
        match self.state {
            State::Established => self.state = State::CloseWait,
            State::FinWait1 => self.state = State::Closing,
            State::FinWait2 => self.enter_time_wait(now, r),
            _ => {}
        }
    }

    fn enter_time_wait(&mut self, now: Time, r: &mut Input) {
        self.state = State::TimeWait;
        self.rto_deadline = None;
        self.persist_deadline = None;
        self.time_wait_deadline = Some(self.slow_at(now + self.time_wait));
        r.time_wait = true;
    }

    /// The TIME_WAIT timer fired at `now`: the connection is done, its port free.
    pub fn on_time_wait(&mut self, now: Time) -> bool {
        if self.time_wait_deadline != Some(now) {
            return false;
        }
        self.time_wait_deadline = None;
        self.state = State::Done;
        true
    }
}
