//! Several NICs on the server: each with its own rings, interrupt and softirq, steered by
//! interrupt affinity; point-to-point links pairing clients with NICs, or a switch.

use super::*;
use nicsim::config::{NetperfTest, NicIrq};
use nicsim::system::World;

const MS: u64 = 1_000_000_000;

/// A two-CPU server with `nics` NICs and `clients` senders streaming one connection each.
fn two_nic_server(clients: u32, nics: u32, irq: NicIrq, switch: bool) -> Config {
    let mut c = netperf(NetperfTest::TcpStream, clients, clients);
    c.cpu.count = 2;
    c.workload.netperf.msg_bytes = 65536;
    c.workload.netperf.duration_ps = Duration(100 * MS);
    c.workload.netperf.warmup_ps = Duration(30 * MS);
    c.topology.server_nics = nics;
    c.topology.server_nic_irq = irq;
    c.switch.present = switch;
    c
}

fn busy(v: &Value, proc: &str, key: &str) -> f64 {
    v["processors"][proc][key].as_f64().unwrap()
}

#[test]
fn each_nic_interrupts_the_cpu_it_is_steered_to_and_its_softirq_runs_there() {
    let (w, spread) = drive(&two_nic_server(2, 2, NicIrq::Spread, false));
    let server = w.server();
    for d in &w.nodes[server].devs {
        assert!(d.nic.stats.rx_frames > 0, "both NICs receive");
    }
    assert!(busy(&spread, "node2.cpu1", "nic_irq_per_s") > 0.0);
    assert!(
        spread["processors"]["node2.cpu1"]["busy"]["tcpip"]
            .as_f64()
            .unwrap()
            > 0.05
    );
    let (_, same) = drive(&two_nic_server(2, 2, NicIrq::Same, false));
    assert_eq!(busy(&same, "node2.cpu1", "nic_irq_per_s"), 0.0);
    assert_eq!(busy(&same, "node2.cpu1", "utilisation"), 0.0);
    // Two CPUs sharing the protocol work move more than one doing it all.
    let rate = |v: &Value| {
        v["netperf"]["aggregate"]["throughput_mbps"]
            .as_f64()
            .unwrap()
    };
    assert!(
        rate(&spread) > 1.1 * rate(&same),
        "{} vs {}",
        rate(&spread),
        rate(&same)
    );
    for f in 1..=2u32 {
        for (a, b) in [(0, 2), (2, 0), (1, 2), (2, 1)] {
            let k = w.conservation(a, b, Some(f));
            assert_eq!(
                k.sent_bytes,
                k.delivered_bytes + k.in_flight_bytes + k.dropped_bytes
            );
        }
    }
}

#[test]
fn through_a_switch_connections_alternate_over_the_servers_nics() {
    let (w, _) = drive(&two_nic_server(4, 2, NicIrq::Spread, true));
    let server = &w.nodes[w.server()];
    let devs: Vec<usize> = server.conns.iter().map(|c| c.dev).collect();
    assert_eq!(devs, vec![0, 1, 0, 1]);
    assert!(server.devs.iter().all(|d| d.nic.stats.rx_frames > 0));
}

#[test]
fn a_topology_the_links_cannot_join_is_refused_in_one_line() {
    let e = World::new(&two_nic_server(3, 2, NicIrq::Same, false))
        .err()
        .unwrap();
    assert!(
        e.contains("topology.clients = 3, topology.server_nics = 2"),
        "{e}"
    );
    let mut c = two_nic_server(2, 2, NicIrq::Same, false);
    c.nic_cpu.present = true;
    let e = World::new(&c).err().unwrap();
    assert!(e.contains("topology.server_nics = 2"), "{e}");
}

#[test]
fn rss_keeps_each_flow_on_one_queue_and_spreads_flows_over_the_queues() {
    let mut c = two_nic_server(1, 1, NicIrq::Spread, false);
    c.topology.server_rx_queues = 2;
    c.workload.netperf.connections = 6;
    let (w, v) = drive(&c);
    let server = &w.nodes[w.server()];
    assert_eq!(server.devs.len(), 2);
    for (d, dev) in server.devs.iter().enumerate() {
        let conns: Vec<_> = server.conns.iter().filter(|c| c.dev == d).collect();
        assert!(!conns.is_empty(), "the hash puts flows on queue {d}");
        // Every byte queue d took belongs to a flow RSS put on it: data frames carry the
        // payload (delivered to TCP, or still waiting in the ring when the run ends) and at
        // most 100 bytes of headers each.
        let waiting: u64 = dev.nic.rx_ready.iter().map(|f| f.hdr.payload_bytes()).sum();
        let payload: u64 = conns.iter().map(|c| c.rx_payload_bytes).sum::<u64>() + waiting;
        let s = &dev.nic.stats;
        assert!(
            s.rx_bytes >= payload && s.rx_bytes <= payload + 100 * s.rx_frames,
            "queue {d}: {} bytes in {} frames, {payload} of payload",
            s.rx_bytes,
            s.rx_frames
        );
    }
    // Each queue interrupts its own CPU.
    assert!(busy(&v, "node1.cpu0", "nic_irq_per_s") > 0.0);
    assert!(busy(&v, "node1.cpu1", "nic_irq_per_s") > 0.0);
}

#[test]
fn an_explicit_affinity_steers_each_nic_and_a_missing_processor_is_one_line() {
    use nicsim::config::ProcName;
    let mut c = two_nic_server(2, 2, NicIrq::Same, false);
    c.topology.server_nic_cpus = vec![ProcName::Cpu(1), ProcName::Cpu(0)];
    let (w, _) = drive(&c);
    let server = &w.nodes[w.server()];
    assert_eq!((server.devs[0].irq, server.devs[1].irq), (1, 0));
    c.cpu.count = 1;
    let e = World::new(&c).err().unwrap();
    assert!(
        e.contains("server device 0 steered to cpu1") && e.contains("it has cpu0"),
        "{e}"
    );
    c.topology.server_nic_cpus = vec![ProcName::Cpu(0)];
    let e = World::new(&c).err().unwrap();
    assert!(e.contains("1 processors for 2 server devices"), "{e}");
}
