//! The core's cross-field checks of a configuration, in one place and one message style:
//! `key = value: what is wrong; what is allowed`. Python checks what it can see first (ranges,
//! choices, paths); these are the rules that need the model's own constants. `config` runs
//! them all, once, before a world is built; nothing past it checks the configuration again.

use crate::config::{Config, NetperfTest, NicIrq, Placement, RxMode, WorkloadKind, MAX_HOST_CPUS};
use crate::derived::{self, UDP_IP_HEADER_BYTES};
use crate::hw::frame::NodeAddr;
use crate::placement::processors;
use crate::stack::tcp;
use crate::units::Freq;

/// Every check, in the order a world's build meets what it checks: the nodes and how they are
/// joined, the workload's settings, the devices' steering, each node's processors and
/// placement, the handoff NICs, and what the derived quantities need.
pub fn config(cfg: &Config) -> Result<(), String> {
    topology(cfg)?;
    workload(cfg)?;
    server_nic_cpus(cfg)?;
    host_cpus(cfg)?;
    for p in &cfg.placements {
        placement(cfg, p)?;
    }
    handoff(cfg)?;
    physics(cfg)
}

/// A link that can carry a TCP segment.
pub fn link(mtu_bytes: u64, timestamps: bool, rate_bps: u64) -> Result<(), String> {
    let header = tcp::header_bytes(timestamps);
    if mtu_bytes <= header {
        return Err(format!(
            "nic.mtu_bytes = {mtu_bytes}: leaves no payload after {header} bytes of IP and TCP headers"
        ));
    }
    if rate_bps == 0 {
        return Err("link.rate_bps = 0: must be positive".into());
    }
    Ok(())
}

/// What the derived quantities (`derived`) need: a link, an I/O bus and a NIC processor
/// that move data.
pub fn physics(cfg: &Config) -> Result<(), String> {
    link(cfg.nic.mtu_bytes, cfg.tcp.timestamps, cfg.link.rate_bps.0)?;
    if !cfg.io.ideal && cfg.io.rate_bps.0 == 0 {
        return Err("io.rate_bps = 0: must be positive".into());
    }
    if cfg.nic_cpu.present && cfg.nic_cpu.speed_fraction <= 0.0 {
        return Err(format!(
            "nic_cpu.speed_fraction = {}: must be positive",
            cfg.nic_cpu.speed_fraction
        ));
    }
    Ok(())
}

/// The nodes and how they are joined: one placement per node, a NIC per client without a
/// switch, a NIC processor only with one server NIC, fabric addresses enough for every NIC, a
/// client's one NIC, a switch port that holds a frame.
pub fn topology(cfg: &Config) -> Result<(), String> {
    let (clients, nics) = (
        cfg.topology.clients as usize,
        cfg.topology.server_nics as usize,
    );
    if cfg.placements.len() != clients + 1 {
        return Err(format!(
            "placements = {} given: one per node is needed, {} for topology.clients = {clients} and a server",
            cfg.placements.len(),
            clients + 1
        ));
    }
    if !cfg.switch.present && clients != nics {
        return Err(format!(
            "topology.clients = {clients}, topology.server_nics = {nics}: without a switch each client needs a server NIC of its own (one link per pair); set switch.present = true"
        ));
    }
    if nics > 1 && cfg.nic_cpu.present {
        return Err(format!(
            "topology.server_nics = {nics}: a NIC processor (nic_cpu.present) serves one NIC; several server NICs need a placement without one"
        ));
    }
    if clients + nics > NodeAddr::MAX as usize {
        return Err(format!(
            "topology.clients = {clients} and topology.server_nics = {nics}: at most {} NICs in all",
            NodeAddr::MAX
        ));
    }
    if !matches!(
        cfg.topology.client_nic_irq,
        NicIrq::Same | NicIrq::RoundRobin | NicIrq::LowestPriority
    ) {
        return Err(format!(
            "topology.client_nic_irq = {}: a client has one NIC; choose same, round_robin or lowest_priority",
            serde_json::to_value(cfg.topology.client_nic_irq)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        ));
    }
    let frame = crate::hw::link::wire_bytes(cfg.nic.mtu_bytes);
    if cfg.switch.present && cfg.switch.buffer_bytes < frame {
        return Err(format!(
            "switch.buffer_bytes = {}: a port must hold at least one full frame ({frame} bytes on the wire)",
            cfg.switch.buffer_bytes
        ));
    }
    Ok(())
}

