//! Engine events. Every variant names the node it concerns; `system` dispatches them.

use crate::hw::cpu::Notice;
use crate::units::Time;

#[derive(Clone, Copy, Debug)]
pub enum Ev {
    Chunk {
        node: u8,
        proc: u8,
    },
    Dma {
        node: u8,
        chan: u8,
    },
    Arrive {
        node: u8,
    },
    Irq {
        node: u8,
        proc: u8,
        kind: IrqKind,
    },
    Coalesce {
        node: u8,
        at: Time,
    },
    AccIdle {
        node: u8,
        at: Time,
    },
    /// A TCP timer set for `at` expires (stale if the TCP moved its deadline since).
    Timer {
        node: u8,
        kind: TimerKind,
        at: Time,
    },
    /// A background cross-call reaches a host CPU (`smp.background_ipi_per_s`).
    CrossCall {
        node: u8,
        proc: u8,
    },
    Workload,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqKind {
    Nic,
    Notice(Notice),
}

/// The three TCP timers, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Delack,
    Rto,
    Persist,
}
