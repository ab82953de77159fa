//! The core's cross-field checks of a configuration, in one place and one message style:
//! `key = value: what is wrong; what is allowed`. Python checks what it can see first (ranges,
//! choices, paths); these are the rules that need the model's own constants.

use crate::config::{Config, NicIrq, WorkloadKind, MAX_HOST_CPUS};
use crate::hw::frame::NodeAddr;
use crate::placement::processors;
use crate::stack::tcp;

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

/// What the derived quantities (`derived.rs`) need: a link, an I/O bus and a NIC processor
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

/// The server processor each server device's interrupt is steered to
/// (`topology.server_nic_cpus`, one per device or none), as processor indices.
pub fn server_nic_cpus(cfg: &Config) -> Result<Vec<usize>, String> {
    let devices = cfg.topology.server_nics as usize * cfg.topology.server_rx_queues.max(1) as usize;
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
    cpus.iter()
        .enumerate()
        .map(|(d, &p)| match ids.iter().position(|&q| q == p) {
            Some(i) if !p.is_nic() => Ok(i),
            _ => Err(format!(
                "topology.server_nic_cpus: server device {d} steered to {}, which is not a host CPU of the server (it has {})",
                p.as_str(),
                host.join(", ")
            )),
        })
        .collect()
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

/// A handoff NIC's processor serves one NIC: the node has one device.
pub fn handoff_nics(devices: usize) -> Result<(), String> {
    if devices != 1 {
        return Err(format!(
            "placement.rx_mode = handoff with {devices} network devices: the NIC processor runs the firmware of one NIC (topology.server_nics = 1, topology.server_rx_queues = 1)"
        ));
    }
    Ok(())
}

/// The NIC memory holds every connection the handoff firmware may own.
pub fn handoff_memory(cfg: &Config) -> Result<(), String> {
    let h = &cfg.handoff;
    let by_memory =
        cfg.nic.memory_bytes.saturating_sub(h.nic_reserved_bytes) / h.nic_conn_state_bytes.max(1);
    if h.max_connections as u64 > by_memory {
        return Err(format!(
            "handoff.max_connections = {}: NIC memory holds at most {by_memory} connections ((nic.memory_bytes - handoff.nic_reserved_bytes) / handoff.nic_conn_state_bytes)",
            h.max_connections
        ));
    }
    Ok(())
}

/// Load control's watermarks, as given or derived: the low one below the high one.
pub fn handoff_watermarks(lowat: u32, hiwat: u32) -> Result<(), String> {
    if lowat >= hiwat {
        return Err(format!(
            "handoff.lowat_packets = {lowat}: must be below handoff.hiwat_packets = {hiwat}"
        ));
    }
    Ok(())
}

/// What a workload's settings must agree on: HTTP pipelining needs a connection that carries
/// more than one request.
pub fn workload(cfg: &Config) -> Result<(), String> {
    let web = &cfg.workload.web;
    let persistent = web.keep_alive || !web.trace_responses.is_empty();
    if cfg.workload.kind == WorkloadKind::Web && web.pipeline_depth == 0 {
        return Err("workload.web.pipeline_depth = 0: at least 1 (one request at a time)".into());
    }
    if cfg.workload.kind == WorkloadKind::Web && web.pipeline_depth > 1 && !persistent {
        return Err(format!(
            "workload.web.pipeline_depth = {}: pipelining needs a connection that carries several requests; set workload.web.keep_alive = true (or replay a trace), or pipeline_depth = 1",
            web.pipeline_depth
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Config {
        crate::parse_config(include_str!("../tests/fixtures/base-short.json")).unwrap()
    }

    #[test]
    fn each_check_names_the_key_and_its_value_first() {
        let mut c = base();
        assert_eq!(topology(&c), Ok(()));
        c.topology.clients = 2;
        let e = topology(&c).unwrap_err();
        assert!(e.starts_with("placements = 2 given"), "{e}");
        c = base();
        c.switch.present = true;
        c.switch.buffer_bytes = 100;
        let e = topology(&c).unwrap_err();
        assert!(e.starts_with("switch.buffer_bytes = 100:"), "{e}");
        c = base();
        c.cpu.count = 0;
        assert!(host_cpus(&c).unwrap_err().starts_with("cpu.count = 0:"));
        assert!(link(40, false, 1)
            .unwrap_err()
            .starts_with("nic.mtu_bytes = 40:"));
        assert!(handoff_watermarks(4, 4)
            .unwrap_err()
            .starts_with("handoff.lowat_packets = 4:"));
        assert!(handoff_nics(2).is_err() && handoff_nics(1).is_ok());
    }

    #[test]
    fn a_steered_device_must_name_a_host_cpu() {
        let mut c = base();
        c.topology.server_nic_cpus = vec![crate::config::ProcName::Cpu(3)];
        let e = server_nic_cpus(&c).unwrap_err();
        assert!(
            e.contains("steered to cpu3") && e.contains("it has cpu0"),
            "{e}"
        );
        c.topology.server_nic_cpus = vec![crate::config::ProcName::Cpu(0)];
        assert_eq!(server_nic_cpus(&c), Ok(vec![0]));
    }
}
