//! Whole-system tests: one integration binary, modules per topic. They start from the
//! default configuration that `python/nicsim` resolves (fixture kept in sync by
//! `tests/test_contract.py`) and change what each test is about.

use nicsim::config::{Config, NetpipeMode, RxNotify};
use nicsim::units::Duration;
use serde_json::Value;

fn base() -> Config {
    let text = include_str!("../fixtures/base-short.json");
    nicsim::parse_config(text).expect("fixture parses")
}

/// Runs the workload `c` names on a world built from it; the world and the workload's report.
fn drive(c: &Config) -> (nicsim::system::World, Value) {
    let mut wl = nicsim::workload::build(c);
    let mut w = nicsim::system::World::new(c).unwrap();
    nicsim::workload::drive(&mut w, wl.as_mut()).unwrap_or_else(|e| panic!("{e}"));
    let v = wl.report(&w);
    (w, v)
}

/// Asserts that every client connection conserves its bytes both ways (sent = delivered + in
/// flight + dropped and counted); returns their dropped bytes.
fn every_flow_conserves(w: &nicsim::system::World) -> u64 {
    let server = w.server();
    let mut dropped = 0;
    for (client, n) in w.nodes[..server].iter().enumerate() {
        for conn in &n.conns {
            let f = conn.tcp.flow;
            for (a, b) in [(client, server), (server, client)] {
                let k = w.conservation(a, b, Some(f));
                assert!(k.holds(), "flow {f} node{a}→node{b}: {k:?}");
                dropped += k.dropped_bytes;
            }
        }
    }
    dropped
}

/// netperf `test` over `connections` from `clients` client nodes (through a switch when more
/// than one), every node on the fixture's placement, a 200 ms window after 50 ms.
fn netperf(test: nicsim::config::NetperfTest, connections: u32, clients: u32) -> Config {
    let mut c = base();
    c.workload.kind = nicsim::config::WorkloadKind::Netperf;
    c.workload.netperf.test = test;
    c.workload.netperf.connections = connections;
    c.workload.netperf.duration_ps = Duration(200_000_000_000);
    c.workload.netperf.warmup_ps = Duration(50_000_000_000);
    c.topology.clients = clients;
    c.switch.present = clients > 1;
    let p = c.placements[0].clone();
    c.placements = vec![p; clients as usize + 1];
    c
}

/// Runs the engine up to `t`; returns the (node, thread) operations that finished, with when.
fn run_until(
    w: &mut nicsim::system::World,
    t: nicsim::units::Time,
) -> Vec<(usize, usize, nicsim::units::Time)> {
    let mut done = Vec::new();
    while w.eng.peek_time().is_some_and(|p| p <= t) {
        w.step();
        while let Some((n, tid)) = w.take_done() {
            done.push((n, tid, w.eng.now()));
        }
    }
    done
}

fn run(cfg: &Config) -> Value {
    nicsim::run(cfg).unwrap_or_else(|e| panic!("run failed: {e}"))
}

fn stream(cfg: &mut Config, sizes: &[u64], target_ms: u64) {
    cfg.workload.netpipe.mode = NetpipeMode::Stream;
    cfg.workload.netpipe.sizes_bytes = sizes.to_vec();
    cfg.workload.netpipe.target_ps = Duration(target_ms * 1_000_000_000);
}

fn last_point(v: &Value) -> &Value {
    v["points"].as_array().unwrap().last().unwrap()
}

fn node(v: &Value, n: &str, key: &str) -> f64 {
    last_point(v)["nodes"][n][key].as_f64().unwrap()
}

fn cons_holds(v: &Value) {
    for dir in ["node0_to_node1", "node1_to_node0"] {
        let c = &v["conservation"][dir];
        let f = |k: &str| c[k].as_u64().unwrap();
        assert_eq!(
            f("sent_bytes"),
            f("delivered_bytes") + f("in_flight_bytes") + f("dropped_bytes"),
            "{dir}: {c}"
        );
    }
}

mod determinism {
    use super::*;

    #[test]
    fn same_config_gives_identical_results() {
        let mut c = base();
        stream(&mut c, &[1000, 100_000], 5);
        // All but the two fields that time this machine (docs/output.md).
        let results = |mut v: Value| {
            let sim = v["simulator"].as_object_mut().expect("a simulator block");
            assert!(sim.remove("wall_s").is_some() && sim.remove("simulated_per_wall").is_some());
            v.to_string()
        };
        assert_eq!(results(run(&c)), results(run(&c)));
    }
}

mod conservation {
    use super::*;

