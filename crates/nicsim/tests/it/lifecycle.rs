//! Connection setup and teardown through the whole system: handshakes, retransmitted SYNs,
//! TIME_WAIT holding the port, and netperf TCP_CRR.

use super::*;
use nicsim::config::NetperfTest;
use nicsim::os::thread::{Op, INTERACTIVE};
use nicsim::stack::tcp::State;
use nicsim::system::World;
use nicsim::units::Time;

const MS: u64 = 1_000_000_000;

fn two_nodes() -> World {
    World::new(&base()).unwrap()
}

#[test]
fn a_syn_nobody_listens_for_is_sent_again_after_the_initial_rto() {
    let mut w = two_nodes();
    let c = w.socket(0, 1, true).unwrap();
    let t = w.spawn(0, 0, INTERACTIVE).unwrap();
    w.start_op(0, t, Op::Connect { conn: c });
    // The first SYN finds no listener and is dropped; the server listens from 1 s on.
    assert!(run_until(&mut w, Time(1000 * MS)).is_empty());
    assert_eq!(w.nodes[0].conns[c].tcp.state(), State::SynSent);
    w.listen(1, 8, true, false);
    let a = w.spawn(1, 0, INTERACTIVE).unwrap();
    w.start_op(1, a, Op::Accept);
    let done = run_until(&mut w, Time(3100 * MS));
    let connected = done
        .iter()
        .find(|d| (d.0, d.1) == (0, t))
        .expect("connect returns");
    // Retransmitted at the 3 s initial RTO, answered within a round trip.
    assert!(
        connected.2 > Time(3000 * MS) && connected.2 < Time(3001 * MS),
        "{:?}",
        connected.2
    );
    assert!(done.iter().any(|d| (d.0, d.1) == (1, a)), "accept returns");
    assert_eq!(w.nodes[0].conns[c].tcp.stats.syn_retransmits, 1);
    let s = w.nodes[1].accepted(a).unwrap();
    assert_eq!(w.nodes[1].conns[s].tcp.state(), State::Established);
    assert_eq!(w.nodes[1].stats.connections_accepted, 1);
}

#[test]
fn a_full_accept_queue_drops_syns_until_a_thread_accepts() {
    let mut w = two_nodes();
    // Linux's backlog 0 still lets one connection wait (`sk_acceptq_is_full` is `>`).
    w.listen(1, 0, true, false);
    let t = w.spawn(0, 0, INTERACTIVE).unwrap();
    let u = w.spawn(0, 0, INTERACTIVE).unwrap();
    let (c1, c2) = (w.socket(0, 1, true).unwrap(), w.socket(0, 1, true).unwrap());
    w.start_op(0, t, Op::Connect { conn: c1 });
    let first = run_until(&mut w, Time(MS));
    assert!(
        first.iter().any(|d| d.1 == t),
        "the first handshake completes"
    );
    w.start_op(0, u, Op::Connect { conn: c2 });
    run_until(&mut w, Time(100 * MS));
    assert!(
        w.nodes[1].stats.listen_drops >= 1,
        "the second SYN finds the queue full"
    );
    assert_eq!(w.nodes[0].conns[c2].tcp.state(), State::SynSent);
    let a = w.spawn(1, 0, INTERACTIVE).unwrap();
    w.start_op(1, a, Op::Accept);
    let done = run_until(&mut w, Time(3500 * MS));
    assert!(
        done.iter().any(|d| d.1 == u),
        "the retransmitted SYN gets in"
    );
    assert_eq!(w.nodes[0].conns[c2].tcp.state(), State::Established);
}

/// Client thread on node0 and server thread on node1 run one connection: connect, close
/// (the client first), the server reads the end of the stream and closes.
fn open_and_close(w: &mut World, from: Time) -> usize {
    let t = 0; // the client thread
    let a = 0; // the server thread
    let c = w.socket(0, 1, true).unwrap();
    w.start_op(0, t, Op::Connect { conn: c });
    w.start_op(1, a, Op::Accept);
    run_until(w, from + Duration(MS));
    let s = w.nodes[1].accepted(a).unwrap();
    w.start_op(0, t, Op::Close { conn: c });
    w.start_op(1, a, Op::Recv { conn: s, bytes: 1 });
    run_until(w, from + Duration(2 * MS));
    assert!(w.nodes[1].conns[s].tcp.at_eof());
    w.start_op(1, a, Op::Close { conn: s });
    run_until(w, from + Duration(3 * MS));
    assert_eq!(w.nodes[1].conns[s].tcp.state(), State::Done);
    c
}

#[test]
fn time_wait_holds_the_port_until_it_expires() {
    let mut cfg = base();
    cfg.tcp.ephemeral_ports = 1;
    cfg.tcp.time_wait_ps = Duration(50 * MS);
    let mut w = World::new(&cfg).unwrap();
    w.listen(1, 8, true, false);
    w.spawn(0, 0, INTERACTIVE).unwrap();
    w.spawn(1, 0, INTERACTIVE).unwrap();
    let c = open_and_close(&mut w, Time::ZERO);
    assert_eq!(w.nodes[0].conns[c].tcp.state(), State::TimeWait);
    let e = w.socket(0, 1, true).unwrap_err();
    assert!(e.contains("tcp.ephemeral_ports = 1"), "{e}");
    // TIME_WAIT entered within the first 3 ms; it ends 50 ms later and frees the port.
    run_until(&mut w, Time(60 * MS));
    assert_eq!(w.nodes[0].conns[c].tcp.state(), State::Done);
    assert_eq!(w.nodes[0].stats.connections_closed, 1);
    assert!(w.socket(0, 1, true).is_ok());
}

