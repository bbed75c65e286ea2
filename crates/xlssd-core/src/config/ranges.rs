//! Range checks shared by every section's validation; each error names the key, the value
//! and the range expected.

use crate::error::{Error, Result};

/// Upper bound for durations given in configs (one year), so that time arithmetic in
/// nanoseconds cannot overflow.
pub(crate) const MAX_DURATION_US: f64 = 3.2e13;

pub(crate) fn bad(key: &str, value: impl std::fmt::Display, expected: &str) -> Error {
    Error::Config { key: key.to_string(), message: format!("value {value} is out of range: expected {expected}") }
}

pub(crate) fn positive_u32(key: &str, v: u32) -> Result<()> {
    if v == 0 {
        return Err(bad(key, v, "an integer >= 1"));
    }
    Ok(())
}

pub(crate) fn positive_f64(key: &str, v: f64) -> Result<()> {
    if !(v.is_finite() && v > 0.0) {
        return Err(bad(key, v, "a number > 0"));
    }
    Ok(())
}

pub(crate) fn non_negative(key: &str, v: f64) -> Result<()> {
    if !(v.is_finite() && v >= 0.0) {
        return Err(bad(key, v, "a number >= 0"));
    }
    Ok(())
}

/// A fraction in [0, 1], with either end open as asked.
pub(crate) fn fraction(key: &str, v: f64, lo_open: bool, hi_open: bool) -> Result<()> {
    let lo_ok = if lo_open { v > 0.0 } else { v >= 0.0 };
    let hi_ok = if hi_open { v < 1.0 } else { v <= 1.0 };
    if !(v.is_finite() && lo_ok && hi_ok) {
        let range = format!(
            "a fraction in {}0, 1{}",
            if lo_open { "(" } else { "[" },
            if hi_open { ")" } else { "]" }
        );
        return Err(bad(key, v, &range));
    }
    Ok(())
}
