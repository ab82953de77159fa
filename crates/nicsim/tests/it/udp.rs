//! UDP sockets through the whole system: netperf UDP_STREAM, socket-buffer drops, the
//! sender's own buffer as its only flow control, conservation per flow; a UDP flood beside
//! TCP with and without local flow control.

use super::*;
use nicsim::config::NetperfTest;
use nicsim::system::World;

const MS: u64 = 1_000_000_000;

fn udp_stream(msg_bytes: u64) -> Config {
    let mut c = netperf(NetperfTest::UdpStream, 1, 1);
    c.workload.netperf.msg_bytes = msg_bytes;
    c.workload.netperf.duration_ps = Duration(100 * MS);
    c.workload.netperf.warmup_ps = Duration(20 * MS);
    c
}

fn flow_conserved(w: &World) {
    for (a, b) in [(0, 1), (1, 0)] {
        let k = w.conservation(a, b, Some(1));
        assert_eq!(
            k.sent_bytes,
            k.delivered_bytes + k.in_flight_bytes + k.dropped_bytes
        );
    }
}

#[test]
fn a_receiver_slower_than_its_sender_drops_at_the_socket_and_counts_every_byte() {
    let (w, v) = drive(&udp_stream(8972));
    let n = &v["netperf"];
    let got = n["aggregate"]["throughput_mbps"].as_f64().unwrap();
    let sent = n["aggregate"]["sent_mbps"].as_f64().unwrap();
    assert!(got < sent, "{got} of {sent}");
    let sock = &w.nodes[1].udp[0];
    assert!(sock.dropped_datagrams > 0);
    assert_eq!(sock.dropped_bytes, sock.dropped_datagrams * 8972);
    flow_conserved(&w);
}

#[test]
fn a_fast_receiver_gets_everything_and_a_fast_sender_sleeps_on_its_buffer_at_link_rate() {
    let mut c = udp_stream(8972);
    c.cpu.clock_hz = nicsim::units::Freq(8_000_000_000);
    c.nb.ideal = true;
    let (w, v) = drive(&c);
    let n = &v["netperf"];
    let got = n["aggregate"]["throughput_mbps"].as_f64().unwrap();
    let sent = n["aggregate"]["sent_mbps"].as_f64().unwrap();
    assert_eq!(w.nodes[1].udp[0].dropped_datagrams, 0);
    assert!((got - sent).abs() / sent < 0.02, "{got} of {sent}");
    // The link, not the sender's CPU, sets the rate: near the payload rate and never above.
    let wire = nicsim::hw::link::wire_bytes(9000) as f64;
    let link_mbps = c.link.rate_bps.0 as f64 / 1e6 * 8972.0 / wire;
    assert!(
        sent <= link_mbps * 1.001 && sent > 0.97 * link_mbps,
        "{sent} of {link_mbps}"
    );
    // What the sender queued and the driver has not reclaimed stays within its send buffer.
    let queued = w.nodes[0].udp[0].unreclaimed_bytes();
    assert!(
        queued > 0 && queued < c.udp.socket_buffer_bytes + 9000,
        "{queued}"
    );
    flow_conserved(&w);
}

#[test]
fn a_datagram_larger_than_a_frame_is_refused_in_one_line() {
    let c = udp_stream(9000);
    let e = World::new(&c).err().unwrap();
    assert!(
        e.contains("workload.netperf.msg_bytes = 9000") && e.contains("8972"),
        "{e}"
    );
}

/// TCP_STREAM with one UDP flood flow beside it on a 100 Mb/s link, whose transmit queue holds
/// 50 frames behind the ring.
fn flood(local_flow_control: bool) -> Config {
    let mut c = netperf(NetperfTest::TcpStream, 1, 1);
    c.workload.netperf.duration_ps = Duration(100 * MS);
    c.workload.netperf.warmup_ps = Duration(20 * MS);
    c.workload.netperf.udp_flood_flows = 1;
    c.workload.netperf.udp_flood_bytes = 1024;
    c.link.rate_bps = nicsim::units::BitRate(100_000_000);
    c.tx.queue_frames = 50;
    c.tx.local_flow_control = local_flow_control;
    c
}

