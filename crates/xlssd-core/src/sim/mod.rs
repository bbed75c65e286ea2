//! The discrete-event engine: a clock in nanoseconds and a queue of pending events.

mod queue;
pub mod seed;
pub mod slab;

pub use queue::EventQueue;
pub use seed::stream_seed;

/// Simulated time in nanoseconds.
pub type Time = u64;

pub const NS_PER_US: f64 = 1_000.0;

/// `x.round() as u64` without the call to the C library's `round` (the baseline x86-64
/// target has no rounding instruction): half away from zero; negatives and NaN give 0, as
/// the cast does. Exact: below 2^52 the fraction `x - trunc(x)` is computed exactly, and
/// above it every float is a whole number.
#[inline]
pub fn round_u64(x: f64) -> u64 {
    // Below 2^63 the signed conversions, one instruction each, give what the unsigned ones
    // (a dozen instructions each without AVX-512) would; the hot path's values are there.
    if (0.0..TWO_POW_63).contains(&x) {
        let t = x as i64;
        return if x - t as f64 >= 0.5 { t as u64 + 1 } else { t as u64 };
    }
    let t = x as u64;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

/// 2^63. A float below it (at most 2^63 - 1024) converts to `i64` truncated as it would
/// to `u64`, and one more than that still fits.
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

/// Starts fetching the cache line holding `value` into the caches, without waiting for
/// it: for a table read at a random place some events from now.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no side effect and the pointer comes from a reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch(value as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Converts microseconds (as configured) to whole nanoseconds, rounding to nearest.
pub fn us_to_ns(us: f64) -> Time {
    round_u64(us * NS_PER_US)
}

#[cfg(test)]
mod tests {
    use super::round_u64;

    #[test]
    fn round_u64_matches_round_then_cast() {
        let mut cases = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            1e15 + 0.5,
            4503599627370497.0,
            1.8e19,
            2e19,
            -0.4,
            -2.6,
            f64::NAN,
            f64::INFINITY,
        ];
        // Either side of 2^63, where the conversion changes.
        let two_63 = 9_223_372_036_854_775_808.0f64;
        cases.extend([two_63, f64::from_bits(two_63.to_bits() - 1), f64::from_bits(two_63.to_bits() + 1), -two_63]);
        let mut state = 0x853c_49e6_748f_ea9bu64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mantissa = (state >> 11) as f64 / (1u64 << 53) as f64;
            cases.push(mantissa * 10f64.powi((state % 20) as i32));
        }
        for x in cases {
            assert_eq!(round_u64(x), x.round() as u64, "{x}");
        }
    }
}
