//! Criterion benchmark of the engine's reference scenario (the same as `nicsim bench`), next to
//! a bare binary-heap loop of the same scenario as the yardstick the issue names.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nicsim::engine::Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The M/D/1 tandem with nothing but a heap of (time, seq, kind): no engine, no components.
fn bare_heap_loop(duration_ps: u64) -> u64 {
    let services = [1_200_000u64, 800_000, 1_000_000, 500_000];
    let mut heap = BinaryHeap::new();
    let mut rng = Rng::new(1);
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

fn reference_scenario(c: &mut Criterion) {
    let events = nicsim::bench(0.1, 1).events;
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(events));
    g.sample_size(10);
    g.bench_function("md1_tandem_0.1s", |b| b.iter(|| nicsim::bench(0.1, 1)));
    g.throughput(Throughput::Elements(bare_heap_loop(100_000_000_000)));
    g.bench_function("bare_heap_loop_0.1s", |b| {
        b.iter(|| bare_heap_loop(100_000_000_000))
    });
    g.finish();
}

criterion_group!(benches, reference_scenario);
criterion_main!(benches);
