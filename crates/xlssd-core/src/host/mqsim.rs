//! MQSim's ASCII trace format: one request per line,
//! `arrival_time_ns device_id start_lba_sectors size_sectors type [approx [context [handle]]]`
//! separated by whitespace, with type 0 = write and 1 = read. The device id is checked but
//! not used: the simulator models one device, and requests of all devices are replayed onto
//! it. Three optional fields follow, each needing the ones before it:
//!
//! - the sixth, 0 or 1, is the request's approximate flag (1 = the data may be stored
//!   approximately);
//! - the seventh is the program context that issued the request, an integer from 0 to
//!   2^32 - 1 (0 or `-` = none);
//! - the eighth is the request's placement handle, 0 to 65534
//!   ([`MAX_HANDLE`](super::MAX_HANDLE); `-` = none).
//!
//! Of the fields after the eighth, one of the form `ap_ber=X` is the bit error rate the
//! application tolerates in the data it reads (seed 002's AP_BER, a number in [0, 0.5]);
//! the others are ignored.
//!
//! This is the format of the largest traces, so parsing avoids allocation entirely on
//! well-formed lines.

use super::trace::{parse_context, parse_handle, parse_u64, quote};
use super::{Op, Request};

/// What a line must look like, repeated in every message about a short or long line.
const EXPECTED: &str =
    "expected 5 fields: time_ns device lba_sectors size_sectors type (0=write, 1=read), then optionally approx, context, handle";

/// Parses one (non-empty, non-comment) line. Fields after the eighth are ignored, as some
/// tools append columns of their own.
pub fn parse(line: &str) -> Result<Request, String> {
    let mut fields = line.split_ascii_whitespace();
    let mut next = |name: &str| fields.next().ok_or_else(|| format!("missing {name}; {EXPECTED}"));
    let time = next("time_ns")?;
    let device = next("device")?;
    let lba = next("lba_sectors")?;
    let size = next("size_sectors")?;
    let kind = next("type")?;

    let arrival_ns = parse_u64(time, "time_ns")?;
    parse_u64(device, "device")?;
    let lba = parse_u64(lba, "lba_sectors")?;
    let sectors = parse_u64(size, "size_sectors")?;
    if sectors == 0 {
        return Err("size_sectors is 0; a request covers at least one sector".to_string());
    }
    let sectors =
        u32::try_from(sectors).map_err(|_| format!("size_sectors {sectors} is too large (at most {} sectors)", u32::MAX))?;
    if lba.checked_add(sectors as u64).is_none() {
        return Err(format!("lba_sectors {lba} + size_sectors {sectors} overflows"));
    }
    let op = match kind {
        "0" => Op::Write,
        "1" => Op::Read,
        other => return Err(format!("type `{}` is neither 0 (write) nor 1 (read)", quote(other))),
    };
    let request = Request { arrival_ns, lba, sectors, op, approx: false, context: 0, handle: None, tolerance: 0.0 };
    // Most traces stop at the fifth field: the optional ones are read apart.
    match fields.next() {
        None => Ok(request),
        Some(flag) => optional_fields(request, flag, fields),
    }
}

/// The approximate flag, the program context and the placement handle after the fifth
/// field.
#[inline(never)]
fn optional_fields<'a>(mut r: Request, flag: &str, mut fields: impl Iterator<Item = &'a str>) -> Result<Request, String> {
    r.approx = match flag {
        "0" => false,
        "1" => true,
        other => return Err(format!("approximate flag `{}` is neither 0 (precise) nor 1 (approximate)", quote(other))),
    };
    if let Some(f) = fields.next() {
        r.context = parse_context(f, "context")?;
    }
    if let Some(f) = fields.next() {
        r.handle = parse_handle(f, "handle")?;
    }
    for f in fields {
        if let Some(value) = f.strip_prefix(AP_BER) {
            r.tolerance = parse_tolerance(value)?;
        }
    }
    Ok(r)
}

/// The prefix of the field giving a request's tolerated bit error rate.
pub const AP_BER: &str = "ap_ber=";

