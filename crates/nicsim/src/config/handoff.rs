//! The connection-handoff NIC's settings (handoff.md §4–§7, §10): how many connections it may
//! own, how its processor orders host and NIC work, load control on its receive queue, and
//! how the OS picks the connections it hands over.

use crate::units::Duration;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Handoff {
    /// The hard limit: connections the NIC may ever own; 0 turns handoff off (§10).
    pub max_connections: u32,
    pub priority: NicPriority,
    pub selection: Selection,
    /// The threshold policy's lifetime, in data segments sent so far (§7.4).
    pub threshold_packets: u32,
    pub load_control: bool,
    /// Watermarks on the NIC receive queue, in packets; 0: derived (§6.3).
    pub hiwat_packets: u32,
    pub lowat_packets: u32,
    /// The queueing-delay budget the derived high watermark stands for (§6.3).
    pub target_rx_delay_ps: Duration,
    pub step_packets: u32,
    pub soft_min: u32,
    /// TCP state a handoff DMA-reads from host memory (§4.2, §12.3).
    pub state_bytes: u64,
    /// NIC memory per owned connection, and what the firmware keeps for itself (§6.1).
    pub nic_conn_state_bytes: u64,
    pub nic_reserved_bytes: u64,
    /// Capacity of each of the NIC processor's queues, in packets; overflow drops (§5).
    pub queue_packets: u32,
    /// Lookup-table buckets; 0: the next power of two ≥ 2 × max_connections (§3).
    pub lookup_buckets: u32,
    /// How often the NIC's load state is sampled for the report's timeline.
    pub sample_interval_ps: Duration,
    /// What happens when the soft limit falls below the owned count (§6.2).
    pub on_excess: OnExcess,
    /// What the threshold policy counts: data segments, or every segment (§7.4).
    pub count: SegmentCount,
    /// Owned connections keep their NIC slot through TIME_WAIT (§4.5); off: handed back.
    pub time_wait_on_nic: bool,
    /// Scales the instruction counts of every task the handoff NIC runs (§12.1), fitted to
    /// handoff.md §13's one row; the host's costs are not touched.
    pub nic_instruction_factor: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnExcess {
    /// Refuse new handoffs; the owned count drains as connections close.
    RefuseNew,
    /// The NIC tells the OS, which restores the excess, the most recently handed off first.
    RestoreExcess,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentCount {
    DataSegments,
    AllSegments,
}

/// How the NIC processor orders its work (§5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NicPriority {
    /// One queue in arrival order.
    Fcfs,
    /// Every host packet before any work for an owned connection.
    HostFirst,
}

/// Which connections the OS hands over (§7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// Each connection at establishment (accept), until the NIC refuses.
    Fcfs,
    /// A connection at the send that brings its data segments to `threshold_packets`.
    Threshold,
}

impl Handoff {
    pub fn enabled(&self) -> bool {
        self.max_connections > 0
    }
}
