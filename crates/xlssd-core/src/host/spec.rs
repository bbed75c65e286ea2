//! Synthetic workloads written on one line in fio's vocabulary, e.g.
//! `rw=randwrite,bs=4k,n=1000,iodepth=32`, so that a run can be varied from the command line
//! without a config file. A spec overrides the keys it names and keeps the others from a
//! base config.

use super::config::{RwMode, WorkloadConfig};
use super::trace::quote;
use crate::error::{Error, Result};

/// Every key a spec may set, in the order messages list them.
pub const KEYS: &[&str] = &[
    "rw",
    "bs",
    "n",
    "iodepth",
    "rwmixread",
    "span",
    "zipf",
    "hot_fraction",
    "hot_space",
    "interarrival_us",
    "approx",
    "contexts",
    "context_skew",
    "handles",
    "seed",
];

impl WorkloadConfig {
    /// `spec` (comma-separated `key=value` items, see [`KEYS`]) applied over `base`, then
    /// validated. Errors name the key as `workload.<key>` and say what was expected.
    pub fn from_spec(spec: &str, base: &WorkloadConfig) -> Result<WorkloadConfig> {
        let mut cfg = base.clone();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((key, value)) = item.split_once('=') else {
                return Err(Error::Config {
                    key: format!("workload.{}", quote(item)),
                    message: format!("`{}` is not of the form key=value (known keys: {})", quote(item), KEYS.join(", ")),
                });
            };
            let (key, value) = (key.trim(), value.trim());
            let bad = |expected: &str| Error::Config {
                key: format!("workload.{key}"),
                message: format!("`{}` is not {expected}", quote(value)),
            };
            match key {
                "rw" => cfg.rw = parse_rw(value).ok_or_else(|| bad("one of read, write, randread, randwrite, randrw, rw"))?,
                "bs" => {
                    cfg.bs = parse_size(value).ok_or_else(|| bad("a size in bytes (suffixes k, m, g are binary: 4k = 4096)"))?
                }
                "n" => {
                    cfg.n = parse_uint(value).ok_or_else(|| {
                        bad("a positive integer (digits, grouped by underscores in threes if you like: 1_000_000)")
                    })?
                }
                "iodepth" => {
                    cfg.iodepth = parse_uint(value)
                        .and_then(|v| u32::try_from(v).ok())
                        .ok_or_else(|| bad("an integer from 0 (open loop) to 4294967295"))?
                }
                "contexts" => {
                    cfg.contexts = parse_uint(value)
                        .and_then(|v| u32::try_from(v).ok())
                        .ok_or_else(|| bad("a number of program contexts (an integer, 0 = none)"))?
                }
                "handles" => {
                    cfg.handles = parse_uint(value)
                        .and_then(|v| u32::try_from(v).ok())
                        .ok_or_else(|| bad("a number of placement handles (an integer, 0 = none)"))?
                }
                "context_skew" => cfg.context_skew = parse_float(value).ok_or_else(|| bad("a number > 0"))?,
                "seed" => cfg.seed = parse_uint(value).ok_or_else(|| bad("a non-negative integer"))?,
                "rwmixread" => cfg.rwmixread = parse_float(value).ok_or_else(|| bad("a percentage in [0, 100]"))?,
                "span" => cfg.span = parse_float(value).ok_or_else(|| bad("a fraction in (0, 1]"))?,
                "zipf" => cfg.zipf = parse_float(value).ok_or_else(|| bad("a number >= 0 (0 = uniform)"))?,
                "hot_fraction" => cfg.hot_fraction = parse_float(value).ok_or_else(|| bad("a fraction in [0, 1]"))?,
                "approx" => cfg.approx = parse_float(value).ok_or_else(|| bad("a fraction in [0, 1]"))?,
                "hot_space" => cfg.hot_space = parse_float(value).ok_or_else(|| bad("a fraction in (0, 1]"))?,
                "interarrival_us" => {
                    cfg.interarrival_us = parse_float(value).ok_or_else(|| bad("a number of microseconds >= 0"))?
                }
                _ => {
                    return Err(Error::Config {
                        key: format!("workload.{}", quote(key)),
                        message: format!("unknown key (known keys: {})", KEYS.join(", ")),
                    })
                }
            }
        }
        cfg.validate("workload")?;
        Ok(cfg)
    }
}

fn parse_rw(value: &str) -> Option<RwMode> {
    Some(match value.to_ascii_lowercase().as_str() {
        "read" => RwMode::Read,
        "write" => RwMode::Write,
        "randread" => RwMode::Randread,
        "randwrite" => RwMode::Randwrite,
        "randrw" => RwMode::Randrw,
        "rw" | "readwrite" => RwMode::Rw,
        _ => return None,
    })
}

