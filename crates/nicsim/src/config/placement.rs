//! A placement as the core receives it: processors by name, and which one runs each group
//! of stages, where interrupts go and how received frames reach the protocol (host-path §5).

use serde::{Deserialize, Serialize};

/// Host CPUs a node may have (the 16-way SMPs of stacks.md §B.7 are the largest studied).
pub const MAX_HOST_CPUS: usize = 16;

const CPU_NAMES: [&str; MAX_HOST_CPUS] = [
    "cpu0", "cpu1", "cpu2", "cpu3", "cpu4", "cpu5", "cpu6", "cpu7", "cpu8", "cpu9", "cpu10",
    "cpu11", "cpu12", "cpu13", "cpu14", "cpu15",
];

/// Processor names as in the spec: `cpu0`, `cpu1`, ..., `nic_cpu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProcName {
    /// Host CPU k, below `MAX_HOST_CPUS`.
    Cpu(u8),
    NicCpu,
}

impl ProcName {
    pub fn as_str(self) -> &'static str {
        match self {
            ProcName::Cpu(k) => CPU_NAMES[k as usize],
            ProcName::NicCpu => "nic_cpu",
        }
    }

    /// The NIC's own processor: no north bridge, no host I/O bus, no background cross-calls.
    pub fn is_nic(self) -> bool {
        self == ProcName::NicCpu
    }

    pub fn parse(s: &str) -> Option<ProcName> {
        if s == "nic_cpu" {
            return Some(ProcName::NicCpu);
        }
        CPU_NAMES
            .iter()
            .position(|n| *n == s)
            .map(|k| ProcName::Cpu(k as u8))
    }
}

impl Serialize for ProcName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProcName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ProcName::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown processor {s:?}: expected cpu0 .. cpu{} or nic_cpu",
                MAX_HOST_CPUS - 1
            ))
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IrqPath {
    Ioapic,
    Direct,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RxMode {
    /// Per-packet DMA into the host receive ring (base, onload).
    HostRing,
    /// Frames accumulate in NIC memory and move in one burst per flush (offload, hybrid).
    RingAccumulate,
    /// The NIC processor looks up every frame: it runs TCP for the connections handed to it
    /// and forwards the rest to the host ring (connection handoff, handoff.md).
    Handoff,
    /// The host ring, polled without end by the protocol processor, which runs nothing else
    /// (CPU-NET, stacks.md §A.8).
    Poll,
}

/// Which processor runs each group of stages, and where interrupts go. Pure data.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub name: String,
    /// `rx.hardirq`, `rx.schedule`: the driver's interrupt handler.
    pub driver: ProcName,
    /// `rx.poll`, `rx.ip`, `rx.tcp`, `rx.wake`, ACK- and timer-released output, `tx.ack`, `tx.complete`.
    pub protocol: ProcName,
    /// The benchmark's communication thread: `rx.syscall`, `rx.copy`, `tx.syscall`, `tx.copy`,
    /// and send-initiated `tx.tcp`/`tx.ip`/`tx.dev`.
    pub comm_thread: ProcName,
    /// The application-load thread (`rx.app`).
    pub app: ProcName,
    pub irq_target: ProcName,
    pub irq_path: IrqPath,
    pub rx_mode: RxMode,
    /// Who runs send-initiated `tx.tcp`/`tx.ip`/`tx.dev` and the reader's window updates, as
    /// the placement's row says (CPU-NET test E queues sends to its CPU); `tx.model` and the
    /// organisation may hand it to the protocol processor too (`placement::Roles`).
    pub tx_output: TxOutput,
}

/// The transmit model (`tx.model`, host-path §5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxModel {
    /// Send-initiated output on the sending thread.
    Linux,
    /// Send-initiated output on the NIC processor after a doorbell, where the protocol runs
    /// there.
    Toe,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxOutput {
    /// Linux: the thread that calls send, in process context (host-path §5.3 `linux`).
    Thread,
    /// An idealised TOE: the protocol processor, after a doorbell (§5.3 `toe`).
    Protocol,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_names_round_trip_up_to_the_largest_smp() {
        for k in 0..MAX_HOST_CPUS as u8 {
            let p = ProcName::Cpu(k);
            assert_eq!(ProcName::parse(p.as_str()), Some(p));
        }
        assert_eq!(ProcName::parse("nic_cpu"), Some(ProcName::NicCpu));
        assert_eq!(ProcName::parse("cpu16"), None);
        let err = serde_json::from_str::<ProcName>("\"cpu16\"").unwrap_err();
        assert!(
            err.to_string().contains("cpu0 .. cpu15 or nic_cpu"),
            "{err}"
        );
    }
}
