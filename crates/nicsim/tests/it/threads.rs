//! Threads as a set: unpinned threads migrate to an idle processor when they wake; a thread
//! waits on several sockets at once (an epoll-like poll set).

use super::*;
use nicsim::os::thread::{Op, BATCH, INTERACTIVE};
use nicsim::system::World;
use nicsim::units::Time;

const MS: u64 = 1_000_000_000;

fn two_cpus() -> World {
    let mut c = base();
    c.cpu.count = 2;
    World::new(&c).unwrap()
}

/// Two threads of 4 M cycles each (10 ms at 400 MHz), both starting on cpu0: when they can
/// migrate, the second moves to the idle cpu1 and both finish in about 10 ms; pinned, they
/// take turns and the second finishes after about 20 ms.
fn finish_times(free: bool) -> Vec<Time> {
    let mut w = two_cpus();
    let work = Op::Compute {
        cycles: 4e6,
        refs: 0.0,
    };
    for _ in 0..2 {
        let t = if free {
            w.spawn_free(1, 0, BATCH).unwrap()
        } else {
            w.spawn(1, 0, BATCH).unwrap()
        };
        w.start_op(1, t, work);
    }
    run_until(&mut w, Time(100 * MS))
        .iter()
        .map(|d| d.2)
        .collect()
}

#[test]
fn an_unpinned_thread_moves_to_an_idle_cpu_and_a_pinned_one_waits_its_turn() {
    let free = finish_times(true);
    let pinned = finish_times(false);
    assert_eq!((free.len(), pinned.len()), (2, 2));
    assert!(free[1] < Time(11 * MS), "{:?}", free);
    assert!(pinned[1] > Time(19 * MS), "{:?}", pinned);
}

#[test]
fn a_poll_returns_the_connection_that_has_data_and_sleeps_until_one_does() {
    let mut w = World::new(&base()).unwrap();
    let pairs: Vec<_> = (0..3).map(|_| w.connect(0, 1, true).unwrap()).collect();
    let sender = w.spawn(0, 0, INTERACTIVE).unwrap();
    let server = w.spawn(1, 0, INTERACTIVE).unwrap();
    let set = w.nodes[1].poll_set(pairs.iter().map(|p| p.1).collect());
    w.start_op(1, server, Op::Poll { set });
    assert!(
        run_until(&mut w, Time(5 * MS)).is_empty(),
        "nothing to read: it sleeps"
    );
    w.start_op(
        0,
        sender,
        Op::Send {
            conn: pairs[2].0,
            bytes: 1000,
        },
    );
    let done = run_until(&mut w, Time(10 * MS));
    let polled = done
        .iter()
        .find(|d| (d.0, d.1) == (1, server))
        .expect("the poll returns");
    assert!(polled.2 < Time(6 * MS));
    assert_eq!(w.nodes[1].accepted(server), Some(pairs[2].1));
    // Level-triggered: unread data keeps the connection ready, so the next poll returns at once.
    w.start_op(1, server, Op::Poll { set });
    let again = run_until(&mut w, Time(11 * MS));
    assert!(again.iter().any(|d| (d.0, d.1) == (1, server)));
    assert_eq!(w.nodes[1].accepted(server), Some(pairs[2].1));
}

/// A free thread on cpu0 whose short call returns while a long one waits there; its next
/// call comes at once (`at_once`, a benchmark loop) or after it slept. Where the next call runs.
fn next_call_cpu(at_once: bool) -> usize {
    let mut w = two_cpus();
    let short = Op::Compute {
        cycles: 4e5,
        refs: 0.0,
    };
    let free = w.spawn_free(1, 0, INTERACTIVE).unwrap();
    let other = w.spawn(1, 0, BATCH).unwrap();
    w.start_op(1, free, short);
    w.start_op(
        1,
        other,
        Op::Compute {
            cycles: 4e7,
            refs: 0.0,
        },
    );
    loop {
        assert!(w.step(), "the short call finishes");
        if let Some((1, t)) = w.take_done() {
            assert_eq!(t, free);
            break;
        }
    }
    if at_once {
        w.start_op(1, free, short);
        w.done_handled(1, free);
    } else {
        w.done_handled(1, free);
        w.start_op(1, free, short);
    }
    w.nodes[1].threads[free].proc
}

/// Linux places a task when it wakes, not between two calls it makes without sleeping: the
/// thread that calls again at once stays on cpu0; the one that slept moves to the idle cpu1.
#[test]
fn a_free_thread_is_placed_when_it_wakes_not_between_two_calls() {
    assert_eq!(next_call_cpu(true), 0);
    assert_eq!(next_call_cpu(false), 1);
}
