//! Finished connections' slots freed and reused (`stack/reap.rs`): the socket table follows
//! the connections open at once, not every connection a run opened, and no result changes.

use super::*;
use nicsim::config::WorkloadKind;
use nicsim::system::World;

const MS: u64 = 1_000_000_000;

/// A web server under `users` users on two base clients through a switch, each request on a
/// connection of its own or, with keep-alive, two requests a connection; TIME_WAIT 20 ms, and
/// a run past the 3 s at which the first handshakes' stale retransmission timers expire.
fn web(users: u32, keep_alive: bool) -> Config {
    let mut c = base();
    c.workload.kind = WorkloadKind::Web;
    c.workload.web.users = users;
    // Users ask again as soon as they have read (no line-rate limit).
    c.workload.web.user_rate_bps = nicsim::units::BitRate(0);
    c.workload.web.keep_alive = keep_alive;
    c.workload.web.requests_per_connection = 2.0;
    c.workload.web.warmup_ps = Duration(3_000 * MS);
    c.workload.web.duration_ps = Duration(500 * MS);
    c.tcp.time_wait_ps = Duration(20 * MS);
    c.topology.clients = 2;
    c.switch.present = true;
    let p = c.placements[0].clone();
    c.placements = vec![p; 3];
    c
}

/// The run, with finished connections' slots freed or every slot kept.
fn run_web(c: &Config, free: bool) -> (World, Value) {
    let mut wl = nicsim::workload::build(c);
    let mut w = World::new(c).unwrap();
    w.free_slots = free;
    nicsim::workload::drive(&mut w, wl.as_mut()).unwrap_or_else(|e| panic!("{e}"));
    let v = wl.report(&w);
    (w, v)
}

#[test]
fn finished_connections_give_back_their_slots_and_no_result_changes() {
    for keep_alive in [false, true] {
        let c = web(40, keep_alive);
        let (freed, report) = run_web(&c, true);
        let (kept, same) = run_web(&c, false);
        // Requests, response times, every processor's and node's figures.
        assert_eq!(report, same, "keep_alive = {keep_alive}");
        assert!(report["web"]["requests_per_s"].as_f64().unwrap() > 1000.0);
        assert_eq!(freed.eng.executed(), kept.eng.executed());
        for (a, b) in freed.directions() {
            let json = |w: &World| serde_json::to_value(w.conservation(a, b, None)).unwrap();
            assert_eq!(json(&freed), json(&kept), "node{a}→node{b}");
        }
        for (f, k) in freed.nodes.iter().zip(&kept.nodes) {
            let (opened, slots) = (f.slots.opened as usize, f.conns.len());
            assert_eq!(k.conns.len(), opened, "kept: a slot per connection opened");
            assert_eq!(f.app_bytes_read(), k.app_bytes_read());
            assert_eq!(f.payload_handed_bytes(), k.payload_handed_bytes());
            assert_eq!(f.tcp_total(|s| s.acks_sent), k.tcp_total(|s| s.acks_sent));
            // Freed: the most connections open at once, and a sweep's worth that finished.
            let peak = f.slots.peak_open as usize;
            assert!(
                slots <= peak + 64.max(slots / 8),
                "node{}: {slots} slots, {peak} open at most",
                f.id
            );
            assert!(
                opened > 10 * slots,
                "node{}: {opened} opened, {slots} slots",
                f.id
            );
        }
        // The first handshakes' retransmission timers (3 s) went off after their slots held
        // other connections, and fired nothing: no SYN was sent again.
        let stale: u64 = freed.nodes.iter().map(|n| n.stats.stale_timers).sum();
        assert!(stale > 0);
        assert!(kept.nodes.iter().all(|n| n.stats.stale_timers == 0));
        let syn_again = |w: &World| -> u64 {
            w.nodes
                .iter()
                .map(|n| n.tcp_total(|s| s.syn_retransmits))
                .sum()
        };
        assert_eq!(syn_again(&freed), 0);
        assert_eq!(syn_again(&kept), 0);
    }
}
