//! The TCP timers as engine events, scheduled lazily: a deadline that moves later (the
//! retransmission timer on every ACK, the delayed ACK re-armed) costs no event; the pending
//! event fires at the old time, finds the deadline moved and re-arms at the new one. Only a
//! deadline earlier than the pending event's needs a new event. Timers fire at exactly the
//! same instants as with one event per deadline change; the heap holds at most a few events
//! per connection instead of one per ACK.

use crate::node::events::TimerKind;
use crate::units::Time;

/// Per TCP timer, the earliest event pending in the engine. Sans-IO: it takes the deadlines
/// the TCP wants and returns the events to schedule.
#[derive(Clone, Debug, Default)]
pub struct TimerSet {
    pending: [Option<Time>; 5],
}

impl TimerSet {
    const KINDS: [TimerKind; 5] = [
        TimerKind::Delack,
        TimerKind::Rto,
        TimerKind::Persist,
        TimerKind::TimeWait,
        TimerKind::Pace,
    ];

    /// Of `wanted` (delayed ACK, retransmission, persist, TIME_WAIT, pacing), the deadlines
    /// that come before the event already pending for their timer (or have none).
    pub fn to_schedule(&mut self, wanted: [Option<Time>; 5]) -> [Option<(TimerKind, Time)>; 5] {
        let mut out = [None; 5];
        for i in 0..5 {
            if let Some(t) = wanted[i] {
                if self.pending[i].is_none_or(|p| t < p) {
                    self.pending[i] = Some(t);
                    out[i] = Some((Self::KINDS[i], t));
                }
            }
        }
        out
    }

    /// Timer `kind`'s event for `at` ran: if it was the pending one, none is pending now.
    pub fn fired(&mut self, kind: TimerKind, at: Time) {
        let i = kind as usize;
        if self.pending[i] == Some(at) {
            self.pending[i] = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn due(s: &mut TimerSet, wanted: [Option<Time>; 5]) -> Vec<(TimerKind, Time)> {
        s.to_schedule(wanted).into_iter().flatten().collect()
    }

    #[test]
    fn a_later_deadline_waits_for_the_pending_event_and_an_earlier_one_gets_its_own() {
        let mut s = TimerSet::default();
        let rto = Some(Time(5));
        assert_eq!(
            due(&mut s, [None, rto, None, None, None]),
            vec![(TimerKind::Rto, Time(5))]
        );
        assert!(due(&mut s, [None, rto, None, None, None]).is_empty());
        // The retransmission deadline moves later: the event at 5 will re-arm it.
        let moved = due(&mut s, [Some(Time(2)), Some(Time(9)), None, None, None]);
        assert_eq!(moved, vec![(TimerKind::Delack, Time(2))]);
        // The event at 5 ran: none pending, so the deadline at 9 gets its event.
        s.fired(TimerKind::Rto, Time(5));
        assert_eq!(
            due(&mut s, [None, Some(Time(9)), None, None, None]),
            vec![(TimerKind::Rto, Time(9))]
        );
        // An earlier deadline cannot wait.
        assert_eq!(
            due(&mut s, [None, Some(Time(7)), None, None, None]),
            vec![(TimerKind::Rto, Time(7))]
        );
        // A stale event (9, no longer pending) running changes nothing.
        s.fired(TimerKind::Rto, Time(9));
        assert!(due(&mut s, [None, Some(Time(7)), None, None, None]).is_empty());
    }
}
