//! The state of the network softirq on one processor (each has its own, as Linux's per-CPU
//! `softnet_data`): raised or running, its budget, and the work queued for it. What it does
//! is in `net_rx`.

use crate::node::effect::Effect;
use crate::node::events::TimerKind;
use crate::stack::conn::ConnId;
use crate::stack::tcp::Segment;
use crate::stack::Frame;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub(crate) struct Softirq {
    pub(crate) pending: bool,
    pub(crate) running: bool,
    pub(crate) yielded: bool,
    pub(crate) budget_used: u32,
    pub(crate) poll_ending: bool,
    /// CPU-NET's loop: its last pass found nothing.
    pub(crate) polled_empty: bool,
    /// The device whose ring is being polled, and the frames taken from it in this turn.
    pub(crate) poll_dev: usize,
    pub(crate) poll_quota: u32,
    /// Budgets spent in this activation (`__do_softirq`'s restarts).
    pub(crate) restarts: u32,
    pub(crate) effect: Option<Effect>,
    pub(crate) xmit: VecDeque<Segment>,
    pub(crate) wake: VecDeque<usize>,
    pub(crate) timers: VecDeque<(ConnId, TimerKind)>,
    /// Connections that reached TIME_WAIT or finished: their socket is torn down.
    pub(crate) teardown: VecDeque<ConnId>,
    /// Frames handed over by ring accumulation or netif_rx, waiting for the protocol.
    pub(crate) backlog: VecDeque<Frame>,
}