fn parse_tolerance(value: &str) -> Result<f32, String> {
    match value.parse::<f32>() {
        Ok(x) if (0.0..=0.5).contains(&x) => Ok(x),
        _ => Err(format!("{AP_BER}`{}` is not a bit error rate: expected a number in [0, 0.5]", quote(value))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::trace::test_util::{assert_bad, read_all};
    use crate::host::TraceFormat::Mqsim;

    #[test]
    fn converts_fields() {
        let text = "938513000 4 264719034 16 0\n\
                    11413000\t0  657728 64 1 1\n\
                    5 0 8 8 0 0 4294967295\n\
                    6 0 8 8 0 1 17 65534 extra cols\n\
                    7 0 8 8 0 0 - 0\n\
                    8 0 8 8 1 0 3 -\n\
                    9 0 8 8 1 0 0 - tool-col ap_ber=0.011\n";
        let (reqs, skipped) = read_all(Mqsim, text, false).unwrap();
        assert_eq!(skipped, 0);
        let req = |arrival_ns, lba, sectors, op, approx, context, handle| Request {
            arrival_ns,
            lba,
            sectors,
            op,
            approx,
            context,
            handle,
            tolerance: 0.0,
        };
        assert_eq!(
            reqs,
            vec![
                req(938513000, 264719034, 16, Op::Write, false, 0, None),
                req(11413000, 657728, 64, Op::Read, true, 0, None),
                req(5, 8, 8, Op::Write, false, u32::MAX, None),
                req(6, 8, 8, Op::Write, true, 17, Some(65534)),
                req(7, 8, 8, Op::Write, false, 0, Some(0)),
                req(8, 8, 8, Op::Read, false, 3, None),
                Request { tolerance: 0.011, ..req(9, 8, 8, Op::Read, false, 0, None) },
            ]
        );
    }

    #[test]
    fn written_lines_read_back_as_the_same_requests() {
        // A line as a tool writing this format would write each request, all eight fields.
        let write = |r: &Request| {
            let handle = r.handle.map_or("-".to_string(), |h| h.to_string());
            let kind = if r.op == Op::Write { 0 } else { 1 };
            format!("{} 0 {} {} {kind} {} {} {handle}\n", r.arrival_ns, r.lba, r.sectors, u8::from(r.approx), r.context)
        };
        let mut reqs = Vec::new();
        for i in 0..500u64 {
            let op = if i % 3 == 0 { Op::Read } else { Op::Write };
            let context = [0, 1, 77, u32::MAX][i as usize % 4];
            let handle = [None, Some(0), Some(9), Some(crate::host::MAX_HANDLE)][i as usize / 4 % 4];
            reqs.push(Request {
                arrival_ns: i * 1000,
                lba: i * 8,
                sectors: 8,
                op,
                approx: i % 5 == 0,
                context,
                handle,
                tolerance: 0.0,
            });
        }
        let text: String = reqs.iter().map(write).collect();
        assert_eq!(read_all(Mqsim, &text, false).unwrap(), (reqs, 0));
    }

    #[test]
    fn malformed_lines_name_line_and_text() {
        let ok = "1 0 0 8 0\n";
        assert_bad(Mqsim, &format!("{ok}# c\n1 0 0 8\n"), 3, "1 0 0 8", "expected 5 fields");
        assert_bad(Mqsim, &format!("{ok}  x 0 0 8 0  \n"), 2, "x 0 0 8 0", "time_ns `x`");
        assert_bad(Mqsim, &format!("{ok}1 d 0 8 0\n"), 2, "1 d 0 8 0", "device `d`");
        assert_bad(Mqsim, &format!("{ok}1 0 -5 8 0\n"), 2, "-5", "lba_sectors `-5`");
        assert_bad(Mqsim, &format!("{ok}1 0 +5 8 0\n"), 2, "+5", "lba_sectors `+5`");
        assert_bad(Mqsim, &format!("{ok}1 0 5 8.5 0\n"), 2, "8.5", "size_sectors `8.5`");
        assert_bad(Mqsim, &format!("{ok}1 0 5 0 0\n"), 2, "1 0 5 0 0", "size_sectors is 0");
        assert_bad(Mqsim, &format!("{ok}1 0 5 4294967296 0\n"), 2, "4294967296", "too large");
        assert_bad(Mqsim, &format!("{ok}99999999999999999999 0 5 8 0\n"), 2, "9999", "too large");
        assert_bad(Mqsim, &format!("{ok}1 0 18446744073709551615 8 0\n"), 2, "1844", "overflows");
        assert_bad(Mqsim, &format!("{ok}1 0 5 8 2\n"), 2, "1 0 5 8 2", "type `2`");
        assert_bad(Mqsim, &format!("{ok}1 0 5 8 R\n"), 2, "R", "neither 0 (write) nor 1 (read)");
        assert_bad(Mqsim, &format!("{ok}1,0,5,8,1\n"), 2, "1,0,5,8,1", "expected 5 fields");
        assert_bad(Mqsim, &format!("{ok}1 0 5 8 1 yes\n"), 2, "yes", "approximate flag `yes`");
        assert_bad(Mqsim, &format!("{ok}1 0 5 8 0 0 ctx\n"), 2, "1 0 5 8 0 0 ctx", "context `ctx` is not a non-negative integer");
        assert_bad(Mqsim, &format!("{ok}1 0 5 8 0 0 -3\n"), 2, "-3", "context `-3` is not a non-negative integer");
        assert_bad(
            Mqsim,
            &format!("{ok}1 0 5 8 0 0 4294967296\n"),
            2,
            "4294967296",
            "context `4294967296` is too large (at most 4294967295)",
        );
        assert_bad(
            Mqsim,
            &format!("{ok}1 0 5 8 0 0 7 65535\n"),
            2,
            "7 65535",
            "handle `65535` is not a placement handle: expected 0 to 65534",
        );
        assert_bad(Mqsim, &format!("{ok}1 0 5 8 0 0 7 h1\n"), 2, "7 h1", "handle `h1` is not a placement handle");
        assert_bad(
            Mqsim,
            &format!("{ok}1 0 5 8 0 0 7 99999999999999999999\n"),
            2,
            "9999",
            "handle `99999999999999999999` is not",
        );
        assert_bad(Mqsim, &format!("{ok}1 0 5 8 1 0 0 - ap_ber=0.6\n"), 2, "ap_ber=0.6", "ap_ber=`0.6` is not a bit error rate");
        assert_bad(Mqsim, &format!("{ok}1 0 5 8 1 0 0 - ap_ber=x\n"), 2, "ap_ber=x", "ap_ber=`x` is not a bit error rate");
        assert_bad(Mqsim, &format!("{ok}1 0 5 8 1 0 0 - ap_ber=NaN\n"), 2, "NaN", "expected a number in [0, 0.5]");
        // A context without the approximate flag before it is read as that flag.
        assert_bad(Mqsim, &format!("{ok}1 0 5 8 0 12\n"), 2, "12", "approximate flag `12`");
    }

    #[test]
    fn skip_bad_lines_counts_them() {
        let text = "1 0 0 8 0\nx\n2 0 8 8 1\n3 0 8 0 1\n4 0 8 8 7\n5 0 8 8 1\n";
        let (reqs, skipped) = read_all(Mqsim, text, true).unwrap();
        assert_eq!(reqs.iter().map(|r| r.arrival_ns).collect::<Vec<_>>(), vec![1, 2, 5]);
        assert_eq!(skipped, 3);
    }

    #[test]
    fn shared_example_traces_parse() {
        for name in ["tpcc-small.trace", "wsrch-small.trace"] {
            let path = format!("/work/shared/traces/{name}");
            if !std::path::Path::new(&path).exists() {
                continue; // the shared traces are not part of every checkout
            }
            let mut src = crate::host::trace::open_trace(&path, None, false).unwrap();
            let mut n = 0u64;
            while let Some(r) = src.next_request().unwrap() {
                assert!(r.sectors >= 1);
                n += 1;
            }
            assert!(n > 1000, "{name}: {n}");
        }
    }

    #[test]
    fn never_panics_on_arbitrary_text() {
        use proptest::prelude::*;
        proptest!(|(line in "\\PC{0,60}")| {
            let _ = parse(&line);
            let _ = read_all(Mqsim, &line, false);
        });
    }

    #[test]
    fn parsing_speed_smoke() {
        // Not a benchmark: guards against accidental per-line allocation or quadratic
        // behaviour (a million lines should take well under a second even unoptimised).
        let mut text = String::new();
        for i in 0..200_000u64 {
            text.push_str(&format!("{} 1 {} 16 {}", i * 1000, i * 16, i & 1));
            // Half the lines with every optional field.
            text.push_str(if i % 2 == 0 { "\n" } else { " 0 42 3\n" });
        }
        let start = std::time::Instant::now();
        let (reqs, _) = read_all(Mqsim, &text, false).unwrap();
        assert_eq!(reqs.len(), 200_000);
        assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    }
}