fn crr(connections: u32, clients: u32) -> Config {
    let mut c = netperf(NetperfTest::TcpCrr, connections, clients);
    c.workload.netperf.msg_bytes = 1;
    c.workload.netperf.duration_ps = Duration(100 * MS);
    c.workload.netperf.warmup_ps = Duration(20 * MS);
    c
}

#[test]
fn tcp_crr_prices_setup_and_teardown_and_conserves_every_connection() {
    let (w, v) = drive(&crr(16, 2));
    let tps = v["netperf"]["aggregate"]["transactions_per_s"]
        .as_f64()
        .unwrap();
    assert!(tps > 100.0, "{tps}");
    let server = w.server();
    let srv = &w.nodes[server];
    let opened: u64 = w.nodes[..server]
        .iter()
        .map(|n| n.stats.connections_opened)
        .sum();
    // Every connection a client opened was accepted, save those still in their handshake.
    assert!(
        srv.stats.connections_accepted <= opened && opened - srv.stats.connections_accepted <= 16
    );
    assert!(srv.stats.connections_closed + 16 >= srv.stats.connections_accepted);
    let conn_busy = v["processors"][format!("node{server}.cpu0")]["busy"]["conn"]
        .as_f64()
        .unwrap();
    assert!(
        conn_busy > 0.01,
        "setup and teardown show in the server's CPU time: {conn_busy}"
    );
    // Clients close first: their ends wait in TIME_WAIT, each holding a port.
    for n in &w.nodes[..server] {
        let tw = n
            .conns
            .iter()
            .filter(|c| c.tcp.state() == State::TimeWait)
            .count() as u32;
        assert!(tw > 0);
        assert!(n.ports_in_use >= tw);
    }
    // Every direction conserves its bytes, connections whose slots were freed included (the
    // server's ends, done once their FIN is acknowledged), and so does each connection whose
    // ends both still hold their slots.
    let pairs = [(0, server), (server, 0), (1, server), (server, 1)];
    for (a, b) in pairs {
        assert!(w.conservation(a, b, None).holds(), "node{a}→node{b}");
    }
    assert!((srv.conns.len() as u64) < srv.stats.connections_accepted / 2);
    let mut whole = 0;
    for f in 1..=opened as u32 {
        let client_end = (0..server).any(|n| w.nodes[n].conn_of(f).is_some());
        if !client_end || srv.conn_of(f).is_none() {
            continue;
        }
        whole += 1;
        for (a, b) in pairs {
            let k = w.conservation(a, b, Some(f));
            assert_eq!(
                k.sent_bytes,
                k.delivered_bytes + k.in_flight_bytes + k.dropped_bytes,
                "flow {f}"
            );
        }
    }
    assert!(whole > 0);
}

#[test]
fn a_handshake_that_gets_no_answer_gives_up_and_frees_its_port() {
    let mut cfg = base();
    cfg.tcp.syn_retries = 1;
    let mut w = World::new(&cfg).unwrap();
    let c = w.socket(0, 1, true).unwrap();
    let t = w.spawn(0, 0, INTERACTIVE).unwrap();
    w.start_op(0, t, Op::Connect { conn: c });
    assert_eq!(w.nodes[0].ports_in_use, 1);
    // Nobody listens: the SYN at 0 and its one retransmission at 3 s go unanswered; the
    // handshake gives up when the backed-off timer expires at 3 + 6 s.
    let done = run_until(&mut w, Time(10_000 * MS));
    let gave_up = done.iter().find(|d| d.1 == t).expect("connect returns");
    assert!(
        gave_up.2 >= Time(9_000 * MS) && gave_up.2 < Time(9_001 * MS),
        "{:?}",
        gave_up.2
    );
    assert_eq!(w.nodes[0].conns[c].tcp.state(), State::Done);
    assert_eq!(w.nodes[0].ports_in_use, 0);
}

#[test]
fn a_deferred_accept_waits_for_the_first_data_not_the_bare_ack() {
    let mut w = two_nodes();
    w.listen(1, 8, true, true);
    let t = w.spawn(0, 0, INTERACTIVE).unwrap();
    let a = w.spawn(1, 0, INTERACTIVE).unwrap();
    let c = w.socket(0, 1, true).unwrap();
    w.start_op(0, t, Op::Connect { conn: c });
    w.start_op(1, a, Op::Accept);
    let done = run_until(&mut w, Time(10 * MS));
    assert!(done.iter().any(|d| d.1 == t), "connect returns at once");
    assert!(
        !done.iter().any(|d| (d.0, d.1) == (1, a)),
        "accept waits for data"
    );
    assert_eq!(w.nodes[1].stats.deferred_acks, 1);
    assert_eq!(w.nodes[1].stats.connections_accepted, 0);
    w.start_op(
        0,
        t,
        Op::Send {
            conn: c,
            bytes: 200,
        },
    );
    let done = run_until(&mut w, Time(20 * MS));
    assert!(
        done.iter().any(|d| (d.0, d.1) == (1, a)),
        "the request ends the handshake"
    );
    let s = w.nodes[1].accepted(a).unwrap();
    assert_eq!(w.nodes[1].conns[s].tcp.state(), State::Established);
    assert_eq!(w.nodes[1].conns[s].rx_payload_bytes, 200);
}