/// A non-negative integer, its digits optionally grouped in threes by underscores
/// (`1_000_000`). Rust's and Python's own parsers accept more (`1__0`, `1_0`, `+1`, `١`),
/// none of which a person writing a count means.
fn parse_uint(value: &str) -> Option<u64> {
    let mut groups = value.split('_');
    let first = groups.next()?;
    let digits = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    if !digits(first) || (value.contains('_') && first.len() > 3) || !groups.all(|g| g.len() == 3 && digits(g)) {
        return None;
    }
    value.bytes().filter(|&b| b != b'_').try_fold(0u64, |acc, b| acc.checked_mul(10)?.checked_add((b - b'0') as u64))
}

/// Bytes with an optional binary suffix: `512`, `4k`, `4K`, `1m`, `2G`, also `4KiB`/`4kb`.
fn parse_size(value: &str) -> Option<u64> {
    let lower = value.to_ascii_lowercase();
    let unit_start = lower.find(|c: char| !(c.is_ascii_digit() || c == '_')).unwrap_or(lower.len());
    let (number, unit) = lower.split_at(unit_start);
    let shift = match unit {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return None,
    };
    parse_uint(number)?.checked_mul(1u64 << shift)
}

/// A finite decimal number: an optional minus sign, digits with an optional decimal point,
/// and an optional exponent (`0.5`, `-1`, `.25`, `1e-3`). `str::parse` also takes `nan`,
/// `inf`, `infinity` and a leading `+`, which no setting here means.
fn parse_float(value: &str) -> Option<f64> {
    let b = value.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut mantissa = digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        mantissa += digits(&mut i);
    }
    if mantissa == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    value.parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> Result<WorkloadConfig> {
        WorkloadConfig::from_spec(s, &WorkloadConfig::default())
    }

    fn err_key(s: &str) -> (String, String) {
        match spec(s) {
            Err(Error::Config { key, message }) => (key, message),
            other => panic!("expected a config error for {s:?}, got {other:?}"),
        }
    }

    #[test]
    fn parses_every_key_over_the_base() {
        let cfg = spec(
            "rw=randwrite, bs=4k,n=1_000_000,iodepth=32,rwmixread=70,span=0.5,zipf=1.1,hot_fraction=0,hot_space=0.2,interarrival_us=10,seed=7,",
        )
        .unwrap();
        assert_eq!(cfg.rw, RwMode::Randwrite);
        assert_eq!(cfg.bs, 4096);
        assert_eq!(cfg.n, 1_000_000);
        assert_eq!(cfg.iodepth, 32);
        assert_eq!((cfg.rwmixread, cfg.span, cfg.zipf), (70.0, 0.5, 1.1));
        assert_eq!((cfg.hot_fraction, cfg.hot_space, cfg.interarrival_us, cfg.seed), (0.0, 0.2, 10.0, 7));

        let cfg = spec("rw=randwrite,contexts=64,context_skew=1.2,handles=4,approx=0.5").unwrap();
        assert_eq!((cfg.contexts, cfg.context_skew, cfg.handles, cfg.approx), (64, 1.2, 4, 0.5));
        let defaults = spec("").unwrap();
        assert_eq!((defaults.contexts, defaults.context_skew, defaults.handles), (0, 1.5, 0));

        let base = WorkloadConfig { n: 5, seed: 3, ..WorkloadConfig::default() };
        let cfg = WorkloadConfig::from_spec("rw=read", &base).unwrap();
        assert_eq!((cfg.rw, cfg.n, cfg.seed), (RwMode::Read, 5, 3));
        assert_eq!(WorkloadConfig::from_spec("", &base).unwrap(), base);
    }

    #[test]
    fn sizes_take_binary_suffixes() {
        for (s, v) in [
            ("512", 512),
            ("4k", 4096),
            ("4K", 4096),
            ("4KiB", 4096),
            ("8kb", 8192),
            ("1m", 1 << 20),
            ("2M", 2 << 20),
            ("1g", 1 << 30),
            ("1G", 1 << 30),
            ("1_024", 1024),
        ] {
            assert_eq!(parse_size(s), Some(v), "{s}");
        }
        for s in ["", "k", "4x", "4kk", "-4k", "4.5k", "_4k", "99999999999g"] {
            assert_eq!(parse_size(s), None, "{s}");
        }
    }

    #[test]
    fn integers_allow_underscores_only_between_digits() {
        assert_eq!(parse_uint("1_000_000"), Some(1_000_000));
        assert_eq!(parse_uint("0"), Some(0));
        assert_eq!(parse_uint("12_345"), Some(12_345));
        assert_eq!(parse_uint("007"), Some(7));
        for s in [
            "",
            "_1",
            "1_",
            "1e6",
            "+1",
            "-1",
            "1.0",
            "18446744073709551616",
            "1__0",
            "1_0",
            "1_00",
            "1_0000",
            "1234_567",
            "1 000",
            "١",
        ] {
            assert_eq!(parse_uint(s), None, "{s}");
        }
        let (key, message) = err_key("n=1e6");
        assert_eq!(key, "workload.n");
        assert!(message.contains("`1e6`") && message.contains("integer"), "{message}");
    }

    #[test]
    fn floats_are_plain_decimals() {
        for (s, v) in [("0.5", 0.5), ("-1", -1.0), (".25", 0.25), ("5.", 5.0), ("1e-3", 1e-3), ("2E+2", 200.0), ("70", 70.0)] {
            assert_eq!(parse_float(s), Some(v), "{s}");
        }
        for s in ["", "nan", "inf", "-inf", "infinity", "+1", "1_0", "1e", "e5", ".", "-", "0x10", "1.2.3", " 1", "1e400", "--1"]
        {
            assert_eq!(parse_float(s), None, "{s}");
        }
        let (key, message) = err_key("n=1__0");
        assert_eq!(key, "workload.n");
        assert!(message.contains("`1__0`"), "{message}");
        let (key, message) = err_key("span=1_0");
        assert_eq!(key, "workload.span");
        assert!(message.contains("fraction"), "{message}");
    }

    #[test]
    fn quoted_input_is_escaped_and_cut() {
        let (key, message) = err_key("rw=\x1b[2J");
        assert_eq!(key, "workload.rw");
        assert!(message.contains("`\\x1b[2J`"), "{message}");
        let long = format!("bs={}", "9".repeat(10_000));
        let (_, message) = err_key(&long);
        assert!(message.len() < 200, "{message}");
        let (key, _) = err_key("\x1b=1");
        assert_eq!(key, "workload.\\x1b");
    }

    #[test]
    fn unknown_key_lists_known_keys() {
        let (key, message) = err_key("rw=read,blocksize=4k");
        assert_eq!(key, "workload.blocksize");
        assert!(message.contains("unknown key") && message.contains("bs, n, iodepth"), "{message}");
        let (key, message) = err_key("randread");
        assert_eq!(key, "workload.randread");
        assert!(message.contains("key=value"), "{message}");
    }

    #[test]
    fn bad_values_name_the_key_and_what_was_expected() {
        assert_errors(&[
            ("rw=random", "workload.rw", "randwrite"),
            ("bs=4x", "workload.bs", "suffixes k, m, g"),
            ("iodepth=-1", "workload.iodepth", "from 0"),
            ("iodepth=4294967296", "workload.iodepth", "from 0"),
            ("span=half", "workload.span", "fraction"),
            ("zipf=nan", "workload.zipf", ">= 0"),
            ("rwmixread=inf", "workload.rwmixread", "percentage"),
            ("seed=x", "workload.seed", "integer"),
            ("contexts=-1", "workload.contexts", "program contexts"),
            ("contexts=4294967296", "workload.contexts", "an integer, 0 = none"),
            ("contexts=8.5", "workload.contexts", "program contexts"),
            ("handles=two", "workload.handles", "placement handles"),
            ("handles=99999999999", "workload.handles", "an integer, 0 = none"),
            ("context_skew=inf", "workload.context_skew", "a number > 0"),
        ]);
    }

    /// Asserts that each spec fails on its key with a message containing the expected text.
    fn assert_errors(cases: &[(&str, &str, &str)]) {
        for &(s, key, expected) in cases {
            let (k, message) = err_key(s);
            assert_eq!(k, key, "{s}");
            assert!(message.contains(expected), "{s}: {message}");
        }
    }

    #[test]
    fn result_is_validated() {
        assert_eq!(err_key("bs=1000").0, "workload.bs");
        assert_eq!(err_key("span=1.5").0, "workload.span");
        assert_eq!(err_key("n=0").0, "workload.n");
        assert_eq!(err_key("iodepth=0").0, "workload.iodepth");
        assert_eq!(err_key("zipf=1.1,hot_fraction=0.8").0, "workload.zipf");
        assert!(spec("iodepth=0,interarrival_us=5").is_ok());
        // In range for their type, out of range for the workload.
        assert_errors(&[
            (
                "contexts=1048577",
                "workload.contexts",
                "value 1048577 is out of range: expected 0 (none) to 1048576 program contexts",
            ),
            ("context_skew=0", "workload.context_skew", "value 0 is out of range: expected a finite number > 0"),
            ("context_skew=-1.5", "workload.context_skew", "value -1.5 is out of range"),
            (
                "handles=65536",
                "workload.handles",
                "value 65536 is out of range: expected 0 (none) to 65535 placement handles (ids 0 to 65534)",
            ),
        ]);
        assert!(spec("contexts=1048576,handles=65535,context_skew=1e-9").is_ok());
    }
}
