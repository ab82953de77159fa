//! One TCP connection endpoint, Linux 2.6 flavoured (host-path §6). Sans-IO: it is told of
//! application writes and reads, incoming segments and timer expiries, and returns the
//! segments to send and what to wake. Sequence numbers are 64-bit and never wrap.
//!
//! Modelled: MSS from the MTU, Linux buffer and window semantics (doubled buffers, truesize
//! charging, `adv_win_scale`, no window shrinking), slow start and congestion avoidance with
//! Appropriate Byte Counting (RFC 3465), RFC 3390 initial window, cumulative ACKs, delayed and
//! quick ACKs with `rcv_mss` estimation and the `tcp_cleanup_rbuf` window-update rule, Nagle
//! and TCP_NODELAY, an out-of-order queue at the receiver, fast retransmit with NewReno
//! recovery (one segment per duplicate-ACK signal or partial ACK), and retransmission timeout
//! with go-back-N. Not modelled: SACK.

use crate::config::{BufferSemantics, Tcp as TcpCfg};
use crate::units::{Duration, Time};
use std::collections::{BTreeMap, VecDeque};

pub const IP_HEADER_BYTES: u64 = 20;
pub const TCP_HEADER_BYTES: u64 = 20;
pub const TIMESTAMP_OPTION_BYTES: u64 = 12;
/// Bytes of IP and TCP header (with the timestamp option when it is on) in every segment.
pub fn header_bytes(timestamps: bool) -> u64 {
    let opt = if timestamps {
        TIMESTAMP_OPTION_BYTES
    } else {
        0
    };
    IP_HEADER_BYTES + TCP_HEADER_BYTES + opt
}

/// Maximum segment size for an MTU: the MTU less the IP and TCP headers and options.
pub fn mss_bytes(mtu: u64, timestamps: bool) -> u64 {
    mtu - header_bytes(timestamps)
}

/// RFC 3390 initial window in segments of `mss` bytes: min(4·MSS, max(2·MSS, 4380 bytes)),
/// at least one segment (what `tcp.initial_window_segments = 0` resolves to).
pub fn rfc3390_initial_window_segments(mss: u64) -> u32 {
    let mss = mss.max(1);
    ((4 * mss).min((2 * mss).max(4380)) / mss).max(1) as u32
}

/// Sequence number a window probe carries: outside any window, so the peer answers with an
/// ACK that states its current window (Linux sends `snd_una - 1` for the same effect).
pub const WINDOW_PROBE_SEQ: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    pub ack: u64,
    pub win: u32,
    pub push: bool,
}

impl Segment {
    pub fn is_pure_ack(&self) -> bool {
        self.len == 0
    }
}

#[derive(Clone, Copy, Debug)]
struct TxSkb {
    seq: u64,
    len: u32,
    push: bool,
    sent_at: Option<Time>,
}

#[derive(Clone, Debug, Default)]
pub struct TcpStats {
    pub segments_sent: u64,
    pub data_segments_sent: u64,
    pub acks_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub rto_expiries: u64,
    pub fast_retransmits: u64,
    pub delack_expiries: u64,
    pub window_probes: u64,
    pub dup_acks: u64,
    pub out_of_order_queued: u64,
    pub out_of_order_dropped: u64,
    pub out_of_order_bytes: u64,
    pub duplicate_bytes: u64,
}

/// What an input changed, for the caller to act on.
#[derive(Clone, Copy, Debug, Default)]
pub struct Input {
    /// New in-order payload queued for the reader.
    pub delivered_bytes: u64,
    /// Send-buffer space was freed (wake a blocked writer).
    pub space_freed: bool,
    /// An ACK should go out now.
    pub ack_now: bool,
    /// The segment carried a new ACK (the sender may transmit more).
    pub acked_new: bool,
}

