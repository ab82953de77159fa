//! The OS's side of connection handoff (handoff.md §4, §7): which connections it hands to
//! the NIC and when, the driver's commands for owned connections, and where each
//! connection's protocol work runs.

use super::device::hnic;
use super::queues::Class;
use super::Task;
use crate::config::{SegmentCount, Selection};
use crate::engine::Engine;
use crate::hw::cpu::Piece;
use crate::node::{Ev, Node, Wire};
use crate::stack::conn::ConnId;
use crate::stack::conn::Owner;
use crate::stack::tcp::Segment;

impl Node {
    /// The processor that runs connection `c`'s protocol: the NIC's if it owns it, else
    /// the one its device's softirq runs on.
    pub(crate) fn conn_proc(&self, c: ConnId) -> usize {
        match (self.conns[c].owner, self.fw()) {
            (Owner::Nic, Some(fw)) => fw,
            _ => self.devs[self.conns[c].dev].protocol,
        }
    }

    /// The OS's selection (§7.1, §7.4): at accept (`at_accept`) or at a send, whether to
    /// hand connection `c` over now. A chosen connection is marked so the call that chose
    /// it issues the command once.
    pub(crate) fn handoff_choose(&mut self, c: ConnId, at_accept: bool) -> bool {
        let h = &self.cfg.handoff;
        if self.fw().is_none() || !h.enabled() {
            return false;
        }
        let conn = &self.conns[c];
        if conn.owner != Owner::Host || conn.handoff_failed {
            return false;
        }
        let now = match h.selection {
            Selection::Fcfs => at_accept,
            Selection::Threshold => {
                let sent = match h.count {
                    SegmentCount::DataSegments => conn.tcp.stats.data_segments_sent,
                    SegmentCount::AllSegments => conn.tcp.stats.segments_sent,
                };
                !at_accept && sent >= h.threshold_packets as u64
            }
        };
        if now {
            self.conns[c].owner = Owner::Chosen;
        }
        now
    }

    /// What the host pays for one command: the driver's descriptor and the doorbell.
    pub(crate) fn command_pieces(&self) -> [Piece; 2] {
        let fw = self.fw().expect("a handoff NIC");
        [
            self.piece(&self.cfg.costs.handoff_driver, 0, 1),
            self.notify_cost(fw),
        ]
    }

    /// The command pieces if connection `c` is owned by the NIC (its calls become commands).
    pub(crate) fn command_if_owned(&self, c: ConnId) -> [Piece; 2] {
        if self.conns[c].owner == Owner::Nic {
            self.command_pieces()
        } else {
            [Piece::default(); 2]
        }
    }

    /// Issues HANDOFF(c) for a connection the OS chose (once: it is then pending).
    pub(crate) fn handoff_issue(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, c: ConnId) {
        if self.conns[c].owner != Owner::Chosen {
            return;
        }
        self.conns[c].owner = Owner::Pending;
        let h = hnic(&mut self.devs);
        h.stats.attempts += 1;
        if !self.fw_command(eng, wire, Class::Nic, Task::Handoff(c)) {
            // The NIC could not even queue it: a refusal the host sees at once.
            self.conns[c].owner = Owner::Host;
            self.conns[c].handoff_failed = true;
            hnic(&mut self.devs).stats.nacks_limit += 1;
        }
    }

    /// Output the host's calls produced for connection `c`: to the NIC as a command if it
    /// owns the connection (true), else left to the host path (false).
    pub(crate) fn output_to_nic(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        c: ConnId,
        segs: &mut Vec<Segment>,
    ) -> bool {
        if self.conns[c].owner != Owner::Nic {
            return false;
        }
        // Queued at once: the host paid the doorbell in the call (`command_pieces`). A full
        // queue loses the segments, which TCP then retransmits.
        self.fw_command(eng, wire, Class::Nic, Task::Output(std::mem::take(segs)));
        true
    }

    /// The OS's response to the NIC's excess event: the owned connections beyond the soft
    /// limit, the most recently handed off first, chosen for RESTORE; how many.
    pub(crate) fn restore_choose(&mut self) -> u32 {
        let Some(h) = self.devs.iter_mut().find_map(|d| d.handoff.as_deref_mut()) else {
            return 0;
        };
        let conns = &self.conns;
        h.handed.retain(|&c| conns[c].owner == Owner::Nic);
        let excess = h
            .owned
            .saturating_sub(h.restoring.len() as u32)
            .saturating_sub(h.lc.soft_limit);
        let chosen: Vec<ConnId> = h
            .handed
            .iter()
            .rev()
            .copied()
            .filter(|c| !h.restoring.contains(c))
            .take(excess as usize)
            .collect();
        h.restoring.extend(&chosen);
        h.to_restore.extend(&chosen);
        chosen.len() as u32
    }

    /// The excess handler finished: its RESTORE commands go to the NIC.
    pub(crate) fn restore_issue(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire) {
        let h = hnic(&mut self.devs);
        h.excess_raised = false;
        for c in std::mem::take(&mut h.to_restore) {
            if !self.fw_command(eng, wire, Class::Nic, Task::Restore(c)) {
                hnic(&mut self.devs).restoring.retain(|&r| r != c);
            }
        }
    }
}