/// Each server device's interrupt steered (`topology.server_nic_cpus`, one per device or none)
/// to a host CPU of the server.
fn server_nic_cpus(cfg: &Config) -> Result<(), String> {
    let devices = server_devices(cfg);
    let cpus = &cfg.topology.server_nic_cpus;
    if !cpus.is_empty() && cpus.len() != devices {
        return Err(format!(
            "topology.server_nic_cpus: {} processors for {devices} server devices (topology.server_nics x topology.server_rx_queues); give one each, or none",
            cpus.len()
        ));
    }
    let ids = processors(cfg.cpu.count, cfg.nic_cpu.present);
    let host: Vec<&str> = ids
        .iter()
        .filter(|q| !q.is_nic())
        .map(|q| q.as_str())
        .collect();
    match cpus
        .iter()
        .enumerate()
        .find(|&(_, p)| p.is_nic() || !ids.contains(p))
    {
        Some((d, p)) => Err(format!(
            "topology.server_nic_cpus: server device {d} steered to {}, which is not a host CPU of the server (it has {})",
            p.as_str(),
            host.join(", ")
        )),
        None => Ok(()),
    }
}

/// The server's network devices: a queue pair per receive queue of each NIC.
fn server_devices(cfg: &Config) -> usize {
    cfg.topology.server_nics as usize * cfg.topology.server_rx_queues.max(1) as usize
}

/// A placement a node can run: its processors exist there, a handoff NIC has its processor,
/// threads run on host CPUs, a poll loop has a host CPU of its own, and the driver runs where
/// the interrupt lands.
fn placement(cfg: &Config, p: &Placement) -> Result<(), String> {
    let ids = processors(cfg.cpu.count, cfg.nic_cpu.present);
    if p.rx_mode == RxMode::Handoff && !cfg.nic_cpu.present {
        return Err(
            "placement.rx_mode = handoff needs the NIC processor (nic_cpu.present = true)".into(),
        );
    }
    let roles = [
        ("driver", p.driver),
        ("protocol", p.protocol),
        ("comm_thread", p.comm_thread),
        ("app", p.app),
        ("irq_target", p.irq_target),
    ];
    if let Some((role, q)) = roles.iter().find(|(_, q)| !ids.contains(q)) {
        let have: Vec<&str> = ids.iter().map(|p| p.as_str()).collect();
        return Err(format!(
            "placement.{role}: processor {} does not exist on this node (it has {})",
            q.as_str(),
            have.join(", ")
        ));
    }
    if p.comm_thread.is_nic() || p.app.is_nic() {
        return Err(
            "placement: threads cannot run on nic_cpu, which runs only protocol work".into(),
        );
    }
    if p.rx_mode == RxMode::Poll {
        if p.protocol.is_nic() {
            return Err("placement.rx_mode = poll: the polling processor (placement.protocol) must be a host CPU".into());
        }
        if p.comm_thread == p.protocol || p.app == p.protocol {
            return Err("placement.rx_mode = poll: CPU-NET (placement.protocol) runs nothing but its poll loop; put comm_thread and app on another CPU".into());
        }
    }
    if p.driver != p.irq_target {
        return Err("placement.driver must be the processor that takes the interrupt (placement.irq_target)".into());
    }
    Ok(())
}

