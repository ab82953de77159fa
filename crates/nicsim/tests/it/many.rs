//! Many connections, clients and a switch.

use super::*;
use nicsim::config::NetperfTest;
use nicsim::system::World;

fn rates(v: &Value, key: &str) -> Vec<f64> {
    v["netperf"]["per_connection"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[key].as_f64().unwrap())
        .collect()
}

#[test]
fn every_connection_conserves_its_bytes_when_a_shallow_switch_drops_frames() {
    let mut c = netperf(NetperfTest::TcpStream, 16, 4);
    c.workload.netperf.msg_bytes = 65536;
    c.switch.buffer_bytes = 3 * 9038;
    let (w, _) = drive(&c);
    let ports = w.fabric.port_stats().unwrap();
    let server = w.server();
    assert!(
        ports[server].dropped_frames > 0,
        "the server's port overflows"
    );
    let retx: u64 = w.nodes[..server]
        .iter()
        .flat_map(|n| &n.conns)
        .map(|c| c.tcp.stats.retransmitted_bytes)
        .sum();
    assert!(retx > 0, "dropped data is retransmitted");
    let dropped = every_flow_conserves(&w);
    for (a, b) in w.directions() {
        assert!(w.conservation(a, b, None).holds(), "node{a}→node{b}");
    }
    assert!(dropped > 0, "the drops are charged to their connections");
}

#[test]
fn request_response_connections_share_the_server_when_nothing_is_lost() {
    let (w, v) = drive(&netperf(NetperfTest::TcpRr, 64, 4));
    let per = rates(&v, "transactions_per_s");
    assert_eq!(per.len(), 64);
    assert!(per.iter().all(|&r| r > 0.0), "{per:?}");
    assert!(v["netperf"]["fairness_jain"].as_f64().unwrap() > 0.99);
    let total = v["netperf"]["aggregate"]["transactions_per_s"]
        .as_f64()
        .unwrap();
    assert!((per.iter().sum::<f64>() - total).abs() < 1e-6);
    // Four clients, sixteen connections each; every server thread ran on the server's CPU.
    assert_eq!(w.nodes[w.server()].threads.len(), 64);
    assert!(w.nodes[..4].iter().all(|n| n.conns.len() == 16));
    let lat = &v["netperf"]["latency_us"];
    let (p50, p99) = (lat["p50"].as_f64().unwrap(), lat["p99"].as_f64().unwrap());
    assert!(p50 > 0.0 && p50 <= p99);
}

#[test]
fn streaming_connections_share_one_link_fairly_and_cannot_beat_it() {
    let mut c = netperf(NetperfTest::TcpStream, 8, 1);
    c.workload.netperf.msg_bytes = 65536;
    let (w, v) = drive(&c);
    let per = rates(&v, "throughput_mbps");
    let total: f64 = per.iter().sum();
    assert!(total * 1e6 <= nicsim::derived::link_payload_bps(&w.cfg));
    assert!(
        v["netperf"]["fairness_jain"].as_f64().unwrap() > 0.95,
        "{per:?}"
    );
}

#[test]
fn what_arrives_on_the_wire_in_a_window_stays_within_the_link() {
    // Fast hosts, 4 MiB buffers, a 2 ms window. (tests/test_modern.py runs the case where the
    // reader drains bytes from before the window faster than the link: the check is on the
    // wire, so that run stands.)
    let mut c = netperf(NetperfTest::TcpStream, 1, 1);
    c.workload.netperf.msg_bytes = 65536;
    c.workload.netperf.duration_ps = nicsim::units::Duration(2_000_000_000);
    c.tcp.socket_buffer_bytes = 4 << 20;
    c.cpu.clock_hz = nicsim::units::Freq(8_000_000_000);
    c.nb.ideal = true;
    let v = run(&c);
    let secs = v["netperf"]["window_s"].as_f64().unwrap();
    let wire_bps = v["nodes"]["node1"]["wire_arrived_bytes"].as_f64().unwrap() * 8.0 / secs;
    let max_frame_bits = nicsim::hw::link::wire_bytes(c.nic.mtu_bytes) as f64 * 8.0;
    assert!(
        wire_bps <= c.link.rate_bps.0 as f64 + max_frame_bits / secs,
        "{wire_bps}"
    );
    assert!(
        wire_bps > 0.9 * c.link.rate_bps.0 as f64,
        "the link is full: {wire_bps}"
    );
}

#[test]
fn a_topology_the_fabric_cannot_join_is_refused_in_one_line() {
    let mut c = netperf(NetperfTest::TcpStream, 2, 2);
    c.switch.present = false;
    let e = World::new(&c).err().unwrap();
    assert!(e.contains("switch.present"), "{e}");
    let mut c = netperf(NetperfTest::TcpStream, 2, 2);
    c.switch.buffer_bytes = 1000;
    let e = World::new(&c).err().unwrap();
    assert!(e.contains("switch.buffer_bytes"), "{e}");
    let mut c = netperf(NetperfTest::TcpStream, 0, 1);
    c.workload.netperf.connections = 0;
    let e = World::new(&c).err().unwrap();
    assert!(e.contains("connections = 0"), "{e}");
}
