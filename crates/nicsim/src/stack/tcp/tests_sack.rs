//! SACK end to end: two endpoints wired back to back, with chosen segments lost on the way.

use super::tests::tests_support::cfg;
use super::*;

const MSS: u64 = 1448;
/// One-way delay of the wire between the endpoints.
const DELAY_PS: u64 = 1_000_000_000; // 1 ms
/// Serialisation at 1 Gb/s: 8 ns per byte.
const PS_PER_BYTE: u64 = 8_000;

/// `a` sends, `b` receives and reads everything at once; frames cross a 1 Gb/s lane per
/// direction and the wire's delay. The first transmission of each sequence in `drops` is
/// lost on the way to `b`. Everything is ordered by (time, order sent): deterministic.
struct Pair {
    a: Tcp,
    b: Tcp,
    /// (arrival, order) → (towards b, segment).
    wire: BTreeMap<(u64, u64), (bool, Segment)>,
    order: u64,
    lane_free: [u64; 2],
    drops: Vec<u64>,
    /// Every segment sent: (time, towards b, segment).
    log: Vec<(u64, bool, Segment)>,
}

impl Pair {
    fn new(sack_a: bool, sack_b: bool, iw: u32, drops: &[u64]) -> Pair {
        let mk = |sack| {
            let mut c = cfg();
            c.sack = sack;
            c.initial_window_segments = iw;
            Tcp::new(&c, 1500, true, 1)
        };
        Pair {
            a: mk(sack_a),
            b: mk(sack_b),
            wire: BTreeMap::new(),
            order: 0,
            lane_free: [0; 2],
            drops: drops.to_vec(),
            log: Vec::new(),
        }
    }

    fn send(&mut self, now: u64, to_b: bool, segs: Vec<Segment>) {
        for s in segs {
            self.log.push((now, to_b, s));
            let bytes = s.len as u64 + header_bytes(true) + s.sack_option_bytes();
            let lane = &mut self.lane_free[to_b as usize];
            *lane = now.max(*lane) + bytes * PS_PER_BYTE;
            let arrival = *lane + DELAY_PS;
            if let Some(i) = self.drops.iter().position(|&d| to_b && d == s.seq) {
                self.drops.remove(i);
                continue;
            }
            self.wire.insert((arrival, self.order), (to_b, s));
            self.order += 1;
        }
    }

    /// Runs until `b` has read `total` bytes written by `a` at time 0; returns that time.
    fn run(&mut self, total: u64) -> u64 {
        self.a.write(total, true);
        let first = self.a.output(Time(0));
        self.send(0, true, first);
        let mut done = 0;
        while self.b.read_seq() < total {
            let frame = self.wire.keys().next().map(|k| k.0);
            let timer = [self.a.rto_deadline, self.b.delack_deadline]
                .into_iter()
                .flatten()
                .map(|t| t.0)
                .min();
            let now = match (frame, timer) {
                (Some(f), Some(t)) => f.min(t),
                (f, t) => f.or(t).expect("something pending"),
            };
            assert!(now < 100_000_000_000_000, "stalled: {}", self.a.describe());
            let t = Time(now);
            done = now;
            if frame == Some(now) {
                let (_, (to_b, seg)) = self.wire.pop_first().unwrap();
                let end = if to_b { &mut self.b } else { &mut self.a };
                let r = end.on_segment(t, &seg);
                let read_ack = to_b && end.read(u64::MAX).2;
                let mut out = end.output(t);
                if out.is_empty() && (r.ack_now || read_ack) {
                    out.push(end.make_ack());
                }
                self.send(now, !to_b, out);
            } else if self.a.rto_deadline == Some(t) {
                assert!(self.a.on_rto(t));
                let out = self.a.output(t);
                self.send(now, true, out);
            } else if self.b.on_delack(t) {
                let ack = self.b.make_ack();
                self.send(now, false, vec![ack]);
            }
        }
        done
    }
}

/// Twenty segments in one window, four of them (spread out) lost.
const LOST: [u64; 4] = [3 * MSS, 7 * MSS, 11 * MSS, 15 * MSS];

