//! Selective acknowledgements: the blocks a receiver reports (RFC 2018) and the sender's
//! scoreboard with SACK-based loss recovery (RFC 6675: IsLost, pipe, NextSeg).

use super::*;

/// Most blocks one segment carries. TCP has 40 bytes of option space; the timestamp option
/// takes 12 (10 and two NOPs of padding), and a SACK option of n blocks takes 2 + 8·n, so
/// three fit beside it. Linux sends four without timestamps; three are kept throughout so
/// that a `Segment`, which travels in every frame, stays small.
pub const MAX_SACK_BLOCKS: usize = 3;

/// Up to three SACK blocks as [start, end) offsets from the segment's `ack`, first block
/// first; unused blocks are (0, 0) (a block is never empty), so no count is stored. Offsets
/// rather than sequence numbers keep a block in 8 bytes: nothing beyond the receive window
/// (well under 4 GiB) can be held out of order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u32, u32); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    pub fn len(&self) -> usize {
        self.blocks.iter().take_while(|b| b.1 > b.0).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the SACK option carrying the first `n` blocks.
    fn option_bytes(n: usize) -> u64 {
        match n as u64 {
            0 => 0,
            n => (2 + 8 * n).div_ceil(4) * 4,
        }
    }

    /// Keeps as many leading blocks as fit in `room` bytes.
    fn fit(&mut self, room: u64) {
        while Self::option_bytes(self.len()) > room {
            self.blocks[self.len() - 1] = (0, 0);
        }
    }

    /// Appends [start, end) relative to `ack`; a full set or an unrepresentable block is
    /// left out (a receiver may always report fewer blocks).
    fn push(&mut self, ack: u64, (start, end): (u64, u64)) {
        let (Ok(s), Ok(e)) = (
            u32::try_from(start.saturating_sub(ack)),
            u32::try_from(end.saturating_sub(ack)),
        ) else {
            return;
        };
        let n = self.len();
        if n < MAX_SACK_BLOCKS && s < e {
            self.blocks[n] = (s, e);
        }
    }
}

impl Segment {
    /// The SACK blocks as absolute [start, end) sequence ranges, first block first.
    pub fn sack_blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let ack = self.ack;
        self.sack.blocks[..self.sack.len()]
            .iter()
            .map(move |&(s, e)| (ack + s as u64, ack + e as u64))
    }

    /// Bytes the SACK option adds to the TCP header: 2 + 8 per block, padded with NOPs to a
    /// multiple of 4 (0 without blocks). Not in `header_bytes`, which every segment pays.
    pub fn sack_option_bytes(&self) -> u64 {
        SackBlocks::option_bytes(self.sack.len())
    }
}

impl Tcp {
    // ---------------- receiver (RFC 2018) ----------------

    /// The blocks a segment of `len` payload bytes sent now carries: the out-of-order queue
    /// as contiguous ranges, the one holding the latest segment first (RFC 2018 §4), then
    /// the others highest first (the newest data, the likeliest news to the sender). Only
    /// as many as fit beside the payload in the MTU: a full-sized data segment carries none
    /// (Linux shrinks the MSS instead, `tcp_current_mss`; buffers here are cut at write).
    pub(super) fn sack_blocks_now(&self, len: u32) -> SackBlocks {
        let mut b = SackBlocks::default();
        if !self.sack || self.ooo.is_empty() {
            return b;
        }
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for (&seq, &(l, _)) in &self.ooo {
            let (seq, end) = (seq.max(self.rcv_nxt), seq + l);
            match ranges.last_mut() {
                _ if end <= seq => {}
                Some(r) if seq <= r.1 => r.1 = r.1.max(end),
                _ => ranges.push((seq, end)),
            }
        }
        let first = self
            .last_ooo
            .and_then(|s| ranges.iter().position(|r| r.0 <= s && s < r.1));
        if let Some(i) = first {
            b.push(self.rcv_nxt, ranges[i]);
        }
        for (i, r) in ranges.iter().enumerate().rev() {
            if Some(i) != first {
                b.push(self.rcv_nxt, *r);
            }
        }
        b.fit((self.mss as u64).saturating_sub(len as u64));
        b
    }

