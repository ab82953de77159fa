//! The NIC's DMA engine: two channels (receive writes, transmit reads), each working through its
//! requests one transaction (`io.dma_chunk_bytes`) at a time. A transaction occupies the I/O
//! bus and moves its memory lines across the north bridge; it ends when the slower of the two
//! is done. Sans-IO: `start` returns when the transaction ends and the caller schedules it.

use crate::hw::bus::{IoBus, NorthBridge};
use crate::units::Time;
use std::collections::VecDeque;

/// A DMA channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chan {
    /// Received frames, descriptors and status written into host memory.
    Rx = 0,
    /// Descriptors and frames read from host memory for transmission.
    Tx = 1,
}

impl Chan {
    pub fn from_index(i: u8) -> Chan {
        if i == 0 {
            Chan::Rx
        } else {
            Chan::Tx
        }
    }
}

/// Who asked for a transfer, carried to its completion: the host's driver (a frame it posted
/// for transmission, or one received for the host ring, at the time it was seen), or the
/// NIC's own processor (a frame it sends, built at that time; or none: payload to a posted
/// buffer, connection state, a descriptor or an event record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaTag {
    Driver(Time),
    Nic(Option<Time>),
}

#[derive(Clone, Debug)]
struct Channel<T> {
    /// Requests in order: the items they carry, their total bytes and who asked.
    queue: VecDeque<(Vec<T>, u64, DmaTag)>,
    /// Bytes of the head request not yet started.
    left: u64,
    busy: bool,
}

impl<T> Default for Channel<T> {
    fn default() -> Self {
        Channel {
            queue: VecDeque::new(),
            left: 0,
            busy: false,
        }
    }
}

/// The two channels of one NIC; `T` is whatever a request carries (frames), never inspected.
#[derive(Clone, Debug)]
pub struct DmaEngine<T> {
    chans: [Channel<T>; 2],
    chunk_bytes: u64,
    /// Bytes moved in either direction.
    pub bytes: u64,
}

impl<T> DmaEngine<T> {
    pub fn new(chunk_bytes: u64) -> Self {
        DmaEngine {
            chans: [Channel::default(), Channel::default()],
            chunk_bytes: chunk_bytes.max(1),
            bytes: 0,
        }
    }

    /// Queues a request of `bytes` that delivers `items` and its tag when its last
    /// transaction ends.
    pub fn request(&mut self, ch: Chan, items: Vec<T>, bytes: u64, tag: DmaTag) {
        self.chans[ch as usize].queue.push_back((items, bytes, tag));
    }

    /// Starts the next transaction on `ch` if the channel is idle and has work; returns the
    /// time it ends.
    pub fn start(
        &mut self,
        ch: Chan,
        now: Time,
        io: &mut IoBus,
        nb: &mut NorthBridge,
    ) -> Option<Time> {
        let chan = &mut self.chans[ch as usize];
        if chan.busy {
            return None;
        }
        let (_, total, _) = chan.queue.front()?;
        if chan.left == 0 {
            chan.left = *total;
        }
        let bytes = chan.left.min(self.chunk_bytes);
        chan.left -= bytes;
        chan.busy = true;
        let (start, end) = io.transact(now, bytes);
        self.bytes += bytes;
        Some(end.max(nb.dma(now, start, bytes)))
    }

    /// The transaction on `ch` ended; returns the items and tag of the request it completed,
    /// if any.
    pub fn finish(&mut self, ch: Chan) -> Option<(Vec<T>, DmaTag)> {
        let chan = &mut self.chans[ch as usize];
        chan.busy = false;
        if chan.left > 0 {
            return None;
        }
        let (items, _, tag) = chan
            .queue
            .pop_front()
            .expect("dma completion without a request");
        Some((items, tag))
    }

    /// Items whose requests have not completed on `ch`.
    pub fn pending(&self, ch: Chan) -> impl Iterator<Item = &T> {
        self.chans[ch as usize]
            .queue
            .iter()
            .flat_map(|(v, _, _)| v.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{BitRate, Duration};

    fn buses() -> (IoBus, NorthBridge) {
        let io = IoBus::new(BitRate(8_000_000_000), Duration(100_000), false);
        let nb = NorthBridge::new(Duration(125_000), Duration(30_000), 64, false, 1);
        (io, nb)
    }

    #[test]
    fn a_request_completes_after_its_last_transaction() {
        let (mut io, mut nb) = buses();
        let mut d = DmaEngine::new(512);
        d.request(Chan::Rx, vec!["frame"], 1200, DmaTag::Nic(None));
        let mut t = Time::ZERO;
        let mut done = None;
        let mut transactions = 0;
        while done.is_none() {
            t = d.start(Chan::Rx, t, &mut io, &mut nb).expect("work left");
            assert!(
                d.start(Chan::Rx, t, &mut io, &mut nb).is_none(),
                "one transaction at a time"
            );
            transactions += 1;
            done = d.finish(Chan::Rx);
        }
        assert_eq!(transactions, 3, "1200 bytes in 512-byte transactions");
        assert_eq!(done, Some((vec!["frame"], DmaTag::Nic(None))));
        assert_eq!(d.bytes, 1200);
        assert_eq!(io.transactions, 3);
        assert!(
            d.start(Chan::Rx, t, &mut io, &mut nb).is_none(),
            "nothing left"
        );
    }

    #[test]
    fn channels_are_independent_and_keep_order() {
        let (mut io, mut nb) = buses();
        let mut d = DmaEngine::new(4096);
        d.request(Chan::Tx, vec![1], 100, DmaTag::Driver(Time(5)));
        d.request(Chan::Tx, vec![2], 100, DmaTag::Nic(Some(Time(7))));
        d.request(Chan::Rx, vec![9], 100, DmaTag::Nic(None));
        assert_eq!(d.pending(Chan::Tx).copied().collect::<Vec<_>>(), vec![1, 2]);
        let t = d.start(Chan::Tx, Time::ZERO, &mut io, &mut nb).unwrap();
        assert!(
            d.start(Chan::Rx, Time::ZERO, &mut io, &mut nb).is_some(),
            "rx is not blocked by tx"
        );
        assert_eq!(d.finish(Chan::Tx), Some((vec![1], DmaTag::Driver(Time(5)))));
        d.start(Chan::Tx, t, &mut io, &mut nb).unwrap();
        assert_eq!(
            d.finish(Chan::Tx),
            Some((vec![2], DmaTag::Nic(Some(Time(7))))),
            "each request's tag comes back with its items"
        );
    }

    #[test]
    fn the_slower_of_bus_and_bridge_ends_a_transaction() {
        let (mut io, _) = buses();
        // A bridge so slow (1 µs per line) that it, not the I/O bus, ends the transfer.
        let mut nb = NorthBridge::new(Duration(0), Duration(1_000_000), 64, false, 1);
        let mut d = DmaEngine::new(4096);
        d.request(Chan::Rx, vec![()], 640, DmaTag::Nic(None));
        let end = d.start(Chan::Rx, Time::ZERO, &mut io, &mut nb).unwrap();
        assert!(end >= Time(10 * 1_000_000), "ten lines of 1 µs: {end:?}");
    }
}
