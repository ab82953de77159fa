//! The scheduler's settings: the policy among threads, EEVDF's slice, the tick, softirq
//! deferral and wake-ups (`sched.*`).

use crate::units::Duration;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sched {
    /// Who runs next among a processor's threads (`os/eevdf.rs` for Linux 6.6+'s rule).
    pub policy: SchedPolicy,
    /// EEVDF's base slice (`sysctl_sched_base_slice`), before its CPU-count factor.
    pub base_slice_ps: Duration,
    /// EEVDF's RUN_TO_PARITY: a picked thread keeps the processor until its slice is used.
    pub run_to_parity: bool,
    pub wakeup_preempts: bool,
    /// Local timer interrupts per second on every host CPU (Linux's HZ); 0: no tick.
    pub tick_hz: f64,
    pub ksoftirqd: Ksoftirqd,
    /// Softirq passes (`__do_softirq` restarts, one budget each) before ksoftirqd takes over.
    pub softirq_restarts: u32,
    /// Delivery time a cross-CPU wake-up's reschedule IPI adds to the APIC's (a virtualised
    /// host's IPI exits to the hypervisor).
    pub wake_latency_ps: Duration,
    /// A wake-up of a thread whose idle processor is another queues it there, and that
    /// processor activates it (Linux's `ttwu_queue_wakelist`); else the waker does.
    pub wake_list: bool,
    /// An idle CPU polls its need-resched flag (TIF_POLLING_NRFLAG) instead of halting: a
    /// wake-up there needs no IPI.
    pub idle_poll: bool,
}

/// How a processor's scheduler chooses among its runnable threads (`sched.policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedPolicy {
    /// Classes, then the order threads became runnable; a thread whose call returns goes
    /// behind the others (the calibrated Linux 2.6 presets).
    Classes,
    /// Linux 6.6+'s EEVDF: virtual runtime, lag, eligibility and virtual deadlines.
    Eevdf,
}

/// Who runs softirq work left over after its budget (stacks.md §A.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ksoftirqd {
    /// The softirq yields after one budget and resumes when nothing else runs; no thread.
    Deferral,
    /// Linux 2.6: after `softirq_restarts` budgets the CPU's ksoftirqd thread (nice 19) runs
    /// the rest when no other thread wants the CPU, with a context switch to and from it.
    Thread,
}
