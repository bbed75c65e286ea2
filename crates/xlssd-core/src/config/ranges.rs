//! Range checks shared by every section's validation; each error names the key, the value
//! and the range expected. Times go through [`duration_ns`] and [`transfer_ns`], the one
//! place where a configured time becomes nanoseconds, so that no time can overflow or
//! silently round to nothing.

use crate::error::{Error, Result};
use crate::sim::{us_to_ns, Time, NS_PER_US};

/// Upper bound for durations given in configs (one year), so that time arithmetic in
/// nanoseconds cannot overflow.
pub(crate) const MAX_DURATION_US: f64 = 3.2e13;

/// [`MAX_DURATION_US`] in nanoseconds.
pub(crate) const MAX_DURATION_NS: f64 = MAX_DURATION_US * NS_PER_US;

/// A value outside its range. A NaN or an infinity is called what it is, since "out of
/// range" would not tell the user why `nan` is wrong.
pub(crate) fn bad<T: std::fmt::Display + 'static>(key: &str, value: T, expected: &str) -> Error {
    let any: &dyn std::any::Any = &value;
    let shown = match any.downcast_ref::<f64>() {
        Some(&v) => show_f64(v),
        None => value.to_string(),
    };
    let what = if matches!(shown.as_str(), "NaN" | "inf" | "-inf") { "is not a finite number" } else { "is out of range" };
    Error::Config { key: key.to_string(), message: format!("value {shown} {what}: expected {expected}") }
}

/// A float as a message shows it: in its shortest decimal form (`50`, `0.25`), or in
/// scientific notation where that is long (`2e16`, `3.2e13`, `1e-12`).
pub fn show_f64(v: f64) -> String {
    let plain = format!("{v}");
    if plain.len() > 12 {
        format!("{v:e}")
    } else {
        plain
    }
}

pub(crate) fn positive_u32(key: &str, v: u32) -> Result<()> {
    if v == 0 {
        return Err(bad(key, v, "an integer >= 1"));
    }
    Ok(())
}

pub(crate) fn positive_f64(key: &str, v: f64) -> Result<()> {
    if !(v.is_finite() && v > 0.0) {
        return Err(bad(key, v, "a finite number > 0"));
    }
    Ok(())
}

pub(crate) fn non_negative(key: &str, v: f64) -> Result<()> {
    if !(v.is_finite() && v >= 0.0) {
        return Err(bad(key, v, "a finite number >= 0"));
    }
    Ok(())
}

/// A fraction in [0, 1], with either end open as asked.
pub(crate) fn fraction(key: &str, v: f64, lo_open: bool, hi_open: bool) -> Result<()> {
    let lo_ok = if lo_open { v > 0.0 } else { v >= 0.0 };
    let hi_ok = if hi_open { v < 1.0 } else { v <= 1.0 };
    if !(v.is_finite() && lo_ok && hi_ok) {
        let range = format!("a fraction in {}0, 1{}", if lo_open { "(" } else { "[" }, if hi_open { ")" } else { "]" });
        return Err(bad(key, v, &range));
    }
    Ok(())
}

/// Whether a time may be zero: a wait or an option may, an operation the device performs
/// (a sense, a program, an erase) may not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Zero {
    Allowed,
    Refused,
}

/// A time configured in microseconds as whole nanoseconds, rounded to nearest (as the
/// engine has always rounded them). It must be finite, not negative, at most one year
/// ([`MAX_DURATION_US`]), and, where zero is refused, at least half a nanosecond, so that
/// it does not round to 0 ns.
pub(crate) fn duration_ns(key: &str, us: f64, zero: Zero) -> Result<Time> {
    let range = match zero {
        Zero::Allowed => "a number of microseconds in [0, 3.2e13] (at most one year)",
        Zero::Refused => "a number of microseconds in [0.0005, 3.2e13] (at least 0.5 ns, at most one year)",
    };
    if !(us.is_finite() && (0.0..=MAX_DURATION_US).contains(&us)) {
        return Err(bad(key, us, range));
    }
    let ns = us_to_ns(us);
    if ns == 0 && zero == Zero::Refused {
        return Err(Error::Config {
            key: key.to_string(),
            message: format!("value {} rounds to 0 ns: expected {range}", show_f64(us)),
        });
    }
    Ok(ns)
}

