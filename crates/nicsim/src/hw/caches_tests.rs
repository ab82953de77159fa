//! Unit tests of the detailed cache hierarchy (`hw/caches.rs`).

use super::*;

pub(crate) fn table_4_17(l2_shared: bool) -> Spec {
    let g = |size_bytes, line_bytes, ways, write_back| Geometry {
        size_bytes,
        line_bytes,
        ways,
        write_back,
    };
    Spec {
        l1i: g(16 << 10, 64, 2, false),
        l1d: g(16 << 10, 64, 4, false),
        l2: g(512 << 10, 128, 8, true),
        l2_shared,
        lat: Latencies {
            l1i_read_cycles: 2.0,
            l1d_read_cycles: 3.0,
            l1d_write_cycles: 3.0,
            l2_read_cycles: 5.0,
            l2_write_cycles: 5.0,
            memory_cycles: 60.0,
        },
        dma: DmaPolicy::Invalidate,
        prefetch_next_line: false,
    }
}

#[test]
fn a_read_pays_each_level_it_passes_through() {
    let mut c = Caches::new(table_4_17(false), 1).unwrap();
    assert_eq!(
        c.read(0, 0x1000),
        Cost {
            cycles: 68.0,
            bridge_transactions: 1
        }
    );
    assert_eq!(c.read(0, 0x1000).cycles, 3.0);
    // The other half of the 128-byte L2 line: an L1 miss, an L2 hit.
    assert_eq!(
        c.read(0, 0x1040),
        Cost {
            cycles: 8.0,
            bridge_transactions: 0
        }
    );
    assert_eq!(c.fetch(0, 0x1000).cycles, 2.0 + 5.0);
}

#[test]
fn a_working_set_that_fits_l1_hits_every_time_after_warm_up() {
    let mut c = Caches::new(table_4_17(false), 1).unwrap();
    let lines = (8 << 10) / 64;
    for pass in 0..3 {
        for k in 0..lines {
            c.read(0, 0x10_0000 + k * 64);
        }
        let s = c.stats(0)[1];
        if pass == 0 {
            assert_eq!(s.read_misses, lines);
        }
    }
    let s = c.stats(0)[1];
    assert_eq!((s.read_hits, s.read_misses), (2 * lines, lines));
}

#[test]
fn write_through_l1d_sends_every_write_to_the_l2_and_write_back_l2_defers_memory() {
    let mut c = Caches::new(table_4_17(false), 1).unwrap();
    let first = c.write(0, 0x2000);
    assert_eq!(
        (first.cycles, first.bridge_transactions),
        (3.0 + 5.0 + 60.0, 1)
    );
    let again = c.write(0, 0x2000);
    assert_eq!((again.cycles, again.bridge_transactions), (8.0, 0));
    let [_, l1d, l2] = c.stats(0);
    assert_eq!(
        (l1d.write_misses, l1d.write_hits),
        (2, 0),
        "no write allocation"
    );
    assert_eq!((l2.write_misses, l2.write_hits), (1, 1));
    assert_eq!(c.state(0, 0x2000), Mesi::Modified);
}

#[test]
fn mesi_between_two_private_l2s() {
    let mut c = Caches::new(table_4_17(false), 2).unwrap();
    let a = 0x4000;
    c.read(0, a);
    assert_eq!(c.state(0, a), Mesi::Exclusive);
    c.read(1, a);
    assert_eq!((c.state(0, a), c.state(1, a)), (Mesi::Shared, Mesi::Shared));
    c.write(1, a);
    assert_eq!(
        (c.state(0, a), c.state(1, a)),
        (Mesi::Invalid, Mesi::Modified)
    );
    assert_eq!(c.coherence[0].invalidated, 2, "its L1D and its L2 copy");
    let r = c.read(0, a);
    assert_eq!(c.coherence[0].transfers, 1);
    assert_eq!(
        r.bridge_transactions, 2,
        "the owner's write-back and the fill"
    );
    assert_eq!((c.state(0, a), c.state(1, a)), (Mesi::Shared, Mesi::Shared));
}

#[test]
fn under_a_shared_l2_a_write_invalidates_the_other_l1d_and_the_reread_is_a_transfer() {
    let mut c = Caches::new(table_4_17(true), 2).unwrap();
    let a = 0x8000;
    c.read(0, a);
    c.read(1, a);
    c.write(0, a);
    assert_eq!(c.coherence[1].invalidated, 1);
    let r = c.read(1, a);
    assert_eq!((r.cycles, r.bridge_transactions), (8.0, 0), "an L2 hit");
    assert_eq!(c.coherence[1].transfers, 1);
    assert_eq!(c.read(1, a).cycles, 3.0);
    assert_eq!(c.coherence[1].transfers, 1);
}

#[test]
fn dma_writes_invalidate_by_default_and_allocate_as_an_option() {
    let mut c = Caches::new(table_4_17(false), 1).unwrap();
    c.read(0, 0x9000);
    c.write(0, 0x9080);
    assert_eq!(c.dma_write(0x9000, 256), 0);
    assert_eq!(c.dma.invalidations, 3, "one L1D line, two L2 lines");
    assert_eq!(c.read(0, 0x9000).cycles, 68.0);
    let mut spec = table_4_17(false);
    spec.dma = DmaPolicy::Allocate;
    let mut d = Caches::new(spec, 1).unwrap();
    d.dma_write(0x9000, 128);
    assert_eq!(d.read(0, 0x9000).cycles, 8.0, "found in the L2");
    assert_eq!(d.state(0, 0x9000), Mesi::Modified);
    d.dma_read(0x9000, 128);
    assert_eq!(d.dma.read_snoops, 1);
}

#[test]
fn the_next_line_prefetcher_turns_a_sequential_stream_into_alternate_misses() {
    let mut spec = table_4_17(false);
    spec.prefetch_next_line = true;
    let mut c = Caches::new(spec, 1).unwrap();
    for k in 0..64 {
        c.read(0, 0x20_0000 + k * 64);
    }
    let [_, l1d, l2] = c.stats(0);
    assert_eq!(l1d.read_misses, 32);
    assert_eq!(
        l2.read_misses, 16,
        "128-byte L2 lines, the next one prefetched"
    );
}
