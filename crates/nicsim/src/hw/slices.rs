//! Bounded recordings for tools outside the simulator, and a processor's timeline in a window
//! for a trace viewer: what ran when, in which context and stage. Consecutive parts of one
//! stage in one context merge into one slice; past its limit a log counts what it left out
//! instead of growing.

use crate::units::Time;

/// A bounded list: past `max` items it counts what it leaves out instead of growing (every
/// recording of a run is one: slices here, frames and DMA transfers at a node).
#[derive(Clone, Debug)]
pub struct Log<T> {
    pub items: Vec<T>,
    max: usize,
    pub left_out: u64,
}

impl<T> Log<T> {
    pub fn new(max: usize) -> Self {
        Log {
            items: Vec::new(),
            max,
            left_out: 0,
        }
    }

    pub fn push(&mut self, t: T) {
        if self.items.len() < self.max {
            self.items.push(t);
        } else {
            self.left_out += 1;
        }
    }
}

impl<T> Default for Log<T> {
    fn default() -> Self {
        Log::new(0)
    }
}

/// One slice: start and length in ps, context (`Ctx` as index) and stage slot.
pub type Slice = (u64, u64, u8, u8);

#[derive(Clone, Debug)]
pub struct SliceLog {
    from: Time,
    to: Time,
    pub log: Log<Slice>,
}

impl SliceLog {
    pub fn new(from: Time, to: Time, max: usize) -> Self {
        SliceLog {
            from,
            to,
            log: Log::new(max),
        }
    }

    /// A part of `dur_ps` from `start`, clipped to the window.
    pub fn part(&mut self, start: Time, dur_ps: u64, ctx: u8, stage: u8) {
        let (s, e) = (start.0.max(self.from.0), (start.0 + dur_ps).min(self.to.0));
        if e <= s {
            return;
        }
        if let Some(last) = self.log.items.last_mut() {
            if last.2 == ctx && last.3 == stage && last.0 + last.1 == s {
                last.1 += e - s;
                return;
            }
        }
        self.log.push((s, e - s, ctx, stage));
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
        assert_eq!(log.log.items, vec![(100, 100, 2, 7)]);
        log.part(Time(200), 10, 1, 7);
        log.part(Time(300), 10, 1, 8);
        log.part(Time(990), 100, 1, 9);
        assert_eq!(log.log.items.len(), 2);
        assert_eq!(log.log.left_out, 2);
    }

    #[test]
    fn a_full_log_counts_what_it_leaves_out() {
        let mut log = Log::new(1);
        log.push(1);
        log.push(2);
        assert_eq!((log.items, log.left_out), (vec![1], 1));
    }
}