    #[test]
    fn every_byte_is_delivered_in_flight_or_dropped() {
        let mut c = base();
        stream(&mut c, &[65536, 1 << 20], 10);
        let v = run(&c);
        cons_holds(&v);
        let sent = v["conservation"]["node0_to_node1"]["sent_bytes"]
            .as_u64()
            .unwrap();
        assert!(sent > 1 << 20, "the run moved data");
    }

    #[test]
    fn throughput_never_exceeds_the_link_and_cpus_never_exceed_100_percent() {
        let mut c = base();
        c.nb.ideal = true;
        c.io.ideal = true;
        c.cpu.clock_hz = nicsim::units::Freq(4_000_000_000);
        stream(&mut c, &[1 << 20], 20);
        let v = run(&c);
        let p = last_point(&v);
        let mbps = p["throughput_mbps"].as_f64().unwrap();
        assert!(mbps <= 1000.0 * 8948.0 / 9038.0 + 1e-6, "{mbps}");
        assert!(
            mbps > 800.0,
            "a 4 GHz host with ideal buses nears the link rate: {mbps}"
        );
        for (_, pr) in p["processors"].as_object().unwrap() {
            assert!(pr["utilisation"].as_f64().unwrap() <= 1.0 + 1e-9);
        }
    }
}

mod ring_overflow {
    use super::*;

    /// Without SACK, so fast retransmit is NewReno's.
    fn overflowing(fast_retransmit: bool) -> Value {
        overflowing_with(fast_retransmit, false, 1 << 20)
    }

    fn overflowing_with(fast_retransmit: bool, sack: bool, message_bytes: u64) -> Value {
        let mut c = base();
        c.nic.rx_ring_entries = 4;
        c.nic.mtu_bytes = 1500;
        c.tcp.fast_retransmit = fast_retransmit;
        c.tcp.sack = sack;
        // TCP input in the softirq, which the ring then outruns (with the prequeue it runs in
        // the reader's context and a 4-entry ring rarely fills).
        c.tcp.prequeue = false;
        stream(&mut c, &[message_bytes], 500);
        let v = run(&c);
        cons_holds(&v);
        v
    }

    #[test]
    fn a_full_ring_drops_counts_and_tcp_recovers_by_timeout() {
        let v = overflowing(false);
        assert!(
            node(&v, "node1", "rx_dropped_ring_frames") > 0.0,
            "frames were dropped"
        );
        assert!(
            node(&v, "node0", "retransmitted_bytes") > 0.0,
            "the sender retransmitted"
        );
        assert!(
            node(&v, "node0", "rto_expiries") > 0.0,
            "recovery went through the RTO"
        );
        let dropped = v["conservation"]["node0_to_node1"]["dropped_bytes"]
            .as_u64()
            .unwrap();
        assert!(dropped > 0);
    }

    #[test]
    fn fast_retransmit_recovers_sooner_than_the_timer() {
        let slow = overflowing(false);
        let fast = overflowing(true);
        assert!(node(&fast, "node0", "fast_retransmits") > 0.0);
        // NewReno without SACK may still time out when a window loses several segments.
        assert!(node(&fast, "node0", "rto_expiries") < node(&slow, "node0", "rto_expiries"));
        let t = |v: &Value| last_point(v)["throughput_mbps"].as_f64().unwrap();
        assert!(
            t(&fast) > 5.0 * t(&slow),
            "fast {} vs RTO only {}",
            t(&fast),
            t(&slow)
        );
    }

    /// A 4-entry ring loses several segments a window: NewReno repairs one hole per round
    /// trip and may resend what arrived, SACK repairs all the holes it learns of and resends
    /// only those. A 1 MiB message holds dozens of loss events, so one unlucky timeout (a lost
    /// retransmission) does not decide the comparison.
    #[test]
    fn sack_streams_faster_than_newreno_through_an_overflowing_ring() {
        let reno = overflowing_with(true, false, 1 << 20);
        let sack = overflowing_with(true, true, 1 << 20);
        let t = |v: &Value| last_point(v)["throughput_mbps"].as_f64().unwrap();
        assert!(node(&sack, "node1", "rx_dropped_ring_frames") > 0.0);
        assert!(node(&sack, "node0", "fast_retransmits") > 0.0);
        assert!(
            node(&sack, "node0", "retransmitted_bytes")
                < node(&reno, "node0", "retransmitted_bytes")
        );
        assert!(
            t(&sack) > 1.2 * t(&reno),
            "SACK {} vs NewReno {} Mbps",
            t(&sack),
            t(&reno)
        );
    }
}

