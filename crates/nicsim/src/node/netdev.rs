//! One network device of a node (Linux's `net_device`): the NIC with its rings, its DMA
//! engine, and the driver's state for it (the qdisc, bursts delivered to host memory, the
//! transmit FIFO's hold, datagrams awaiting reclaim); its address on the fabric; and which
//! processor takes its interrupt (its affinity) and which runs its protocol softirq; and the
//! handoff firmware, on a NIC that runs it.

use crate::handoff::HandoffNic;
use crate::hw::dma::DmaEngine;
use crate::hw::frame::{FlowId, NodeAddr};
use crate::hw::nic::Nic;
use crate::os::lock::SpinLock;
use crate::stack::udp::UdpId;
use crate::stack::{Frame, Payload};
use crate::units::{Duration, Time};
use std::collections::VecDeque;

pub use crate::hw::frame::DevId;

pub struct NetDev {
    pub nic: Nic<Payload>,
    pub(crate) dma: DmaEngine<Frame>,
    /// Its port on the fabric: frames to this address arrive here.
    pub addr: NodeAddr,
    /// The processor its interrupt is steered to (it runs the hardirq and the driver).
    pub irq: usize,
    /// The processor whose softirq polls it and runs the protocol for its frames.
    pub protocol: usize,
    /// Packets waiting for a transmit descriptor (the queueing discipline).
    pub(crate) qdisc: VecDeque<Frame>,
    /// Frames a ring-accumulation burst put in host memory, waiting for the driver.
    pub(crate) delivered: VecDeque<Frame>,
    /// The transmit DMA waits for the MAC's FIFO to drain until then.
    pub(crate) tx_hold_until: Time,
    /// The link's time to send a full transmit FIFO (`nic.tx_fifo_bytes`).
    pub(crate) tx_fifo: Duration,
    /// Frames queued for transmission and reclaimed after it, counted since the start; a
    /// UDP datagram's send buffer is freed when the count reclaimed passes its number.
    pub(crate) tx_queued: u64,
    pub(crate) tx_reclaimed: u64,
    /// The transmit queue's spinlock (`dev->queue_lock`), with `smp.spinlocks`.
    pub(crate) queue_lock: SpinLock,
    pub(crate) udp_unreclaimed: VecDeque<(u64, UdpId, u64)>,
    /// TCP data sends in the qdisc or the ring, by their place in `tx_queued`, with their flow
    /// and payload: what `sk_wmem_alloc` still holds of each socket (autocorking, TSQ).
    pub(crate) tcp_unreclaimed: VecDeque<(u64, FlowId, u64)>,
    /// An affinity chosen by irqbalance, taken at the device's next interrupt (as writing
    /// /proc/irq/N/smp_affinity is: a poll in progress finishes where it runs).
    pub(crate) next_irq: Option<usize>,
    /// The connection-handoff firmware, on a NIC whose processor runs it
    /// (`placement.rx_mode = handoff`): it sees every frame first (`handoff/device.rs`).
    pub handoff: Option<Box<HandoffNic>>,
}

impl NetDev {
    /// Received frames in host memory waiting for the driver (the ring, and bursts a
    /// ring-accumulating NIC delivered).
    pub fn ring_waiting(&self) -> usize {
        self.nic.rx_ready.len() + self.delivered.len()
    }

    /// Frames waiting for a transmit descriptor.
    pub fn qdisc_len(&self) -> usize {
        self.qdisc.len()
    }

    pub fn new(
        nic: Nic<Payload>,
        dma: DmaEngine<Frame>,
        addr: NodeAddr,
        irq: usize,
        protocol: usize,
        tx_fifo: Duration,
    ) -> Self {
        NetDev {
            nic,
            dma,
            addr,
            irq,
            protocol,
            qdisc: VecDeque::new(),
            delivered: VecDeque::new(),
            tx_hold_until: Time::ZERO,
            tx_fifo,
            tx_queued: 0,
            tx_reclaimed: 0,
            queue_lock: SpinLock::default(),
            udp_unreclaimed: VecDeque::new(),
            tcp_unreclaimed: VecDeque::new(),
            next_irq: None,
            handoff: None,
        }
    }
}
