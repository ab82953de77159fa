//! Threads: the benchmark's communication thread and the application load thread, each
//! running one operation (send, receive, compute) at a time. State only; what a thread does
//! is in `syscall`.

use crate::hw::cpu::Job;
use crate::node::effect::Effect;
use crate::stack::tcp::Segment;
use std::collections::VecDeque;

/// The benchmark's communication thread.
pub const COMM: usize = 0;
/// The application-load thread (Hpcbench's receiver hands it messages).
pub const LOAD: usize = 1;

/// A thread operation the workload asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    Send(u64),
    Recv(u64),
    /// Application work on received data: cycles and memory references.
    Compute {
        cycles: f64,
        refs: f64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    Data,
    Space,
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub proc: usize,
    pub(crate) op: Option<Op>,
    pub(crate) left: u64,
    pub(crate) in_call: bool,
    pub(crate) blocked: Option<Wait>,
    pub(crate) runnable: bool,
    pub(crate) woken: bool,
    pub(crate) saved: Option<Job>,
    pub(crate) effect: Effect,
    pub(crate) xmit: VecDeque<Segment>,
    pub bytes_read: u64,
}

impl Thread {
    pub(crate) fn new(proc: usize) -> Self {
        Thread {
            proc,
            op: None,
            left: 0,
            in_call: false,
            blocked: None,
            runnable: false,
            woken: false,
            saved: None,
            effect: Effect::None,
            xmit: VecDeque::new(),
            bytes_read: 0,
        }
    }
}
