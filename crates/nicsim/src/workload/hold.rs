//! The hold model (`nicsim bench --suite`'s `engine-hold-N` rows): `pending` events wait in the
//! queue; each step pops the earliest and pushes one at its time plus an increment drawn from the
//! reference scenario's arrival distribution (exponential, mean 1/700,000 s). The engine's queue
//! and a bare `BinaryHeap<(time, seq, kind)>` run the same steps on the same increments, drawn
//! beforehand into a table so the random generator's cost is in neither. Each returns the sum of
//! the times it popped (equal when both pop the same events) and its wall time, prefill excluded.

use crate::config::EventQueue;
use crate::engine::{Engine, Rng};
use crate::units::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

const TABLE: usize = 1 << 16;
const MEAN_GAP_PS: f64 = 1e12 / 700_000.0;

fn increments(seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    (0..TABLE).map(|_| rng.exp(MEAN_GAP_PS) as u64).collect()
}

/// The engine's queue (`queue`): returns (sum of popped times in ps, wall seconds).
pub fn engine(pending: usize, steps: u64, seed: u64, queue: EventQueue) -> (u128, f64) {
    let inc = increments(seed);
    let mut eng: Engine<u8> = Engine::with_queue(queue);
    for i in 0..pending {
        eng.at(Time(inc[i % TABLE]), (i % 5) as u8);
    }
    let t = Instant::now();
    let mut sum = 0u128;
    for i in 0..steps as usize {
        let (now, k) = eng.pop().expect("hold: queue never empties");
        sum += now.0 as u128;
        eng.at(Time(now.0 + inc[i % TABLE]), k);
    }
    (sum, t.elapsed().as_secs_f64())
}

/// The same steps on a bare binary heap of (time, seq, kind) tuples.
pub fn bare_heap(pending: usize, steps: u64, seed: u64) -> (u128, f64) {
    let inc = increments(seed);
    let mut heap = BinaryHeap::with_capacity(pending + 1);
    let mut seq = 0u64;
    for i in 0..pending {
        seq += 1;
        heap.push(Reverse((inc[i % TABLE], seq, (i % 5) as u8)));
    }
    let t = Instant::now();
    let mut sum = 0u128;
    for i in 0..steps as usize {
        let Reverse((now, _, k)) = heap.pop().expect("hold: heap never empties");
        sum += now as u128;
        seq += 1;
        heap.push(Reverse((now + inc[i % TABLE], seq, k)));
    }
    (sum, t.elapsed().as_secs_f64())
}

/// The hold model on the engine's queue `queue` (`"adaptive"`, `"radix"` or `"binary_heap"`):
/// `pending` events, `steps` pop-and-push steps; returns (sum of popped times in ps, wall seconds).
pub fn bench_hold(
    pending: usize,
    steps: u64,
    seed: u64,
    queue: &str,
) -> Result<(u128, f64), String> {
    let q: EventQueue = serde_json::from_value(serde_json::json!(queue))
        .map_err(|e| format!("event queue {queue:?}: {e}"))?;
    Ok(engine(pending, steps, seed, q))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_queue_pops_the_same_times() {
        for pending in [1, 18, 1000, 5000] {
            let bare = bare_heap(pending, 50_000, 3).0;
            for q in [
                EventQueue::Adaptive,
                EventQueue::Radix,
                EventQueue::BinaryHeap,
            ] {
                assert_eq!(engine(pending, 50_000, 3, q).0, bare);
            }
        }
    }
}