#[derive(Clone, Debug)]
pub struct Tcp {
    pub mss: u32,
    nodelay: bool,
    semantics: BufferSemantics,
    adv_win_scale: u32,
    skb_overhead: u64,
    charge_truesize: bool,
    requested_buf: u64,
    sndbuf: u64,
    rcvbuf: u64,
    delack: Duration,
    rto_min: Duration,
    quickack_max: u32,
    // sender
    snd_una: u64,
    snd_nxt: u64,
    /// Highest sequence ever sent: anything below it is a retransmission.
    snd_max: u64,
    write_seq: u64,
    skbs: VecDeque<TxSkb>,
    send_head: usize,
    wmem_queued: u64,
    pub cwnd: u64,
    ssthresh: u64,
    abc_acked: u64,
    peer_wnd: u64,
    /// Largest window the peer has offered, for sender-side silly-window avoidance.
    max_peer_wnd: u64,
    dupacks: u32,
    fast_retransmit: bool,
    dupack_threshold: u32,
    /// In fast recovery until this sequence is acknowledged.
    recover: Option<u64>,
    /// A segment to retransmit at once (fast retransmit, NewReno partial ACK).
    retx_next: Option<u64>,
    srtt: Option<f64>,
    rttvar: f64,
    rto: Duration,
    backoff: u32,
    pub rto_deadline: Option<Time>,
    /// Persist timer: armed while unsent data waits on a window too small to use.
    pub persist_deadline: Option<Time>,
    // receiver
    rcv_nxt: u64,
    copied_seq: u64,
    rcv_wup: u64,
    rcv_wnd: u64,
    rx_queue: VecDeque<(u64, u64)>,
    /// Segments received beyond a hole: sequence → (length, truesize).
    ooo: BTreeMap<u64, (u64, u64)>,
    rmem_alloc: u64,
    rcv_mss: u64,
    ack_scheduled: bool,
    ack_pushed: bool,
    pingpong: bool,
    quick: u32,
    last_rx: Time,
    last_data_sent: Time,
    pub delack_deadline: Option<Time>,
    pub stats: TcpStats,
}

impl Tcp {
    pub fn new(cfg: &TcpCfg, mtu: u64, nodelay: bool) -> Self {
        let mss = mss_bytes(mtu, cfg.timestamps) as u32;
        let doubled = match cfg.buffer_semantics {
            BufferSemantics::Linux => 2 * cfg.socket_buffer_bytes,
            BufferSemantics::Literal => cfg.socket_buffer_bytes,
        };
        let mut t = Tcp {
            mss,
            nodelay,
            semantics: cfg.buffer_semantics,
            adv_win_scale: cfg.adv_win_scale,
            skb_overhead: cfg.skb_overhead_bytes,
            charge_truesize: cfg.charge_truesize,
            requested_buf: cfg.socket_buffer_bytes,
            sndbuf: doubled,
            rcvbuf: doubled,
            delack: cfg.delack_min_ps,
            rto_min: cfg.rto_min_ps,
            quickack_max: cfg.quickack_segments,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            write_seq: 0,
            skbs: VecDeque::new(),
            send_head: 0,
            wmem_queued: 0,
            cwnd: cfg.initial_window_segments as u64 * mss as u64,
            ssthresh: u64::MAX / 4,
            abc_acked: 0,
            peer_wnd: 0,
            max_peer_wnd: 0,
            dupacks: 0,
            fast_retransmit: cfg.fast_retransmit,
            dupack_threshold: cfg.dupack_threshold.max(1),
            recover: None,
            retx_next: None,
            srtt: None,
            rttvar: 0.0,
            rto: cfg.rto_initial_ps,
            backoff: 0,
            rto_deadline: None,
            persist_deadline: None,
            rcv_nxt: 0,
            copied_seq: 0,
            rcv_wup: 0,
            rcv_wnd: 0,
            rx_queue: VecDeque::new(),
            ooo: BTreeMap::new(),
            rmem_alloc: 0,
            rcv_mss: (mss as u64).min(536),
            ack_scheduled: false,
            ack_pushed: false,
            pingpong: false,
            quick: 0,
            last_rx: Time::ZERO,
            last_data_sent: Time::ZERO,
            delack_deadline: None,
            stats: TcpStats::default(),
        };
        t.rcv_wnd = t.select_window_raw();
        t.peer_wnd = t.rcv_wnd; // symmetric endpoints: the handshake advertised this
        t.max_peer_wnd = t.peer_wnd;
        t.quick = t.quickack_max;
        t
    }

    /// Buffer memory an skb of `len` payload bytes is charged.
    fn truesize(&self, len: u64) -> u64 {
        if self.charge_truesize {
            len + self.skb_overhead
        } else {
            len
        }
    }

