//! What a node records for tools outside the simulator (Wireshark, a trace viewer): the
//! frames crossing its MAC for a pcap file, and in the trace window its frames and DMA
//! transfers. Bounded: past its limit a log counts what it left out instead of growing.

use crate::hw::dma::Chan;
use crate::hw::slices::Log;
use crate::stack::tcp::{State, FIN, SYN};
use crate::stack::{Frame, Payload};
use crate::units::Time;
use serde_json::{json, Value};

/// A frame at the MAC: when, sent or received, and what its headers say.
#[derive(Clone, Copy, Debug)]
pub struct WireEvent {
    pub at: Time,
    pub tx: bool,
    /// A connection's opening SYN (the model's SYN and SYN-ACK look alike; the node knows
    /// which it sends or receives from the connection's state).
    pub opening: bool,
    pub frame: Frame,
}

#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// Frames at this MAC for the pcap file (None: another node is captured).
    pub pcap: Option<Log<WireEvent>>,
    /// The trace window [from, to), its frames, and its DMA transfers (start, end, device,
    /// channel).
    pub window: Option<(Time, Time)>,
    pub wire: Log<WireEvent>,
    pub dma: Log<(Time, Time, u8, Chan)>,
}

impl Recorder {
    fn in_window(&self, at: Time) -> bool {
        self.window.is_some_and(|(a, b)| at >= a && at < b)
    }

    pub fn frame(&mut self, e: WireEvent) {
        if let Some(log) = &mut self.pcap {
            log.push(e);
        }
        if self.in_window(e.at) {
            self.wire.push(e);
        }
    }

    pub fn dma(&mut self, start: Time, end: Time, dev: usize, ch: Chan) {
        if self.in_window(start) {
            self.dma.push((start, end, dev as u8, ch));
        }
    }
}

/// TCP header flag bits as the wire carries them.
const TH_FIN: u8 = 0x01;
const TH_SYN: u8 = 0x02;
const TH_PSH: u8 = 0x08;
const TH_ACK: u8 = 0x10;

/// The header's flags; ACK on all but an opening SYN.
fn tcp_flags(ctl: u8, push: bool, opening: bool) -> u8 {
    let mut f = 0;
    if ctl & FIN != 0 {
        f |= TH_FIN;
    }
    if ctl & SYN != 0 {
        f |= TH_SYN;
    }
    if push {
        f |= TH_PSH;
    }
    if !opening {
        f |= TH_ACK;
    }
    f
}

/// Columns of a frame row (docs/output.md `record`).
pub const FRAME_COLUMNS: [&str; 12] = [
    "at_ps",
    "tx",
    "src",
    "dst",
    "flow",
    "proto",
    "ip_bytes",
    "payload_bytes",
    "seq",
    "ack",
    "window_bytes",
    "tcp_flags",
];

/// One frame as a row of `FRAME_COLUMNS`; `proto` is tcp, udp or raw. Sequence numbers are
/// as on the wire: the model's SYN takes none, a real one takes one, so every sequence number
/// after a SYN and every acknowledgement is one more than the model's.
pub fn frame_row(e: &WireEvent) -> Value {
    let (h, at) = (&e.frame.hdr, e.at);
    let (proto, seq, ack, win, flags) = match e.frame.payload {
        Payload::Tcp(s) => {
            let flags = tcp_flags(s.ctl, s.push, e.opening);
            let seq = s.seq + u64::from(s.ctl & SYN == 0);
            let ack = if flags & TH_ACK != 0 { s.ack + 1 } else { 0 };
            ("tcp", seq, ack, s.win, flags)
        }
        Payload::Udp => ("udp", 0, 0, 0, 0),
        Payload::Raw => ("raw", 0, 0, 0, 0),
    };
    json!([
        at.0,
        e.tx,
        h.src,
        h.dst,
        h.flow,
        proto,
        h.ip_bytes(),
        h.payload_bytes(),
        seq,
        ack,
        win,
        flags
    ])
}

impl crate::node::Node {
    /// Records frame `f` at its MAC, if this node records.
    pub(crate) fn record_frame(&mut self, at: Time, tx: bool, f: &Frame) {
        if self.record.is_none() {
            return;
        }
        let opening = match f.payload {
            Payload::Tcp(s) if s.ctl & SYN != 0 => {
                let state = self.conn_of(f.hdr.flow).map(|c| self.conns[c].tcp.state());
                // We open (SYN_SENT) when we send it; the peer opens when we have no live end.
                (state == Some(State::SynSent)) == tx
            }
            _ => false,
        };
        if let Some(r) = &mut self.record {
            r.frame(WireEvent {
                at,
                tx,
                opening,
                frame: *f,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_mark_the_opening_syn_without_ack_and_everything_else_with_it() {
        assert_eq!(tcp_flags(SYN, false, true), 0x02);
        assert_eq!(tcp_flags(SYN, false, false), 0x12);
        assert_eq!(tcp_flags(FIN, true, false), 0x19);
        assert_eq!(tcp_flags(0, false, false), 0x10);
    }
}
