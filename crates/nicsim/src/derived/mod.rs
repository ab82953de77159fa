//! Physics in one place: the quantities the model itself uses, derived from a configuration by
//! calling the same functions and constants the model calls (the TCP header and MSS rule, the
//! Ethernet wire size, the memory model, the I/O bus and north bridge pricing). Reports and the
//! Python layer read these instead of re-deriving them, so the two cannot drift. Nothing here
//! runs the simulation; the tests at the bottom pin these values to a built model.
//!
//! Three entry points, each with a JSON form for the binding (`api.rs`):
//! - `defaults(mtu, timestamps, rate)`: what the "0 = auto" parameters resolve to; needs only
//!   three values, so configuration resolution can call it before a full `Config` exists.
//! - `derived(&Config)`: per-configuration constants (MSS, header and framing bytes, link
//!   payload rate, mean memory access, processor speeds, interrupt latencies).
//! - `hardware_latencies(&Config, payload)`: the fixed, uncontended latencies of one frame's
//!   path from node0 to node1 (DMA read, wire, propagation, DMA write, interrupt delivery).

use crate::config::{Config, IrqPath, NetperfTest, NicSpeedModel, ProcName, TxOutput};
use crate::hw::bus::{IoBus, NorthBridge};
use crate::hw::dma::{Chan, DmaEngine, DmaTag};
use crate::hw::link::{
    wire_bytes, ETH_HEADER_BYTES, FCS_BYTES, FRAMING_BYTES, MIN_FRAME_BYTES, MIN_PAYLOAD_BYTES,
    PREAMBLE_GAP_BYTES,
};
use crate::hw::memory::MemoryModel;
use crate::placement::{processors, Policies, Receive, Roles};
use crate::stack::tcp;
use crate::units::{BitRate, Freq, Time};
use serde::Serialize;
use std::collections::BTreeMap;

/// What the "0 = auto" parameters resolve to.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Defaults {
    /// `stack::tcp::mss_bytes(mtu, timestamps)`, and the MSS a SYN advertises (no options).
    pub mss_bytes: u64,
    pub advertised_mss_bytes: u64,
    /// RFC 3390 initial window for that MSS (fills `tcp.initial_window_segments = 0`).
    pub initial_window_segments: u32,
    /// `hw::link::wire_bytes(mtu)`: a full-sized frame on the wire.
    pub max_frame_wire_bytes: u64,
    /// Serialisation time of that frame at the link rate, rounded up to the picosecond
    /// (fills `nic.ring_flush_idle_ps = 0`).
    pub max_frame_wire_ps: u64,
    /// A frame as a capture counts it (header, payload, FCS; no preamble): the shortest, and
    /// the longest at this MTU.
    pub min_frame_bytes: u64,
    pub max_frame_bytes: u64,
    /// What the wire adds to each such frame (preamble, SFD, inter-frame gap).
    pub wire_overhead_bytes: u64,
}

pub fn defaults(mtu_bytes: u64, timestamps: bool, link_rate: BitRate) -> Defaults {
    let mss = tcp::mss_bytes(mtu_bytes, timestamps);
    let wire = wire_bytes(mtu_bytes);
    Defaults {
        mss_bytes: mss,
        advertised_mss_bytes: tcp::mss_bytes(mtu_bytes, false),
        initial_window_segments: tcp::rfc3390_initial_window_segments(mss),
        max_frame_wire_bytes: wire,
        max_frame_wire_ps: link_rate.time_to_send(wire).ps(),
        min_frame_bytes: MIN_FRAME_BYTES,
        max_frame_bytes: mtu_bytes + ETH_HEADER_BYTES + FCS_BYTES,
        wire_overhead_bytes: PREAMBLE_GAP_BYTES,
    }
}

/// One processor of a node as the model builds it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProcessorDerived {
    /// Cycles per instruction the processor runs at (under `nic_cpu.speed_model =
    /// instruction_rate` a NIC processor's is the host CPI over its speed fraction).
    pub cpi: f64,
    /// Its clock (under `nic_cpu.speed_model = clock` a NIC processor's is the host's times its
    /// speed fraction).
    pub clock_hz: u64,
    /// Speed as a fraction of a host CPU (1 for host CPUs).
    pub speed_fraction: f64,
    /// α = Y/X, its cycle time over the host's: 1 / speed_fraction.
    pub alpha: f64,
    /// Mean cycles of its own clock a memory reference stalls it (t_mean of its memory model).
    pub mem_mean_access_cycles: f64,
}

