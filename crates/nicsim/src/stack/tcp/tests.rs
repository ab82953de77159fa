//! Unit tests of the TCP endpoint, one module per behaviour.

pub(super) mod tests_support {
    use super::super::*;

    /// A pure ACK from the peer: cumulative `ack`, window `win`.
    pub fn ack_of(ack: u64, win: u32) -> Segment {
        Segment {
            ack,
            win,
            ..Segment::default()
        }
    }

    pub fn cfg() -> TcpCfg {
        TcpCfg {
            prequeue: false,
            rcvlowat_bytes: 1,
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
            sack: true,
            syn_retries: 5,
            time_wait_ps: Duration(60_000_000_000_000),
            ephemeral_ports: 28233,
            timers: crate::config::TcpTimers::Precise,
            ack_policy: crate::config::AckPolicy::Linux,
            congestion: crate::config::Congestion::Newreno,
            somaxconn: 128,
            nagle: crate::config::Nagle::Rfc896,
            autocork: false,
            limit_output_bytes: 0,
        }
    }
}

mod basics {
    use super::super::*;
    use super::tests_support::{ack_of, cfg};

    #[test]
    fn mss_follows_mtu_and_timestamps() {
        assert_eq!(Tcp::new(&cfg(), 9000, true, 1).mss, 8948);
        assert_eq!(Tcp::new(&cfg(), 1500, true, 1).mss, 1448);
        let mut c = cfg();
        c.timestamps = false;
        assert_eq!(Tcp::new(&c, 1500, true, 1).mss, 1460);
    }

    #[test]
    fn linux_buffers_double_and_keep_a_quarter_back() {
        let t = Tcp::new(&cfg(), 1500, true, 1);
        // 2 × 64 KiB = 131072, less a quarter = 98304, rounded down to 536-byte rcv_mss.
        assert_eq!(t.rcv_wnd, 98304 / 536 * 536);
    }

    #[test]
    fn slow_start_sends_initial_window_then_grows_by_bytes_acked() {
        let mut a = Tcp::new(&cfg(), 1500, true, 1);
        a.write(10 * 1448, true);
        let first = a.output(Time(0));
        assert_eq!(first.len(), 2);
        let ack = ack_of(2 * 1448, 60000);
        let r = a.on_segment(Time(1000), &ack);
        assert!(r.space_freed && r.acked_new);
        assert_eq!(a.cwnd, 4 * 1448);
        assert_eq!(a.output(Time(1000)).len(), 4);
    }

    #[test]
    fn nagle_holds_a_small_segment_while_data_is_unacked() {
        let mut a = Tcp::new(&cfg(), 1500, false, 1);
        a.write(100, true);
        assert_eq!(a.output(Time(0)).len(), 1);
        a.write(100, true);
        assert!(a.output(Time(1)).is_empty());
        let mut b = Tcp::new(&cfg(), 1500, true, 1);
        b.write(100, true);
        b.write(100, true);
        // Two writes before any output merge into one unsent skb.
        assert_eq!(b.output(Time(0)).len(), 1);
        b.write(100, true);
        assert_eq!(b.output(Time(1)).len(), 1);
    }

    #[test]
    fn receiver_acks_every_second_full_segment_and_delays_a_lone_one() {
        let mut b = Tcp::new(&cfg(), 1500, true, 1);
        b.rcv_mss = 1448;
        let s1 = Segment {
            seq: 0,
            len: 1448,
            ack: 0,
            win: 60000,
            push: false,
            ..Segment::default()
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
            ..Segment::default()
        };
        assert!(b.on_segment(Time(10), &s2).ack_now);
    }

