//! Workloads: the benchmarks that drive the hosts (NetPIPE, Hpcbench with its load thread)
//! and the engine's reference queueing scenario.

pub mod hpcbench;
pub mod netpipe;
pub mod queueing;
