//! The sending side: queueing written bytes, choosing what to send (window, Nagle), ACK
//! construction, window probes, the retransmission timeout, and BBR's pacing of output.

use super::*;

impl Tcp {
    /// The receive buffer, bytes (what the window can ever offer).
    pub fn rcvbuf_bytes(&self) -> u64 {
        self.rcvbuf
    }

    /// Nothing is queued for sending or awaiting its acknowledgement.
    pub fn send_list_empty(&self) -> bool {
        self.wmem_queued == 0
    }

    /// Bytes the application may copy now (0: the writer must sleep).
    pub fn send_space(&self) -> u64 {
        if self.wmem_queued >= self.sndbuf {
            0
        } else {
            let tail_room = match self.skbs.back() {
                Some(s) if self.skbs.len() > self.send_head && (s.len as u64) < self.mss as u64 => {
                    self.mss as u64 - s.len as u64
                }
                _ => 0,
            };
            tail_room.max(self.size_goal())
        }
    }

    /// What one pass of the send loop copies before it pushes (Linux 2.6 `xmit_size_goal`):
    /// an MSS, or with TSO the largest send, at most half the largest window the peer offered,
    /// in whole MSS.
    fn size_goal(&self) -> u64 {
        let mss = self.mss as u64;
        if self.tso_max_payload as u64 <= mss {
            return mss;
        }
        let goal = (self.tso_max_payload as u64).min(self.max_peer_wnd / 2);
        (goal - goal % mss).max(mss)
    }

    /// `tcp_small_queue_check`: more than about a millisecond of the pacing rate (at least two
    /// skbs, at most `tcp_limit_output_bytes`) is already below TCP, `queued` of it sent by
    /// this pass. The pacing rate is Linux's default: cwnd·MSS/srtt at 200% in slow start (cwnd
    /// under half ssthresh), 120% after (`tcp_update_pacing_rate`).
    fn small_queue_full(&self, len: u64, queued: u64) -> bool {
        if self.tsq_limit_bytes == 0 {
            return false;
        }
        let ratio = if self.cwnd < self.ssthresh / 2 {
            2.0
        } else {
            1.2
        };
        let per_ms = match self.srtt {
            Some(s) if s > 0.0 => (self.cwnd as f64 / s * ratio / 1024.0) as u64,
            _ => u64::MAX,
        };
        let limit = (2 * self.truesize(len))
            .max(per_ms)
            .min(self.tsq_limit_bytes);
        self.below_bytes + queued > limit
    }

    /// `tcp_should_autocork` less its `sk_wmem_alloc` test (the caller's): the unsent tail is
    /// shorter than the size goal and data is in flight.
    pub fn should_autocork(&self) -> bool {
        let unsent = self.write_seq.saturating_sub(self.snd_nxt);
        unsent > 0 && unsent < self.size_goal() && self.snd_nxt > self.snd_una
    }

    /// The application wrote `len` bytes (already copied into the socket).
    pub fn write(&mut self, len: u64, push: bool) {
        let mut left = len;
        // Fill the unsent tail skb first, as tcp_sendmsg does.
        // Only a tail that never left may grow (after a timeout everything is "unsent" again).
        if let Some(tail) = self.skbs.back_mut() {
            if tail.sent_at.is_none() && (tail.len as u64) < self.mss as u64 {
                let add = left.min(self.mss as u64 - tail.len as u64);
                tail.len += add as u32;
                tail.push |= push && add == left;
                self.wmem_queued += add;
                left -= add;
            }
        }
        while left > 0 {
            let l = left.min(self.mss as u64);
            self.skbs.push_back(TxSkb {
                seq: self.write_seq + (len - left),
                len: l as u32,
                push: push && l == left,
                sent_at: None,
                sacked: false,
                retrans: false,
                rate: pacing::SendStamp::default(),
            });
            self.wmem_queued += self.truesize(l);
            left -= l;
        }
        self.write_seq += len;
    }

