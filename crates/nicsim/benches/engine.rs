//! Criterion benchmark of the engine's reference scenario (the same as `nicsim bench`), next to
//! a bare binary-heap loop of the same scenario as the yardstick the issue names.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn reference_scenario(c: &mut Criterion) {
    let events = nicsim::bench(0.1, 1).events;
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(events));
    g.sample_size(10);
    g.bench_function("md1_tandem_0.1s", |b| b.iter(|| nicsim::bench(0.1, 1)));
    g.throughput(Throughput::Elements(nicsim::bench_bare_heap(0.1, 1)));
    g.bench_function("bare_heap_loop_0.1s", |b| {
        b.iter(|| nicsim::bench_bare_heap(0.1, 1))
    });
    g.finish();
}

criterion_group!(benches, reference_scenario);
criterion_main!(benches);
