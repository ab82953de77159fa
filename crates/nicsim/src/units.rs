//! Unit types. Integers in base units (picoseconds, bytes, bit/s, Hz, cycles);
//! the only conversions are the physical ones, and they round up to the next picosecond.

use serde::{Deserialize, Serialize};
use std::ops::{Add, AddAssign, Sub};

const PS_PER_S: u128 = 1_000_000_000_000;

/// An instant of simulated time.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Time(pub u64);

/// A span of simulated time.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Duration(pub u64);

/// A size in bytes.
pub type Bytes = u64;

/// A rate in bit/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BitRate(pub u64);

/// A clock frequency in Hz.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Freq(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub fn ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
}

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub fn from_ns(ns: u64) -> Self {
        Duration(ns * 1000)
    }
    pub fn from_us_f64(us: f64) -> Self {
        Duration((us * 1e6).ceil() as u64)
    }
    /// `s` seconds, truncated to the picosecond.
    pub fn from_secs_f64(s: f64) -> Self {
        Duration((s * 1e12) as u64)
    }
    pub fn ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 * 1e-6
    }
    /// This duration `k` times over, rounded to the picosecond.
    pub fn mul_f64(self, k: f64) -> Duration {
        Duration(round_u64(self.0 as f64 * k))
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time(
            self.0
                .checked_add(d.0)
                .unwrap_or_else(|| panic!("time overflow: {} ps + {} ps", self.0, d.0)),
        )
    }
}
impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        self.0 += d.0;
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0 + d.0)
    }
}
impl AddAssign for Duration {
    fn add_assign(&mut self, d: Duration) {
        self.0 += d.0;
    }
}
/// The span between two instants; panics if `earlier` is later (a causality bug).
impl Sub for Time {
    type Output = Duration;
    fn sub(self, earlier: Time) -> Duration {
        Duration(self.0.checked_sub(earlier.0).expect("negative time span"))
    }
}

fn ceil_div(num: u128, den: u128) -> u64 {
    num.div_ceil(den) as u64
}

impl BitRate {
    /// Serialisation time of `len` bytes, rounded up to the next picosecond.
    pub fn time_to_send(self, len: Bytes) -> Duration {
        Duration(ceil_div(len as u128 * 8 * PS_PER_S, self.0 as u128))
    }

    /// Whole bytes sent in `d` at this rate (the inverse of `time_to_send`, rounded down).
    pub fn bytes_in(self, d: Duration) -> Bytes {
        (d.0 as u128 * self.0 as u128 / (8 * PS_PER_S)) as Bytes
    }
}

impl Freq {
    /// Duration of `cycles` cycles of this clock (fractional cycles allowed), rounded up.
    pub fn duration_of(self, cycles: f64) -> Duration {
        Duration(ceil_u64(cycles * 1e12 / self.0 as f64))
    }
}

/// Values below this convert through `i64`, one instruction each way on baseline x86-64
/// (`u64` conversions are branchy sequences there).
const I64_SAFE: f64 = 9.0e18;

/// `x.ceil() as u64`, bit for bit (negative and NaN give 0, as the cast saturates), without
/// the libm call baseline x86-64 makes for `ceil`: it sat on every chunk's path.
#[inline]
fn ceil_u64(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    if x >= I64_SAFE {
        return x.ceil() as u64;
    }
    let t = x as i64;
    (if (t as f64) < x { t + 1 } else { t }) as u64
}

/// `x.round() as u64` (halves away from zero), bit for bit, without the libm call; below 2^52
/// `x - t` is exact, above it `x` is whole.
#[inline]
pub(crate) fn round_u64(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    if x >= I64_SAFE {
        return x.round() as u64;
    }
    let t = x as i64;
    (if x - t as f64 >= 0.5 { t + 1 } else { t }) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_time_is_exact_for_gigabit() {
        // 1538 wire bytes at 1 Gbps: 12,304 ns exactly.
        assert_eq!(
            BitRate(1_000_000_000).time_to_send(1538),
            Duration(12_304_000)
        );
    }

    #[test]
    fn serialisation_time_rounds_up() {
        // 1 byte at 3 bit/s is 8/3 s = 2.666…e12 ps: rounded up.
        assert_eq!(BitRate(3).time_to_send(1), Duration(2_666_666_666_667));
    }

    #[test]
    fn cycles_at_400_mhz() {
        assert_eq!(Freq(400_000_000).duration_of(10.0), Duration(25_000));
    }

    #[test]
    #[should_panic(expected = "negative time span")]
    fn negative_span_panics() {
        let _ = Time(1) - Time(2);
    }

    #[test]
    fn the_rounding_helpers_match_the_library_bit_for_bit() {
        let xs = [
            0.0,
            0.4,
            0.5,
            0.5000000000000001,
            0.49999999999999994,
            1.0,
            2.5,
            3.5,
            1e9 + 0.5,
            123456.000001,
            4503599627370495.5,
            9007199254740993.0,
            1e18,
            -0.3,
        ];
        for x in xs {
            assert_eq!(ceil_u64(x), x.ceil() as u64, "ceil {x}");
            assert_eq!(round_u64(x), x.round() as u64, "round {x}");
        }
    }
}
