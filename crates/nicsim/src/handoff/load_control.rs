//! Load control on the handoff NIC (handoff.md §6): a soft limit on owned connections that
//! the receive queue's length moves between watermarks, never above the hard limit.

/// The state an evaluation picks from the queue length (§6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadState {
    Decrease,
    Hold,
    Increase,
}

impl LoadState {
    pub fn as_str(self) -> &'static str {
        match self {
            LoadState::Decrease => "decrease",
            LoadState::Hold => "hold",
            LoadState::Increase => "increase",
        }
    }
}

#[derive(Clone, Debug)]
pub struct LoadControl {
    pub enabled: bool,
    pub hard_limit: u32,
    pub soft_limit: u32,
    pub soft_min: u32,
    pub step: u32,
    pub hiwat: u32,
    pub lowat: u32,
    pub state: LoadState,
    /// Evaluations that lowered or raised the soft limit.
    pub decreases: u64,
    pub increases: u64,
}

impl LoadControl {
    pub fn new(
        enabled: bool,
        hard_limit: u32,
        hiwat: u32,
        lowat: u32,
        step: u32,
        soft_min: u32,
    ) -> Self {
        LoadControl {
            enabled,
            hard_limit,
            soft_limit: hard_limit,
            soft_min: soft_min.min(hard_limit),
            step,
            hiwat,
            lowat,
            state: LoadState::Increase,
            decreases: 0,
            increases: 0,
        }
    }

    /// One evaluation with `qlen` NIC packets queued and `owned` connections on the NIC:
    /// pick the state, then apply its action once. Without load control nothing moves.
    pub fn evaluate(&mut self, qlen: u32, owned: u32) {
        if !self.enabled {
            return;
        }
        self.state = if qlen > self.hiwat {
            LoadState::Decrease
        } else if qlen > self.lowat {
            LoadState::Hold
        } else {
            LoadState::Increase
        };
        let before = self.soft_limit;
        self.soft_limit = match self.state {
            LoadState::Decrease => self
                .soft_limit
                .min(owned)
                .saturating_sub(self.step)
                .max(self.soft_min),
            LoadState::Hold => self.soft_limit,
            LoadState::Increase => self
                .soft_limit
                .saturating_add(self.step)
                .min(self.hard_limit),
        };
        if self.soft_limit < before {
            self.decreases += 1;
        } else if self.soft_limit > before {
            self.increases += 1;
        }
    }

    /// Whether the NIC takes one more connection with `owned` on it now.
    pub fn admits(&self, owned: u32) -> bool {
        owned < self.soft_limit.min(self.hard_limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watermarks_pick_the_state_and_the_limit_stays_within_its_bounds() {
        let mut lc = LoadControl::new(true, 8, 10, 2, 1, 1);
        lc.evaluate(11, 6);
        assert_eq!((lc.state, lc.soft_limit), (LoadState::Decrease, 5));
        lc.evaluate(5, 6);
        assert_eq!((lc.state, lc.soft_limit), (LoadState::Hold, 5));
        for _ in 0..20 {
            lc.evaluate(0, 6);
            assert!(lc.soft_limit <= lc.hard_limit);
        }
        assert_eq!((lc.state, lc.soft_limit), (LoadState::Increase, 8));
        for _ in 0..20 {
            lc.evaluate(50, 0);
        }
        assert_eq!(lc.soft_limit, 1, "never below soft_min");
        assert!(!lc.admits(1) && lc.admits(0));
    }

    #[test]
    fn without_load_control_the_soft_limit_is_the_hard_limit() {
        let mut lc = LoadControl::new(false, 4, 1, 0, 1, 0);
        lc.evaluate(100, 4);
        assert_eq!(lc.soft_limit, 4);
        assert!(lc.admits(3) && !lc.admits(4));
    }
}
