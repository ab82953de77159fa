//! Workloads: the benchmarks that drive the hosts. Each is an event source in its own file
//! behind one trait; the loop (`drive`) asks it when it next wants to act,
//! hands it finished thread operations, and stops when it says so.
//!
//! Adding a workload touches three places: its file here (the `Workload` impl and its
//! report), its parameters (`config.rs` and `params.py`), and its line in `build`.

pub mod hold;
pub mod hpcbench;
pub mod netperf;
pub mod netpipe;
pub mod packet_gen;
pub mod queueing;
pub mod web;

use crate::config::{Config, WorkloadKind};
use crate::os::thread::{Op, INTERACTIVE};
use crate::stack::conn::ConnId;
use crate::stats::series::Series;
use crate::stats::{Snapshot, Window};
use crate::system::World;
use crate::units::{Duration, Time};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A measured window after a warm-up: its edges and the snapshot taken at the first.
#[derive(Debug)]
pub struct Measured {
    pub warm_end: Time,
    pub end: Time,
    pub before: Option<Snapshot>,
}

impl Measured {
    pub fn new(warmup: Duration, duration: Duration) -> Self {
        let warm_end = Time(warmup.0);
        Measured {
            warm_end,
            end: warm_end + duration,
            before: None,
        }
    }

    /// The window's next edge: its start, then its end.
    pub fn boundary(&self) -> Time {
        if self.before.is_none() {
            self.warm_end
        } else {
            self.end
        }
    }

    pub fn in_window(&self, now: Time) -> bool {
        self.before.is_some() && now <= self.end
    }

    /// The warm-up ended: counters as of its end.
    pub fn open(&mut self, w: &mut World) {
        self.before = Some(w.snapshot_at(self.warm_end));
    }

    /// The window ended: its counters, checked for conservation and the physical bounds.
    pub fn close(&self, w: &mut World) -> Result<Window, String> {
        let before = self.before.as_ref().expect("the window was opened");
        let window = Window::between(before, &w.snapshot_at(self.end));
        w.check(&window)?;
        Ok(window)
    }
}

/// When a workload next wants to act, relative to engine events at the same instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// Before any engine event at or after this time (a window boundary, a deadline).
    Before(Time),
    /// After every engine event up to and including this time (an arrival from outside).
    After(Time),
}

/// What the world's loop does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// Stop handing over finished operations until the engine has stepped once more.
    Yield,
    Stop,
}

pub trait Workload {
    /// Opens its connections and threads, and starts the first operations (time zero).
    fn start(&mut self, w: &mut World) -> Result<(), String>;
    /// The next time the workload wants to act, if any.
    fn next_time(&self) -> Option<When>;
    /// That time came.
    fn on_time(&mut self, w: &mut World) -> Result<Flow, String>;
    /// Thread `tid` of `node` finished its operation.
    fn on_done(&mut self, w: &mut World, node: usize, tid: usize) -> Result<Flow, String>;
    /// The engine ran out of events while the workload still waited.
    fn stalled(&self, w: &World) -> String;
    /// The results so far, as the JSON body of the run.
    fn report(&self, w: &World) -> Value;
}

/// The workload a configuration names.
pub fn build(cfg: &Config) -> Box<dyn Workload> {
    match cfg.workload.kind {
        WorkloadKind::Netpipe => Box::new(netpipe::NetPipe::new(cfg)),
        WorkloadKind::Hpcbench => Box::new(hpcbench::Hpcbench::new(cfg)),
        WorkloadKind::PacketGen => Box::new(packet_gen::PacketGen::new(cfg)),
        WorkloadKind::Netperf => Box::new(netperf::Netperf::new(cfg)),
        WorkloadKind::Web => Box::new(web::Web::new(cfg)),
    }
}

/// How far the running simulation has got, in simulated ps, for a progress display beside it
/// (`nicsim._core.progress`); written every `PROGRESS_EVERY` events, never read by the model.
pub static PROGRESS_PS: AtomicU64 = AtomicU64::new(0);
const PROGRESS_EVERY: u64 = 1 << 14;