/// Per-configuration constants of the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Derived {
    /// IP + TCP headers and options per segment.
    pub header_bytes: u64,
    pub mss_bytes: u64,
    /// Ethernet header, FCS, preamble and SFD, inter-frame gap.
    pub framing_bytes: u64,
    /// Shortest Ethernet payload; shorter datagrams are padded.
    pub min_frame_payload_bytes: u64,
    pub max_frame_wire_bytes: u64,
    pub max_frame_wire_ps: u64,
    pub rfc3390_initial_window_segments: u32,
    /// Payload rate of the link with full-sized segments: rate × MSS / wire_bytes(MTU). The
    /// model's throughput bound (LAWS B).
    pub link_payload_bps: f64,
    /// t_mean of the host CPUs' memory model: h·t_hit + (1 − h)·t_miss, 0 on an ideal bridge.
    pub mem_mean_access_cycles: f64,
    /// `nic_cpu.speed_fraction` when the node has a NIC processor, else null.
    pub nic_cpu_speed_fraction: Option<f64>,
    /// α of the NIC processor (1 / speed_fraction) when there is one, else null.
    pub nic_cpu_alpha: Option<f64>,
    pub ioapic_latency_ps: u64,
    pub ipi_latency_ps: u64,
    /// Every processor of a node, by name (`cpu0`, `cpu1`, `nic_cpu`), as the node builds it.
    pub processors: BTreeMap<&'static str, ProcessorDerived>,
    /// Each node's placement as the core resolves it (clients first, then the server).
    pub roles: Vec<RolesReport>,
}

/// The policies a node's placement resolves to (`placement::Roles`): decided once, in the
/// core, and reported so that nothing else re-decides them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RolesReport {
    pub placement: String,
    /// Who runs send-initiated output: `thread` (Linux) or `protocol` (the protocol
    /// processor: a TOE, CPU-NET test E, Classic Streams).
    pub tx_output: TxOutput,
    /// How received frames reach the protocol: `napi_poll`, `netif_rx` or `ring_accumulate`.
    pub receive: &'static str,
    /// Whether the host ring is polled with device interrupts masked (NAPI).
    pub napi: bool,
}

fn roles_report(cfg: &Config) -> Vec<RolesReport> {
    let ids = processors(cfg.cpu.count, cfg.nic_cpu.present);
    cfg.placements
        .iter()
        .map(|p| {
            let r = Roles::resolve(p, &ids, Policies::of(cfg));
            RolesReport {
                placement: p.name.clone(),
                tx_output: r.tx_output,
                receive: r.receive.as_str(),
                napi: r.receive == Receive::NapiPoll,
            }
        })
        .collect()
}

/// The host CPUs' memory model as the node builds it: a pure connector (0 cycles, nothing
/// reaches the bridge) when `nb.ideal`, else the mean-access model of `mem.*`.
pub fn host_memory_model(cfg: &Config) -> MemoryModel {
    if cfg.nb.ideal {
        MemoryModel::flat(0.0)
    } else {
        MemoryModel::MeanAccess {
            hit_ratio: cfg.mem.hit_ratio,
            hit_cycles: cfg.mem.hit_cycles,
            miss_cycles: cfg.mem.miss_cycles,
        }
    }
}

/// The NIC processor's memory model as the node builds it (local memory, never the bridge).
pub fn nic_cpu_memory_model(cfg: &Config) -> MemoryModel {
    MemoryModel::flat(cfg.nic_cpu.mem_latency_cycles)
}

/// The I/O bus as every node builds it.
pub fn io_bus(cfg: &Config) -> IoBus {
    IoBus::new(
        cfg.io.rate_bps,
        cfg.io.transaction_overhead_ps,
        cfg.io.ideal,
    )
}

/// The north bridge as every node builds it, shared by `host_cpus` CPUs.
pub fn north_bridge(cfg: &Config, host_cpus: usize) -> NorthBridge {
    NorthBridge::new(
        cfg.cpu
            .clock_hz
            .duration_of(cfg.nb.collision_penalty_cycles),
        cfg.nb.transaction_hold_ps,
        cfg.nb.line_bytes,
        cfg.nb.ideal,
        host_cpus,
    )
}

/// Cycles per instruction of a processor: a NIC processor slowed by its instruction rate has
/// the host CPI over its speed fraction.
pub fn cpi(cfg: &Config, p: ProcName) -> f64 {
    if p.is_nic() && cfg.nic_cpu.speed_model == NicSpeedModel::InstructionRate {
        cfg.cpu.cpi / cfg.nic_cpu.speed_fraction
    } else {
        cfg.cpu.cpi
    }
}