mod interrupts {
    use super::*;

    fn rx_irqs(c: &Config) -> f64 {
        let v = run(c);
        last_point(&v)["processors"]["node1.cpu0"]["nic_irq_per_s"]
            .as_f64()
            .unwrap()
    }

    #[test]
    fn napi_takes_fewer_interrupts_than_one_per_event_when_frames_queue_up() {
        // A slow protocol path lets frames queue in the ring during a poll; NAPI then drains
        // several per interrupt, while one-interrupt-per-event takes them all.
        let mut c = base();
        c.nic.mtu_bytes = 1500;
        c.costs.scale.tcpip = 10.0;
        // The slow TCP input must be the softirq's (the prequeue would run it in the reader).
        c.tcp.prequeue = false;
        stream(&mut c, &[1 << 20], 20);
        let napi = rx_irqs(&c);
        c.nic.rx_notify = RxNotify::Interrupt;
        let per_event = rx_irqs(&c);
        assert!(
            napi < 0.8 * per_event,
            "napi {napi} vs interrupt {per_event}"
        );
    }

    #[test]
    fn frame_coalescing_reduces_interrupts() {
        let mut c = base();
        c.nic.mtu_bytes = 1500;
        c.nic.rx_notify = RxNotify::Interrupt;
        stream(&mut c, &[1 << 20], 20);
        let one = rx_irqs(&c);
        c.nic.rx_coalesce_frames = 8;
        c.nic.rx_coalesce_ps = Duration(1_000_000_000);
        let eight = rx_irqs(&c);
        assert!(eight < 0.5 * one, "8-frame coalescing {eight} vs 1 {one}");
    }
}

mod contention {
    use super::*;

    #[test]
    fn dma_and_copies_collide_on_the_north_bridge_unless_it_is_ideal() {
        let mut c = base();
        stream(&mut c, &[1 << 20], 10);
        let v = run(&c);
        assert!(node(&v, "node1", "north_bridge_collisions") > 0.0);
        assert!(node(&v, "node1", "north_bridge_penalty_us") > 0.0);
        c.nb.ideal = true;
        let ideal = run(&c);
        assert_eq!(node(&ideal, "node1", "north_bridge_collisions"), 0.0);
    }

    fn onload(c: &mut Config) {
        use nicsim::config::ProcName::Cpu;
        let (cpu0, cpu1) = (Cpu(0), Cpu(1));
        c.cpu.count = 2;
        for p in c.placements.iter_mut() {
            (p.driver, p.irq_target, p.protocol, p.comm_thread, p.app) =
                (cpu1, cpu1, cpu1, cpu0, cpu0);
        }
    }

    /// node1.cpu0's copy cycles per byte it copied.
    fn cpu0_copy_cycles_per_byte(v: &Value) -> f64 {
        let p = last_point(v);
        p["processors"]["node1.cpu0"]["busy_cycles"]["copy"]
            .as_f64()
            .unwrap()
            / p["nodes"]["node1"]["copy_bytes"].as_f64().unwrap()
    }

    #[test]
    fn references_that_hit_never_reach_the_north_bridge() {
        let mut c = base();
        stream(&mut c, &[1 << 20], 10);
        // The same 10-cycle mean, but every reference hits: only DMA lines reach the bridge.
        (c.mem.hit_ratio, c.mem.hit_cycles) = (1.0, 10.0);
        let v = run(&c);
        assert_eq!(node(&v, "node1", "north_bridge_collisions"), 0.0);
        let lines = node(&v, "node1", "dma_bytes") / 64.0;
        let tx = node(&v, "node1", "north_bridge_transactions");
        assert!(
            tx >= lines && tx < 1.1 * lines,
            "{tx} transactions for {lines} DMA lines"
        );
    }

    #[test]
    fn a_second_cpu_does_not_slow_cpu0s_copy_through_the_bridge() {
        // Onload: cpu1 runs the driver and TCP/IP beside cpu0's copy to the user.
        let mut c = base();
        stream(&mut c, &[1 << 20], 10);
        c.rx.softirq_payload_copy = false;
        onload(&mut c);
        let shared = cpu0_copy_cycles_per_byte(&run(&c));
        // Without any bridge traffic from the CPUs (every reference hits at the same mean).
        (c.mem.hit_ratio, c.mem.hit_cycles) = (1.0, 10.0);
        let alone = cpu0_copy_cycles_per_byte(&run(&c));
        assert!(
            shared < 1.05 * alone,
            "copy {shared:.3} cycles/B with cpu1 busy vs {alone:.3} without bridge traffic"
        );
    }

