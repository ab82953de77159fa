//! Unit tests of setup and teardown: the handshake, its retransmission, FIN and TIME_WAIT.

use super::tests::tests_support::cfg;
use super::*;

const MS: u64 = 1_000_000_000;

fn ms(t: u64) -> Time {
    Time(t * MS)
}

/// Two endpoints before their handshake, on a 1500-byte MTU.
fn pair() -> (Tcp, Tcp) {
    (
        Tcp::new_closed(&cfg(), 1500, true, 7),
        Tcp::new_closed(&cfg(), 1500, true, 7),
    )
}

/// Hands every segment of `segs` to `to` at `now`; returns what it answers (ACKs and output).
fn deliver(to: &mut Tcp, now: Time, segs: &[Segment]) -> (Vec<Segment>, Input) {
    let mut out = Vec::new();
    let mut all = Input::default();
    for s in segs {
        let r = to.on_segment(now, s);
        if r.ack_now {
            out.push(to.make_ack());
        }
        if r.acked_new {
            out.extend(to.output(now));
        }
        all.established |= r.established;
        all.fin |= r.fin;
        all.time_wait |= r.time_wait;
        all.closed |= r.closed;
    }
    (out, all)
}

/// A handshake over a 1 ms path: the client's SYN at 0, the SYN-ACK at 1, the ACK at 2.
fn open() -> (Tcp, Tcp) {
    let (mut a, mut b) = pair();
    a.connect(ms(0));
    let syn = a.output(ms(0));
    b.passive_open(ms(1), &syn[0]);
    let synack = b.output(ms(1));
    let (ack, ra) = deliver(&mut a, ms(2), &synack);
    assert!(ra.established);
    let (_, rb) = deliver(&mut b, ms(3), &ack);
    assert!(rb.established);
    (a, b)
}

#[test]
fn the_three_way_handshake_opens_both_ends_and_samples_the_rtt() {
    let (mut a, mut b) = pair();
    a.connect(ms(0));
    let syn = a.output(ms(0));
    assert_eq!(syn.len(), 1);
    assert!(syn[0].syn() && !syn[0].is_pure_ack() && syn[0].len == 0);
    assert_eq!(a.state(), State::SynSent);
    // Nothing but the SYN may leave before the handshake ends.
    assert!(a.output(ms(0)).is_empty());
    b.passive_open(ms(1), &syn[0]);
    let synack = b.output(ms(1));
    assert!(synack[0].syn());
    assert_eq!(b.state(), State::SynRcvd);
    let (ack, ra) = deliver(&mut a, ms(2), &synack);
    assert!(ra.established && ack.len() == 1 && ack[0].is_pure_ack());
    assert_eq!(a.state(), State::Established);
    let (_, rb) = deliver(&mut b, ms(3), &ack);
    assert!(rb.established);
    assert_eq!(b.state(), State::Established);
    // A 2 ms sample puts the RTO at its 200 ms floor, not the 3 s initial value.
    assert_eq!(a.rto, cfg().rto_min_ps);
    assert_eq!(b.rto, cfg().rto_min_ps);
}

#[test]
fn a_lost_syn_is_sent_again_when_the_initial_rto_expires_then_backs_off() {
    let (mut a, mut b) = pair();
    a.connect(ms(0));
    let _lost = a.output(ms(0));
    let first = a
        .rto_deadline
        .expect("the SYN arms the retransmission timer");
    assert_eq!(first, ms(3000));
    assert!(!a.on_rto(ms(2999)));
    assert!(a.on_rto(first));
    let again = a.output(first);
    assert!(again.len() == 1 && again[0].syn());
    assert_eq!(a.stats.syn_retransmits, 1);
    assert_eq!(a.rto_deadline, Some(first + Duration(6000 * MS)));
    // The handshake completes; no RTT sample from a retransmitted SYN (Karn).
    b.passive_open(ms(3001), &again[0]);
    let synack = b.output(ms(3001));
    let (_, r) = deliver(&mut a, ms(3002), &synack);
    assert!(r.established);
    assert_eq!(a.rto, Duration(6000 * MS));
}

#[test]
fn the_handshake_gives_up_after_the_syn_retries() {
    let (mut a, _) = pair();
    a.connect(ms(0));
    a.output(ms(0));
    let mut sent = 1;
    while let Some(at) = a.rto_deadline {
        assert!(a.on_rto(at));
        sent += a.output(at).len();
    }
    assert_eq!(a.state(), State::Done);
    assert_eq!(sent as u32, 1 + cfg().syn_retries);
    // 3 + 6 + 12 + 24 + 48 s of retransmissions, then the last 96 s wait: Linux's 189 s.
    assert_eq!(a.stats.rto_expiries, 6);
}

#[test]
fn a_lost_syn_ack_is_answered_again_when_the_syn_is_retransmitted() {
    let (mut a, mut b) = pair();
    a.connect(ms(0));
    let syn = a.output(ms(0));
    b.passive_open(ms(1), &syn[0]);
    let _lost = b.output(ms(1));
    assert!(a.on_rto(ms(3000)));
    let syn2 = a.output(ms(3000));
    let (synack, _) = deliver(&mut b, ms(3001), &syn2);
    assert!(synack.len() == 1 && synack[0].syn());
}

