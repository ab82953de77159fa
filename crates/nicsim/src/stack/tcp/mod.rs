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
//! with go-back-N. Congestion control (`tcp.congestion`) is one controller behind one
//! interface (`congestion/`): Reno's (`newreno.rs`), CUBIC's (`cubic.rs`) or BBR's (`bbr.rs`,
//! with the rate sampler and pacing clock of `pacing.rs`). With `tcp.sack` (`sack.rs`): the
//! receiver's SACK blocks (RFC 2018, at most three, beside the timestamp option) and, once the
//! peer's ACKs carry blocks, a sender scoreboard with RFC 6675 loss recovery (IsLost, pipe,
//! NextSeg). Both ends share one configuration, so the handshake's SACK-permitted negotiation
//! is implicit.
//!
//! Not modelled: D-SACK (RFC 2883), FACK, SACK reneging (the receiver never discards queued
//! out-of-order data, so the sender keeps its scoreboard until recovery ends or an RTO, when
//! RFC 6675 §5.1 has it forget) and rescue retransmission. Setup and teardown (the
//! handshake, FIN, TIME_WAIT) are in `lifecycle.rs`; `Tcp::new` starts established, as the
//! two-host benchmarks' connections are (they open before anything is measured).

use crate::config::{AckPolicy, BufferSemantics, Nagle, Tcp as TcpCfg, TimerTicks};
use crate::units::{Duration, Time};
use congestion::{pacing, Controller};
use std::collections::{BTreeMap, VecDeque};

mod congestion;
mod input;
mod lifecycle;
mod output;
mod recv;
mod sack;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_lifecycle;
#[cfg(test)]
mod tests_linux6;
#[cfg(test)]
mod tests_sack;

pub use lifecycle::{State, FIN, SYN};
pub use sack::SackBlocks;

pub const IP_HEADER_BYTES: u64 = 20;
pub const TCP_HEADER_BYTES: u64 = 20;
pub const TIMESTAMP_OPTION_BYTES: u64 = 12;
/// Linux's `MAX_TCP_HEADER` on x86-64, the headroom an skb keeps for every header below TCP's
/// data: L1_CACHE_ALIGN(128 + MAX_HEADER) (`include/net/tcp.h`), MAX_HEADER = LL_MAX_HEADER
/// 128 + 48 for tunnels in a distribution kernel (`include/linux/netdevice.h`), 304 rounded up
/// to the 64-byte line. A GSO send carries at most `sk_gso_max_size - 1 - MAX_TCP_HEADER`.
pub const MAX_TCP_HEADER_BYTES: u64 = 320;
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

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    pub ack: u64,
    pub win: u32,
    pub push: bool,
    /// The connection (both ends share the id, the frame header's `FlowId`, which demultiplexes).
    pub flow: u32,
    /// SACK blocks (RFC 2018) for data held beyond `ack`; empty when there is none.
    pub sack: SackBlocks,
    /// Control flags: `SYN`, `FIN`.
    pub ctl: u8,
}

impl Segment {
    /// A segment without payload at `seq`; `Tcp::stamp` fills in the ACK, window and flow.
    pub fn pure_ack(seq: u64) -> Segment {
        Segment {
            seq,
            ..Segment::default()
        }
    }

    /// No payload and no control flag: an acknowledgement (or window probe) only.
    pub fn is_pure_ack(&self) -> bool {
        self.len == 0 && self.ctl == 0
    }
}

#[derive(Clone, Copy, Debug)]
struct TxSkb {
    seq: u64,
    len: u32,
    push: bool,
    sent_at: Option<Time>,
    /// The peer reported this buffer in a SACK block (the scoreboard).
    sacked: bool,
    /// Retransmitted during the current SACK recovery (RFC 6675 HighRxt, per buffer).
    retrans: bool,
    /// The rate sampler's state when it left (BBR only).
    rate: pacing::SendStamp,
}

impl TxSkb {
    /// The data segment this buffer goes out as; `stamp` fills in the ACK and window.
    fn segment(&self) -> Segment {
        Segment {
            seq: self.seq,
            len: self.len,
            push: self.push,
            ..Segment::default()
        }
    }
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
    /// SACK blocks carried by the segments sent (a count of blocks, not of segments).
    pub sack_blocks_sent: u64,
    /// Segments retransmitted from the SACK scoreboard during RFC 6675 recovery.
    pub sack_recovery_retransmits: u64,
    /// SYNs and SYN-ACKs sent, and how many of them were retransmissions.
    pub syns_sent: u64,
    pub syn_retransmits: u64,
    pub fins_sent: u64,
}

