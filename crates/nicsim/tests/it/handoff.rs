//! The connection-handoff NIC under the web workload.

use super::*;
use nicsim::config::{NicPriority, RxMode, WorkloadKind};
use nicsim::system::World;

/// A web server on a handoff NIC that may own `max` connections, served by `users` users on
/// two base clients; the NIC processor at `speed` of the host's.
fn web(max: u32, priority: NicPriority, speed: f64) -> Config {
    let mut c = base();
    c.workload.kind = WorkloadKind::Web;
    c.workload.web.users = 64;
    // Users ask again as soon as they have read (no line-rate limit).
    c.workload.web.user_rate_bps = nicsim::units::BitRate(0);
    c.workload.web.workers = 32;
    c.workload.web.keep_alive = true;
    c.workload.web.requests_per_connection = 4.0;
    c.workload.web.page_size_bytes = 16384;
    c.workload.web.duration_ps = Duration(60_000_000_000);
    c.workload.web.warmup_ps = Duration(20_000_000_000);
    c.workload.web.start_spread_ps = Duration(5_000_000_000);
    c.topology.clients = 2;
    c.switch.present = true;
    c.nic_cpu.present = true;
    c.nic_cpu.speed_fraction = speed;
    c.nic_cpu.mem_latency_cycles = 0.0;
    c.nic.memory_bytes = 32 << 20;
    let client = c.placements[0].clone();
    let mut server = client.clone();
    server.rx_mode = RxMode::Handoff;
    c.placements = vec![client.clone(), client, server];
    c.handoff.max_connections = max;
    c.handoff.priority = priority;
    c
}

fn owned_limits_hold(w: &World) {
    let h = w.nodes[w.server()].handoff_nic().unwrap();
    assert!(h.stats.max_owned <= h.lc.hard_limit);
    assert!(h.lc.soft_limit <= h.lc.hard_limit);
}

#[test]
fn the_nic_never_owns_more_than_the_hard_limit_and_every_connection_conserves_its_bytes() {
    let (w, v) = drive(&web(4, NicPriority::HostFirst, 0.25));
    assert!(v["web"]["requests_per_s"].as_f64().unwrap() > 0.0);
    let server = w.server();
    let h = w.nodes[server].handoff_nic().unwrap();
    assert!(
        h.stats.handoffs > 4,
        "connections come and go: {:?}",
        h.stats
    );
    assert!(h.stats.nacks_limit > 0, "the limit refuses some");
    assert_eq!(h.stats.max_owned, 4);
    owned_limits_hold(&w);
    let owned: usize = w.nodes[server]
        .conns
        .iter()
        .filter(|c| c.owner == nicsim::stack::conn::Owner::Nic)
        .count();
    assert_eq!(owned as u32, h.owned, "the count matches the connections");
    let flows: usize = w.nodes[..server].iter().map(|n| n.conns.len()).sum();
    assert!(flows > 50);
    every_flow_conserves(&w);
    // Owned connections' segments went through the NIC's own path, both ways.
    assert!(h.stats.rx_frames[1] > 0 && h.stats.tx_frames[1] > 0);
}

#[test]
fn host_first_never_starts_owned_work_while_a_host_packet_waits_and_fcfs_does() {
    // A slow NIC processor, so its queues hold both classes at once (0.03 of the host: at 0.05
    // the refitted host of issue 45 no longer queued a host packet behind owned work).
    let (w, _) = drive(&web(64, NicPriority::HostFirst, 0.03));
    let h = w.nodes[w.server()].handoff_nic().unwrap();
    assert!(h.stats.handoffs > 0 && h.stats.rx_frames[0] > 0);
    assert_eq!(h.stats.nic_past_host, 0);
    owned_limits_hold(&w);
    // Host-first serves an owned connection's pending work before older NIC-queue tasks.
    assert!(h.stats.pending_past_older > 0, "{:?}", h.stats);
    let (w, _) = drive(&web(64, NicPriority::Fcfs, 0.03));
    let h = w.nodes[w.server()].handoff_nic().unwrap();
    assert!(h.stats.nic_past_host > 0, "FCFS serves in arrival order");
    // FCFS: one order for both classes and the owned connections' own work; a task queued
    // before that work was waiting goes first, every time it happened.
    assert!(h.stats.older_before_pending > 0, "{:?}", h.stats);
    assert_eq!(h.stats.pending_past_older, 0);
}

#[test]
fn a_handoff_nic_that_owns_nothing_serves_as_a_plain_nic_would() {
    let (_, plain) = drive(&{
        let mut c = web(0, NicPriority::HostFirst, 0.25);
        c.placements[2].rx_mode = RxMode::HostRing;
        c
    });
    let (w, none) = drive(&web(0, NicPriority::HostFirst, 0.25));
    let h = w.nodes[w.server()].handoff_nic().unwrap();
    assert_eq!(h.stats.attempts, 0);
    assert!(h.stats.rx_frames[0] > 0, "every frame was forwarded");
    let rate = |v: &Value| v["web"]["requests_per_s"].as_f64().unwrap();
    let (a, b) = (rate(&plain), rate(&none));
    assert!(
        (a - b).abs() / a < 0.03,
        "plain {a} against handoff NIC {b}"
    );
}

#[test]
fn restore_excess_gives_connections_back_until_the_nic_is_within_its_soft_limit() {
    use nicsim::config::OnExcess;
    let mut c = web(64, NicPriority::HostFirst, 0.03);
    c.handoff.hiwat_packets = 4;
    c.handoff.lowat_packets = 1;
    c.handoff.on_excess = OnExcess::RestoreExcess;
    let (w, _) = drive(&c);
    let server = w.server();
    let h = w.nodes[server].handoff_nic().unwrap();
    assert!(h.lc.decreases > 0, "the queue passed its high watermark");
    assert!(h.stats.restores > 0, "{:?}", h.stats);
    owned_limits_hold(&w);
    let owned = w.nodes[server]
        .conns
        .iter()
        .filter(|c| c.owner == nicsim::stack::conn::Owner::Nic)
        .count();
    assert_eq!(owned as u32, h.owned);
    every_flow_conserves(&w);
    // Without restores the same run only refuses.
    c.handoff.on_excess = OnExcess::RefuseNew;
    let (w, _) = drive(&c);
    assert_eq!(w.nodes[server].handoff_nic().unwrap().stats.restores, 0);
}

#[test]
fn with_time_wait_on_the_nic_slots_are_held_until_time_wait_ends() {
    let mut c = web(1024, NicPriority::HostFirst, 0.25);
    c.workload.web.keep_alive = false;
    let (w, _) = drive(&c);
    let handed_back = w.nodes[w.server()].handoff_nic().unwrap().owned;
    c.handoff.time_wait_on_nic = true;
    let (w, _) = drive(&c);
    let h = w.nodes[w.server()].handoff_nic().unwrap();
    // HTTP/1.0: the server closes first, so its connections sit in TIME_WAIT on the NIC.
    let in_time_wait = w.nodes[w.server()]
        .conns
        .iter()
        .filter(|c| {
            c.owner == nicsim::stack::conn::Owner::Nic
                && c.tcp.state() == nicsim::stack::tcp::State::TimeWait
        })
        .count();
    assert!(
        in_time_wait > 0 && h.owned > handed_back,
        "{} against {handed_back}",
        h.owned
    );
}
