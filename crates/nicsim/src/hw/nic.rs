//! The NIC: MAC acceptance against posted receive buffers, receive and transmit rings,
//! interrupt coalescing and NAPI masking, and the offload NIC's ring accumulation in its
//! on-board memory (host-path §4.7, §5.5.4). DMA timing lives in `dma.rs`; this file holds
//! the decisions. It reads frame headers only; `P` is the payload it never inspects.

use crate::hw::frame::{FlowId, Frame};
use crate::hw::link::{ETH_HEADER_BYTES, FCS_BYTES};
use crate::units::{Duration, Time};
use std::collections::VecDeque;

/// What ring accumulation did with a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// Not taken: the ring cannot hold it; flush, then offer the frame again.
    RingFull,
    /// Taken; flush now for this cause, or wait for more.
    Taken(Option<FlushCause>),
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

/// RSS: the receive queue (of `queues`) a flow's frames go to. A fixed multiplicative hash
/// of the flow id stands in for the Toeplitz hash of the 4-tuple: every frame of a flow lands
/// on one queue, and flows spread evenly.
pub fn rss_queue(flow: FlowId, queues: usize) -> usize {
    (flow.wrapping_mul(0x9E37_79B1) >> 16) as usize % queues.max(1)
}

#[derive(Clone, Copy, Debug)]
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
pub struct Nic<P> {
    pub p: NicParams,
    /// Receive buffers posted by the driver and not yet filled.
    pub rx_posted: u32,
    /// Frames DMA'd into the host ring, waiting for the driver.
    pub rx_ready: VecDeque<Frame<P>>,
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
    pub acc: Vec<Frame<P>>,
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

impl<P> Nic<P> {
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
    pub fn accept_rx(&mut self, f: &Frame<P>) -> bool {
        self.stats.rx_frames += 1;
        self.stats.rx_bytes += f.hdr.ip_bytes();
        if self.rx_posted == 0 {
            self.stats.rx_dropped_ring += 1;
            self.stats.rx_dropped_ring_bytes += f.hdr.payload_bytes();
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
    pub fn rx_dma_done(&mut self, now: Time, f: Frame<P>) -> IrqDecision {
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

    /// A descriptor's `frames` left for the wire (more than one when the NIC cut a TSO send); its
    /// buffer awaits reclaim.
    pub fn tx_sent(&mut self, now: Time, frames: u64) -> IrqDecision {
        self.tx_done += 1;
        self.stats.tx_frames += frames;
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
    pub fn take_rx(&mut self) -> Option<Frame<P>> {
        let f = self.rx_ready.pop_front()?;
        self.rx_posted += 1;
        Some(f)
    }

    /// Ring accumulation: hold a frame in NIC memory and say whether a flush is due.
    /// Flush rule (host-path Q10): the ring is full, or the frame carries PUSH.
    pub fn accumulate(&mut self, f: Frame<P>, flush_on_push: bool) -> Held {
        let slot = f.hdr.ip_bytes() + ETH_HEADER_BYTES + FCS_BYTES + self.p.ring_slot_overhead;
        if self.acc_bytes + slot > self.p.ring_bytes && !self.acc.is_empty() {
            return Held::RingFull;
        }
        self.stats.rx_frames += 1;
        self.stats.rx_bytes += f.hdr.ip_bytes();
        self.acc_bytes += slot;
        let push = f.hdr.push;
        self.acc.push(f);
        Held::Taken(if self.acc_bytes + slot > self.p.ring_bytes {
            Some(FlushCause::Full)
        } else if flush_on_push && push {
            Some(FlushCause::Push)
        } else {
            None
        })
    }

    /// Empties the accumulation ring for one burst DMA.
    pub fn flush(&mut self, cause: FlushCause) -> Vec<Frame<P>> {
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

    use crate::hw::frame::FrameHeader;

    fn frame(len: u32, push: bool) -> Frame<()> {
        Frame {
            hdr: FrameHeader::new(0, 0, len as u64 + 52, len as u64, push, false),
            payload: (),
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
            if let Held::Taken(Some(c)) = nic.accumulate(frame(8948, false), true) {
                break c;
            }
        };
        assert_eq!((n, cause), (14, FlushCause::Full));
        assert_eq!(nic.flush(cause).len(), 14);
        assert_eq!(
            nic.accumulate(frame(10, true), true),
            Held::Taken(Some(FlushCause::Push))
        );
        // Beside the small frame, 14 large ones fit; the 15th is refused and nothing is lost.
        for _ in 0..14 {
            assert!(matches!(
                nic.accumulate(frame(8948, false), false),
                Held::Taken(_)
            ));
        }
        assert_eq!(nic.accumulate(frame(8948, false), false), Held::RingFull);
        assert_eq!(nic.acc.len(), 15);
    }
}
