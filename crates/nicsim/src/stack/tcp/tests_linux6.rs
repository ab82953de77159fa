//! Unit tests of the Linux 6.x sender rules the modern presets turn on: Minshall's Nagle and
//! TCP Small Queues.

use super::tests::tests_support::{ack_of, cfg};
use super::*;

#[test]
fn minshall_holds_small_writes_behind_an_unacked_small_segment_up_to_the_mss() {
    let cfg = TcpCfg {
        nagle: crate::config::Nagle::Minshall,
        initial_window_segments: 10,
        ..cfg()
    };
    let mut a = Tcp::new(&cfg, 1500, false, 1);
    let mss = a.mss as u64;
    a.write(64, true);
    assert_eq!(a.output(Time(0)).len(), 1, "nothing in flight: it leaves");
    // Small writes while that short segment is unacknowledged join one skb...
    for _ in 0..(mss / 64) {
        a.write(64, true);
        assert!(a.output(Time(1)).is_empty());
    }
    // ...until it reaches the MSS: a full segment is never held.
    a.write(64, true);
    let out = a.output(Time(2));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].len as u64, mss);
    assert_eq!(a.stats.data_segments_sent, 2);
    // With only full segments in flight, a short one leaves (RFC 896 would hold it).
    a.on_segment(Time(3), &ack_of(64, 65535));
    a.write(64, true);
    assert_eq!(a.output(Time(4)).len(), 1);
    // TCP_NODELAY: every write leaves on its own.
    let mut b = Tcp::new(&cfg, 1500, true, 1);
    for t in 0..5 {
        b.write(64, true);
        assert_eq!(b.output(Time(t)).len(), 1);
    }
}

#[test]
fn small_queues_stop_a_sender_whose_bytes_below_reach_the_limit() {
    let cfg = TcpCfg {
        limit_output_bytes: 4 * 1448,
        initial_window_segments: 10,
        ..cfg()
    };
    let mut a = Tcp::new(&cfg, 1500, true, 1);
    a.write(10 * 1448, false);
    // Nothing below: it sends until what it sent reaches the cap (the one that crosses
    // it still leaves, as tcp_small_queue_check tests before each skb).
    assert_eq!(a.output(Time(0)).len(), 5);
    assert!(a.tsq_throttled);
    // The node has queued them below; until a reclaim, nothing more leaves.
    a.below_bytes = 5 * 1448;
    assert!(a.output(Time(1)).is_empty());
    a.below_bytes = 0;
    a.tsq_throttled = false;
    assert_eq!(a.output(Time(2)).len(), 5);
}