    pub(super) fn in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// Segments the windows and Nagle allow now; each leaves with the current ACK and window.
    pub fn output(&mut self, now: Time) -> Vec<Segment> {
        let mut out = Vec::new();
        if self.pace_deadline.is_some_and(|d| d <= now) {
            self.pace_deadline = None;
        }
        if matches!(
            self.state,
            State::Closed | State::SynSent | State::SynRcvd | State::Done
        ) {
            // Before the handshake ends only the SYN or SYN-ACK may leave.
            out.extend(self.syn_output(now));
            return out;
        }
        if let Some(seq) = self.retx_next.take() {
            if let Some(i) = self.skbs.iter().position(|s| s.seq == seq) {
                let skb = self.skbs[i];
                self.skbs[i].sent_at = Some(now);
                if self.sack_recovery {
                    self.skbs[i].retrans = true;
                    self.stats.sack_recovery_retransmits += 1;
                }
                self.stats.retransmitted_segments += 1;
                self.stats.retransmitted_bytes += skb.len as u64;
                self.stats.data_segments_sent += 1;
                out.push(self.stamp(skb.segment()));
            }
        }
        // In SACK recovery the pipe, not the window's edge, gates sending (RFC 6675 NextSeg:
        // lost holes first, then new data, then the remaining holes).
        let mut pipe = self
            .sack_recovery
            .then(|| self.sack_retransmit(now, &mut out, true));
        let mut queued = 0;
        while self.send_head < self.skbs.len() && !self.pace_wait(now) {
            let mut skb = self.skbs[self.send_head];
            if self.small_queue_full(skb.len as u64, queued) {
                self.tsq_throttled = true;
                break;
            }
            let mut end = skb.seq + skb.len as u64;
            let limit = match pipe {
                Some(p) if p >= self.cwnd => break,
                Some(_) => self.snd_una + self.peer_wnd,
                None => self.snd_una + self.cwnd.min(self.peer_wnd),
            };
            if end > limit {
                // Send what fits when that is worth a segment (RFC 1122 sender-side SWS
                // avoidance: at least min(MSS, half the largest window offered)).
                let usable = limit.saturating_sub(skb.seq);
                if usable == 0 || usable < (self.mss as u64).min(self.max_peer_wnd / 2).max(1) {
                    break;
                }
                self.split(self.send_head, usable);
                skb = self.skbs[self.send_head];
                end = skb.seq + skb.len as u64;
            }
            // Nagle: a small segment waits while data is unacknowledged (Minshall: while an
            // earlier small segment is).
            let small = (skb.len as u64) < self.mss as u64;
            let held = match self.nagle {
                Nagle::Rfc896 => self.in_flight() > 0,
                Nagle::Minshall => self.snd_sml > self.snd_una && self.snd_sml <= self.snd_nxt,
            };
            if !self.nodelay && small && held {
                break;
            }
            if small {
                self.snd_sml = end;
            }
            let retx = skb.seq < self.snd_max;
            self.skbs[self.send_head].sent_at = Some(now);
            self.paced_sent(now, self.send_head);
            self.send_head += 1;
            self.snd_nxt = self.snd_nxt.max(end);
            self.snd_max = self.snd_max.max(end);
            if retx {
                self.stats.retransmitted_segments += 1;
                self.stats.retransmitted_bytes += skb.len as u64;
            }
            self.stats.data_segments_sent += 1;
            if self.rto_deadline.is_none() {
                self.rto_deadline = Some(self.slow_at(now + self.rto));
            }
            // Sending data soon after receiving makes the connection interactive (pingpong).
            if now - self.last_rx < self.delack {
                self.pingpong = true;
            }
            self.last_data_sent = now;
            if let Some(p) = pipe.as_mut() {
                *p += skb.len as u64;
            }
            queued += skb.len as u64;
            out.push(self.stamp(skb.segment()));
        }
        if self.sack_recovery {
            self.sack_retransmit(now, &mut out, false);
        }
        self.check_app_limited();
        out.extend(self.fin_output(now));
        // Data waits, nothing is in flight to bring an ACK: probe the window later (persist).
        let waiting = self.send_head < self.skbs.len() && self.snd_nxt == self.snd_una;
        self.persist_deadline = match (waiting, self.persist_deadline) {
            (true, None) => Some(self.slow_at(now + self.rto)),
            (true, d) => d,
            (false, _) => None,
        };
        if self.tso_max_payload > self.mss {
            out = merge_for_tso(out, self.tso_max_payload);
        }
        out
    }

    /// TCP segmentation offload: the segments one output sends back to back leave as one
    /// segment of up to `max_payload_bytes`, which the NIC cuts into MSS frames. The send
    /// queue, SACK and retransmission still work in MSS units, as Linux's do after a split.
    pub fn set_tso(&mut self, max_payload_bytes: u32) {
        self.tso_max_payload = max_payload_bytes;
    }

    /// The largest IP datagram the device's GSO takes (`nic.tso_max_bytes`: Linux's
    /// `sk_gso_max_size`, which software GSO has too, so set with or without TSO). It caps
    /// BBR's paced bursts; `set_tso` sets what a send carries.
    pub fn set_gso_max(&mut self, bytes: u64) {
        self.cc.set_gso_max(bytes);
    }

    /// Whether pacing (BBR's) holds output back at `now`; if so the pacing timer is armed.
    fn pace_wait(&mut self, now: Time) -> bool {
        let Some(at) = self.cc.paced().and_then(|p| p.wait_until(now)) else {
            return false;
        };
        self.pace_deadline = Some(at);
        true
    }