/// A node's host CPUs: 1 to `MAX_HOST_CPUS`.
pub fn host_cpus(cfg: &Config) -> Result<(), String> {
    if !(1..=MAX_HOST_CPUS).contains(&cfg.cpu.count) {
        return Err(format!(
            "cpu.count = {}: a node has 1 to {MAX_HOST_CPUS} host CPUs",
            cfg.cpu.count
        ));
    }
    Ok(())
}

/// Each handoff NIC: the firmware of one NIC (its node has one device), NIC memory for every
/// connection it may own, and load control's low watermark below its high one, as given or
/// derived at its node's clock.
fn handoff(cfg: &Config) -> Result<(), String> {
    let h = &cfg.handoff;
    let clients = cfg.topology.clients as usize;
    for (node, p) in cfg.placements.iter().enumerate() {
        if p.rx_mode != RxMode::Handoff {
            continue;
        }
        let server = node == clients;
        let devices = if server { server_devices(cfg) } else { 1 };
        if devices != 1 {
            return Err(format!(
                "placement.rx_mode = handoff with {devices} network devices: the NIC processor runs the firmware of one NIC (topology.server_nics = 1, topology.server_rx_queues = 1)"
            ));
        }
        let by_memory = cfg.nic.memory_bytes.saturating_sub(h.nic_reserved_bytes)
            / h.nic_conn_state_bytes.max(1);
        if h.max_connections as u64 > by_memory {
            return Err(format!(
                "handoff.max_connections = {}: NIC memory holds at most {by_memory} connections ((nic.memory_bytes - handoff.nic_reserved_bytes) / handoff.nic_conn_state_bytes)",
                h.max_connections
            ));
        }
        // A client's processors run at topology.client_clock_hz when it is given.
        let clock_hz = match cfg.topology.client_clock_hz {
            Freq(hz) if hz > 0 && !server => Freq(hz),
            _ => cfg.cpu.clock_hz,
        };
        let (lowat, hiwat) = derived::handoff_watermarks(cfg, clock_hz);
        if lowat >= hiwat {
            return Err(format!(
                "handoff.lowat_packets = {lowat}: must be below handoff.hiwat_packets = {hiwat}"
            ));
        }
    }
    Ok(())
}

/// What a workload's settings must agree on: HTTP pipelining needs a connection that carries
/// more than one request.
fn workload(cfg: &Config) -> Result<(), String> {
    let web = &cfg.workload.web;
    let persistent = web.keep_alive || !web.trace_responses.is_empty();
    match cfg.workload.kind {
        WorkloadKind::Web if web.pipeline_depth == 0 => {
            Err("workload.web.pipeline_depth = 0: at least 1 (one request at a time)".into())
        }
        WorkloadKind::Web if web.pipeline_depth > 1 && !persistent => Err(format!(
            "workload.web.pipeline_depth = {}: pipelining needs a connection that carries several requests; set workload.web.keep_alive = true (or replay a trace), or pipeline_depth = 1",
            web.pipeline_depth
        )),
        WorkloadKind::Web if web.users == 0 || web.workers == 0 => {
            Err("workload.web.users and workload.web.workers: at least 1 each".into())
        }
        WorkloadKind::Netperf => netperf(cfg),
        _ => Ok(()),
    }
}

