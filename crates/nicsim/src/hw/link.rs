//! A full-duplex point-to-point Ethernet link: one `Lane` per direction.
//! Wire bytes per frame follow IEEE 802.3 (host-path §4.8).

use crate::units::{BitRate, Duration, Time};

/// Ethernet header: what a NIC's DMA moves with each IP datagram.
pub const ETH_HEADER_BYTES: u64 = 14;
/// Frame check sequence: stored with a frame in NIC memory, not moved by the DMA.
pub const FCS_BYTES: u64 = 4;
/// Preamble and SFD (8) and the inter-frame gap (12): what the wire carries beyond a frame.
pub const PREAMBLE_GAP_BYTES: u64 = 8 + 12;
/// Ethernet header + FCS + preamble, SFD and inter-frame gap: a frame's wire cost beyond its
/// IP datagram.
pub const FRAMING_BYTES: u64 = ETH_HEADER_BYTES + FCS_BYTES + PREAMBLE_GAP_BYTES;
/// Minimum Ethernet payload; shorter payloads are padded.
pub const MIN_PAYLOAD_BYTES: u64 = 46;
/// The shortest frame (header, padded payload, FCS), as a capture counts it: 64 bytes.
pub const MIN_FRAME_BYTES: u64 = ETH_HEADER_BYTES + MIN_PAYLOAD_BYTES + FCS_BYTES;

/// Bytes a frame with `ip_bytes` of IP datagram occupies on the wire.
pub fn wire_bytes(ip_bytes: u64) -> u64 {
    ip_bytes.max(MIN_PAYLOAD_BYTES) + FRAMING_BYTES
}

/// One direction of the link.
#[derive(Clone, Debug)]
pub struct Lane {
    rate: BitRate,
    latency: Duration,
    busy_until: Time,
    pub frames: u64,
    pub wire_bytes: u64,
}

impl Lane {
    pub fn new(rate: BitRate, latency: Duration) -> Self {
        Lane {
            rate,
            latency,
            busy_until: Time::ZERO,
            frames: 0,
            wire_bytes: 0,
        }
    }

    /// Wire bytes still to be sent at `now`: the queue a frame offered now waits behind.
    pub fn backlog_bytes(&self, now: Time) -> u64 {
        self.rate
            .bytes_in(Duration(self.busy_until.0.saturating_sub(now.0)))
    }

    /// When what is still to be sent falls to `keep` of sending time (now, if it already has).
    pub fn drained_to(&self, now: Time, keep: Duration) -> Time {
        Time(self.busy_until.0.saturating_sub(keep.0)).max(now)
    }

    /// A frame carrying `ip_bytes` is offered at `now`; returns when its last bit arrives.
    pub fn transmit(&mut self, now: Time, ip_bytes: u64) -> Time {
        let wire = wire_bytes(ip_bytes);
        let start = now.max(self.busy_until);
        self.busy_until = start + self.rate.time_to_send(wire);
        self.frames += 1;
        self.wire_bytes += wire;
        self.busy_until + self.latency
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_frames_per_second_at_10g_match_the_hdl_paper() {
        // 1500-byte IP datagrams (1518-byte frames): 812,744 frames/s at 10 Gbps.
        let per_frame = BitRate(10_000_000_000).time_to_send(wire_bytes(1500));
        assert_eq!(1_000_000_000_000 / per_frame.0, 812_743); // 1,230.4 ns per frame
        assert_eq!(wire_bytes(1500), 1538);
    }

    #[test]
    fn back_to_back_frames_serialise_exactly() {
        let mut lane = Lane::new(BitRate(1_000_000_000), Duration::from_ns(1000));
        // 9000-byte datagram: 9038 wire bytes = 72,304 ns at 1 Gbps, plus 1 µs.
        assert_eq!(lane.transmit(Time(0), 9000), Time(72_304_000 + 1_000_000));
        assert_eq!(
            lane.transmit(Time(0), 9000),
            Time(2 * 72_304_000 + 1_000_000)
        );
        // A tiny frame is padded to the minimum: 84 wire bytes.
        let mut l2 = Lane::new(BitRate(1_000_000_000), Duration::ZERO);
        assert_eq!(l2.transmit(Time(0), 41), Time(672_000));
    }
}
