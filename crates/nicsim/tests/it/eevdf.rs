//! The EEVDF scheduler (`sched.policy = eevdf`) against the class scheduler, on one CPU: a
//! thread whose call returns keeps its processor for its slice, and a woken thread with no lag
//! waits for the current one's slice instead of preempting it.

use super::*;
use nicsim::config::SchedPolicy;
use nicsim::os::thread::{Op, INTERACTIVE};
use nicsim::system::World;
use nicsim::units::Time;

const US: u64 = 1_000_000;

fn one_cpu(policy: SchedPolicy) -> Config {
    let mut c = base();
    c.cpu.count = 1;
    c.sched.policy = policy;
    c.sched.tick_hz = 0.0;
    c
}

/// 10 µs of work at the fixture's 400 MHz.
const WORK: Op = Op::Compute {
    cycles: 4000.0,
    refs: 0.0,
};

/// Steps `w` to `until`, giving every thread in `again` a new `WORK` each time one returns
/// (others are told nothing follows); returns who finished what, when.
fn drive_ops(w: &mut World, until: Time, again: &[usize]) -> Vec<(usize, Time)> {
    let mut done = Vec::new();
    while w.eng.peek_time().is_some_and(|p| p <= until) {
        w.step();
        while let Some((n, tid)) = w.take_done() {
            done.push((tid, w.eng.now()));
            if n == 1 && again.contains(&tid) {
                w.start_op(1, tid, WORK);
            }
            w.done_handled(n, tid);
        }
    }
    done
}

/// Two busy threads on one CPU: how many calls in a row the first makes before the second
/// gets the processor.
fn first_run(policy: SchedPolicy) -> usize {
    let mut w = World::new(&one_cpu(policy)).unwrap();
    let a = w.spawn(1, 0, INTERACTIVE).unwrap();
    let b = w.spawn(1, 0, INTERACTIVE).unwrap();
    w.start_op(1, a, WORK);
    w.start_op(1, b, WORK);
    let done = drive_ops(&mut w, Time(5_000 * US), &[a, b]);
    done.iter().take_while(|d| d.0 == a).count()
}

#[test]
fn a_thread_whose_call_returns_keeps_the_cpu_for_its_slice() {
    // Classes: each return puts the thread behind the other, so they alternate.
    assert_eq!(first_run(SchedPolicy::Classes), 1);
    // EEVDF: a 0.75 ms slice of calls (RUN_TO_PARITY) before the other runs; each call is
    // 10 µs of work and the application's per-message stage, so about 64 of them.
    let n = first_run(SchedPolicy::Eevdf);
    assert!((55..=75).contains(&n), "{n} calls in a row");
}

/// A thread busy with back-to-back calls on node1's CPU; a reader there woken by a 100-byte
/// message sent at the start. When the read returns.
fn read_done_at(policy: SchedPolicy) -> Time {
    let mut w = World::new(&one_cpu(policy)).unwrap();
    let (ca, cb) = w.connect(0, 1, true).unwrap();
    let busy = w.spawn(1, 0, INTERACTIVE).unwrap();
    let reader = w.spawn(1, 0, INTERACTIVE).unwrap();
    let writer = w.spawn(0, 0, INTERACTIVE).unwrap();
    w.start_op(
        1,
        reader,
        Op::Recv {
            conn: cb,
            bytes: 100,
        },
    );
    w.start_op(1, busy, WORK);
    w.start_op(
        0,
        writer,
        Op::Send {
            conn: ca,
            bytes: 100,
        },
    );
    let done = drive_ops(&mut w, Time(3_000 * US), &[busy]);
    done.iter()
        .find(|d| d.0 == reader)
        .expect("the read returns")
        .1
}

#[test]
fn a_woken_thread_without_lag_waits_for_the_current_slice() {
    // Classes: the reader runs at the busy thread's next return, within about 10 µs of its
    // message's arrival (well under 0.5 ms after the start).
    let classes = read_done_at(SchedPolicy::Classes);
    assert!(classes < Time(500 * US), "{classes:?}");
    // EEVDF: it woke placed at the average (it had run nothing), so the busy thread stays
    // eligible and protected and keeps the CPU until its 0.75 ms slice is used.
    let eevdf = read_done_at(SchedPolicy::Eevdf);
    assert!(
        eevdf > Time(750 * US) && eevdf < Time(900 * US),
        "{eevdf:?}"
    );
}