/// Set from outside (`nicsim._core.stop`, on SIGTERM or Ctrl-C) to end the running simulation:
/// read where progress is published, so a run stops within `PROGRESS_EVERY` events, with the
/// error `STOPPED`. Cleared by whoever starts the next run; never set by the model.
pub static STOP: AtomicBool = AtomicBool::new(false);
pub const STOPPED: &str = "stopped on request (SIGTERM or Ctrl-C)";

/// Runs `wl` until it stops: its own times go before or after engine events as it asks,
/// and every finished thread operation is handed to it after the event that finished it.
pub fn drive(w: &mut World, wl: &mut dyn Workload) -> Result<(), String> {
    drive_sampled(w, wl, None)
}

/// `drive`, with `series` given a row for every interval that ends before each event.
pub fn drive_sampled(
    w: &mut World,
    wl: &mut dyn Workload,
    mut series: Option<&mut Series>,
) -> Result<(), String> {
    PROGRESS_PS.store(0, Ordering::Relaxed);
    wl.start(w)?;
    // The workload's own next time changes only when it is called; asked again after each call.
    let mut next = wl.next_time();
    let mut steps: u64 = 0;
    loop {
        w.check_spans();
        if let Some(s) = series.as_deref() {
            // A row is due before the next event: the processors' state as of then.
            if w.eng.peek_time().is_some_and(|t| s.due_before(t)) {
                w.settle();
            }
        }
        let peek = w.eng.peek_time();
        let due = match next {
            Some(When::Before(t)) if peek.is_none_or(|p| p >= t) => Some(t),
            Some(When::After(t)) if peek.is_none_or(|p| p > t) => Some(t),
            _ => None,
        };
        if let Some(t) = due {
            w.advance_to(t);
            if wl.on_time(w)? == Flow::Stop {
                return Ok(());
            }
            next = wl.next_time();
            continue;
        }
        if let (Some(t), Some(s)) = (peek, series.as_deref_mut()) {
            s.until(&w.nodes, t);
        }
        if !w.step() {
            return Err(wl.stalled(w));
        }
        steps += 1;
        if steps.is_multiple_of(PROGRESS_EVERY) {
            PROGRESS_PS.store(w.eng.now().0, Ordering::Relaxed);
            if STOP.load(Ordering::Relaxed) {
                return Err(STOPPED.to_string());
            }
        }
        while let Some((node, tid)) = w.take_done() {
            let flow = wl.on_done(w, node, tid)?;
            w.done_handled(node, tid);
            next = wl.next_time();
            match flow {
                Flow::Continue => {}
                Flow::Yield => break,
                Flow::Stop => return Ok(()),
            }
        }
    }
}

/// One connection between node0 and node1 with a communication thread at each end (on the
/// processor the placement gives it): the two-host benchmarks' setting.
#[derive(Clone, Copy, Debug)]
pub struct Pair {
    /// Per node: the communication thread and its socket.
    pub thread: [usize; 2],
    pub conn: [ConnId; 2],
}

impl Pair {
    pub fn open(w: &mut World, nodelay: bool) -> Result<Pair, String> {
        let (c0, c1) = w.connect(0, 1, nodelay)?;
        let mut thread = [0; 2];
        for (n, t) in thread.iter_mut().enumerate() {
            *t = w.spawn(n, w.nodes[n].roles.comm, INTERACTIVE)?;
        }
        Ok(Pair {
            thread,
            conn: [c0, c1],
        })
    }

    pub fn send(&self, w: &mut World, node: usize, bytes: u64) {
        let conn = self.conn[node];
        w.start_op(node, self.thread[node], Op::Send { conn, bytes });
    }

    pub fn recv(&self, w: &mut World, node: usize, bytes: u64) {
        let conn = self.conn[node];
        w.start_op(node, self.thread[node], Op::Recv { conn, bytes });
    }
}