    // ---------------- sender ----------------

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
            tail_room.max(self.mss as u64)
        }
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
            });
            self.wmem_queued += self.truesize(l);
            left -= l;
        }
        self.write_seq += len;
    }

    fn in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// Segments the windows and Nagle allow now; each leaves with the current ACK and window.
    pub fn output(&mut self, now: Time) -> Vec<Segment> {
        let mut out = Vec::new();
        if let Some(seq) = self.retx_next.take() {
            if let Some(i) = self.skbs.iter().position(|s| s.seq == seq) {
                let skb = self.skbs[i];
                self.skbs[i].sent_at = Some(now);
                self.stats.retransmitted_segments += 1;
                self.stats.retransmitted_bytes += skb.len as u64;
                self.stats.data_segments_sent += 1;
                out.push(self.stamp(Segment {
                    seq: skb.seq,
                    len: skb.len,
                    ack: 0,
                    win: 0,
                    push: skb.push,
                }));
            }
        }
        while self.send_head < self.skbs.len() {
            let mut skb = self.skbs[self.send_head];
            let mut end = skb.seq + skb.len as u64;
            let limit = self.snd_una + self.cwnd.min(self.peer_wnd);
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
            // Nagle: a small segment waits while data is unacknowledged.
            if !self.nodelay && (skb.len as u64) < self.mss as u64 && self.in_flight() > 0 {
                break;
            }
            let retx = skb.seq < self.snd_max;
            self.skbs[self.send_head].sent_at = Some(now);
            self.send_head += 1;
            self.snd_nxt = self.snd_nxt.max(end);
            self.snd_max = self.snd_max.max(end);
            if retx {
                self.stats.retransmitted_segments += 1;
                self.stats.retransmitted_bytes += skb.len as u64;
            }
            self.stats.data_segments_sent += 1;
            if self.rto_deadline.is_none() {
                self.rto_deadline = Some(now + self.rto);
            }
            // Sending data soon after receiving makes the connection interactive (pingpong).
            if now - self.last_rx < self.delack {
                self.pingpong = true;
            }
            self.last_data_sent = now;
            out.push(self.stamp(Segment {
                seq: skb.seq,
                len: skb.len,
                ack: 0,
                win: 0,
                push: skb.push,
            }));
        }
        // Data waits, nothing is in flight to bring an ACK: probe the window later (persist).
        let waiting = self.send_head < self.skbs.len() && self.snd_nxt == self.snd_una;
        self.persist_deadline = match (waiting, self.persist_deadline) {
            (true, None) => Some(now + self.rto),
            (true, d) => d,
            (false, _) => None,
        };
        out
    }

    /// The persist timer fired at `now`: a window probe to send, if it is still needed.
    pub fn on_persist(&mut self, now: Time) -> Option<Segment> {
        if self.persist_deadline.is_none_or(|d| d > now) {
            return None;
        }
        self.persist_deadline = None;
        self.stats.window_probes += 1;
        Some(self.stamp(Segment {
            seq: WINDOW_PROBE_SEQ,
            len: 0,
            ack: 0,
            win: 0,
            push: false,
        }))
    }

    /// Cuts skb `i` after `first` bytes (tcp_fragment); the tail keeps the PUSH flag.
    fn split(&mut self, i: usize, first: u64) {
        let s = self.skbs[i];
        let tail = TxSkb {
            seq: s.seq + first,
            len: s.len - first as u32,
            push: s.push,
            sent_at: None,
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
        self.stamp(Segment {
            seq: self.snd_nxt,
            len: 0,
            ack: 0,
            win: 0,
            push: false,
        })
    }

    /// Fills in ACK and window, and records that they were advertised.
    fn stamp(&mut self, mut s: Segment) -> Segment {
        let w = self.select_window();
        s.ack = self.rcv_nxt;
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

    fn on_ack(&mut self, now: Time, seg: &Segment, r: &mut Input) {
        self.peer_wnd = seg.win as u64;
        self.max_peer_wnd = self.max_peer_wnd.max(self.peer_wnd);
        if seg.ack > self.snd_una {
            let acked = seg.ack.min(self.snd_nxt.max(seg.ack)) - self.snd_una;
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
                }
                // A partial ACK: the next hole is lost too (NewReno, RFC 6582).
                Some(_) => self.retx_next = Some(self.snd_una),
                None => self.grow_cwnd(acked),
            }
            self.dupacks = 0;
            self.backoff = 0;
            self.rto_deadline = if self.snd_nxt > self.snd_una {
                Some(now + self.rto)
            } else {
                None
            };
            r.space_freed = true;
            r.acked_new = true;
        } else if seg.len == 0 && self.snd_max > self.snd_una {
            self.dupacks += 1;
            self.stats.dup_acks += 1;
            self.on_dupack(r);
        }
        if seg.win > 0 {
            r.acked_new = true; // a window update may allow output too
        }
    }

    /// Fast retransmit at the duplicate-ACK threshold (RFC 5681 §3.2), then window inflation
    /// by one segment per further duplicate while recovery lasts.
    fn on_dupack(&mut self, r: &mut Input) {
        let mss = self.mss as u64;
        if self.recover.is_some() {
            self.cwnd += mss;
            r.acked_new = true;
        } else if self.fast_retransmit && self.dupacks == self.dupack_threshold {
            self.stats.fast_retransmits += 1;
            self.ssthresh = ((self.snd_max - self.snd_una) / 2).max(2 * mss);
            self.cwnd = self.ssthresh + self.dupack_threshold as u64 * mss;
            self.recover = Some(self.snd_max);
            self.retx_next = Some(self.snd_una);
            r.acked_new = true;
        }
    }

    /// Resend from the first unacknowledged byte.
    fn go_back(&mut self) {
        self.snd_nxt = self.snd_una;
        self.send_head = 0;
    }

    /// Slow start with Appropriate Byte Counting (L = 2 MSS), then congestion avoidance.
    fn grow_cwnd(&mut self, acked: u64) {
        let mss = self.mss as u64;
        if self.cwnd < self.ssthresh {
            self.cwnd += acked.min(2 * mss);
        } else {
            self.abc_acked += acked;
            if self.abc_acked >= self.cwnd {
                self.abc_acked -= self.cwnd;
                self.cwnd += mss;
            }
        }
        // A window far beyond anything the peer can accept is meaningless; cap its growth.
        self.cwnd = self.cwnd.min(64 * self.sndbuf.max(mss));
    }

    fn rtt_sample(&mut self, r: f64) {
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
        self.rto = Duration((rto_s * 1e12) as u64).max(self.rto_min);
    }

    /// The retransmission timer fired at `now`: go back to the first unacknowledged byte.
    pub fn on_rto(&mut self, now: Time) -> bool {
        if self.rto_deadline != Some(now) || self.snd_nxt == self.snd_una {
            return false;
        }
        self.stats.rto_expiries += 1;
        let mss = self.mss as u64;
        self.ssthresh = (self.in_flight() / 2).max(2 * mss);
        self.cwnd = mss;
        self.abc_acked = 0;
        self.recover = None;
        self.retx_next = None;
        self.go_back();
        self.backoff += 1;
        self.rto = Duration(self.rto.0.saturating_mul(2)).min(Duration(120_000_000_000_000));
        self.rto_deadline = None;
        true
    }

    // ---------------- receiver ----------------

    /// The window the receiver can offer now: free buffer less the `adv_win_scale` share,
    /// rounded down to whole `rcv_mss`, never shrinking what was already offered.
    fn select_window_raw(&self) -> u64 {
        let w = match self.semantics {
            BufferSemantics::Linux => {
                let free = self.rcvbuf.saturating_sub(self.rmem_alloc);
                free - (free >> self.adv_win_scale)
            }
            BufferSemantics::Literal => self
                .requested_buf
                .saturating_sub(self.rcv_nxt - self.copied_seq),
        };
        if w > self.rcv_mss {
            w / self.rcv_mss * self.rcv_mss
        } else {
            w
        }
    }

    fn window_now(&self) -> u64 {
        (self.rcv_wup + self.rcv_wnd).saturating_sub(self.rcv_nxt)
    }

    fn select_window(&self) -> u64 {
        self.select_window_raw().max(self.window_now())
    }

    /// A segment arrived (after IP and TCP header processing).
    pub fn on_segment(&mut self, now: Time, seg: &Segment) -> Input {
        let mut r = Input::default();
        self.on_ack(now, seg, &mut r);
        if seg.len == 0 {
            // A window probe asks for our current window.
            r.ack_now = seg.seq == WINDOW_PROBE_SEQ;
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
        self.ack_scheduled = true;
        // Every second full-sized segment is acknowledged at once (RFC 1122, host-path §6
        // item 5), and every segment in quick-ack mode.
        let more_than_one = self.rcv_nxt - self.rcv_wup > self.rcv_mss;
        if more_than_one || (self.quick > 0 && !self.pingpong) {
            r.ack_now = true;
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.delack);
        }
        r
    }

    /// The connection's state in one line, for diagnosing a stalled run.
    pub fn describe(&self) -> String {
        format!(
            "written {} una {} nxt {} cwnd {} peer_wnd {} wmem {}/{}; rcv_nxt {} read {} rcv_wnd {} rmem {}/{} ooo {} delack {:?} rto {:?}",
            self.write_seq, self.snd_una, self.snd_nxt, self.cwnd, self.peer_wnd, self.wmem_queued, self.sndbuf,
            self.rcv_nxt, self.copied_seq, self.rcv_wnd, self.rmem_alloc, self.rcvbuf, self.ooo.len(),
            self.delack_deadline.map(|t| t.0), self.rto_deadline.map(|t| t.0)
        )
    }

    /// Bytes queued for the reader.
    pub fn readable(&self) -> u64 {
        self.rcv_nxt - self.copied_seq
    }

    /// The reader copied up to `max` bytes; returns (bytes, skbs freed, ack_now) following
    /// `tcp_recvmsg` and `tcp_cleanup_rbuf`.
    pub fn read(&mut self, max: u64) -> (u64, u32, bool) {
        let mut copied = 0;
        let mut freed = 0;
        while copied < max {
            let Some(front) = self.rx_queue.front_mut() else {
                break;
            };
            let take = front.0.min(max - copied);
            copied += take;
            front.0 -= take;
            if front.0 == 0 {
                self.rmem_alloc -= front.1;
                self.rx_queue.pop_front();
                freed += 1;
            }
        }
        self.copied_seq += copied;
        let mut ack = false;
        if self.ack_scheduled
            && (self.rcv_nxt - self.rcv_wup > self.rcv_mss
                || (copied > 0 && self.ack_pushed && !self.pingpong && self.rmem_alloc == 0))
        {
            ack = true;
        }
        if copied > 0 && !ack {
            let now_w = self.window_now();
            let clamp = match self.semantics {
                BufferSemantics::Linux => self.rcvbuf - (self.rcvbuf >> self.adv_win_scale),
                BufferSemantics::Literal => self.requested_buf,
            };
            if 2 * now_w <= clamp {
                let new_w = self.select_window_raw();
                if new_w > 0 && new_w >= 2 * now_w {
                    ack = true;
                }
            }
        }
        (copied, freed, ack)
    }

    /// The delayed-ACK timer fired at `now`; returns whether to send an ACK.
    pub fn on_delack(&mut self, now: Time) -> bool {
        if self.delack_deadline != Some(now) {
            return false;
        }
        self.delack_deadline = None;
        self.stats.delack_expiries += 1;
        // A missed delayed ACK ends interactive mode (tcp_delack_timer).
        self.pingpong = false;
        self.ack_scheduled
    }
}

