//! The engine's reference scenario (`nicsim bench`): Poisson arrivals of 1500-byte packets
//! through four FIFO single-server stations in series with deterministic service. Station 1
//! is an M/D/1 queue; the later stations are faster and never queue, so the mean sojourn is
//! the M/D/1 wait at station 1 plus the four service times.

use crate::engine::{Engine, Rng};
use crate::units::{Duration, Time};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A FIFO single server with deterministic service. Sans-IO: it returns departure times.
#[derive(Clone, Debug)]
pub struct Station {
    service: Duration,
    queue: VecDeque<(u64, Time)>,
    busy: bool,
}

impl Station {
    pub fn new(service: Duration) -> Self {
        Station {
            service,
            queue: VecDeque::new(),
            busy: false,
        }
    }

    /// A packet arrives; returns its departure time if service starts now.
    pub fn arrive(&mut self, now: Time, id: u64, born: Time) -> Option<Time> {
        self.queue.push_back((id, born));
        if self.busy {
            None
        } else {
            self.busy = true;
            Some(now + self.service)
        }
    }

    /// The packet in service leaves; returns it and the next departure time, if any.
    pub fn depart(&mut self, now: Time) -> ((u64, Time), Option<Time>) {
        let p = self
            .queue
            .pop_front()
            .expect("departure from an empty station");
        let next = if self.queue.is_empty() {
            self.busy = false;
            None
        } else {
            Some(now + self.service)
        };
        (p, next)
    }
}

#[derive(Clone, Copy, Debug)]
enum BenchEv {
    Arrival,
    Departure(u8),
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchResult {
    pub events: u64,
    pub packets: u64,
    pub mean_sojourn_us: f64,
    pub predicted_sojourn_us: f64,
    pub simulated_s: f64,
}

/// M/D/1 mean sojourn of the tandem: W(station 1) + Σ service.
pub fn predicted_sojourn_s(rate_per_s: f64, services_s: &[f64]) -> f64 {
    let s1 = services_s[0];
    let rho = rate_per_s * s1;
    rho * s1 / (2.0 * (1.0 - rho)) + services_s.iter().sum::<f64>()
}

pub fn run(rate_per_s: f64, services_us: &[f64], duration: Duration, seed: u64) -> BenchResult {
    let mut eng: Engine<BenchEv> = Engine::new();
    let mut rng = Rng::new(seed);
    let mut stations: Vec<Station> = services_us
        .iter()
        .map(|&s| Station::new(Duration::from_us_f64(s)))
        .collect();
    let end = Time(duration.0);
    let mean_gap_ps = 1e12 / rate_per_s;
    let (mut next_id, mut done, mut sojourn_ps) = (0u64, 0u64, 0u128);
    eng.at(Time(rng.exp(mean_gap_ps) as u64), BenchEv::Arrival);
    while let Some((now, ev)) = eng.pop() {
        match ev {
            BenchEv::Arrival => {
                if let Some(t) = stations[0].arrive(now, next_id, now) {
                    eng.at(t, BenchEv::Departure(0));
                }
                next_id += 1;
                let gap = Duration(rng.exp(mean_gap_ps) as u64);
                if now + gap < end {
                    eng.after(gap, BenchEv::Arrival);
                }
            }
            BenchEv::Departure(i) => {
                let i = i as usize;
                let ((id, born), next) = stations[i].depart(now);
                if let Some(t) = next {
                    eng.at(t, BenchEv::Departure(i as u8));
                }
                if i + 1 < stations.len() {
                    if let Some(t) = stations[i + 1].arrive(now, id, born) {
                        eng.at(t, BenchEv::Departure(i as u8 + 1));
                    }
                } else {
                    done += 1;
                    sojourn_ps += (now - born).0 as u128;
                }
            }
        }
    }
    let services_s: Vec<f64> = services_us.iter().map(|s| s * 1e-6).collect();
    BenchResult {
        events: eng.executed(),
        packets: done,
        mean_sojourn_us: sojourn_ps as f64 / done.max(1) as f64 * 1e-6,
        predicted_sojourn_us: predicted_sojourn_s(rate_per_s, &services_s) * 1e6,
        simulated_s: eng.now().as_secs_f64(),
    }
}

/// The reference scenario (700,000 packets/s, services 1.2, 0.8, 1.0, 0.5 µs) with nothing but
/// a heap of (time, seq, kind): no engine, no components. The yardstick `nicsim bench --suite`
/// and the Criterion benchmark run beside the engine.
pub fn bare_heap_loop(duration: Duration, seed: u64) -> u64 {
    let duration_ps = duration.0;
    let services = [1_200_000u64, 800_000, 1_000_000, 500_000];
    let mut heap = BinaryHeap::new();
    let mut rng = Rng::new(seed);
    let mut queues: [VecDeque<u64>; 4] = Default::default();
    let (mut seq, mut events) = (0u64, 0u64);
    let gap = 1e12 / 700_000.0;
    heap.push(Reverse((rng.exp(gap) as u64, 0u64, 4u8)));
    while let Some(Reverse((t, _, k))) = heap.pop() {
        events += 1;
        let arrive = |q: &mut VecDeque<u64>, i: usize, h: &mut BinaryHeap<_>, s: &mut u64| {
            q.push_back(t);
            if q.len() == 1 {
                *s += 1;
                h.push(Reverse((t + services[i], *s, i as u8)));
            }
        };
        if k == 4 {
            arrive(&mut queues[0], 0, &mut heap, &mut seq);
            let n = t + rng.exp(gap) as u64;
            if n < duration_ps {
                seq += 1;
                heap.push(Reverse((n, seq, 4)));
            }
        } else {
            let i = k as usize;
            queues[i].pop_front();
            if !queues[i].is_empty() {
                seq += 1;
                heap.push(Reverse((t + services[i], seq, k)));
            }
            if i < 3 {
                arrive(&mut queues[i + 1], i + 1, &mut heap, &mut seq);
            }
        }
    }
    events
}

/// The engine's reference scenario (`nicsim bench`): a tandem of four M/D/1 stations.
pub fn bench(duration_s: f64, seed: u64) -> BenchResult {
    run(
        700_000.0,
        &[1.2, 0.8, 1.0, 0.5],
        Duration::from_secs_f64(duration_s),
        seed,
    )
}

/// The same scenario as `bench` in a bare binary-heap loop; returns its events.
pub fn bench_bare_heap(duration_s: f64, seed: u64) -> u64 {
    bare_heap_loop(Duration::from_secs_f64(duration_s), seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md1_prediction_is_6_65_us() {
        let p = predicted_sojourn_s(700_000.0, &[1.2e-6, 0.8e-6, 1.0e-6, 0.5e-6]);
        assert!((p * 1e6 - 6.65).abs() < 1e-9);
    }

    #[test]
    fn short_run_agrees_with_md1() {
        let r = run(
            700_000.0,
            &[1.2, 0.8, 1.0, 0.5],
            Duration(200_000_000_000),
            1,
        );
        assert!(
            (r.mean_sojourn_us / r.predicted_sojourn_us - 1.0).abs() < 0.04,
            "{r:?}"
        );
        // Every packet is one arrival and four departures, and the run drains.
        assert_eq!(r.events, r.packets * 5);
    }
}
