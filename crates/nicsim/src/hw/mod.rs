//! Hardware models. Each is a small state machine that takes `now` and an input and returns
//! times; none of them touches the engine, and none knows TCP: they carry frames.

pub mod apic;
pub mod bus;
pub mod cache;
pub mod caches;
pub mod cpu;
#[cfg(test)]
mod cpu_tests;
pub mod dma;
pub mod fabric;
pub mod footprint;
pub mod frame;
pub mod job;
pub mod link;
pub mod memory;
pub mod nic;
pub mod slices;
