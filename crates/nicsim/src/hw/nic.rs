//! The NIC: MAC acceptance against posted receive buffers, receive and transmit rings,
//! interrupt coalescing and NAPI masking, and the offload NIC's ring accumulation in its
//! on-board memory (host-path §4.7, §5.5.4). DMA timing lives with the buses in `system.rs`;
//! this file holds the decisions.

use crate::stack::tcp::Segment;
use crate::units::{Duration, Time};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub seg: Segment,
    /// IP datagram bytes (payload + IP and TCP headers).
    pub ip_bytes: u64,
    /// A generator's frame (host-path §7.9): it climbs the receive path without TCP.
    pub raw: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushCause {
    Full,
    Idle,
    Push,
}

#[derive(Clone, Debug, Default)]
pub struct NicStats {
    pub rx_frames: u64,
    pub rx_bytes: u64,
    pub rx_dropped_ring: u64,
    pub rx_dropped_ring_bytes: u64,
    pub tx_frames: u64,
    pub irqs_raised: u64,
    pub flush_full: u64,
    pub flush_idle: u64,
    pub flush_push: u64,
    pub acks_consumed_on_nic: u64,
    pub max_rx_ring_occupancy: u32,
}

#[derive(Clone, Debug)]
pub struct NicParams {
    pub rx_ring_entries: u32,
    pub tx_ring_entries: u32,
    pub rx_coalesce: Duration,
    pub rx_coalesce_frames: u32,
    pub tx_coalesce: Duration,
    pub tx_coalesce_frames: u32,
    pub napi: bool,
    pub ring_bytes: u64,
    pub ring_slot_overhead: u64,
}

#[derive(Clone, Debug)]
pub struct Nic {
    pub p: NicParams,
    /// Receive buffers posted by the driver and not yet filled.
    pub rx_posted: u32,
    /// Frames DMA'd into the host ring, waiting for the driver.
    pub rx_ready: VecDeque<Frame>,
    /// Transmit descriptors in use (posted, not yet reclaimed).
    pub tx_used: u32,
    /// Transmitted frames whose buffers the driver has not reclaimed yet.
    pub tx_done: u32,
    /// Device interrupts masked (NAPI poll in progress).
    pub masked: bool,
    /// Events since the last interrupt, for frame-count coalescing.
    rx_since_irq: u32,
    tx_since_irq: u32,
    /// Coalescing timer deadline, if armed.
    pub coalesce_deadline: Option<Time>,
    /// Ring accumulation (offload/hybrid): frames held in NIC memory.
    pub acc: Vec<Frame>,
    acc_bytes: u64,
    pub idle_deadline: Option<Time>,
    pub stats: NicStats,
}

/// What the interrupt logic wants after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqDecision {
    Raise,
    ArmTimer(Time),
    None,
}

impl Nic {
    pub fn new(p: NicParams) -> Self {
        Nic {
            rx_posted: p.rx_ring_entries,
            p,
            rx_ready: VecDeque::new(),
            tx_used: 0,
            tx_done: 0,
            masked: false,
            rx_since_irq: 0,
            tx_since_irq: 0,
            coalesce_deadline: None,
            acc: Vec::new(),
            acc_bytes: 0,
            idle_deadline: None,
            stats: NicStats::default(),
        }
    }

    /// MAC: a frame arrived. A frame goes to host memory only if a free receive buffer
    /// exists; otherwise it is dropped and counted (NAPI drops when the ring is full).
    pub fn accept_rx(&mut self, f: &Frame) -> bool {
        self.stats.rx_frames += 1;
        self.stats.rx_bytes += f.ip_bytes;
        if self.rx_posted == 0 {
            self.stats.rx_dropped_ring += 1;
            self.stats.rx_dropped_ring_bytes += f.seg.len as u64;
            return false;
        }
        self.rx_posted -= 1;
        true
    }

    fn decide(&mut self, now: Time, count: u32, frames: u32, usecs: Duration) -> IrqDecision {
        if self.masked {
            return IrqDecision::None;
        }
        if count >= frames.max(1) || usecs == Duration::ZERO {
            return IrqDecision::Raise;
        }
        match self.coalesce_deadline {
            Some(_) => IrqDecision::None,
            None => {
                let t = now + usecs;
                self.coalesce_deadline = Some(t);
                IrqDecision::ArmTimer(t)
            }
        }
    }

    /// A received frame is in the host ring.
    pub fn rx_dma_done(&mut self, now: Time, f: Frame) -> IrqDecision {
        self.rx_ready.push_back(f);
        let occ = self.p.rx_ring_entries - self.rx_posted;
        self.stats.max_rx_ring_occupancy = self.stats.max_rx_ring_occupancy.max(occ);
        self.rx_since_irq += 1;
        let (n, fr, us) = (
            self.rx_since_irq,
            self.p.rx_coalesce_frames,
            self.p.rx_coalesce,
        );
        self.decide(now, n, fr, us)
    }

    /// A frame left through the MAC; its buffer awaits reclaim.
    pub fn tx_sent(&mut self, now: Time) -> IrqDecision {
        self.tx_done += 1;
        self.stats.tx_frames += 1;
        self.tx_since_irq += 1;
        let (n, fr, us) = (
            self.tx_since_irq,
            self.p.tx_coalesce_frames,
            self.p.tx_coalesce,
        );
        self.decide(now, n, fr, us)
    }

    /// The coalescing timer fired.
    pub fn coalesce_timer(&mut self, now: Time) -> IrqDecision {
        if self.coalesce_deadline != Some(now) {
            return IrqDecision::None;
        }
        self.coalesce_deadline = None;
        if self.masked || (self.rx_since_irq == 0 && self.tx_since_irq == 0) {
            IrqDecision::None
        } else {
            IrqDecision::Raise
        }
    }

