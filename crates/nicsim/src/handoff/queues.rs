//! The handoff NIC processor's two classes of work (handoff.md §5): host packets (frames it
//! forwards either way) and NIC work (received segments of owned connections, commands).
//! FCFS serves them in arrival order; host-first serves every host packet before any NIC
//! work. Service is per task and non-preemptive; each queue is FIFO and bounded.

use crate::config::NicPriority;
use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Host,
    Nic,
}

#[derive(Clone, Debug)]
pub struct Queues<T> {
    pub priority: NicPriority,
    capacity: usize,
    host: VecDeque<(Time, T)>,
    nic: VecDeque<(Time, T)>,
}

impl<T> Queues<T> {
    pub fn new(priority: NicPriority, capacity: u32) -> Self {
        Queues {
            priority,
            capacity: capacity as usize,
            host: VecDeque::new(),
            nic: VecDeque::new(),
        }
    }

    /// Queues `item` of `class` that arrived `at`; gives it back if its queue is full.
    pub fn push(&mut self, class: Class, at: Time, item: T) -> Result<(), T> {
        let q = match class {
            Class::Host => &mut self.host,
            Class::Nic => &mut self.nic,
        };
        if q.len() >= self.capacity {
            return Err(item);
        }
        q.push_back((at, item));
        Ok(())
    }

    /// The next task by the policy. FCFS takes the older head (the host's on a tie).
    pub fn pop(&mut self) -> Option<(Class, Time, T)> {
        let host_next = match (self.host.front(), self.nic.front()) {
            (None, None) => return None,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(h), Some(n)) => self.priority == NicPriority::HostFirst || h.0 <= n.0,
        };
        if host_next {
            self.host.pop_front().map(|(t, x)| (Class::Host, t, x))
        } else {
            self.nic.pop_front().map(|(t, x)| (Class::Nic, t, x))
        }
    }

    /// When the oldest queued task, of either class, arrived.
    pub fn oldest(&self) -> Option<Time> {
        let head = |q: &VecDeque<(Time, T)>| q.front().map(|x| x.0);
        match (head(&self.host), head(&self.nic)) {
            (Some(h), Some(n)) => Some(h.min(n)),
            (h, n) => h.or(n),
        }
    }

    pub fn host_waiting(&self) -> bool {
        !self.host.is_empty()
    }

    pub fn len(&self, class: Class) -> usize {
        match class {
            Class::Host => self.host.len(),
            Class::Nic => self.nic.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.host.is_empty() && self.nic.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.host.iter().chain(&self.nic).map(|(_, x)| x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(priority: NicPriority) -> Vec<(Class, u32)> {
        let mut q = Queues::new(priority, 8);
        q.push(Class::Nic, Time(1), 1).unwrap();
        q.push(Class::Host, Time(2), 2).unwrap();
        q.push(Class::Nic, Time(3), 3).unwrap();
        q.push(Class::Host, Time(4), 4).unwrap();
        std::iter::from_fn(|| q.pop().map(|(c, _, x)| (c, x))).collect()
    }

    #[test]
    fn fcfs_serves_in_arrival_order_and_host_first_serves_host_packets_first() {
        use Class::*;
        assert_eq!(
            order(NicPriority::Fcfs),
            vec![(Nic, 1), (Host, 2), (Nic, 3), (Host, 4)]
        );
        assert_eq!(
            order(NicPriority::HostFirst),
            vec![(Host, 2), (Host, 4), (Nic, 1), (Nic, 3)]
        );
    }

    #[test]
    fn a_full_queue_gives_the_item_back() {
        let mut q = Queues::new(NicPriority::Fcfs, 1);
        q.push(Class::Host, Time(0), 1).unwrap();
        assert_eq!(q.push(Class::Host, Time(0), 2), Err(2));
        assert!(q.push(Class::Nic, Time(0), 3).is_ok());
    }
}
