//! The connection-handoff NIC's part of a window's report (handoff.md §11): each class's
//! packet delays by direction, and the NIC's load-control state over the window.

use crate::handoff::queues::Class;
use crate::handoff::{Delays, HandoffNic};
use crate::stats::quantile::percentile;
use crate::units::Time;
use serde_json::{json, Value};

/// Mean, p50 and p99 in microseconds of the samples that ended in [start, end).
fn delay_json(samples: &[(Time, u64)], start: Time, end: Time) -> Value {
    let mut v: Vec<u64> = samples
        .iter()
        .filter(|(t, _)| *t >= start && *t < end)
        .map(|&(_, d)| d)
        .collect();
    v.sort_unstable();
    let us = |q: f64| percentile(&v, q).map(|ps| ps as f64 * 1e-6);
    let mean = (!v.is_empty()).then(|| v.iter().sum::<u64>() as f64 * 1e-6 / v.len() as f64);
    json!({"count": v.len(), "mean_us": mean, "p50_us": us(50.0), "p99_us": us(99.0)})
}

/// The window's delays by class and direction, and the NIC's state at its end.
pub fn window_json(h: &HandoffNic, start: Time, end: Time) -> Value {
    let class = |d: &Delays| {
        json!({
            "rx": delay_json(&d.rx_ps, start, end),
            "tx": delay_json(&d.tx_ps, start, end),
        })
    };
    let inside: Vec<_> = h
        .timeline
        .iter()
        .filter(|s| s.0 >= start && s.0 < end)
        .collect();
    let timeline = json!({
        "t_ms": inside.iter().map(|s| s.0.0 as f64 * 1e-9).collect::<Vec<_>>(),
        "soft_limit": inside.iter().map(|s| s.1).collect::<Vec<_>>(),
        "owned": inside.iter().map(|s| s.2).collect::<Vec<_>>(),
        "qlen": inside.iter().map(|s| s.3).collect::<Vec<_>>(),
        "load_state": inside.iter().map(|s| s.4.as_str()).collect::<Vec<_>>(),
    });
    json!({
        "delay": {"host": class(&h.stats.delays[0]), "nic": class(&h.stats.delays[1])},
        "hard_limit": h.lc.hard_limit,
        "soft_limit": h.lc.soft_limit,
        "owned": h.owned,
        "max_owned_run": h.stats.max_owned,
        "load_state": h.lc.state.as_str(),
        "hiwat_packets": h.lc.hiwat,
        "lowat_packets": h.lc.lowat,
        "soft_limit_decreases_run": h.lc.decreases,
        "soft_limit_increases_run": h.lc.increases,
        "lookup_buckets": h.lookup.buckets(),
        "queued": {"host": h.queues.len(Class::Host), "nic": h.queues.len(Class::Nic)},
        "timeline": timeline,
    })
}
