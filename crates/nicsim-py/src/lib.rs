//! The thin Python binding: JSON in, JSON out. All validation with friendly messages happens in
//! Python; errors here are mapped to `ValueError` (configuration) or `RuntimeError` (simulation).

// The `#[pyfunction]` expansion converts `PyErr` into itself; clippy flags the generated code.
#![allow(clippy::useless_conversion)]

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

mod host;

fn to_py(e: nicsim::Error) -> PyErr {
    match e {
        nicsim::Error::Config(m) => PyValueError::new_err(m),
        nicsim::Error::Simulation(m) => PyRuntimeError::new_err(m),
    }
}

/// Runs one fully resolved configuration (JSON); returns the results (JSON).
#[pyfunction]
fn run(py: Python<'_>, config_json: String) -> PyResult<String> {
    py.allow_threads(|| nicsim::run_json(&config_json))
        .map_err(to_py)
}

/// How far the simulation running now has got, in simulated picoseconds (0 before its first
/// events); for a progress display in another thread.
#[pyfunction]
fn progress() -> u64 {
    nicsim::workload::PROGRESS_PS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Asks the running simulation to stop (`true`: it returns within a few thousand events with
/// the error "stopped on request"), or clears the request before a run (`false`).
#[pyfunction]
fn stop(requested: bool) {
    nicsim::workload::STOP.store(requested, std::sync::atomic::Ordering::Relaxed);
}

/// Checks that the core accepts a configuration, without running it.
#[pyfunction]
fn validate(config_json: &str) -> PyResult<()> {
    nicsim::parse_config(config_json).map(|_| ()).map_err(to_py)
}

/// The model's derived quantities of a resolved configuration (JSON); returns JSON
/// (`nicsim::derived`, schema in docs/output.md).
#[pyfunction]
fn derived(config_json: &str) -> PyResult<String> {
    nicsim::api::derived_json(config_json).map_err(to_py)
}

/// The fixed latencies of one frame of `payload_bytes` from node0 to node1, in ps (JSON).
#[pyfunction]
fn hardware_latencies(config_json: &str, payload_bytes: u64) -> PyResult<String> {
    nicsim::api::hardware_latencies_json(config_json, payload_bytes).map_err(to_py)
}

/// What the "0 = auto" parameters resolve to, from the MTU, timestamps and link rate (JSON).
#[pyfunction]
fn derived_defaults(mtu_bytes: u64, timestamps: bool, rate_bps: u64) -> PyResult<String> {
    nicsim::api::defaults_json(mtu_bytes, timestamps, rate_bps).map_err(to_py)
}

/// One job of cost stage `stage` over `bytes` bytes and `count` packets on cpu0, in ps, as the
/// core prices it without contention (`nicsim::derived::stage_ps`).
#[pyfunction]
fn stage_ps(config_json: &str, stage: &str, bytes: f64, count: f64) -> PyResult<f64> {
    nicsim::api::stage_ps(config_json, stage, bytes, count).map_err(to_py)
}

/// A configuration as the core parsed it, serialised back (JSON).
#[pyfunction]
fn parsed_config(config_json: &str) -> PyResult<String> {
    nicsim::api::parsed_config_json(config_json).map_err(to_py)
}

/// The engine's reference scenario; returns (events, packets, mean sojourn µs, predicted µs, wall s).
#[pyfunction]
#[pyo3(name = "bench")]
fn engine_bench(py: Python<'_>, duration_s: f64, seed: u64) -> (u64, u64, f64, f64, f64) {
    py.allow_threads(|| {
        let t = std::time::Instant::now();
        let r = nicsim::bench(duration_s, seed);
        (
            r.events,
            r.packets,
            r.mean_sojourn_us,
            r.predicted_sojourn_us,
            t.elapsed().as_secs_f64(),
        )
    })
}

/// The bare-heap loop of the same scenario; returns (events, wall s).
#[pyfunction]
fn bench_bare_heap(py: Python<'_>, duration_s: f64, seed: u64) -> (u64, f64) {
    py.allow_threads(|| {
        let t = std::time::Instant::now();
        let events = nicsim::bench_bare_heap(duration_s, seed);
        (events, t.elapsed().as_secs_f64())
    })
}

/// The hold model on the engine's queue (`queue`: "adaptive", "radix" or "binary_heap"); returns (sum of
/// popped times in ps, wall s).
#[pyfunction]
fn bench_hold(
    py: Python<'_>,
    pending: usize,
    steps: u64,
    seed: u64,
    queue: String,
) -> PyResult<(u128, f64)> {
    py.allow_threads(|| nicsim::bench_hold(pending, steps, seed, &queue))
        .map_err(|m| to_py(nicsim::Error::Config(m)))
}

/// The same hold steps on a bare binary heap; returns (sum of popped times in ps, wall s).
#[pyfunction]
fn bench_hold_bare(py: Python<'_>, pending: usize, steps: u64, seed: u64) -> (u128, f64) {
    py.allow_threads(|| nicsim::bench_hold_bare(pending, steps, seed))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A model panic comes back as a SimulationError carrying its message; no dump on stderr.
    std::panic::set_hook(Box::new(|_| {}));
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(progress, m)?)?;
    m.add_function(wrap_pyfunction!(stop, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(engine_bench, m)?)?;
    m.add_function(wrap_pyfunction!(bench_bare_heap, m)?)?;
    m.add_function(wrap_pyfunction!(bench_hold, m)?)?;
    m.add_function(wrap_pyfunction!(bench_hold_bare, m)?)?;
    m.add_function(wrap_pyfunction!(derived, m)?)?;
    m.add_function(wrap_pyfunction!(hardware_latencies, m)?)?;
    m.add_function(wrap_pyfunction!(derived_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(parsed_config, m)?)?;
    m.add_function(wrap_pyfunction!(stage_ps, m)?)?;
    host::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