#[test]
fn a_full_close_passes_fin_wait_close_wait_last_ack_and_time_wait() {
    let (mut a, mut b) = open();
    a.write(100, true);
    a.close();
    assert_eq!(a.state(), State::FinWait1);
    let out = a.output(ms(10));
    assert_eq!(out.len(), 2, "the data, then the FIN after it");
    assert!(out[1].fin() && out[1].seq == 100);
    let (acks, rb) = deliver(&mut b, ms(11), &out);
    assert!(rb.fin);
    assert_eq!(b.state(), State::CloseWait);
    assert!(!b.at_eof(), "100 bytes are still to be read");
    assert_eq!(b.read(1000).0, 100);
    assert!(b.at_eof());
    // The ACK covers the FIN's sequence number.
    assert_eq!(acks.last().unwrap().ack, 101);
    deliver(&mut a, ms(12), &acks);
    assert_eq!(a.state(), State::FinWait2);
    b.close();
    assert_eq!(b.state(), State::LastAck);
    let fin = b.output(ms(13));
    assert!(fin.len() == 1 && fin[0].fin());
    let (last, ra) = deliver(&mut a, ms(14), &fin);
    assert!(ra.time_wait);
    assert_eq!(a.state(), State::TimeWait);
    let (_, rb) = deliver(&mut b, ms(15), &last);
    assert!(rb.closed);
    assert_eq!(b.state(), State::Done);
    let tw = a.time_wait_deadline.unwrap();
    assert_eq!(tw, ms(14) + cfg().time_wait_ps);
    assert!(!a.on_time_wait(ms(15)));
    assert!(a.on_time_wait(tw));
    assert_eq!(a.state(), State::Done);
}

#[test]
fn a_lost_fin_is_retransmitted_by_the_rto() {
    let (mut a, mut b) = open();
    a.close();
    let lost = a.output(ms(10));
    assert!(lost.len() == 1 && lost[0].fin());
    let at = a.rto_deadline.unwrap();
    assert!(a.on_rto(at));
    let again = a.output(at);
    assert!(again.len() == 1 && again[0].fin() && again[0].seq == 0);
    let (_, r) = deliver(&mut b, at, &again);
    assert!(r.fin && b.at_eof());
}

#[test]
fn a_fin_beyond_a_hole_waits_for_the_missing_data() {
    let (mut a, mut b) = open();
    a.write(100, true);
    a.close();
    let out = a.output(ms(10));
    let (_, r) = deliver(&mut b, ms(11), &out[1..]);
    assert!(!r.fin && !b.at_eof());
    assert_eq!(b.state(), State::Established);
    let (_, r) = deliver(&mut b, ms(12), &out[..1]);
    assert!(r.fin);
    assert_eq!(b.state(), State::CloseWait);
    assert_eq!(b.read(1000).0, 100);
    assert!(b.at_eof());
}

#[test]
fn both_ends_closing_at_once_pass_through_closing() {
    let (mut a, mut b) = open();
    a.close();
    b.close();
    let fa = a.output(ms(10));
    let fb = b.output(ms(10));
    let (acks_a, _) = deliver(&mut a, ms(11), &fb);
    assert_eq!(a.state(), State::Closing);
    let (acks_b, _) = deliver(&mut b, ms(11), &fa);
    let (_, ra) = deliver(&mut a, ms(12), &acks_b);
    let (_, rb) = deliver(&mut b, ms(12), &acks_a);
    assert!(ra.time_wait && rb.time_wait);
}

#[test]
fn periodic_timer_routines_fire_delayed_acks_and_retransmissions_on_their_ticks() {
    use crate::config::TcpTimers;
    let data = Segment {
        seq: 0,
        len: 1000,
        win: 60000,
        ..Segment::default()
    };
    for (timers, fast) in [(TcpTimers::Bsd, 200), (TcpTimers::Merged, 250)] {
        let c = TcpCfg { timers, ..cfg() };
        let mut b = Tcp::new(&c, 1500, true, 1);
        // A lone segment at 130 ms: its ACK leaves at the routine's next tick, not 40 ms on.
        b.on_segment(Time(130 * MS), &data);
        assert_eq!(b.delack_deadline, Some(Time(fast * MS)));
        // At a tick, the next one.
        let mut b = Tcp::new(&c, 1500, true, 1);
        b.on_segment(Time(fast * MS), &data);
        assert_eq!(b.delack_deadline, Some(Time(2 * fast * MS)));
        // The retransmission timer runs on the 500 ms routine's ticks.
        let mut a = Tcp::new(&c, 1500, true, 1);
        a.write(1000, true);
        a.output(Time(130 * MS));
        let rto = a.rto_deadline.expect("armed");
        assert_eq!(rto.0 % (500 * MS), 0);
        assert!(rto.0 >= 130 * MS + a.rto.0 && rto.0 < 130 * MS + a.rto.0 + 500 * MS);
    }
    let mut b = Tcp::new(&cfg(), 1500, true, 1);
    b.on_segment(Time(130 * MS), &data);
    assert_eq!(
        b.delack_deadline,
        Some(Time(170 * MS)),
        "per-socket: 40 ms on"
    );
}
