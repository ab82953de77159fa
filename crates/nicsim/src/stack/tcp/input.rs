//! Segment arrival: ACK processing (window, congestion control, RTT, fast retransmit,
//! NewReno or SACK recovery) and in-order and out-of-order data.

use super::*;

impl Tcp {
    pub(super) fn on_ack(&mut self, now: Time, seg: &Segment, r: &mut Input) {
        self.peer_wnd = seg.win as u64;
        self.max_peer_wnd = self.max_peer_wnd.max(self.peer_wnd);
        if !seg.sack.is_empty() {
            self.sack_update(seg);
        }
        if seg.ack > self.snd_una {
            let acked = seg.ack.min(self.snd_nxt.max(seg.ack)) - self.snd_una;
            let prior_inflight = self.in_flight();
            let mut newest = pacing::Newest::default();
            // RTT sample from the oldest newly acknowledged segment that was not retransmitted.
            // (Karn: no samples while retransmissions are outstanding.)
            if let Some(s) = self.skbs.front() {
                if let Some(t) = s.sent_at {
                    if self.backoff == 0 && self.recover.is_none() {
                        self.rtt_sample((now - t).as_secs_f64());
                    }
                }
            }
            self.snd_una = seg.ack;
            while let Some(s) = self.skbs.front() {
                if s.seq + s.len as u64 <= self.snd_una {
                    let ts = self.truesize(s.len as u64);
                    self.wmem_queued -= ts;
                    if s.sacked {
                        self.sacked_bytes -= s.len as u64;
                    }
                    if self.cc.paced().is_some() {
                        newest.note(s.rate, s.sent_at);
                    }
                    self.skbs.pop_front();
                    self.send_head = self.send_head.saturating_sub(1);
                } else {
                    break;
                }
            }
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            match self.recover {
                // Recovery ends when everything outstanding at its start is acknowledged.
                Some(high) if seg.ack >= high => {
                    self.cwnd = self.ssthresh;
                    self.recover = None;
                    self.end_sack_recovery();
                }
                // A partial ACK with SACK: the scoreboard picks what goes next, but the new
                // first segment is lost too if nothing resent it yet (NewReno's inference;
                // it covers a loss with no SACKed data above it, which NextSeg never picks).
                Some(_) if self.sack_recovery => {
                    if self.skbs.front().is_some_and(|s| !s.retrans && !s.sacked) {
                        self.retx_next = Some(self.snd_una);
                    }
                }
                // A partial ACK: the next hole is lost too (NewReno, RFC 6582).
                Some(_) => self.retx_next = Some(self.snd_una),
                None => self.grow_cwnd(now, acked),
            }
            // BBR's window and pacing rate from the ACK's rate sample (Karn: RTT too).
            let karn = self.backoff == 0 && self.recover.is_none();
            if let Some(p) = self.cc.paced_mut() {
                self.cwnd = p.on_ack(now, acked, prior_inflight, newest, karn, self.cwnd);
            }
            self.dupacks = 0;
            self.backoff = 0;
            self.rto_deadline = if self.snd_nxt > self.snd_una {
                Some(self.slow_at(now + self.rto))
            } else {
                None
            };
            r.space_freed = true;
            r.acked_new = true;
        } else if seg.is_pure_ack() && self.snd_max > self.snd_una {
            self.dupacks += 1;
            self.stats.dup_acks += 1;
            self.on_dupack(r);
        }
        if seg.win > 0 {
            r.acked_new = true; // a window update may allow output too
        }
    }

    /// Fast retransmit at the duplicate-ACK threshold (RFC 5681 §3.2), or once the
    /// scoreboard says the first segment is lost (RFC 6675 §5). Without SACK information,
    /// NewReno: window inflation by one segment per further duplicate while recovery lasts;
    /// with it, cwnd = ssthresh and the pipe estimate paces retransmissions (no inflation).
    pub(super) fn on_dupack(&mut self, r: &mut Input) {
        let mss = self.mss as u64;
        if self.recover.is_some() {
            if !self.sack_recovery {
                self.cwnd += mss;
            }
            r.acked_new = true;
        } else if self.fast_retransmit
            && (self.dupacks == self.dupack_threshold || self.sack_head_lost())
        {
            self.stats.fast_retransmits += 1;
            let flight = self.snd_max - self.snd_una;
            self.ssthresh = self.cc.loss_ssthresh(self.cwnd, flight, mss);
            self.sack_recovery = self.sacked_bytes > 0;
            self.cwnd = if self.sack_recovery {
                self.ssthresh
            } else {
                self.ssthresh + self.dupack_threshold as u64 * mss
            };
            self.recover = Some(self.snd_max);
            self.retx_next = Some(self.snd_una);
            r.acked_new = true;
        }
    }

