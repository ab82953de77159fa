//! A processor's timeline in a window, for a trace viewer: what ran when, in which context
//! and stage. Consecutive parts of one stage in one context merge into one slice; past its
//! limit the log counts what it left out instead of growing.

use crate::units::Time;

/// One slice: start and length in ps, context (`Ctx` as index) and stage slot.
pub type Slice = (u64, u64, u8, u8);

#[derive(Clone, Debug)]
pub struct SliceLog {
    from: Time,
    to: Time,
    max: usize,
    pub slices: Vec<Slice>,
    pub left_out: u64,
}

impl SliceLog {
    pub fn new(from: Time, to: Time, max: usize) -> Self {
        SliceLog {
            from,
            to,
            max,
            slices: Vec::new(),
            left_out: 0,
        }
    }

    /// A part of `dur_ps` from `start`, clipped to the window.
    pub fn part(&mut self, start: Time, dur_ps: u64, ctx: u8, stage: u8) {
        let (s, e) = (start.0.max(self.from.0), (start.0 + dur_ps).min(self.to.0));
        if e <= s {
            return;
        }
        if let Some(last) = self.slices.last_mut() {
            if last.2 == ctx && last.3 == stage && last.0 + last.1 == s {
                last.1 += e - s;
                return;
            }
        }
        if self.slices.len() < self.max {
            self.slices.push((s, e - s, ctx, stage));
        } else {
            self.left_out += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_merge_clip_to_the_window_and_stop_at_the_limit() {
        let mut log = SliceLog::new(Time(100), Time(1000), 2);
        log.part(Time(50), 100, 2, 7);
        log.part(Time(150), 50, 2, 7);
        assert_eq!(log.slices, vec![(100, 100, 2, 7)]);
        log.part(Time(200), 10, 1, 7);
        log.part(Time(300), 10, 1, 8);
        log.part(Time(990), 100, 1, 9);
        assert_eq!(log.slices.len(), 2);
        assert_eq!(log.left_out, 2);
    }
}
