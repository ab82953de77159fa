//! Engine events. Every variant names the node it concerns; `system` dispatches them.

use crate::hw::cpu::Notice;
use crate::hw::fabric::Hop;
use crate::units::Time;

#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A chunk (or a span of chunks, `os/span.rs`) ends; `gen` tells a stale one from the
    /// processor's live event.
    Chunk {
        node: u8,
        proc: u8,
        gen: u32,
    },
    Dma {
        node: u8,
        dev: u8,
        chan: u8,
    },
    /// The oldest frame on its way to fabric address `addr` reaches that device's MAC.
    Arrive {
        addr: u8,
    },
    /// The oldest frame on the switch's input port `port` is in the switch.
    SwitchIn {
        port: u8,
    },
    Irq {
        node: u8,
        proc: u8,
        kind: IrqKind,
    },
    Coalesce {
        node: u8,
        dev: u8,
        at: Time,
    },
    AccIdle {
        node: u8,
        dev: u8,
        at: Time,
    },
    /// A timer of the connection whose cookie is `cookie` set for `at` expires (stale if the
    /// TCP moved its deadline since, or the connection's slot was freed).
    Timer {
        node: u8,
        cookie: u32,
        kind: TimerKind,
        at: Time,
    },
    /// The MAC's transmit FIFO has room again: the NIC may fetch the next frame.
    TxFifo {
        node: u8,
        dev: u8,
    },
    /// A background cross-call reaches a host CPU (`smp.background_ipi_per_s`).
    CrossCall {
        node: u8,
        proc: u8,
    },
    /// A host CPU's local timer interrupt (`sched.tick_hz`).
    Tick {
        node: u8,
        proc: u8,
    },
    /// irqbalance re-affines the server's device interrupts (`periodic_rebalance`).
    IrqRebalance {
        node: u8,
    },
    /// A run of the node's periodic TCP timer routine (`tcp.timers` = bsd or merged).
    TcpTimer {
        node: u8,
    },
    Workload,
}

impl Ev {
    /// The names `kind` indexes, as reported in `simulator.events_by_kind`.
    pub const KINDS: [&'static str; 15] = [
        "chunk",
        "dma",
        "arrive",
        "switch_in",
        "nic_irq",
        "coalesce",
        "acc_idle",
        "timer",
        "tx_fifo",
        "cross_call",
        "workload",
        "notice_irq",
        "tick",
        "irq_rebalance",
        "tcp_timer",
    ];

    /// Index into `KINDS`: what `nicsim bench --suite` counts per kind.
    pub fn kind(&self) -> usize {
        match self {
            Ev::Chunk { .. } => 0,
            Ev::Dma { .. } => 1,
            Ev::Arrive { .. } => 2,
            Ev::SwitchIn { .. } => 3,
            Ev::Irq {
                kind: IrqKind::Nic(_),
                ..
            } => 4,
            Ev::Irq { .. } => 11,
            Ev::Coalesce { .. } => 5,
            Ev::AccIdle { .. } => 6,
            Ev::Timer { .. } => 7,
            Ev::TxFifo { .. } => 8,
            Ev::CrossCall { .. } => 9,
            Ev::Workload => 10,
            Ev::Tick { .. } => 12,
            Ev::IrqRebalance { .. } => 13,
            Ev::TcpTimer { .. } => 14,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqKind {
    /// Network device `n`'s interrupt.
    Nic(u8),
    Notice(Notice),
    /// The local APIC timer.
    Tick,
    /// The clock interrupt's run of the TCP timer routine: a walk of the TCP context list.
    TcpTimer,
}

/// The four TCP timers, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Delack,
    Rto,
    Persist,
    TimeWait,
    Pace,
}

impl From<Hop> for Ev {
    fn from(h: Hop) -> Ev {
        match h {
            Hop::Node(addr) => Ev::Arrive { addr },
            Hop::Switch(port) => Ev::SwitchIn { port },
        }
    }
}