    #[test]
    fn a_slower_memory_lowers_peak_throughput() {
        let mut c = base();
        stream(&mut c, &[1 << 20], 10);
        let fast = last_point(&run(&c))["throughput_mbps"].as_f64().unwrap();
        c.mem.miss_cycles = 191.0;
        let slow = last_point(&run(&c))["throughput_mbps"].as_f64().unwrap();
        assert!(slow < 0.85 * fast, "{slow} vs {fast}");
    }
}

mod errors {
    #[test]
    fn unknown_and_missing_fields_are_rejected_by_the_core() {
        let text = include_str!("../fixtures/base-short.json");
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["nic"]["nosuch"] = 1.into();
        let e = nicsim::parse_config(&v.to_string())
            .unwrap_err()
            .to_string();
        assert!(e.contains("nosuch"), "{e}");
        let mut w: serde_json::Value = serde_json::from_str(text).unwrap();
        w["nic"].as_object_mut().unwrap().remove("mtu_bytes");
        let e = nicsim::parse_config(&w.to_string())
            .unwrap_err()
            .to_string();
        assert!(e.contains("mtu_bytes"), "{e}");
    }

    #[test]
    fn a_placement_naming_a_missing_processor_is_a_config_error() {
        let mut c = super::base();
        c.placements[1].protocol = nicsim::config::ProcName::NicCpu;
        match nicsim::run(&c) {
            Err(nicsim::Error::Config(m)) => assert!(m.contains("nic_cpu"), "{m}"),
            other => panic!("expected a config error, got {other:?}"),
        }
    }
}

mod transmit_ring {
    use super::*;

    #[test]
    fn a_tiny_transmit_ring_queues_packets_and_loses_none() {
        let mut c = base();
        stream(&mut c, &[1 << 20], 20);
        let full = last_point(&run(&c))["throughput_mbps"].as_f64().unwrap();
        c.nic.tx_ring_entries = 1;
        let v = run(&c);
        cons_holds(&v);
        let one = last_point(&v)["throughput_mbps"].as_f64().unwrap();
        assert!(one > 0.0 && one <= full * 1.01, "{one} vs {full}");
    }
}

mod partial_results {
    use super::*;

    #[test]
    fn a_failed_check_keeps_the_points_measured_before_it() {
        let mut c = base();
        c.workload.netpipe.mode = NetpipeMode::Pingpong;
        c.workload.netpipe.sizes_bytes = vec![1, 65536];
        let mut wl = nicsim::workload::build(&c);
        let mut w = nicsim::system::World::new(&c).unwrap();
        // Pretend the link carries only 1 Mbps: the 64 KiB point breaks the bound check.
        w.cfg.link.rate_bps = nicsim::units::BitRate(1_000_000);
        let e = nicsim::workload::drive(&mut w, wl.as_mut()).expect_err("the bound check fails");
        assert!(e.contains("throughput bound broken"), "{e}");
        let points = wl.report(&w)["points"].as_array().unwrap().len();
        assert_eq!(
            points, 2,
            "both points were measured; the second failed its check"
        );
    }
}

mod packet_gen_window {
    use super::*;
    use nicsim::config::WorkloadKind;
    use nicsim::units::Duration;

    /// A frame that arrives just before the window opens and is delivered just after it
    /// counts in the window: the window's counters are read at its start, not at the next
    /// arrival.
    #[test]
    fn a_delivery_just_after_the_window_opens_counts_in_it() {
        let mut c = base();
        c.workload.kind = WorkloadKind::PacketGen;
        c.workload.packet_gen.rate_pps = 1000.0;
        // Arrivals at 0, 1, 2, 3 ms; the window is [1.001 ms, 3.501 ms).
        c.workload.packet_gen.warmup_ps = Duration(1_001_000_000);
        c.workload.packet_gen.duration_ps = Duration(2_500_000_000);
        let v = run(&c);
        let g = &v["packet_gen"];
        let secs = g["window_s"].as_f64().unwrap();
        let offered = (g["offered_pps"].as_f64().unwrap() * secs).round();
        let delivered = (g["delivered_pps"].as_f64().unwrap() * secs).round();
        assert_eq!(offered, 2.0, "arrivals at 2 and 3 ms");
        assert_eq!(
            delivered, 3.0,
            "the 1 ms frame is delivered inside the window: {g}"
        );
    }
}
mod eevdf;
mod handoff;
mod lifecycle;
mod locks;
mod many;
mod nics;
mod slots;
mod threads;
mod udp;