/// Clock of a processor: a NIC processor slowed by its clock runs at the fraction of the host's.
pub fn clock(cfg: &Config, p: ProcName) -> Freq {
    if p.is_nic() && cfg.nic_cpu.speed_model == NicSpeedModel::Clock {
        Freq((cfg.cpu.clock_hz.0 as f64 * cfg.nic_cpu.speed_fraction).round() as u64)
    } else {
        cfg.cpu.clock_hz
    }
}

/// Payload rate of the link with full-sized segments (host-path §4.8).
pub fn link_payload_bps(cfg: &Config) -> f64 {
    let d = defaults(cfg.nic.mtu_bytes, cfg.tcp.timestamps, cfg.link.rate_bps);
    cfg.link.rate_bps.0 as f64 * d.mss_bytes as f64 / d.max_frame_wire_bytes as f64
}

fn processor(cfg: &Config, p: ProcName) -> ProcessorDerived {
    if p.is_nic() {
        let s = cfg.nic_cpu.speed_fraction;
        ProcessorDerived {
            cpi: cpi(cfg, p),
            clock_hz: clock(cfg, p).0,
            speed_fraction: s,
            alpha: 1.0 / s,
            mem_mean_access_cycles: nic_cpu_memory_model(cfg).mean_cycles(),
        }
    } else {
        ProcessorDerived {
            cpi: cpi(cfg, p),
            clock_hz: clock(cfg, p).0,
            speed_fraction: 1.0,
            alpha: 1.0,
            mem_mean_access_cycles: host_memory_model(cfg).mean_cycles(),
        }
    }
}

pub fn derived(cfg: &Config) -> Derived {
    let mtu = cfg.nic.mtu_bytes;
    let d = defaults(mtu, cfg.tcp.timestamps, cfg.link.rate_bps);
    let nic_cpu = cfg
        .nic_cpu
        .present
        .then(|| processor(cfg, ProcName::NicCpu));
    Derived {
        header_bytes: tcp::header_bytes(cfg.tcp.timestamps),
        mss_bytes: d.mss_bytes,
        framing_bytes: FRAMING_BYTES,
        min_frame_payload_bytes: MIN_PAYLOAD_BYTES,
        max_frame_wire_bytes: d.max_frame_wire_bytes,
        max_frame_wire_ps: d.max_frame_wire_ps,
        rfc3390_initial_window_segments: d.initial_window_segments,
        link_payload_bps: link_payload_bps(cfg),
        mem_mean_access_cycles: host_memory_model(cfg).mean_cycles(),
        nic_cpu_speed_fraction: nic_cpu.as_ref().map(|p| p.speed_fraction),
        nic_cpu_alpha: nic_cpu.as_ref().map(|p| p.alpha),
        ioapic_latency_ps: cfg.apic.ioapic_latency_ps.ps(),
        ipi_latency_ps: cfg.apic.ipi_latency_ps.ps(),
        processors: processors(cfg.cpu.count, cfg.nic_cpu.present)
            .into_iter()
            .map(|p| (p.as_str(), processor(cfg, p)))
            .collect(),
        roles: roles_report(cfg),
    }
}

/// The fixed latencies of one frame from node0 to node1, each uncontended: what remains of a
/// one-way time once CPU work is taken out, apart from waits.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HardwareLatencies {
    pub payload_bytes: u64,
    /// The IP datagram: payload plus `header_bytes`.
    pub ip_bytes: u64,
    /// node0's NIC reads the frame and its descriptor from host memory.
    pub sender_dma_read_bytes: u64,
    pub sender_dma_read_ps: u64,
    pub wire_bytes: u64,
    pub wire_serialisation_ps: u64,
    pub link_propagation_ps: u64,
    /// node1's NIC writes the frame, its descriptor and the status block (host-ring receive).
    pub receiver_dma_write_bytes: u64,
    pub receiver_dma_write_ps: u64,
    /// I/O APIC latency when node1's placement routes the NIC interrupt through it, else 0.
    pub interrupt_delivery_ps: u64,
}

/// Time a DMA transfer of `bytes` takes on an idle node: cut into `io.dma_chunk_bytes`
/// transactions, each holding the I/O bus (`IoBus::transact`) while its memory lines cross the
/// north bridge (`NorthBridge::dma`), the slower of the two, as the node's DMA engine does.
pub fn dma_transfer_ps(cfg: &Config, bytes: u64) -> u64 {
    let host_cpus = processors(cfg.cpu.count, false).len();
    let (mut io, mut nb) = (io_bus(cfg), north_bridge(cfg, host_cpus));
    let mut dma = DmaEngine::new(cfg.io.dma_chunk_bytes);
    dma.request(Chan::Rx, vec![()], bytes, DmaTag::Nic(None));
    let mut t = Time::ZERO;
    while let Some(end) = dma.start(Chan::Rx, t, &mut io, &mut nb) {
        t = end;
        if dma.finish(Chan::Rx).is_some() {
            break;
        }
    }
    t.ps()
}

