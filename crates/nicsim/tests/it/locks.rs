//! The node-wide locks of stacks.md §B.7 (`smp.allocator_lock`, `smp.thread_lock`): what
//! takes them, for how long, and what they serialise between processors.

use super::*;
use nicsim::config::Buffers;
use nicsim::os::lock::LockStats;
use nicsim::os::thread::{Op, INTERACTIVE};
use nicsim::system::World;
use nicsim::units::Time;

const US: u64 = 1_000_000;

/// Two CPUs on an SMP kernel with the node-wide locks `alloc` and `threads`; one buffer
/// allocation costs 40,000 instructions (about 100 µs, so that it dominates a send) and goes
/// to no memory, a free nothing (so only allocations take the allocator), and the link is
/// slow enough that no acknowledgement comes back meanwhile.
fn smp(alloc: bool, threads: bool) -> Config {
    let mut c = base();
    c.cpu.count = 2;
    c.smp.spinlocks = true;
    c.smp.allocator_lock = alloc;
    c.smp.thread_lock = threads;
    c.costs.skb_alloc.i_pkt = 40_000.0;
    c.costs.skb_alloc.r_pkt = 0.0;
    (c.costs.skb_free.i_pkt, c.costs.skb_free.r_pkt) = (0.0, 0.0);
    c.link.latency_ps = Duration(10_000 * US);
    c
}

/// Thread `k` (pinned to cpu`k`) of node 0 sends `bytes` on a connection of its own, each
/// `sends` times in a row (the next send when the last returns), all starting at once; what
/// finished, with when, within 5 ms.
fn sends(c: &Config, threads: usize, sends: usize, bytes: u64) -> (World, Vec<Time>) {
    let mut w = World::new(c).unwrap();
    let mut who = Vec::new();
    for k in 0..threads {
        let (conn, _) = w.connect(0, 1, true).unwrap();
        let t = w.spawn(0, k, INTERACTIVE).unwrap();
        w.start_op(0, t, Op::Send { conn, bytes });
        who.push((t, conn, 1));
    }
    let mut done = Vec::new();
    while w.eng.peek_time().is_some_and(|p| p <= Time(5_000 * US)) {
        w.step();
        while let Some((n, tid)) = w.take_done() {
            let i = who.iter().position(|x| x.0 == tid && n == 0).unwrap();
            done.push(w.eng.now());
            if who[i].2 < sends {
                who[i].2 += 1;
                let conn = who[i].1;
                w.start_op(0, tid, Op::Send { conn, bytes });
            }
        }
    }
    (w, done)
}

fn stats(l: &LockStats) -> (u64, u64, u64, u64) {
    (l.acquisitions, l.conflicts, l.spin_ps, l.hold_ps)
}

#[test]
fn an_allocator_lock_held_across_an_allocation_serialises_two_cpus() {
    // Both CPUs enter send at once and reach their buffer's allocation together: one takes
    // the lock, the other spins for the whole of the holder's section, then allocates.
    let (w, done) = sends(&smp(true, false), 2, 1, 100);
    assert_eq!(done.len(), 2);
    let (acq, conflicts, spin, hold) = stats(&w.nodes[0].alloc_lock.stats);
    assert_eq!((acq, conflicts), (2, 1), "one buffer each, one wait");
    let section = hold / 2;
    assert!(
        section > 10 * US,
        "the allocation's 40,000 instructions: {section} ps"
    );
    // It arrived just after the holder took it (the CPUs' paths there differ by a few cycles).
    assert!(
        spin <= section && spin > section * 95 / 100,
        "spun {spin} ps for a {section} ps section"
    );
    // The second send returns one section after the first.
    let gap = (done[1] - done[0]).0;
    assert!(
        gap.abs_diff(section) < section / 100,
        "{gap} against {section}"
    );
    // Without the lock both allocate at once: only the device's transmit queue lock keeps
    // them apart, for its short section.
    let (w, free) = sends(&smp(false, false), 2, 1, 100);
    assert_eq!(stats(&w.nodes[0].alloc_lock.stats), (0, 0, 0, 0));
    assert!((free[1] - free[0]).0 < section / 10, "{free:?} {section}");
}

#[test]
fn a_call_of_several_buffers_takes_the_allocator_once_for_each() {
    // BSD's buffers: 100 B in one small mbuf, 8,000 B in two 4 KB clusters (stacks.md §B.2;
    // more when the call copies it in steps); each buffer is a section of its own, held for
    // one buffer's work.
    let mut c = smp(true, false);
    c.org.buffers = Buffers::BsdMbuf;
    let (w, _) = sends(&c, 1, 1, 100);
    let one = w.nodes[0].alloc_lock.stats;
    assert_eq!(one.acquisitions, 1);
    let (w, _) = sends(&c, 1, 1, 8_000);
    let l = w.nodes[0].alloc_lock.stats;
    assert!(l.acquisitions >= 2, "{l:?}");
    let each = one.hold_ps;
    assert!(
        l.hold_ps.abs_diff(l.acquisitions * each) <= l.acquisitions,
        "{l:?}, {each} each"
    );
    // Half of each buffer's work under the lock: each section is half as long.
    let mut half = c.clone();
    half.smp.allocator_hold_share = 0.5;
    let (w, _) = sends(&half, 1, 1, 8_000);
    let h = w.nodes[0].alloc_lock.stats;
    assert!(h.acquisitions >= 2, "{h:?}");
    assert!(
        h.hold_ps.abs_diff(h.acquisitions * each / 2) <= h.acquisitions,
        "{h:?}"
    );
}

#[test]
fn the_thread_lock_is_taken_for_its_hold_once_per_system_call() {
    // One thread, five sends: with a hold per system call the lock is taken five more times,
    // each held for the hold's instructions (uncontended: one CPU); without, only the
    // dispatcher's context switch takes it.
    let run = |instr: f64| {
        let mut c = smp(false, true);
        c.cpu.count = 1;
        c.smp.syscall_hold_instr = instr;
        // The call's work is instructions only, so its held part is exactly the hold's.
        c.costs.tx_syscall.r_pkt = 0.0;
        let (w, done) = sends(&c, 1, 5, 100);
        assert_eq!(done.len(), 5);
        w.nodes[0].thread_lock.stats
    };
    let (none, some) = (run(0.0), run(50.0));
    assert_eq!(some.acquisitions - none.acquisitions, 5);
    assert_eq!((none.conflicts, some.conflicts, some.spin_ps), (0, 0, 0));
    let c = smp(false, true);
    let s = &c.costs;
    // 50 instructions of tx_syscall's, at its IPC and the OS scale, on the fixture's clock.
    let each_ps = 50.0 * s.scale.os / s.tx_syscall.ipc * c.cpu.cpi * 1e12 / c.cpu.clock_hz.0 as f64;
    let held = (some.hold_ps - none.hold_ps) as f64;
    assert!(
        (held / 5.0 - each_ps).abs() < 0.01 * each_ps,
        "{held} for 5 × {each_ps}"
    );
}

#[test]
fn two_cpus_entering_system_calls_at_once_serialise_on_the_thread_lock() {
    let mut c = smp(false, true);
    c.smp.syscall_hold_instr = 4_000.0;
    let (w, _) = sends(&c, 2, 1, 100);
    let l = w.nodes[0].thread_lock.stats;
    assert!(l.conflicts >= 1 && l.spin_ps > 0, "{l:?}");
    c.smp.syscall_hold_instr = 0.0;
    let (w, _) = sends(&c, 2, 1, 100);
    let without = w.nodes[0].thread_lock.stats;
    assert!(without.spin_ps < l.spin_ps, "{without:?} against {l:?}");
}
