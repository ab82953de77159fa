//! The JSON boundary the Python binding calls: a configuration document in, results or
//! derived quantities out, and errors the caller can act on. A panic inside the model is
//! reported as a simulation error, never a crash.

use crate::config::Config;
use crate::stats::series::Series;
use crate::units::BitRate;
use crate::{derived, report, system, validate, workload};
use serde::Serialize;
use serde_json::Value;

/// Errors the caller can act on: a configuration the core cannot accept, or a run that broke
/// an invariant (conservation, bounds, deadlock).
#[derive(Debug)]
pub enum Error {
    Config(String),
    Simulation(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Config(m) | Error::Simulation(m) => f.write_str(m),
        }
    }
}

/// A configuration document as the core takes it (every field required, unknown keys
/// rejected), with its stages numbered.
pub fn parse_config(json: &str) -> Result<Config, Error> {
    let mut cfg: Config = serde_json::from_str(json)
        .map_err(|e| Error::Config(format!("configuration rejected by the core: {e}")))?;
    cfg.costs.number_stages();
    Ok(cfg)
}

/// Runs the workload a configuration names; returns its results as JSON. A run that breaks
/// an invariant keeps what it measured before the break beside the `error`.
pub fn run(cfg: &Config) -> Result<Value, Error> {
    let started = std::time::Instant::now();
    let mut w = system::World::new(cfg).map_err(Error::Config)?;
    let mut wl = workload::build(cfg);
    let r = &cfg.run;
    let mut series =
        (r.series_ps.0 > 0).then(|| Series::new(&w.nodes, r.series_ps, r.series_max_rows as usize));
    let err = workload::drive_sampled(&mut w, wl.as_mut(), series.as_mut()).err();
    let out = wl.report(&w);
    Ok(report::assemble(&w, out, err, series.as_mut(), started))
}

/// JSON in, JSON out: the boundary the Python binding uses.
/// A panic inside the model is a bug; it is reported as a simulation error, never a crash.
pub fn run_json(config_json: &str) -> Result<String, Error> {
    let cfg = parse_config(config_json)?;
    let out = std::panic::catch_unwind(|| run(&cfg)).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Error::Simulation(format!("internal error in the model: {msg}"))
    })??;
    Ok(out.to_string())
}

fn to_json<T: Serialize>(v: &T) -> Result<String, Error> {
    serde_json::to_string(v).map_err(|e| Error::Simulation(format!("cannot serialise: {e}")))
}

/// `derived::defaults` from three values, as JSON.
pub fn defaults_json(mtu_bytes: u64, timestamps: bool, rate_bps: u64) -> Result<String, Error> {
    validate::link(mtu_bytes, timestamps, rate_bps).map_err(Error::Config)?;
    to_json(&derived::defaults(mtu_bytes, timestamps, BitRate(rate_bps)))
}

/// A configuration document the derived quantities can be computed from.
fn physical_config(config_json: &str) -> Result<Config, Error> {
    let cfg = parse_config(config_json)?;
    validate::config(&cfg).map_err(Error::Config)?;
    Ok(cfg)
}

/// `derived::derived` of a configuration document (the JSON `run` takes), as JSON.
pub fn derived_json(config_json: &str) -> Result<String, Error> {
    to_json(&derived::derived(&physical_config(config_json)?))
}

/// `derived::hardware_latencies` of a configuration document and a payload, as JSON.
pub fn hardware_latencies_json(config_json: &str, payload_bytes: u64) -> Result<String, Error> {
    let cfg = physical_config(config_json)?;
    to_json(&derived::hardware_latencies(&cfg, payload_bytes).map_err(Error::Config)?)
}

/// `derived::stage_ps` of a configuration document: one job of a stage on cpu0, in ps.
pub fn stage_ps(config_json: &str, stage: &str, bytes: f64, count: f64) -> Result<f64, Error> {
    derived::stage_ps(&physical_config(config_json)?, stage, bytes, count).map_err(Error::Config)
}

/// A configuration document as the core parsed it, serialised back: every field the core
/// holds, with the value it will use (for the parameter contract test).
pub fn parsed_config_json(config_json: &str) -> Result<String, Error> {
    to_json(&parse_config(config_json)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_boundary_rejects_what_it_cannot_price() {
        assert!(defaults_json(40, false, 1).is_err());
        assert!(defaults_json(1500, true, 0).is_err());
        let v: serde_json::Value =
            serde_json::from_str(&defaults_json(1500, true, 1_000_000_000).unwrap()).unwrap();
        assert_eq!(v["mss_bytes"], 1448);
        assert!(derived_json("{}").is_err());
        let fixture = include_str!("../tests/fixtures/base-short.json");
        // rx_syscall of the ortiz2008 fixture: (i_pkt·CPI + r_pkt·t_mean) cycles at its clock.
        let cfg = parse_config(fixture).unwrap();
        let c = cfg.costs.rx_syscall;
        let t_mean = derived::host_memory_model(&cfg).mean_cycles();
        let cycles = cfg.costs.scale.os * (c.i_pkt / c.ipc * cfg.cpu.cpi + c.r_pkt * t_mean);
        let want = cycles * 1e12 / cfg.cpu.clock_hz.0 as f64;
        let got = stage_ps(fixture, "rx_syscall", 0.0, 1.0).unwrap();
        assert!((got - want).abs() < 1e-6 * want, "{got} vs {want}");
        assert!(stage_ps(fixture, "no_such_stage", 0.0, 1.0).is_err());
        let text = include_str!("../tests/fixtures/base-short.json");
        let d: serde_json::Value = serde_json::from_str(&derived_json(text).unwrap()).unwrap();
        assert!(d["nic_cpu_alpha"].is_null());
        let h: serde_json::Value =
            serde_json::from_str(&hardware_latencies_json(text, 1).unwrap()).unwrap();
        assert_eq!(h["payload_bytes"], 1);
    }
}