    /// An interrupt is raised: with NAPI, device interrupts stay masked until the poll ends.
    pub fn raise(&mut self) {
        self.stats.irqs_raised += 1;
        self.rx_since_irq = 0;
        self.tx_since_irq = 0;
        self.coalesce_deadline = None;
        if self.p.napi {
            self.masked = true;
        }
    }

    /// The poll found nothing left and re-enabled interrupts; returns whether work that
    /// arrived meanwhile needs an interrupt at once.
    pub fn unmask(&mut self) -> bool {
        self.masked = false;
        !self.rx_ready.is_empty() || self.tx_done > 0
    }

    /// The driver took a frame from the ring and posted a fresh buffer.
    pub fn take_rx(&mut self) -> Option<Frame> {
        let f = self.rx_ready.pop_front()?;
        self.rx_posted += 1;
        Some(f)
    }

    /// Ring accumulation: hold a frame in NIC memory; returns a flush cause if one fires.
    /// Flush rule (host-path Q10): the ring is full, or the frame carries PUSH.
    pub fn accumulate(&mut self, f: Frame, flush_on_push: bool) -> Option<FlushCause> {
        self.stats.rx_frames += 1;
        self.stats.rx_bytes += f.ip_bytes;
        let slot = f.ip_bytes + crate::hw::link::FRAMING_BYTES - 20 + self.p.ring_slot_overhead;
        let full_after = self.acc_bytes + slot > self.p.ring_bytes;
        let cause = if full_after && !self.acc.is_empty() {
            Some(FlushCause::Full)
        } else {
            None
        };
        if cause.is_some() {
            return cause; // caller flushes, then offers the frame again
        }
        self.acc_bytes += slot;
        self.acc.push(f);
        if self.acc_bytes + slot > self.p.ring_bytes {
            Some(FlushCause::Full)
        } else if flush_on_push && f.seg.push {
            Some(FlushCause::Push)
        } else {
            None
        }
    }

    /// Empties the accumulation ring for one burst DMA.
    pub fn flush(&mut self, cause: FlushCause) -> Vec<Frame> {
        match cause {
            FlushCause::Full => self.stats.flush_full += 1,
            FlushCause::Idle => self.stats.flush_idle += 1,
            FlushCause::Push => self.stats.flush_push += 1,
        }
        self.acc_bytes = 0;
        self.idle_deadline = None;
        std::mem::take(&mut self.acc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> NicParams {
        NicParams {
            rx_ring_entries: 2,
            tx_ring_entries: 16,
            rx_coalesce: Duration::ZERO,
            rx_coalesce_frames: 1,
            tx_coalesce: Duration::from_ns(150_000),
            tx_coalesce_frames: 53,
            napi: true,
            ring_bytes: 128 * 1024,
            ring_slot_overhead: 0,
        }
    }

    fn frame(len: u32, push: bool) -> Frame {
        Frame {
            seg: Segment {
                seq: 0,
                len,
                ack: 0,
                win: 0,
                push,
            },
            ip_bytes: len as u64 + 52,
            raw: false,
        }
    }

    #[test]
    fn ring_overflow_drops_and_counts() {
        let mut nic = Nic::new(params());
        assert!(nic.accept_rx(&frame(1000, false)));
        assert!(nic.accept_rx(&frame(1000, false)));
        assert!(!nic.accept_rx(&frame(1000, false)));
        assert_eq!(nic.stats.rx_dropped_ring, 1);
        assert_eq!(nic.stats.rx_dropped_ring_bytes, 1000);
    }

    #[test]
    fn napi_masks_interrupts_until_the_poll_ends() {
        let mut nic = Nic::new(params());
        for _ in 0..2 {
            nic.accept_rx(&frame(100, false));
        }
        assert_eq!(
            nic.rx_dma_done(Time(0), frame(100, false)),
            IrqDecision::Raise
        );
        nic.raise();
        assert_eq!(
            nic.rx_dma_done(Time(1), frame(100, false)),
            IrqDecision::None
        );
        nic.take_rx();
        nic.take_rx();
        assert!(!nic.unmask());
        assert_eq!(nic.stats.irqs_raised, 1);
    }

    #[test]
    fn frame_count_coalescing_waits_for_the_count_or_the_timer() {
        let mut p = params();
        p.rx_coalesce_frames = 3;
        p.rx_coalesce = Duration::from_ns(50_000);
        p.napi = false;
        let mut nic = Nic::new(p);
        assert_eq!(
            nic.rx_dma_done(Time(0), frame(1, false)),
            IrqDecision::ArmTimer(Time(50_000_000))
        );
        assert_eq!(nic.rx_dma_done(Time(1), frame(1, false)), IrqDecision::None);
        assert_eq!(
            nic.rx_dma_done(Time(2), frame(1, false)),
            IrqDecision::Raise
        );
        nic.raise();
        assert_eq!(nic.coalesce_timer(Time(50_000_000)), IrqDecision::None);
    }

    #[test]
    fn accumulation_flushes_when_full_or_on_push() {
        let mut nic = Nic::new(params());
        // 9000-byte datagrams occupy 9018 bytes: 14 fit in 128 KiB.
        let mut n = 0;
        let cause = loop {
            n += 1;
            if let Some(c) = nic.accumulate(frame(8948, false), true) {
                break c;
            }
        };
        assert_eq!((n, cause), (14, FlushCause::Full));
        assert_eq!(nic.flush(cause).len(), 14);
        assert_eq!(
            nic.accumulate(frame(10, true), true),
            Some(FlushCause::Push)
        );
    }
}