/// One job of stage `name` over `bytes` bytes and `count` packets on host CPU 0, in ps, as its
/// processor prices it with no contention and no register access: the scaled instruction-
/// cycles at the CPU's CPI, then the references at the mean access time (mode A's t_mean).
pub fn stage_ps(cfg: &Config, name: &str, bytes: f64, count: f64) -> Result<f64, String> {
    let stage = cfg
        .costs
        .stage(name)
        .ok_or_else(|| format!("no cost stage named {name:?}"))?;
    let (cycles, refs) = stage.work(&cfg.costs.scale, bytes, count);
    let p = ProcName::Cpu(0);
    let stall = host_memory_model(cfg).stall_cycles(refs);
    Ok((cycles * cpi(cfg, p) + stall) * 1e12 / clock(cfg, p).0 as f64)
}

/// `payload_bytes` in one frame (a payload above the MSS is priced as one oversized frame).
pub fn hardware_latencies(cfg: &Config, payload_bytes: u64) -> Result<HardwareLatencies, String> {
    let receiver = cfg
        .placements
        .get(1)
        .ok_or("placements: node1 has no placement")?;
    let ip = payload_bytes + tcp::header_bytes(cfg.tcp.timestamps);
    let read = ip + ETH_HEADER_BYTES + cfg.nic.descriptor_bytes;
    let write = ip + ETH_HEADER_BYTES + cfg.nic.descriptor_bytes + cfg.nic.status_block_bytes;
    let wire = wire_bytes(ip);
    Ok(HardwareLatencies {
        payload_bytes,
        ip_bytes: ip,
        sender_dma_read_bytes: read,
        sender_dma_read_ps: dma_transfer_ps(cfg, read),
        wire_bytes: wire,
        wire_serialisation_ps: cfg.link.rate_bps.time_to_send(wire).ps(),
        link_propagation_ps: cfg.link.latency_ps.ps(),
        receiver_dma_write_bytes: write,
        receiver_dma_write_ps: dma_transfer_ps(cfg, write),
        interrupt_delivery_ps: match receiver.irq_path {
            IrqPath::Ioapic => cfg.apic.ioapic_latency_ps.ps(),
            IrqPath::Direct => 0,
        },
    })
}

/// IP and UDP headers of a datagram (20 + 8 bytes).
pub const UDP_IP_HEADER_BYTES: u64 = 28;

/// netperf's message size: `workload.netperf.msg_bytes`, or netperf's default where it is 0:
/// a send of the socket buffer, one-byte transactions, or one full frame per UDP datagram
/// (netperf users set -m; fragmentation is not modelled).
pub fn netperf_msg_bytes(cfg: &Config) -> u64 {
    match (cfg.workload.netperf.msg_bytes, cfg.workload.netperf.test) {
        (0, NetperfTest::TcpStream) => cfg.tcp.socket_buffer_bytes,
        (0, NetperfTest::TcpRr | NetperfTest::TcpCrr | NetperfTest::UdpRr) => 1,
        (0, NetperfTest::UdpStream) => cfg.nic.mtu_bytes - UDP_IP_HEADER_BYTES,
        (n, _) => n,
    }
}

/// Load control's (low, high) watermarks of a handoff NIC on a node clocked at `clock_hz`, as
/// given or derived: the high one from the delay budget (§6.3), the received segments the NIC
/// processes within `handoff.target_rx_delay_ps` at its instruction rate; the low one a quarter
/// of it.
pub fn handoff_watermarks(cfg: &Config, clock_hz: Freq) -> (u32, u32) {
    let (h, c) = (&cfg.handoff, &cfg.costs);
    let rate_ips = clock_hz.0 as f64 / cpi(cfg, ProcName::NicCpu);
    let per_segment = c.nic_lookup.i_pkt + c.rx_ip.i_pkt + c.rx_tcp.i_pkt;
    let hiwat = match h.hiwat_packets {
        0 => (h.target_rx_delay_ps.as_secs_f64() * rate_ips / per_segment.max(1.0))
            .ceil()
            .max(1.0) as u32,
        n => n,
    };
    let lowat = match h.lowat_packets {
        0 => hiwat / 4,
        n => n,
    };
    (lowat, hiwat)
}

#[cfg(test)]
mod tests;
