//! How host memory is priced: the mean-access model (mode A) and the detailed caches of
//! mode B with where a node's data lies in them (host-path §4.2, §4.3).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mem {
    /// Mean access (mode A) or detailed caches (mode B, `cache.*`).
    pub mode: MemMode,
    pub hit_ratio: f64,
    pub hit_cycles: f64,
    pub miss_cycles: f64,
    pub batch_refs: u32,
    /// Advance a job's chunks in one event while nothing can change them (`os/span.rs`);
    /// false: one event per chunk, the path spans are checked against.
    pub chunk_spans: bool,
}

/// How host CPUs' memory references are priced (host-path §4.2, §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemMode {
    Mean,
    Detailed,
}

/// What DMA writes do to cached copies (mode B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DmaCachePolicy {
    Invalidate,
    Allocate,
}

/// The detailed caches of mode B (thesis Table 4.17) and where a node's data lies in them.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheCfg {
    pub l1i_size_bytes: u64,
    pub l1i_line_bytes: u64,
    pub l1i_ways: u32,
    pub l1i_read_cycles: f64,
    pub l1d_size_bytes: u64,
    pub l1d_line_bytes: u64,
    pub l1d_ways: u32,
    pub l1d_read_cycles: f64,
    pub l1d_write_cycles: f64,
    pub l2_size_bytes: u64,
    pub l2_line_bytes: u64,
    pub l2_ways: u32,
    pub l2_read_cycles: f64,
    pub l2_write_cycles: f64,
    /// One L2 for the host CPUs (onload, hybrid) instead of one each.
    pub l2_shared: bool,
    pub memory_cycles: f64,
    pub dma_policy: DmaCachePolicy,
    pub prefetch_next_line: bool,
    /// Share of a stage's non-copy references that are stores.
    pub store_share: f64,
    /// Mean instruction length: a stage fetches one line per `line / instruction_bytes`
    /// instructions.
    pub instruction_bytes: f64,
    /// Per-CPU kernel stack and per-CPU data every stage's private references go to.
    pub private_bytes: u64,
    /// A connection's socket and TCP control block.
    pub conn_state_bytes: u64,
    /// A received frame's ring slot: descriptor, headers and sk_buff.
    pub ring_slot_bytes: u64,
    /// The part of a ring slot the NIC's DMA writes (descriptor and headers).
    pub ring_dma_bytes: u64,
    /// Span a connection's socket-buffer memory cycles through (stream offsets wrap in it).
    pub buffer_span_bytes: u64,
}