    // ---------------- sender (RFC 6675) ----------------

    /// Marks the sent buffers the peer's blocks cover (RFC 6675 Update).
    pub(super) fn sack_update(&mut self, seg: &Segment) {
        if !self.sack {
            return;
        }
        for (start, end) in seg.sack_blocks() {
            let from = self.skbs.partition_point(|s| s.seq < start);
            for i in from..self.send_head {
                let s = &mut self.skbs[i];
                if s.seq + s.len as u64 > end {
                    break;
                }
                if !s.sacked {
                    s.sacked = true;
                    self.sacked_bytes += s.len as u64;
                }
            }
        }
    }

    /// RFC 6675 IsLost(snd_una): more than (DupThresh − 1)·MSS bytes SACKed above it. All
    /// SACKed bytes lie above `snd_una`; with no blocks from the peer this is never true.
    pub(super) fn sack_head_lost(&self) -> bool {
        self.sacked_bytes > (self.dupack_threshold as u64 - 1) * self.mss as u64
    }

    /// Per sent buffer whether IsLost holds for it, and the pipe (RFC 6675 SetPipe): a
    /// buffer counts once while neither SACKed nor lost, and once more if retransmitted.
    fn scoreboard(&self) -> (Vec<bool>, u64) {
        let limit = (self.dupack_threshold as u64 - 1) * self.mss as u64;
        let mut lost = vec![false; self.send_head];
        let (mut above, mut pipe) = (0, 0);
        for i in (0..self.send_head).rev() {
            let s = &self.skbs[i];
            let len = s.len as u64;
            if s.sacked {
                above += len;
                continue;
            }
            lost[i] = above > limit;
            if !lost[i] {
                pipe += len;
            }
            if s.retrans {
                pipe += len;
            }
        }
        (lost, pipe)
    }

    /// NextSeg rule 1 (`lost_only`: holes IsLost marks) or rule 3 (any hole): retransmit
    /// un-SACKed buffers below the highest SACKed one, each once, while pipe < cwnd.
    /// Returns the pipe after them.
    pub(super) fn sack_retransmit(
        &mut self,
        now: Time,
        out: &mut Vec<Segment>,
        lost_only: bool,
    ) -> u64 {
        let (lost, mut pipe) = self.scoreboard();
        let high = (0..self.send_head)
            .rev()
            .find(|&i| self.skbs[i].sacked)
            .unwrap_or(0);
        for (i, &is_lost) in lost.iter().enumerate().take(high) {
            if pipe >= self.cwnd {
                break;
            }
            let s = self.skbs[i];
            if s.sacked || s.retrans || (lost_only && !is_lost) {
                continue;
            }
            self.skbs[i].retrans = true;
            self.skbs[i].sent_at = Some(now);
            pipe += s.len as u64;
            self.stats.sack_recovery_retransmits += 1;
            self.stats.retransmitted_segments += 1;
            self.stats.retransmitted_bytes += s.len as u64;
            self.stats.data_segments_sent += 1;
            out.push(self.stamp(s.segment()));
        }
        pipe
    }

    /// Recovery is over: forget which buffers went again.
    pub(super) fn end_sack_recovery(&mut self) {
        if self.sack_recovery {
            self.sack_recovery = false;
            self.skbs.iter_mut().for_each(|s| s.retrans = false);
        }
    }

    /// After a timeout the peer may have reneged: drop the scoreboard (RFC 6675 §5.1).
    pub(super) fn clear_scoreboard(&mut self) {
        self.end_sack_recovery();
        if self.sacked_bytes > 0 {
            self.skbs.iter_mut().for_each(|s| s.sacked = false);
            self.sacked_bytes = 0;
        }
    }
}