#[cfg(test)]
mod tests_support {
    use super::*;

    pub fn cfg() -> TcpCfg {
        TcpCfg {
            socket_buffer_bytes: 65536,
            buffer_semantics: BufferSemantics::Linux,
            adv_win_scale: 2,
            timestamps: true,
            skb_overhead_bytes: 0,
            charge_truesize: true,
            initial_window_segments: 2,
            delack_min_ps: Duration(40_000_000_000),
            quickack_segments: 0,
            rto_min_ps: Duration(200_000_000_000),
            rto_initial_ps: Duration(3_000_000_000_000),
            fast_retransmit: true,
            dupack_threshold: 3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::cfg;
    use super::*;

    #[test]
    fn mss_follows_mtu_and_timestamps() {
        assert_eq!(Tcp::new(&cfg(), 9000, true).mss, 8948);
        assert_eq!(Tcp::new(&cfg(), 1500, true).mss, 1448);
        let mut c = cfg();
        c.timestamps = false;
        assert_eq!(Tcp::new(&c, 1500, true).mss, 1460);
    }

    #[test]
    fn linux_buffers_double_and_keep_a_quarter_back() {
        let t = Tcp::new(&cfg(), 1500, true);
        // 2 × 64 KiB = 131072, less a quarter = 98304, rounded down to 536-byte rcv_mss.
        assert_eq!(t.rcv_wnd, 98304 / 536 * 536);
    }

    #[test]
    fn slow_start_sends_initial_window_then_grows_by_bytes_acked() {
        let mut a = Tcp::new(&cfg(), 1500, true);
        a.write(10 * 1448, true);
        let first = a.output(Time(0));
        assert_eq!(first.len(), 2);
        let ack = Segment {
            seq: 0,
            len: 0,
            ack: 2 * 1448,
            win: 60000,
            push: false,
        };
        let r = a.on_segment(Time(1000), &ack);
        assert!(r.space_freed && r.acked_new);
        assert_eq!(a.cwnd, 4 * 1448);
        assert_eq!(a.output(Time(1000)).len(), 4);
    }

    #[test]
    fn nagle_holds_a_small_segment_while_data_is_unacked() {
        let mut a = Tcp::new(&cfg(), 1500, false);
        a.write(100, true);
        assert_eq!(a.output(Time(0)).len(), 1);
        a.write(100, true);
        assert!(a.output(Time(1)).is_empty());
        let mut b = Tcp::new(&cfg(), 1500, true);
        b.write(100, true);
        b.write(100, true);
        // Two writes before any output merge into one unsent skb.
        assert_eq!(b.output(Time(0)).len(), 1);
        b.write(100, true);
        assert_eq!(b.output(Time(1)).len(), 1);
    }

    #[test]
    fn receiver_acks_every_second_full_segment_and_delays_a_lone_one() {
        let mut b = Tcp::new(&cfg(), 1500, true);
        b.rcv_mss = 1448;
        let s1 = Segment {
            seq: 0,
            len: 1448,
            ack: 0,
            win: 60000,
            push: false,
        };
        let r1 = b.on_segment(Time(0), &s1);
        assert!(!r1.ack_now);
        assert_eq!(b.delack_deadline, Some(Time(40_000_000_000)));
        let s2 = Segment {
            seq: 1448,
            len: 1448,
            ack: 0,
            win: 60000,
            push: false,
        };
        assert!(b.on_segment(Time(10), &s2).ack_now);
    }

    #[test]
    fn out_of_order_segment_is_held_dup_acked_and_delivered_when_the_hole_fills() {
        let mut b = Tcp::new(&cfg(), 1500, true);
        let later = Segment {
            seq: 1000,
            len: 1000,
            ack: 0,
            win: 60000,
            push: false,
        };
        let r = b.on_segment(Time(0), &later);
        assert!(r.ack_now);
        assert_eq!(r.delivered_bytes, 0);
        assert_eq!(b.stats.out_of_order_queued, 1);
        let hole = Segment {
            seq: 0,
            len: 1000,
            ack: 0,
            win: 60000,
            push: false,
        };
        let r = b.on_segment(Time(1), &hole);
        assert_eq!(r.delivered_bytes, 2000);
        assert_eq!(b.readable(), 2000);
    }

    #[test]
    fn rto_goes_back_to_the_first_unacked_byte() {
        let mut a = Tcp::new(&cfg(), 1500, true);
        a.write(2 * 1448, true);
        assert_eq!(a.output(Time(0)).len(), 2);
        let deadline = a.rto_deadline.unwrap();
        assert!(a.on_rto(deadline));
        assert_eq!(a.cwnd, 1448);
        let again = a.output(deadline);
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].seq, 0);
        assert_eq!(a.stats.retransmitted_bytes, 1448);
    }
}