    /// Segment `i` leaves at `now`: stamped for BBR's rate sampler, counted against its burst.
    fn paced_sent(&mut self, now: Time, i: usize) {
        let in_flight = self.in_flight();
        if let Some(p) = self.cc.paced_mut() {
            let skb = &mut self.skbs[i];
            skb.rate = p.sent(now, in_flight, skb.len as u64);
        }
    }

    /// After output: with less than a segment left to send and room in the window, what is
    /// in flight now is all the application gave (`tcp_rate_check_app_limited`).
    fn check_app_limited(&mut self) {
        let in_flight = self.in_flight();
        let idle = self.write_seq - self.snd_nxt < self.mss as u64 && in_flight < self.cwnd;
        if let Some(p) = self.cc.paced_mut().filter(|_| idle) {
            p.app_limited(in_flight);
        }
    }

    /// The pacing timer fired at `now`: output may go on, if it is still waiting.
    pub fn on_pace(&mut self, now: Time) -> bool {
        if self.pace_deadline != Some(now) {
            return false;
        }
        self.pace_deadline = None;
        true
    }

    /// The persist timer fired at `now`: a window probe to send, if it is still needed.
    pub fn on_persist(&mut self, now: Time) -> Option<Segment> {
        if self.persist_deadline.is_none_or(|d| d > now) {
            return None;
        }
        self.persist_deadline = None;
        self.stats.window_probes += 1;
        Some(self.stamp(Segment::pure_ack(WINDOW_PROBE_SEQ)))
    }

    /// Cuts skb `i` after `first` bytes (tcp_fragment); the tail keeps the PUSH flag.
    pub(super) fn split(&mut self, i: usize, first: u64) {
        let s = self.skbs[i];
        let tail = TxSkb {
            seq: s.seq + first,
            len: s.len - first as u32,
            push: s.push,
            sent_at: None,
            sacked: s.sacked,
            retrans: false,
            rate: s.rate,
        };
        self.skbs[i].len = first as u32;
        self.skbs[i].push = false;
        self.skbs.insert(i + 1, tail);
        if self.charge_truesize {
            self.wmem_queued += self.skb_overhead;
        }
    }

    /// A pure ACK carrying the current cumulative ACK and window.
    pub fn make_ack(&mut self) -> Segment {
        self.stats.acks_sent += 1;
        self.stamp(Segment::pure_ack(self.snd_nxt))
    }

    /// Fills in ACK and window, and records that they were advertised.
    pub(super) fn stamp(&mut self, mut s: Segment) -> Segment {
        let w = self.select_window();
        // The peer's FIN takes one sequence number after its data.
        s.ack = self.rcv_nxt + self.rcv_fin as u64;
        s.sack = self.sack_blocks_now(s.len);
        self.stats.sack_blocks_sent += s.sack.len() as u64;
        s.flow = self.flow;
        s.win = w as u32;
        self.rcv_wup = self.rcv_nxt;
        self.rcv_wnd = w;
        self.ack_scheduled = false;
        self.ack_pushed = false;
        self.delack_deadline = None;
        if self.quick > 0 && s.len == 0 {
            self.quick -= 1;
        }
        self.stats.segments_sent += 1;
        s
    }

    /// The retransmission timer fired at `now`: go back to the first unacknowledged byte.
    pub fn on_rto(&mut self, now: Time) -> bool {
        if self.rto_deadline != Some(now) {
            return false;
        }
        if matches!(self.state, State::SynSent | State::SynRcvd) {
            return self.handshake_rto();
        }
        if self.snd_nxt == self.snd_una {
            return false;
        }
        self.stats.rto_expiries += 1;
        let mss = self.mss as u64;
        self.ssthresh = self.cc.loss_ssthresh(self.cwnd, self.in_flight(), mss);
        self.cwnd = mss;
        self.cc.on_rto();
        self.recover = None;
        self.retx_next = None;
        self.clear_scoreboard();
        self.go_back();
        self.backoff += 1;
        self.rto = Duration(self.rto.0.saturating_mul(2)).min(Duration(120_000_000_000_000));
        self.rto_deadline = None;
        true
    }

    /// Resend from the first unacknowledged byte.
    pub(super) fn go_back(&mut self) {
        self.snd_nxt = self.snd_una;
        self.send_head = 0;
    }
}

/// Runs of contiguous data segments (no SYN or FIN) merged into segments of at most `max`
/// payload bytes; a merged segment pushes if any of its parts did.
fn merge_for_tso(segs: Vec<Segment>, max: u32) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::with_capacity(segs.len());
    for s in segs {
        if let Some(last) = out.last_mut() {
            let data = |x: &Segment| x.len > 0 && x.ctl == 0;
            if data(last)
                && data(&s)
                && last.seq + last.len as u64 == s.seq
                && last.len + s.len <= max
            {
                last.len += s.len;
                last.push |= s.push;
                continue;
            }
        }
        out.push(s);
    }
    out
}