impl TcpStats {
    /// Adds another connection's counts (a freed slot's, folded into its node's totals). The
    /// pattern names every field, so a new counter cannot be left out.
    pub fn add(&mut self, o: &TcpStats) {
        let &TcpStats {
            segments_sent,
            data_segments_sent,
            acks_sent,
            retransmitted_segments,
            retransmitted_bytes,
            rto_expiries,
            fast_retransmits,
            delack_expiries,
            window_probes,
            dup_acks,
            out_of_order_queued,
            out_of_order_dropped,
            out_of_order_bytes,
            duplicate_bytes,
            sack_blocks_sent,
            sack_recovery_retransmits,
            syns_sent,
            syn_retransmits,
            fins_sent,
        } = o;
        self.segments_sent += segments_sent;
        self.data_segments_sent += data_segments_sent;
        self.acks_sent += acks_sent;
        self.retransmitted_segments += retransmitted_segments;
        self.retransmitted_bytes += retransmitted_bytes;
        self.rto_expiries += rto_expiries;
        self.fast_retransmits += fast_retransmits;
        self.delack_expiries += delack_expiries;
        self.window_probes += window_probes;
        self.dup_acks += dup_acks;
        self.out_of_order_queued += out_of_order_queued;
        self.out_of_order_dropped += out_of_order_dropped;
        self.out_of_order_bytes += out_of_order_bytes;
        self.duplicate_bytes += duplicate_bytes;
        self.sack_blocks_sent += sack_blocks_sent;
        self.sack_recovery_retransmits += sack_recovery_retransmits;
        self.syns_sent += syns_sent;
        self.syn_retransmits += syn_retransmits;
        self.fins_sent += fins_sent;
    }
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
    /// The handshake completed (wake the connecting thread, or queue for accept).
    pub established: bool,
    /// The peer's FIN was taken: a reader sees the end of the stream.
    pub fin: bool,
    /// The connection entered TIME_WAIT.
    pub time_wait: bool,
    /// The connection is done (our FIN acknowledged after the peer's, LAST_ACK).
    pub closed: bool,
}

#[derive(Clone, Debug)]
pub struct Tcp {
    /// This connection's id, stamped on every segment it sends.
    pub flow: u32,
    pub mss: u32,
    /// TSO: the largest payload one output segment may carry (0: off, segments of one MSS).
    tso_max_payload: u32,
    nodelay: bool,
    nagle: Nagle,
    /// The end of the last segment sent shorter than the MSS (Linux `snd_sml`).
    snd_sml: u64,
    /// TCP Small Queues' cap on bytes below TCP (`tcp_limit_output_bytes`; 0: no TSQ).
    tsq_limit_bytes: u64,
    /// Payload of its data sends still in the qdisc or the NIC's ring (`sk_wmem_alloc`), which
    /// the node keeps.
    pub below_bytes: u64,
    /// TSQ_THROTTLED: output stopped (TSQ) or a push was corked (autocorking) behind sends still
    /// below; the next reclaim of one of them pushes again.
    pub tsq_throttled: bool,
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
    ack_policy: AckPolicy,
    /// The routines whose ticks timers fire on (`tcp.timers`), if they do.
    ticks: Option<TimerTicks>,
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
    /// Congestion control (`tcp.congestion`): Reno's, CUBIC's, or BBR's with its pacing.
    cc: Controller,
    /// Pacing timer: armed while paced output waits for its next departure time.
    pub pace_deadline: Option<Time>,
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
    /// SACK is on (`tcp.sack`): send blocks, and keep a scoreboard of the peer's.
    sack: bool,
    /// The current recovery is driven by the scoreboard (RFC 6675) rather than NewReno.
    sack_recovery: bool,
    /// Bytes of `skbs` marked SACKed; 0 means NewReno behaviour, exactly.
    sacked_bytes: u64,
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
    /// Start of the latest segment queued out of order: its block is reported first.
    last_ooo: Option<u64>,
    rmem_alloc: u64,
    rcv_mss: u64,
    ack_scheduled: bool,
    ack_pushed: bool,
    pingpong: bool,
    quick: u32,
    last_rx: Time,
    last_data_sent: Time,
    pub delack_deadline: Option<Time>,
    // setup and teardown (`lifecycle.rs`)
    state: State,
    /// A SYN (or SYN-ACK) is to go out with the next output.
    syn_due: bool,
    /// When the first SYN left, for the handshake's RTT sample.
    syn_sent_at: Option<Time>,
    /// The sequence number our FIN takes, once close() was called.
    fin_seq: Option<u64>,
    /// The peer's FIN was taken (in order).
    rcv_fin: bool,
    /// The peer's FIN arrived beyond a hole.
    peer_fin_seq: Option<u64>,
    time_wait: Duration,
    syn_retries: u32,
    pub time_wait_deadline: Option<Time>,
    pub stats: TcpStats,
}