    /// Window growth on an ACK of `acked` new bytes outside recovery: the controller's slow
    /// start or congestion avoidance, unless it sets the window itself (BBR: `on_ack` sets it
    /// from the rate sample).
    pub(super) fn grow_cwnd(&mut self, now: Time, acked: u64) {
        if self.cc.sets_window() {
            return;
        }
        let (mss, srtt_s) = (self.mss as u64, self.srtt.unwrap_or(0.0));
        let w = self
            .cc
            .grow_cwnd(now, self.cwnd, self.ssthresh, mss, srtt_s, acked);
        // A window far beyond anything the peer can accept is meaningless; cap its growth.
        self.cwnd = w.min(64 * self.sndbuf.max(mss));
    }

    pub(super) fn rtt_sample(&mut self, r: f64) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        let rto_s = self.srtt.unwrap() + 4.0 * self.rttvar;
        self.rto = Duration::from_secs_f64(rto_s).max(self.rto_min);
    }

    /// A segment arrived (after IP and TCP header processing).
    pub fn on_segment(&mut self, now: Time, seg: &Segment) -> Input {
        let mut r = Input::default();
        if (seg.ctl != 0 || self.state != State::Established)
            && self.handshake_input(now, seg, &mut r)
        {
            return r;
        }
        self.on_ack(now, seg, &mut r);
        if self.fin_seq.is_some() {
            self.on_fin_acked(now, &mut r);
        }
        if seg.len == 0 {
            if seg.fin() {
                self.fin_input(now, seg.seq, &mut r);
            } else {
                // A window probe asks for our current window.
                r.ack_now = seg.seq == WINDOW_PROBE_SEQ;
            }
            return r;
        }
        // A retransmission that overlaps what arrived already: keep only the new tail.
        let mut seg = *seg;
        if seg.seq < self.rcv_nxt && seg.seq + seg.len as u64 > self.rcv_nxt {
            let old = self.rcv_nxt - seg.seq;
            self.stats.duplicate_bytes += old;
            seg.len -= old as u32;
            seg.seq = self.rcv_nxt;
        }
        let len = seg.len as u64;
        if seg.seq != self.rcv_nxt {
            let ts = self.truesize(len);
            if seg.seq < self.rcv_nxt || self.ooo.contains_key(&seg.seq) {
                self.stats.duplicate_bytes += len;
            } else if self.rmem_alloc + ts <= self.rcvbuf {
                // Beyond a hole: hold it until the hole fills.
                self.ooo.insert(seg.seq, (len, ts));
                self.last_ooo = Some(seg.seq);
                self.rmem_alloc += ts;
                self.stats.out_of_order_queued += 1;
            } else {
                self.stats.out_of_order_dropped += 1;
                self.stats.out_of_order_bytes += len;
            }
            r.ack_now = true; // duplicate ACK
            return r;
        }
        // Quick-ack mode after an idle period longer than the RTO (tcp_event_data_recv).
        if now - self.last_rx > self.rto {
            self.quick = self.quickack_max;
        }
        self.last_rx = now;
        if len >= self.rcv_mss {
            self.rcv_mss = len.min(self.mss as u64);
        } else {
            self.ack_pushed = true;
        }
        self.rcv_nxt += len;
        let ts = self.truesize(len);
        self.rmem_alloc += ts;
        self.rx_queue.push_back((len, ts));
        r.delivered_bytes = len;
        // The hole is filled: queued segments that now follow in order join the queue.
        while let Some((&seq, &(l, t))) = self.ooo.iter().next() {
            if seq != self.rcv_nxt {
                break;
            }
            self.ooo.remove(&seq);
            self.rcv_nxt += l;
            self.rx_queue.push_back((l, t));
            r.delivered_bytes += l;
            r.ack_now = true;
        }
        if self.peer_fin_seq.is_some() {
            self.fin_reached(now, &mut r);
            if r.fin {
                return r;
            }
        }
        self.ack_scheduled = true;
        // Linux: every second full-sized segment is acknowledged at once (RFC 1122, host-path
        // §6 item 5), and every segment in quick-ack mode. BSD: in-order data only schedules
        // the delayed ACK; reads send the ACK (`read`).
        let more_than_one = self.rcv_nxt - self.rcv_wup > self.rcv_mss;
        let linux = self.ack_policy == AckPolicy::Linux;
        if linux && (more_than_one || (self.quick > 0 && !self.pingpong)) {
            r.ack_now = true;
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(self.delack_at(now));
        }
        r
    }
}