/// Every flow of the run (the TCP connection and the flood) conserves its bytes both ways;
/// returns what the client dropped at its transmit queue, by flow.
fn each_flow_conserves(w: &World) -> Vec<u64> {
    let flows = [w.nodes[0].conns[0].tcp.flow, w.nodes[0].udp[0].flow];
    for f in flows {
        for (a, b) in [(0, 1), (1, 0)] {
            let k = w.conservation(a, b, Some(f));
            assert!(k.holds(), "flow {f} node{a}→node{b}: {k:?}");
        }
    }
    let dropped = &w.nodes[0].stats.tx_dropped_by_flow;
    flows
        .iter()
        .map(|&f| dropped.get(f as usize).copied().unwrap_or(0))
        .collect()
}

#[test]
fn with_local_flow_control_the_flood_sleeps_and_nothing_drops_at_the_sender() {
    let (w, v) = drive(&flood(true));
    assert_eq!(each_flow_conserves(&w), vec![0, 0]);
    assert_eq!(w.nodes[0].stats.tx_queue_drops, 0);
    let f = &v["netperf"]["udp_flood"];
    assert!(f["received_mbps"].as_f64().unwrap() > 10.0, "{f}");
    assert_eq!(f["sender_dropped_mbps"].as_f64().unwrap(), 0.0);
    // The queue never holds more than its limit and one datagram per sleeping sender.
    assert!(
        v["netperf"]["aggregate"]["throughput_mbps"]
            .as_f64()
            .unwrap()
            > 0.0
    );
}

#[test]
fn without_it_a_full_queue_drops_at_the_sender_and_counts_every_byte() {
    let (w, v) = drive(&flood(false));
    let dropped = each_flow_conserves(&w);
    assert!(dropped[1] > 0, "the flood overflows its queue: {dropped:?}");
    let f = &v["netperf"]["udp_flood"];
    let sent = f["sent_mbps"].as_f64().unwrap();
    let lost = f["sender_dropped_mbps"].as_f64().unwrap();
    assert!(
        lost > 0.0 && sent > f["received_mbps"].as_f64().unwrap() + lost * 0.9,
        "{f}"
    );
    // The sender never sleeps: it sends faster than the link carries.
    assert!(sent > 100.0, "{f}");
    let tcp_fc = drive(&flood(true)).1["netperf"]["aggregate"]["throughput_mbps"]
        .as_f64()
        .unwrap();
    let tcp = v["netperf"]["aggregate"]["throughput_mbps"]
        .as_f64()
        .unwrap();
    assert!(
        tcp < tcp_fc,
        "TCP loses segments at the full queue: {tcp} against {tcp_fc}"
    );
}

#[test]
fn udp_rr_sends_one_datagram_each_way_per_transaction() {
    let mut c = netperf(NetperfTest::UdpRr, 2, 1);
    c.workload.netperf.msg_bytes = 64;
    c.workload.netperf.duration_ps = Duration(100 * MS);
    c.workload.netperf.warmup_ps = Duration(20 * MS);
    let (w, v) = drive(&c);
    let n = &v["netperf"];
    let tps = n["aggregate"]["transactions_per_s"].as_f64().unwrap();
    let mean_us = n["latency_us"]["mean"].as_f64().unwrap();
    assert!(tps > 1000.0, "{n}");
    // Two instances, each one transaction at a time: the rate is two over the round trip.
    assert!(
        (tps * mean_us / 1e6 - 2.0).abs() < 0.05,
        "{tps} × {mean_us}"
    );
    // Each side's socket sent as many datagrams as the other received, give or take one in flight.
    for k in 0..2 {
        let (a, b) = (&w.nodes[0].udp[k], &w.nodes[1].udp[k]);
        assert!(a.tx_payload_bytes.abs_diff(b.rx_payload_bytes) <= 64);
        assert!(b.tx_payload_bytes.abs_diff(a.rx_payload_bytes) <= 64);
        assert!(a.tx_payload_bytes > 0 && b.tx_payload_bytes > 0);
    }
    assert!(w.nodes.iter().all(|n| n.conns.is_empty()));
}