#[cfg(test)]
mod recovery_tests {
    use super::tests_support::cfg;
    use super::*;

    #[test]
    fn three_duplicate_acks_retransmit_without_waiting_for_the_timer() {
        let mut a = Tcp::new(&cfg(), 1500, true);
        a.cwnd = 10 * 1448;
        a.write(10 * 1448, true);
        assert_eq!(a.output(Time(0)).len(), 10);
        let dup = Segment {
            seq: 0,
            len: 0,
            ack: 1448,
            win: 60000,
            push: false,
        };
        let first = a.on_segment(Time(10), &dup);
        assert!(first.acked_new);
        for t in 11..13 {
            a.on_segment(Time(t), &dup);
        }
        assert_eq!(a.stats.fast_retransmits, 0, "two duplicates are not enough");
        let r = a.on_segment(Time(13), &dup);
        assert!(r.acked_new);
        assert_eq!(a.stats.fast_retransmits, 1);
        let again = a.output(Time(14));
        assert_eq!(again.len(), 1, "only the missing segment");
        assert_eq!(again[0].seq, 1448);
        assert_eq!(a.stats.rto_expiries, 0);
        // Recovery ends when everything sent before it is acknowledged.
        let full = Segment {
            seq: 0,
            len: 0,
            ack: 10 * 1448,
            win: 60000,
            push: false,
        };
        a.on_segment(Time(20), &full);
        assert_eq!(a.cwnd, a.ssthresh);
    }
}

