//! The receiving side: the advertised window (Linux `tcp_select_window`), the reader, and
//! the delayed ACK.

use super::*;

impl Tcp {
    /// The window the receiver can offer now: free buffer less the `adv_win_scale` share,
    /// rounded down to whole `rcv_mss`, never shrinking what was already offered.
    pub(super) fn select_window_raw(&self) -> u64 {
        let w = match self.semantics {
            BufferSemantics::Linux => {
                let free = self.rcvbuf.saturating_sub(self.rmem_alloc);
                free - (free >> self.adv_win_scale)
            }
            BufferSemantics::Literal => self.unread_space(),
        };
        if w > self.rcv_mss {
            w / self.rcv_mss * self.rcv_mss
        } else {
            w
        }
    }

    /// The requested buffer less what was received and not yet read (BSD's `sbspace`).
    fn unread_space(&self) -> u64 {
        self.requested_buf
            .saturating_sub(self.rcv_nxt - self.copied_seq)
    }

    pub(super) fn window_now(&self) -> u64 {
        (self.rcv_wup + self.rcv_wnd).saturating_sub(self.rcv_nxt)
    }

    pub(super) fn select_window(&self) -> u64 {
        self.select_window_raw().max(self.window_now())
    }

    /// Receive-queue entries (sk_buffs) the next `bytes` read out of, partly or whole.
    pub fn queued_skbs(&self, bytes: u64) -> u32 {
        let mut seen = 0;
        let mut n = 0;
        for &(len, _) in &self.rx_queue {
            if seen >= bytes {
                break;
            }
            seen += len;
            n += 1;
        }
        n
    }

    /// The reader copied up to `max` bytes; returns (bytes, skbs freed, ack_now) following
    /// `tcp_recvmsg` and `tcp_cleanup_rbuf`.
    pub fn read(&mut self, max: u64) -> (u64, u32, bool) {
        let mut copied = 0;
        let mut freed = 0;
        while copied < max {
            let Some(front) = self.rx_queue.front_mut() else {
                break;
            };
            let take = front.0.min(max - copied);
            copied += take;
            front.0 -= take;
            if front.0 == 0 {
                self.rmem_alloc -= front.1;
                self.rx_queue.pop_front();
                freed += 1;
            }
        }
        self.copied_seq += copied;
        if self.ack_policy == AckPolicy::Bsd {
            return (copied, freed, copied > 0 && self.bsd_window_update());
        }
        let mut ack = false;
        if self.ack_scheduled
            && (self.rcv_nxt - self.rcv_wup > self.rcv_mss
                || (copied > 0 && self.ack_pushed && !self.pingpong && self.rmem_alloc == 0))
        {
            ack = true;
        }
        if copied > 0 && !ack {
            let now_w = self.window_now();
            let clamp = match self.semantics {
                BufferSemantics::Linux => self.rcvbuf - (self.rcvbuf >> self.adv_win_scale),
                BufferSemantics::Literal => self.requested_buf,
            };
            if 2 * now_w <= clamp {
                let new_w = self.select_window_raw();
                if new_w > 0 && new_w >= 2 * now_w {
                    ack = true;
                }
            }
        }
        (copied, freed, ack)
    }

    /// BSD's `tcp_output` after the reader's PRU_RCVD: an ACK if the window it can advertise
    /// now reaches past the last advertised edge by two segments or by half the buffer.
    fn bsd_window_update(&self) -> bool {
        // sbspace, not rounded to segments as Linux rounds it.
        let adv = self.unread_space().saturating_sub(self.window_now());
        adv >= 2 * self.rcv_mss || 2 * adv >= self.requested_buf
    }

    /// The delayed-ACK timer fired at `now`; returns whether to send an ACK.
    pub fn on_delack(&mut self, now: Time) -> bool {
        if self.delack_deadline != Some(now) {
            return false;
        }
        self.delack_deadline = None;
        self.stats.delack_expiries += 1;
        // A missed delayed ACK ends interactive mode (tcp_delack_timer).
        self.pingpong = false;
        self.ack_scheduled
    }
}