/// netperf's test between the hosts it names: at least one connection, UDP datagrams of one
/// frame, a UDP flood only beside TCP_STREAM between hosts, and over loopback only the TCP
/// tests that need no connection setup.
fn netperf(cfg: &Config) -> Result<(), String> {
    let p = &cfg.workload.netperf;
    if p.connections == 0 {
        return Err("workload.netperf.connections = 0: at least one connection".into());
    }
    let udp = matches!(p.test, NetperfTest::UdpStream | NetperfTest::UdpRr);
    let max = cfg.nic.mtu_bytes - UDP_IP_HEADER_BYTES;
    let fits = |key: &str, bytes: u64| {
        match (1..=max).contains(&bytes) {
        true => Ok(()),
        false => Err(format!(
            "{key} = {bytes}: a UDP datagram must fit one frame, 1 to {max} bytes at nic.mtu_bytes = {} (IP fragmentation is not modelled)",
            cfg.nic.mtu_bytes
        )),
    }
    };
    if udp {
        fits(
            "workload.netperf.msg_bytes",
            derived::netperf_msg_bytes(cfg),
        )?;
    }
    if p.udp_flood_flows > 0 {
        if p.test != NetperfTest::TcpStream || cfg.topology.loopback {
            return Err("workload.netperf.udp_flood_flows: a flood runs beside TCP_STREAM between hosts (workload.netperf.test = tcp_stream, topology.loopback = false)".into());
        }
        fits("workload.netperf.udp_flood_bytes", p.udp_flood_bytes)?;
    }
    if cfg.topology.loopback && (p.test == NetperfTest::TcpCrr || udp) {
        return Err("topology.loopback: over loopback only TCP_STREAM and TCP_RR run (no UDP or connection setup on the loopback interface yet)".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProcName;

    fn base() -> Config {
        crate::parse_config(include_str!("../tests/fixtures/base-short.json")).unwrap()
    }

    fn err(c: &Config) -> String {
        config(c).unwrap_err()
    }

    #[test]
    fn each_check_names_the_key_and_its_value_first() {
        let mut c = base();
        assert_eq!(config(&c), Ok(()));
        c.topology.clients = 2;
        assert!(err(&c).starts_with("placements = 2 given"), "{}", err(&c));
        c = base();
        c.switch.present = true;
        c.switch.buffer_bytes = 100;
        assert!(
            err(&c).starts_with("switch.buffer_bytes = 100:"),
            "{}",
            err(&c)
        );
        c = base();
        c.cpu.count = 0;
        assert!(err(&c).starts_with("cpu.count = 0:"), "{}", err(&c));
        assert!(link(40, false, 1)
            .unwrap_err()
            .starts_with("nic.mtu_bytes = 40:"));
        c = base();
        c.nic.mtu_bytes = 40;
        assert!(err(&c).starts_with("nic.mtu_bytes = 40:"), "{}", err(&c));
    }

    #[test]
    fn a_placement_must_fit_its_node() {
        let mut c = base();
        c.placements[1].protocol = ProcName::Cpu(1);
        let e = err(&c);
        assert!(
            e.contains("placement.protocol") && e.contains("cpu1"),
            "{e}"
        );
        c = base();
        c.placements[1].driver = ProcName::Cpu(1);
        c.cpu.count = 2;
        assert!(
            err(&c).starts_with("placement.driver must be"),
            "{}",
            err(&c)
        );
        c = base();
        c.placements[1].rx_mode = RxMode::Handoff;
        assert!(err(&c).contains("needs the NIC processor"), "{}", err(&c));
    }

    #[test]
    fn a_handoff_nic_has_one_device_and_ordered_watermarks() {
        let mut c = base();
        c.nic_cpu.present = true;
        c.placements[1].rx_mode = RxMode::Handoff;
        c.handoff.lowat_packets = 4;
        c.handoff.hiwat_packets = 4;
        assert!(
            err(&c).starts_with("handoff.lowat_packets = 4:"),
            "{}",
            err(&c)
        );
        c.handoff.lowat_packets = 1;
        c.topology.server_rx_queues = 2;
        assert!(err(&c).contains("with 2 network devices"), "{}", err(&c));
    }

    #[test]
    fn a_steered_device_must_name_a_host_cpu() {
        let mut c = base();
        c.topology.server_nic_cpus = vec![ProcName::Cpu(3)];
        let e = err(&c);
        assert!(
            e.contains("steered to cpu3") && e.contains("it has cpu0"),
            "{e}"
        );
        c.topology.server_nic_cpus = vec![ProcName::Cpu(0)];
        assert_eq!(config(&c), Ok(()));
    }
}