#[test]
fn four_losses_in_one_window_recover_in_fewer_round_trips_with_sack() {
    let total = 20 * MSS;
    let rtt = 2 * DELAY_PS;
    let mut reno = Pair::new(false, false, 20, &LOST);
    let reno_t = reno.run(total);
    let mut sack = Pair::new(true, true, 20, &LOST);
    let sack_t = sack.run(total);
    eprintln!(
        "20 segments, 4 lost, RTT {} ms: NewReno {:.3} ms ({:.2} RTT, {} retransmits), SACK {:.3} ms ({:.2} RTT, {} retransmits)",
        rtt as f64 / 1e9,
        reno_t as f64 / 1e9,
        reno_t as f64 / rtt as f64,
        reno.a.stats.retransmitted_segments,
        sack_t as f64 / 1e9,
        sack_t as f64 / rtt as f64,
        sack.a.stats.retransmitted_segments,
    );
    // NewReno learns of one hole per round trip: the first fast retransmit, then three
    // partial ACKs, each a round trip after the last.
    assert!(reno_t > 4 * rtt, "NewReno took {reno_t} ps");
    // SACK resends all four holes within the round trip that reports them.
    assert!(sack_t < 3 * rtt, "SACK took {sack_t} ps");
    assert!(reno_t >= sack_t + 2 * rtt);
    for p in [&reno, &sack] {
        assert_eq!(p.a.stats.rto_expiries, 0);
        assert_eq!(p.a.stats.fast_retransmits, 1);
        assert_eq!(
            p.a.stats.retransmitted_segments, 4,
            "only the lost segments go again"
        );
    }
    assert_eq!(sack.a.stats.sack_recovery_retransmits, 4);
    assert_eq!(reno.a.stats.sack_recovery_retransmits, 0);
    assert!(sack.b.stats.sack_blocks_sent > 0);
    assert_eq!(reno.b.stats.sack_blocks_sent, 0);
}

/// Retransmission order: SACK fills the holes lowest first, all before the first one is
/// acknowledged.
#[test]
fn sack_retransmits_every_hole_before_the_first_is_acknowledged() {
    let mut sack = Pair::new(true, true, 20, &LOST);
    sack.run(20 * MSS);
    let retx: Vec<(u64, u64)> = sack
        .log
        .iter()
        .filter(|(t, to_b, s)| *to_b && s.len > 0 && *t > 0)
        .map(|(t, _, s)| (*t, s.seq))
        .collect();
    assert_eq!(retx.iter().map(|r| r.1).collect::<Vec<_>>(), LOST.to_vec());
    let first_partial_ack = sack
        .log
        .iter()
        .find(|(_, to_b, s)| !*to_b && s.ack > 3 * MSS)
        .unwrap()
        .0;
    assert!(retx[3].0 < first_partial_ack + DELAY_PS);
}

/// The last segment of the window is lost too: nothing is SACKed above it, so only the
/// partial ACK that follows the first repair can reveal it. It goes at once, not at the RTO.
#[test]
fn a_lost_last_segment_goes_again_on_the_partial_ack() {
    let rtt = 2 * DELAY_PS;
    let mut sack = Pair::new(true, true, 20, &[3 * MSS, 19 * MSS]);
    let t = sack.run(20 * MSS);
    assert_eq!(sack.a.stats.rto_expiries, 0);
    assert_eq!(sack.a.stats.sack_recovery_retransmits, 2);
    assert!(t < 3 * rtt, "took {t} ps");
}

/// With no losses nothing is ever out of order: SACK on or off, the same segments go at the
/// same times (slow start over 200 segments, delayed ACKs included).
#[test]
fn without_losses_sack_changes_nothing() {
    let mut on = Pair::new(true, true, 2, &[]);
    let mut off = Pair::new(false, false, 2, &[]);
    assert_eq!(on.run(200 * MSS), off.run(200 * MSS));
    assert!(on.log.len() > 200);
    assert_eq!(on.log, off.log);
    assert!(on.log.iter().all(|(_, _, s)| s.sack.is_empty()));
}

/// A SACK-capable sender whose peer sends no blocks behaves exactly as NewReno.
#[test]
fn a_sender_without_blocks_from_its_peer_is_newreno() {
    let mut reno = Pair::new(false, false, 20, &LOST);
    let mut half = Pair::new(true, false, 20, &LOST);
    assert_eq!(reno.run(20 * MSS), half.run(20 * MSS));
    assert_eq!(reno.log, half.log);
    assert_eq!(half.a.stats.sack_recovery_retransmits, 0);
}
