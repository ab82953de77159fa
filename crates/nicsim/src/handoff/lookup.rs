//! The handoff NIC's lookup layer (handoff.md §3): a chained hash table of the connections
//! the NIC owns, keyed by flow (the 4-tuple; the simulator's flow id names one). A lookup
//! reports how many entries it compared, which the firmware pays for.

use crate::hw::frame::FlowId;

#[derive(Clone, Debug)]
pub struct Lookup {
    buckets: Vec<Vec<FlowId>>,
}

impl Lookup {
    /// `buckets` chains (0: the next power of two ≥ 2 × `max_connections`).
    pub fn new(buckets: u32, max_connections: u32) -> Self {
        let n = if buckets > 0 {
            buckets as usize
        } else {
            (2 * max_connections as usize).max(1).next_power_of_two()
        };
        Lookup {
            buckets: vec![Vec::new(); n],
        }
    }

    fn bucket(&self, flow: FlowId) -> usize {
        (flow.wrapping_mul(0x9E37_79B1) >> 8) as usize % self.buckets.len()
    }

    /// Whether `flow` is owned here, and the chain entries compared beyond the first.
    pub fn find(&self, flow: FlowId) -> (bool, u32) {
        let chain = &self.buckets[self.bucket(flow)];
        match chain.iter().position(|&f| f == flow) {
            Some(i) => (true, i as u32),
            None => (false, chain.len().saturating_sub(1) as u32),
        }
    }

    pub fn insert(&mut self, flow: FlowId) {
        let b = self.bucket(flow);
        if !self.buckets[b].contains(&flow) {
            self.buckets[b].push(flow);
        }
    }

    pub fn remove(&mut self, flow: FlowId) {
        let b = self.bucket(flow);
        self.buckets[b].retain(|&f| f != flow);
    }

    pub fn buckets(&self) -> usize {
        self.buckets.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_until_removed_and_chains_cost_steps() {
        let mut t = Lookup::new(0, 3);
        assert_eq!(t.buckets(), 8);
        for f in [1, 9, 17, 25] {
            t.insert(f);
        }
        assert!(t.find(9).0 && !t.find(2).0);
        t.remove(9);
        assert!(!t.find(9).0);
        let mut one = Lookup::new(1, 0);
        for f in 0..4 {
            one.insert(f);
        }
        assert_eq!(one.find(3), (true, 3));
        assert_eq!(one.find(7), (false, 3));
    }
}