impl Tcp {
    /// When a delayed ACK wanted now is sent: after the delayed-ACK timeout, or at the next
    /// tick of the routine that sends them (BSD's `tcp_fasttimo` sends whatever is flagged).
    pub(super) fn delack_at(&self, now: Time) -> Time {
        match self.ticks {
            None => now + self.delack,
            Some(k) => Time((now.0 / k.delack_period.0 + 1) * k.delack_period.0),
        }
    }

    /// When a timer due at `t` fires: at `t`, or at the first tick of the routine that runs
    /// it at or after `t` (BSD's `tcp_slowtimo`).
    pub(super) fn slow_at(&self, t: Time) -> Time {
        match self.ticks {
            None => t,
            Some(k) => Time(t.0.div_ceil(k.slow_period.0) * k.slow_period.0),
        }
    }

    pub fn new(cfg: &TcpCfg, mtu: u64, nodelay: bool, flow: u32) -> Self {
        let mss = mss_bytes(mtu, cfg.timestamps) as u32;
        let doubled = match cfg.buffer_semantics {
            BufferSemantics::Linux => 2 * cfg.socket_buffer_bytes,
            BufferSemantics::Literal => cfg.socket_buffer_bytes,
        };
        let mut t = Tcp {
            flow,
            mss,
            tso_max_payload: 0,
            nodelay,
            nagle: cfg.nagle,
            snd_sml: 0,
            tsq_limit_bytes: cfg.limit_output_bytes,
            below_bytes: 0,
            tsq_throttled: false,
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
            ack_policy: cfg.ack_policy,
            ticks: cfg.timers.ticks(),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            write_seq: 0,
            skbs: VecDeque::new(),
            send_head: 0,
            wmem_queued: 0,
            cwnd: cfg.initial_window_segments as u64 * mss as u64,
            ssthresh: u64::MAX / 4,
            cc: Controller::new(
                cfg.congestion,
                mss as u64,
                cfg.initial_window_segments as u64 * mss as u64,
                flow,
            ),
            pace_deadline: None,
            peer_wnd: 0,
            max_peer_wnd: 0,
            dupacks: 0,
            fast_retransmit: cfg.fast_retransmit,
            dupack_threshold: cfg.dupack_threshold.max(1),
            recover: None,
            retx_next: None,
            sack: cfg.sack,
            sack_recovery: false,
            sacked_bytes: 0,
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
            last_ooo: None,
            rmem_alloc: 0,
            rcv_mss: (mss as u64).min(536),
            ack_scheduled: false,
            ack_pushed: false,
            pingpong: false,
            quick: 0,
            last_rx: Time::ZERO,
            last_data_sent: Time::ZERO,
            delack_deadline: None,
            state: State::Established,
            syn_due: false,
            syn_sent_at: None,
            fin_seq: None,
            rcv_fin: false,
            peer_fin_seq: None,
            time_wait: cfg.time_wait_ps,
            syn_retries: cfg.syn_retries,
            time_wait_deadline: None,
            stats: TcpStats::default(),
        };
        t.rcv_wnd = t.select_window_raw();
        t.peer_wnd = t.rcv_wnd; // symmetric endpoints: the handshake advertised this
        t.max_peer_wnd = t.peer_wnd;
        t.quick = t.quickack_max;
        t
    }

    /// An endpoint before its handshake (CLOSED): `connect` or `passive_open` opens it.
    pub fn new_closed(cfg: &TcpCfg, mtu: u64, nodelay: bool, flow: u32) -> Self {
        let mut t = Tcp::new(cfg, mtu, nodelay, flow);
        t.state = State::Closed;
        t
    }

    /// Buffer memory an skb of `len` payload bytes is charged.
    pub(super) fn truesize(&self, len: u64) -> u64 {
        if self.charge_truesize {
            len + self.skb_overhead
        } else {
            len
        }
    }

    // ---------------- receiver ----------------

    /// Its timers' deadlines, in `TimerSet`'s order: delayed ACK, retransmission, persist,
    /// TIME_WAIT, pacing.
    pub fn deadlines(&self) -> [Option<Time>; 5] {
        [
            self.delack_deadline,
            self.rto_deadline,
            self.persist_deadline,
            self.time_wait_deadline,
            self.pace_deadline,
        ]
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

    /// Stream offset of the next byte the reader copies out.
    pub fn read_seq(&self) -> u64 {
        self.copied_seq
    }

    /// Stream offset of the next byte a write queues.
    pub fn write_seq(&self) -> u64 {
        self.write_seq
    }

    /// Bytes queued for the reader.
    pub fn readable(&self) -> u64 {
        self.rcv_nxt - self.copied_seq
    }
}
