//! The derived quantities pinned to a built model.

use super::*;
use crate::config::ProcName;
use crate::units::Duration;

fn base() -> Config {
    crate::parse_config(include_str!("../../tests/fixtures/base-short.json")).unwrap()
}

fn gbps(n: u64) -> BitRate {
    BitRate(n * 1_000_000_000)
}

#[test]
fn mss_with_and_without_timestamps() {
    assert_eq!(defaults(1500, true, gbps(1)).mss_bytes, 1448);
    assert_eq!(defaults(1500, false, gbps(1)).mss_bytes, 1460);
    assert_eq!(defaults(9000, true, gbps(1)).mss_bytes, 8948);
    let mut c = base();
    c.nic.mtu_bytes = 1500;
    c.tcp.timestamps = false;
    let d = derived(&c);
    assert_eq!((d.mss_bytes, d.header_bytes), (1460, 40));
    c.tcp.timestamps = true;
    assert_eq!(derived(&c).header_bytes, 52);
}

#[test]
fn rfc3390_window_and_ring_flush_auto_values() {
    // min(4·MSS, max(2·MSS, 4380)) / MSS: 3 for standard frames, 2 for jumbo, 4 at 536.
    assert_eq!(defaults(1500, true, gbps(1)).initial_window_segments, 3);
    assert_eq!(defaults(1500, false, gbps(1)).initial_window_segments, 3);
    assert_eq!(defaults(9000, true, gbps(1)).initial_window_segments, 2);
    assert_eq!(tcp::rfc3390_initial_window_segments(536), 4);
    // A 9000-byte MTU frame is 9038 wire bytes: 72.304 µs at 1 Gb/s.
    let d = defaults(9000, true, gbps(1));
    assert_eq!(
        (d.max_frame_wire_bytes, d.max_frame_wire_ps),
        (9038, 72_304_000)
    );
    // Rounded up to the picosecond: 1538 bytes at 3 Gb/s is 4101.33 ns.
    assert_eq!(defaults(1500, true, gbps(3)).max_frame_wire_ps, 4_101_334);
}

#[test]
fn link_payload_rate_at_1g_mtu_1500_is_exact() {
    let mut c = base();
    c.nic.mtu_bytes = 1500;
    c.link.rate_bps = gbps(1);
    assert_eq!(derived(&c).link_payload_bps, 1e9 * 1448.0 / 1538.0);
    c.tcp.timestamps = false;
    assert_eq!(derived(&c).link_payload_bps, 1e9 * 1460.0 / 1538.0);
}

#[test]
fn mean_access_is_zero_on_an_ideal_bridge() {
    let mut c = base();
    c.mem.hit_ratio = 0.5;
    c.mem.hit_cycles = 2.0;
    c.mem.miss_cycles = 100.0;
    assert_eq!(derived(&c).mem_mean_access_cycles, 51.0);
    c.nb.ideal = true;
    let d = derived(&c);
    assert_eq!(d.mem_mean_access_cycles, 0.0);
    assert_eq!(d.processors["cpu0"].mem_mean_access_cycles, 0.0);
}

#[test]
fn nic_processor_speed_and_alpha() {
    let mut c = base();
    assert_eq!(derived(&c).nic_cpu_alpha, None);
    assert_eq!(
        derived(&c).processors.keys().copied().collect::<Vec<_>>(),
        ["cpu0"]
    );
    c.nic_cpu.present = true;
    c.nic_cpu.speed_fraction = 0.25;
    c.nic_cpu.mem_latency_cycles = 7.0;
    c.cpu.count = 2;
    let d = derived(&c);
    assert_eq!(
        (d.nic_cpu_speed_fraction, d.nic_cpu_alpha),
        (Some(0.25), Some(4.0))
    );
    let n = &d.processors["nic_cpu"];
    assert_eq!((n.cpi, n.clock_hz), (1.0, 100_000_000));
    assert_eq!((n.alpha, n.mem_mean_access_cycles), (4.0, 7.0));
    assert_eq!(d.processors["cpu1"].alpha, 1.0);
    c.nic_cpu.speed_model = NicSpeedModel::InstructionRate;
    let n = &derived(&c).processors["nic_cpu"];
    assert_eq!((n.cpi, n.clock_hz), (4.0, 400_000_000));
}