#[cfg(test)]
mod window_tests {
    use super::tests_support::cfg;
    use super::*;

    #[test]
    fn a_window_smaller_than_a_segment_sends_what_fits() {
        let mut a = Tcp::new(&cfg(), 9000, true);
        a.peer_wnd = 6144;
        a.max_peer_wnd = 6144;
        a.write(8948, true);
        let out = a.output(Time(0));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].len, 6144);
        assert!(!out[0].push, "the tail keeps PUSH");
        // The rest goes when the window reopens.
        let ack = Segment {
            seq: 0,
            len: 0,
            ack: 6144,
            win: 6144,
            push: false,
        };
        a.on_segment(Time(10), &ack);
        let rest = a.output(Time(10));
        assert_eq!(
            (rest[0].seq, rest[0].len, rest[0].push),
            (6144, 8948 - 6144, true)
        );
    }

    #[test]
    fn silly_windows_are_not_filled() {
        let mut a = Tcp::new(&cfg(), 1500, true);
        a.peer_wnd = 100;
        a.max_peer_wnd = 60000;
        a.write(1448, true);
        assert!(a.output(Time(0)).is_empty());
    }
}

#[cfg(test)]
mod persist_tests {
    use super::tests_support::cfg;
    use super::*;

    #[test]
    fn a_stuck_sender_probes_the_window_and_the_peer_answers() {
        let mut a = Tcp::new(&cfg(), 1500, true);
        a.peer_wnd = 100;
        a.max_peer_wnd = 60000;
        a.write(1448, true);
        assert!(a.output(Time(0)).is_empty());
        let t = a.persist_deadline.expect("persist timer armed");
        let probe = a.on_persist(t).expect("a probe");
        assert_eq!((probe.seq, probe.len), (WINDOW_PROBE_SEQ, 0));
        let mut b = Tcp::new(&cfg(), 1500, true);
        assert!(
            b.on_segment(t, &probe).ack_now,
            "the peer answers a probe with its window"
        );
    }
}