    #[test]
    fn bsd_waits_for_reads_that_open_the_window_by_two_segments() {
        let mut c = cfg();
        c.ack_policy = crate::config::AckPolicy::Bsd;
        c.buffer_semantics = BufferSemantics::Literal;
        c.socket_buffer_bytes = 16384;
        let mut b = Tcp::new(&c, 1500, true, 1);
        b.rcv_mss = 1448;
        let seg = |seq| Segment {
            seq,
            len: 1448,
            win: 60000,
            ..Segment::default()
        };
        // Two in-order segments: neither is acknowledged at once (Linux would the second).
        assert!(!b.on_segment(Time(0), &seg(0)).ack_now);
        assert!(b.delack_deadline.is_some(), "the delayed ACK is scheduled");
        assert!(!b.on_segment(Time(10), &seg(1448)).ack_now);
        // Reading one segment opens the window by one: not enough.
        assert_eq!(b.read(1448), (1448, 1, false));
        // The second read opens it by two segments: the window update carries the ACK.
        assert_eq!(b.read(1448), (1448, 1, true));
        let mut linux = Tcp::new(&cfg(), 1500, true, 1);
        linux.rcv_mss = 1448;
        linux.on_segment(Time(0), &seg(0));
        assert!(linux.on_segment(Time(10), &seg(1448)).ack_now);
    }

    #[test]
    fn out_of_order_segment_is_held_dup_acked_and_delivered_when_the_hole_fills() {
        let mut b = Tcp::new(&cfg(), 1500, true, 1);
        let later = Segment {
            seq: 1000,
            len: 1000,
            ack: 0,
            win: 60000,
            push: false,
            ..Segment::default()
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
            ..Segment::default()
        };
        let r = b.on_segment(Time(1), &hole);
        assert_eq!(r.delivered_bytes, 2000);
        assert_eq!(b.readable(), 2000);
    }

    #[test]
    fn rto_goes_back_to_the_first_unacked_byte() {
        let mut a = Tcp::new(&cfg(), 1500, true, 1);
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

mod recovery_tests {
    use super::super::*;
    use super::tests_support::{ack_of, cfg};

    #[test]
    fn three_duplicate_acks_retransmit_without_waiting_for_the_timer() {
        let mut a = Tcp::new(&cfg(), 1500, true, 1);
        a.cwnd = 10 * 1448;
        a.write(10 * 1448, true);
        assert_eq!(a.output(Time(0)).len(), 10);
        let dup = ack_of(1448, 60000);
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
        let full = ack_of(10 * 1448, 60000);
        a.on_segment(Time(20), &full);
        assert_eq!(a.cwnd, a.ssthresh);
    }
}

mod window_tests {
    use super::super::*;
    use super::tests_support::{ack_of, cfg};

    #[test]
    fn a_window_smaller_than_a_segment_sends_what_fits() {
        let mut a = Tcp::new(&cfg(), 9000, true, 1);
        a.peer_wnd = 6144;
        a.max_peer_wnd = 6144;
        a.write(8948, true);
        let out = a.output(Time(0));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].len, 6144);
        assert!(!out[0].push, "the tail keeps PUSH");
        // The rest goes when the window reopens.
        let ack = ack_of(6144, 6144);
        a.on_segment(Time(10), &ack);
        let rest = a.output(Time(10));
        assert_eq!(
            (rest[0].seq, rest[0].len, rest[0].push),
            (6144, 8948 - 6144, true)
        );
    }

    #[test]
    fn silly_windows_are_not_filled() {
        let mut a = Tcp::new(&cfg(), 1500, true, 1);
        a.peer_wnd = 100;
        a.max_peer_wnd = 60000;
        a.write(1448, true);
        assert!(a.output(Time(0)).is_empty());
    }
}

mod persist_tests {
    use super::super::*;
    use super::tests_support::cfg;

    #[test]
    fn a_stuck_sender_probes_the_window_and_the_peer_answers() {
        let mut a = Tcp::new(&cfg(), 1500, true, 1);
        a.peer_wnd = 100;
        a.max_peer_wnd = 60000;
        a.write(1448, true);
        assert!(a.output(Time(0)).is_empty());
        let t = a.persist_deadline.expect("persist timer armed");
        let probe = a.on_persist(t).expect("a probe");
        assert_eq!((probe.seq, probe.len), (WINDOW_PROBE_SEQ, 0));
        let mut b = Tcp::new(&cfg(), 1500, true, 1);
        assert!(
            b.on_segment(t, &probe).ack_now,
            "the peer answers a probe with its window"
        );
    }
}

