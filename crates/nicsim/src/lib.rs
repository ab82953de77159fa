//! nicsim: a discrete-event simulator of the host communication path.
//!
//! A tour, bottom up (docs/design.md has a line for every file):
//! - `units`: integer picosecond time and the physical conversions.
//! - `engine`: the event heap and the seeded random generator.
//! - `config`, `validate`: the complete configuration the core receives (no defaults of its
//!   own), and its cross-field checks in one place.
//! - `derived`: physics in one place (MSS, framing, link payload rate, t_mean, bus pricing).
//! - `hw`: processors with execution contexts, memory priced by a mean access time (mode A)
//!   or detailed caches (mode B), the north bridge and I/O bus, DMA, the APIC, the NIC, links
//!   and the switch fabric. Hardware carries frames and knows no TCP.
//! - `placement`: which processor runs which stages, and how work crosses between them
//!   (data, not code).
//! - `node`: one host's state: processors, memory, network devices, sockets, threads, its own
//!   counters; the engine's events.
//! - `os`: threads and their system calls, the scheduler, interrupts, spinlocks.
//! - `stack`: the driver, the softirq, sockets, the sans-IO TCP endpoint, UDP, GRO.
//! - `handoff`: the connection-handoff NIC, which runs TCP for the connections handed to it.
//! - `workload`: NetPIPE, Hpcbench, netperf, the web server, the packet generator, and the
//!   engine's reference queueing scenario.
//! - `system`: the clients, the server, the fabric and the engine wired together; the only
//!   place that turns events into model calls.
//! - `stats`, `report`: snapshots, windows, conservation checks and JSON results.
//! - `api`: the JSON boundary the Python binding calls, and `run`, which drives a
//!   configuration's workload on its world.

pub mod api;
pub mod config;
pub mod derived;
pub mod engine;
pub mod handoff;
pub mod hw;
pub mod node;
pub mod os;
pub mod placement;
pub mod report;
pub mod stack;
pub mod stats;
pub mod system;
pub mod units;
pub mod validate;
pub mod workload;

pub use api::{parse_config, run, run_json, Error};
pub use workload::hold::{bare_heap as bench_hold_bare, bench_hold};
pub use workload::queueing::{bench, bench_bare_heap};
