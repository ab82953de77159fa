//! The core's cross-field checks of a configuration, in one place and one message style:
//! `key = value: what is wrong; what is allowed`. Python checks what it can see first (ranges,
//! choices, paths); these are the rules that need the model's own constants.

use crate::config::Config;
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