#[test]
fn hardware_latencies_of_a_small_frame() {
    let mut c = base();
    c.link.rate_bps = gbps(1);
    c.link.latency_ps = Duration::from_ns(1000);
    c.tcp.timestamps = true;
    let h = hardware_latencies(&c, 1).unwrap();
    // 1 + 52 = 53-byte datagram, 91 bytes on the wire: 728 ns.
    assert_eq!(
        (h.ip_bytes, h.wire_bytes, h.wire_serialisation_ps),
        (53, 91, 728_000)
    );
    assert_eq!(h.link_propagation_ps, 1_000_000);
    // Without timestamps the 41-byte datagram is padded to 46: 84 wire bytes, 672 ns.
    c.tcp.timestamps = false;
    let h0 = hardware_latencies(&c, 1).unwrap();
    assert_eq!((h0.wire_bytes, h0.wire_serialisation_ps), (84, 672_000));
    // One I/O-bus transaction of 53 + 14 + 16 = 83 bytes: overhead plus 664 bits.
    let io = c.io.transaction_overhead_ps.ps();
    assert_eq!(h.sender_dma_read_bytes, 83);
    assert_eq!(
        h.sender_dma_read_ps,
        io + c.io.rate_bps.time_to_send(83).ps()
    );
    // The base placement routes the interrupt through the I/O APIC; direct costs nothing.
    assert_eq!(h.interrupt_delivery_ps, c.apic.ioapic_latency_ps.ps());
    c.placements[1].irq_path = IrqPath::Direct;
    assert_eq!(hardware_latencies(&c, 1).unwrap().interrupt_delivery_ps, 0);
}

#[test]
fn a_dma_transfer_is_chunked_and_waits_for_the_slower_bus() {
    let mut c = base();
    c.io.dma_chunk_bytes = 512;
    c.io.transaction_overhead_ps = Duration::from_ns(100);
    c.io.rate_bps = BitRate(8_000_000_000); // 1 ns per byte
    c.nb.transaction_hold_ps = Duration::from_ns(1);
    c.nb.line_bytes = 64;
    // 1100 bytes: 512 + 512 + 76, each overhead + 1 ns/byte; the bridge is faster.
    assert_eq!(dma_transfer_ps(&c, 1100), (300 + 1100) * 1000);
    // A slow bridge: 8 + 8 + 2 lines at 100 ns each, longer than the I/O bus each time.
    c.nb.transaction_hold_ps = Duration::from_ns(100);
    assert_eq!(dma_transfer_ps(&c, 1100), 1800 * 1000);
    c.nb.ideal = true;
    c.io.ideal = true;
    assert_eq!(dma_transfer_ps(&c, 1100), 0);
}

/// The derived values are the model's own: build the system and compare.
#[test]
fn derived_values_match_the_built_model() {
    for (mtu, ts, ideal, nic_cpu) in [
        (9000, true, false, false),
        (1500, false, true, true),
        (1500, true, false, true),
    ] {
        let mut c = base();
        c.nic.mtu_bytes = mtu;
        c.tcp.timestamps = ts;
        c.nb.ideal = ideal;
        c.nic_cpu.present = nic_cpu;
        c.nic_cpu.speed_fraction = 0.75;
        if nic_cpu {
            for p in &mut c.placements {
                p.protocol = ProcName::NicCpu;
            }
        }
        let d = derived(&c);
        let mut w = crate::system::World::new(&c).unwrap();
        w.connect(0, 1, true).unwrap();
        assert_eq!(
            d.link_payload_bps * d.max_frame_wire_bytes as f64,
            w.cfg.link.rate_bps.0 as f64 * d.mss_bytes as f64
        );
        for n in &w.nodes {
            assert_eq!(d.mss_bytes, n.conns[0].tcp.mss as u64);
            assert_eq!(n.procs.len(), d.processors.len());
            for (i, p) in n.procs.iter().enumerate() {
                let q = &d.processors[p.id.as_str()];
                assert_eq!(q.cpi, p.cpi, "{}", p.id.as_str());
                assert_eq!(q.mem_mean_access_cycles, n.mem.mean_cycles(i));
            }
        }
        assert_eq!(d.mem_mean_access_cycles, w.nodes[1].mem.mean_cycles(0));
    }
}
