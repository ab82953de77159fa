//! Order statistics of samples, for the reports' percentiles.

/// The `q`-th percentile of `sorted` samples by the nearest-rank method.
pub fn percentile(sorted: &[u64], q: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((q / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    Some(sorted[rank.min(sorted.len()) - 1])
}
