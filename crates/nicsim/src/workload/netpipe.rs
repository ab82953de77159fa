//! NetPIPE 3.7's message schedule and repetition rule (host-path §7.2).

/// Increments above this get ±perturbation points (NetPIPE's PERT_START).
const PERT_START: u64 = 4;

/// One scheduled point: the block size and the increment in force when it was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Planned {
    pub size_bytes: u64,
    pub inc_bytes: u64,
}

/// NetPIPE's sizes: start at `start`, the increment doubles on every second nominal size after
/// the third, and sizes with an increment above 4 are also measured at ±`pert` bytes.
pub fn schedule(start: u64, upper: u64, pert: u64) -> Vec<Planned> {
    let mut out = Vec::new();
    let mut inc: u64 = if start > 1 { start / 2 } else { 1 };
    let mut len = start.max(1);
    let mut nq = 0u64;
    while len <= upper {
        if nq > 2 && nq % 2 == 1 {
            inc *= 2;
        }
        if inc > PERT_START && pert > 0 {
            for p in [len.saturating_sub(pert), len, len + pert] {
                out.push(Planned {
                    size_bytes: p,
                    inc_bytes: inc,
                });
            }
        } else {
            out.push(Planned {
                size_bytes: len,
                inc_bytes: inc,
            });
        }
        len += inc;
        nq += 1;
    }
    out
}

/// Repetitions for a point, from the previous block size and its time (NetPIPE's
/// `MAX(RUNTM / ((bufflen / (bufflen - inc + 1)) * tlast), TRIALS)`).
pub fn repetitions(target_s: f64, prev_size: u64, inc: u64, t_last_s: f64, min_reps: u32) -> u64 {
    let denom = (prev_size as f64 - inc as f64 + 1.0).max(1.0);
    let ratio = prev_size.max(1) as f64 / denom;
    let n = target_s / (ratio * t_last_s.max(1e-12));
    (n.floor() as u64).max(min_reps.max(1) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_matches_netpipe() {
        let s: Vec<u64> = schedule(1, 70, 3).iter().map(|p| p.size_bytes).collect();
        assert_eq!(
            s,
            vec![1, 2, 3, 4, 6, 8, 12, 13, 16, 19, 21, 24, 27, 29, 32, 35, 45, 48, 51, 61, 64, 67]
        );
    }

    #[test]
    fn schedule_reaches_two_mebibytes() {
        let s = schedule(1, 2 * 1024 * 1024, 3);
        let last = s.iter().rfind(|p| p.size_bytes <= 2 * 1024 * 1024).unwrap();
        assert_eq!(last.size_bytes, 2 * 1024 * 1024);
    }

    #[test]
    fn repetitions_fill_the_target_time() {
        // 1 ms per transfer, 2 s target, ratio 1: 2000 repetitions.
        assert_eq!(repetitions(2.0, 1, 1, 1e-3, 1), 2000);
        assert_eq!(repetitions(2.0, 1, 1, 10.0, 3), 3);
    }
}
