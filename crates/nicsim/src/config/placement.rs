//! A placement as the core receives it: processors by name, and which one runs each group
//! of stages, where interrupts go and how received frames reach the protocol (host-path §5).

use serde::{Deserialize, Serialize};

/// Processor names as in the spec: `cpu0`, `cpu1`, ..., `nic_cpu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcName {
    Cpu0,
    Cpu1,
    NicCpu,
}

impl ProcName {
    pub fn as_str(self) -> &'static str {
        match self {
            ProcName::Cpu0 => "cpu0",
            ProcName::Cpu1 => "cpu1",
            ProcName::NicCpu => "nic_cpu",
        }
    }

    /// The NIC's own processor: no north bridge, no host I/O bus, no background cross-calls.
    pub fn is_nic(self) -> bool {
        self == ProcName::NicCpu
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
    /// Who runs send-initiated `tx.tcp`/`tx.ip`/`tx.dev` and the reader's window updates.
    pub tx_output: TxOutput,
    /// One interrupt per received packet on this node, whatever `nic.rx_notify` says
    /// (the literal reading of the onload NIC, host-path Q13).
    pub per_packet_irq: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxOutput {
    /// Linux: the thread that calls send, in process context (host-path §5.3 `linux`).
    Thread,
    /// An idealised TOE: the protocol processor, after a doorbell (§5.3 `toe`).
    Protocol,
}