#[cfg(test)]
mod overlap_tests {
    use super::tests_support::cfg;
    use super::*;

    #[test]
    fn a_retransmission_overlapping_received_data_delivers_only_the_new_part() {
        let mut b = Tcp::new(&cfg(), 1500, true);
        b.on_segment(
            Time(0),
            &Segment {
                seq: 0,
                len: 1000,
                ack: 0,
                win: 60000,
                push: false,
            },
        );
        let r = b.on_segment(
            Time(1),
            &Segment {
                seq: 500,
                len: 1000,
                ack: 0,
                win: 60000,
                push: false,
            },
        );
        assert_eq!(r.delivered_bytes, 500);
        assert_eq!(b.readable(), 1500);
        assert_eq!(b.stats.duplicate_bytes, 500);
    }

    #[test]
    fn a_sent_tail_does_not_grow_after_a_timeout() {
        let mut a = Tcp::new(&cfg(), 1500, true);
        a.write(700, true);
        assert_eq!(a.output(Time(0)).len(), 1);
        let t = a.rto_deadline.unwrap();
        assert!(a.on_rto(t));
        a.write(300, true);
        let out = a.output(t);
        // The resent segment keeps its boundaries; the new bytes follow in their own.
        assert_eq!(
            out.iter().map(|s| (s.seq, s.len)).collect::<Vec<_>>(),
            vec![(0, 700), (700, 300)]
        );
    }
}