/// The time to move `bytes` at `bytes_per_s`, rounded up to whole nanoseconds (as the
/// engine rounds transfers), if it is at least 1 ns and at most one year. `key` and
/// `value` are the setting the rate comes from, and `what` names the transfer checked in
/// the message ("one page over a channel").
pub(crate) fn transfer_ns(key: &str, value: f64, what: &str, bytes: u64, bytes_per_s: f64) -> Result<Time> {
    let ns = (bytes as f64 * 1e9 / bytes_per_s).ceil();
    if !(ns.is_finite() && ns >= 1.0 && ns <= MAX_DURATION_NS) {
        let how = if ns.is_finite() && ns < 1.0 { "takes no time at all" } else { "takes longer than a year" };
        return Err(Error::Config {
            key: key.to_string(),
            message: format!(
                "value {} is out of range: moving {what} ({bytes} bytes) at {bytes_per_s:e} bytes/s {how}; expected a rate at which it takes between 1 ns and one year",
                show_f64(value)
            ),
        });
    }
    Ok(ns as Time)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(e: Error) -> String {
        match e {
            Error::Config { message, .. } => message,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn durations_are_checked_before_conversion() {
        assert_eq!(duration_ns("k", 50.0, Zero::Refused).unwrap(), 50_000);
        assert_eq!(duration_ns("k", 0.0005, Zero::Refused).unwrap(), 1);
        assert_eq!(duration_ns("k", 0.0, Zero::Allowed).unwrap(), 0);
        assert_eq!(duration_ns("k", MAX_DURATION_US, Zero::Allowed).unwrap(), 32_000_000_000_000_000);
        for us in [2e16, 3.2000001e13, f64::MAX, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let m = message(duration_ns("timing.read_us", us, Zero::Refused).unwrap_err());
            assert!(m.contains("at most one year"), "{us}: {m}");
        }
        let m = message(duration_ns("k", f64::NAN, Zero::Allowed).unwrap_err());
        assert!(m.starts_with("value NaN is not a finite number: expected a number of microseconds in [0,"), "{m}");
        for us in [1e-12, 0.0004, 0.0, 5e-324] {
            let m = message(duration_ns("k", us, Zero::Refused).unwrap_err());
            assert!(m.contains("0.5 ns"), "{us}: {m}");
        }
    }

    #[test]
    fn transfers_must_take_between_a_nanosecond_and_a_year() {
        assert_eq!(transfer_ns("channel.rate_mts", 400.0, "a page", 4096, 400e6).unwrap(), 10_240);
        assert_eq!(transfer_ns("k", 1.0, "x", 1, 1e12).unwrap(), 1);
        for rate in [1e-300, 1e-4, 0.0] {
            let m = message(transfer_ns("k", rate, "a page", 4096, rate).unwrap_err());
            assert!(m.contains("longer than a year"), "{rate}: {m}");
        }
        let m = message(transfer_ns("k", 1e308, "a page", 4096, f64::INFINITY).unwrap_err());
        assert!(m.contains("no time at all"), "{m}");
    }

    #[test]
    fn non_finite_values_say_so_and_what_was_expected() {
        let m = message(fraction("ftl.overprovisioning", f64::NAN, true, true).unwrap_err());
        assert_eq!(m, "value NaN is not a finite number: expected a fraction in (0, 1)");
        let m = message(positive_f64("k", f64::INFINITY).unwrap_err());
        assert_eq!(m, "value inf is not a finite number: expected a finite number > 0");
        let m = message(non_negative("k", -1.0).unwrap_err());
        assert_eq!(m, "value -1 is out of range: expected a finite number >= 0");
        let m = message(duration_ns("k", 1e300, Zero::Allowed).unwrap_err());
        assert!(m.starts_with("value 1e300 is out of range"), "{m}");
        let shown: Vec<String> = [0.25, 50.0, 1e-12, 3.2e13, -0.0, 1e15, 123456.75].into_iter().map(show_f64).collect();
        assert_eq!(shown, ["0.25", "50", "1e-12", "3.2e13", "-0", "1e15", "123456.75"]);
    }
}
