//! The TCP timers as engine events: which deadlines are already scheduled.

use crate::node::events::TimerKind;
use crate::units::Time;

/// Which TCP deadlines already have an engine event, so each is scheduled once. Sans-IO: it
/// takes the deadlines the TCP wants and returns the events to schedule.
#[derive(Clone, Debug, Default)]
pub struct TimerSet {
    scheduled: [Option<Time>; 4],
}

impl TimerSet {
    const KINDS: [TimerKind; 4] = [
        TimerKind::Delack,
        TimerKind::Rto,
        TimerKind::Persist,
        TimerKind::TimeWait,
    ];

    /// Of `wanted` (delayed ACK, retransmission, persist, TIME_WAIT), the deadlines not yet scheduled.
    pub fn to_schedule(&mut self, wanted: [Option<Time>; 4]) -> [Option<(TimerKind, Time)>; 4] {
        let mut out = [None; 4];
        for i in 0..4 {
            if let Some(t) = wanted[i] {
                if self.scheduled[i] != Some(t) {
                    self.scheduled[i] = Some(t);
                    out[i] = Some((Self::KINDS[i], t));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn due(s: &mut TimerSet, wanted: [Option<Time>; 4]) -> Vec<(TimerKind, Time)> {
        s.to_schedule(wanted).into_iter().flatten().collect()
    }

    #[test]
    fn each_deadline_is_scheduled_once_and_a_moved_one_again() {
        let mut s = TimerSet::default();
        let rto = Some(Time(5));
        assert_eq!(
            due(&mut s, [None, rto, None, None]),
            vec![(TimerKind::Rto, Time(5))]
        );
        assert!(due(&mut s, [None, rto, None, None]).is_empty());
        let both = due(&mut s, [Some(Time(2)), Some(Time(9)), None, None]);
        assert_eq!(
            both,
            vec![(TimerKind::Delack, Time(2)), (TimerKind::Rto, Time(9))]
        );
    }
}