mod overlap_tests {
    use super::super::*;
    use super::tests_support::cfg;

    #[test]
    fn a_retransmission_overlapping_received_data_delivers_only_the_new_part() {
        let mut b = Tcp::new(&cfg(), 1500, true, 1);
        b.on_segment(
            Time(0),
            &Segment {
                seq: 0,
                len: 1000,
                ack: 0,
                win: 60000,
                push: false,
                ..Segment::default()
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
                ..Segment::default()
            },
        );
        assert_eq!(r.delivered_bytes, 500);
        assert_eq!(b.readable(), 1500);
        assert_eq!(b.stats.duplicate_bytes, 500);
    }

    #[test]
    fn a_sent_tail_does_not_grow_after_a_timeout() {
        let mut a = Tcp::new(&cfg(), 1500, true, 1);
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

mod sack_receiver_tests {
    use super::super::*;
    use super::tests_support::cfg;

    #[test]
    fn a_segment_stays_small_enough_to_travel_in_every_frame() {
        assert!(std::mem::size_of::<Segment>() <= 56);
    }

    fn data(i: u64) -> Segment {
        Segment {
            seq: i * 1000,
            len: 1000,
            win: 60000,
            ..Segment::default()
        }
    }

    /// Segments 2-3, 5, 8-9 and 11 arrive beyond a hole at 0-1, then 6: the ACK's first
    /// block holds segment 6 (RFC 2018 §4), the others follow highest first, three in all.
    #[test]
    fn blocks_report_the_latest_segment_first_then_the_highest() {
        let mut b = Tcp::new(&cfg(), 1500, true, 1);
        for i in [2, 3, 5, 8, 9, 11, 6] {
            assert!(b.on_segment(Time(i), &data(i)).ack_now);
        }
        let ack = b.make_ack();
        assert_eq!(ack.ack, 0);
        assert_eq!(
            ack.sack_blocks().collect::<Vec<_>>(),
            vec![(5000, 7000), (11000, 12000), (8000, 10000)]
        );
        assert_eq!(ack.sack_option_bytes(), 28, "2 + 3 x 8 = 26, padded to 28");
        assert_eq!(b.stats.sack_blocks_sent, 3);
        // The hole fills: the queue drains and ACKs carry no blocks again.
        b.on_segment(Time(20), &data(0));
        let one = b.make_ack();
        assert_eq!(one.ack, 1000);
        assert_eq!(
            one.sack_blocks().collect::<Vec<_>>(),
            vec![(5000, 7000), (11000, 12000), (8000, 10000)]
        );
        for i in [1, 4, 7, 10] {
            b.on_segment(Time(30 + i), &data(i));
        }
        let none = b.make_ack();
        assert_eq!(
            (none.ack, none.sack.len(), none.sack_option_bytes()),
            (12000, 0, 0)
        );
    }

    #[test]
    fn one_block_costs_twelve_bytes_and_a_full_data_segment_carries_none() {
        let mut b = Tcp::new(&cfg(), 1500, true, 1);
        b.on_segment(Time(0), &data(3));
        let ack = b.make_ack();
        assert_eq!(ack.sack_blocks().collect::<Vec<_>>(), vec![(3000, 4000)]);
        assert_eq!(ack.sack_option_bytes(), 12);
        // Data that fills the MSS leaves no room for the option beside it.
        b.write(1448, true);
        let full = b.output(Time(1));
        assert_eq!((full[0].len, full[0].sack.len()), (1448, 0));
    }

    #[test]
    fn without_sack_no_blocks_are_sent() {
        let mut c = cfg();
        c.sack = false;
        let mut b = Tcp::new(&c, 1500, true, 1);
        b.on_segment(Time(0), &data(3));
        let ack = b.make_ack();
        assert!(ack.sack.is_empty());
        assert_eq!(b.stats.sack_blocks_sent, 0);
    }
}

mod tso_tests {
    use super::super::*;
    use super::tests_support::{ack_of, cfg};

    #[test]
    fn tso_sends_what_the_window_allows_as_one_segment_and_retransmits_by_mss() {
        let mut a = Tcp::new(&cfg(), 1500, true, 1);
        a.set_tso(45 * 1448);
        a.write(10 * 1448, true);
        // Initial window of two MSS: one segment of both.
        let first = a.output(Time(0));
        assert_eq!(first.len(), 1);
        assert_eq!(
            (first[0].seq, first[0].len, first[0].push),
            (0, 2 * 1448, false)
        );
        assert_eq!(
            a.stats.data_segments_sent, 2,
            "TCP still counts MSS segments"
        );
        a.on_segment(Time(1000), &ack_of(2 * 1448, 60000));
        let next = a.output(Time(1000));
        assert_eq!(next.len(), 1);
        assert_eq!((next[0].seq, next[0].len), (2 * 1448, 4 * 1448));
        // A timeout retransmits the first unacknowledged MSS alone (cwnd falls to one MSS).
        let rto = a.rto_deadline.expect("armed");
        assert!(a.on_rto(rto));
        let again = a.output(rto);
        assert_eq!(again.len(), 1);
        assert_eq!((again[0].seq, again[0].len), (2 * 1448, 1448));
    }

    #[test]
    fn with_tso_the_send_loop_copies_a_size_goal_at_a_time() {
        let mut a = Tcp::new(&cfg(), 1500, true, 1);
        // Without TSO one MSS per pass; with it, half the peer's largest window in whole MSS.
        assert_eq!(a.send_space(), 1448);
        a.set_tso(45 * 1448);
        let half_window = a.max_peer_wnd / 2;
        assert_eq!(a.send_space(), half_window - half_window % 1448);
        a.max_peer_wnd = 1 << 30;
        assert_eq!(a.send_space(), 45 * 1448, "capped by the largest send");
    }

    #[test]
    fn tso_stops_at_its_limit_and_keeps_push_on_the_last_piece() {
        let mut a = Tcp::new(&cfg(), 1500, true, 1);
        a.set_tso(3 * 1448);
        a.cwnd = 100 * 1448;
        a.peer_wnd = 100 * 1448;
        a.write(7 * 1448 + 100, true);
        let lens: Vec<u32> = a.output(Time(0)).iter().map(|s| s.len).collect();
        assert_eq!(lens, vec![3 * 1448, 3 * 1448, 1448 + 100]);
        let mut b = Tcp::new(&cfg(), 1500, true, 1);
        b.cwnd = 100 * 1448;
        b.peer_wnd = 100 * 1448;
        b.write(7 * 1448 + 100, true);
        assert_eq!(
            b.output(Time(0)).len(),
            8,
            "without TSO, one segment per MSS"
        );
    }

    /// BBR's paced bursts stop at the GSO limit (`set_gso_max`), TSO on or off.
    #[test]
    fn bbr_bursts_are_capped_by_the_gso_limit() {
        let burst = |gso: Option<u64>| {
            let mut c = cfg();
            c.congestion = crate::config::Congestion::Bbr;
            let mut a = Tcp::new(&c, 1500, true, 1);
            if let Some(g) = gso {
                a.set_gso_max(g);
            }
            a.cc.paced_mut().unwrap().bbr.pacing_bytes_per_s = 1e12;
            a.cwnd = 100 * 1448;
            a.peer_wnd = 100 * 1448;
            a.write(100 * 1448, true);
            a.output(Time(0)).len()
        };
        assert_eq!(burst(None), 45, "Linux's default GSO_MAX_SIZE: 65,215 B");
        assert_eq!(burst(Some(65_536)), 45);
        assert_eq!(burst(Some(32 * 1024)), (32_768 - 1 - 320) / 1448);
    }
}
