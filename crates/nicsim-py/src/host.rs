//! The host's primitives (`nicsim_probe`), measured in compiled code for `nicsim probe
//! --host-out`: thin functions returning plain numbers, each with its unit in its name. They
//! measure the machine, so they vary run to run; the simulation functions never call them.

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn to_py(e: String) -> PyErr {
    PyOSError::new_err(e)
}

/// memcpy bandwidth in bytes/s: `size_bytes` copied between two buffers for about `budget_s`.
#[pyfunction]
pub fn host_memcpy_bytes_per_s(py: Python<'_>, size_bytes: usize, budget_s: f64) -> f64 {
    py.allow_threads(|| nicsim_probe::memcpy_bytes_per_s(size_bytes, budget_s))
}

/// Pipe copies from and into a user buffer of `size_bytes`, `chunk_bytes` a call, for about
/// `budget_s`: {chunk_bytes, write_ns, read_ns, write_bytes_per_s, read_bytes_per_s}.
#[pyfunction]
pub fn host_pipe_copy<'py>(
    py: Python<'py>,
    size_bytes: usize,
    chunk_bytes: usize,
    budget_s: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let p = py
        .allow_threads(|| nicsim_probe::pipe_copy(size_bytes, chunk_bytes, budget_s))
        .map_err(to_py)?;
    let d = PyDict::new_bound(py);
    d.set_item("chunk_bytes", p.chunk_bytes)?;
    d.set_item("write_ns", p.write_ns)?;
    d.set_item("read_ns", p.read_ns)?;
    d.set_item("write_bytes_per_s", p.write_bytes_per_s())?;
    d.set_item("read_bytes_per_s", p.read_bytes_per_s())?;
    Ok(d)
}

/// Mean ns of one getppid system call (entry and exit), for about `budget_s`.
#[pyfunction]
pub fn host_syscall_ns(py: Python<'_>, budget_s: f64) -> f64 {
    py.allow_threads(|| nicsim_probe::syscall_ns(budget_s))
}

/// Mean ns of a one-byte pipe round trip between this thread on `cpu_a` and a child process
/// on `cpu_b`; `warm` round trips first, then `n` timed.
#[pyfunction]
pub fn host_round_trip_ns(
    py: Python<'_>,
    cpu_a: usize,
    cpu_b: usize,
    n: u32,
    warm: u32,
) -> PyResult<f64> {
    py.allow_threads(|| nicsim_probe::round_trip_ns(cpu_a, cpu_b, n, warm))
        .map_err(to_py)
}

/// Mean ns of a dependent load chasing random lines of a `size_bytes` buffer.
#[pyfunction]
pub fn host_load_latency_ns(py: Python<'_>, size_bytes: usize, budget_s: f64) -> f64 {
    py.allow_threads(|| nicsim_probe::load_latency_ns(size_bytes, budget_s))
}

/// The cores' running clock in Hz from a chain of dependent additions; None off x86-64.
#[pyfunction]
pub fn host_loop_clock_hz(py: Python<'_>, budget_s: f64) -> Option<f64> {
    py.allow_threads(|| nicsim_probe::loop_clock_hz(budget_s))
}

/// The CPUs this process may run on.
#[pyfunction]
pub fn host_allowed_cpus() -> PyResult<Vec<usize>> {
    nicsim_probe::allowed_cpus().map_err(to_py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(host_memcpy_bytes_per_s, m)?)?;
    m.add_function(wrap_pyfunction!(host_pipe_copy, m)?)?;
    m.add_function(wrap_pyfunction!(host_syscall_ns, m)?)?;
    m.add_function(wrap_pyfunction!(host_round_trip_ns, m)?)?;
    m.add_function(wrap_pyfunction!(host_load_latency_ns, m)?)?;
    m.add_function(wrap_pyfunction!(host_loop_clock_hz, m)?)?;
    m.add_function(wrap_pyfunction!(host_allowed_cpus, m)?)?;
    Ok(())
}
