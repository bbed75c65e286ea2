//! MQSim's ASCII trace format: one request per line,
//! `arrival_time_ns device_id start_lba_sectors size_sectors type` separated by whitespace,
//! with type 0 = write and 1 = read. The device id is checked but not used: the simulator
//! models one device, and requests of all devices are replayed onto it. An optional sixth
//! field, 0 or 1, is the request's approximate flag (1 = the data may be stored
//! approximately); fields after it are ignored.
//!
//! This is the format of the largest traces, so parsing avoids allocation entirely on
//! well-formed lines.

use super::trace::{parse_u64, quote, LineParser};
use super::{Op, Request};

/// What a line must look like, repeated in every message about a short or long line.
const EXPECTED: &str = "expected 5 fields: time_ns device lba_sectors size_sectors type (0=write, 1=read)";

/// Parses MQSim trace lines; see the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct MqsimParser;

impl LineParser for MqsimParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<Request>, String> {
        parse(line).map(Some)
    }
}

/// Parses one (non-empty, non-comment) line. Fields after the sixth are ignored, as some
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
    let sectors = u32::try_from(sectors)
        .map_err(|_| format!("size_sectors {sectors} is too large (at most {} sectors)", u32::MAX))?;
    if lba.checked_add(sectors as u64).is_none() {
        return Err(format!("lba_sectors {lba} + size_sectors {sectors} overflows"));
    }
    let op = match kind {
        "0" => Op::Write,
        "1" => Op::Read,
        other => return Err(format!("type `{}` is neither 0 (write) nor 1 (read)", quote(other))),
    };
    let approx = match fields.next() {
        None | Some("0") => false,
        Some("1") => true,
        Some(other) => return Err(format!("approximate flag `{}` is neither 0 (precise) nor 1 (approximate)", quote(other))),
    };
    Ok(Request { arrival_ns, lba, sectors, op, approx, context: 0, handle: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::trace::test_util::{assert_bad, read_all};
    use crate::host::TraceFormat::Mqsim;

    #[test]
    fn converts_fields() {
        let (reqs, skipped) =
            read_all(Mqsim, "938513000 4 264719034 16 0\n11413000\t0  657728 64 1 1 extra cols\n", false).unwrap();
        assert_eq!(skipped, 0);
        assert_eq!(
            reqs,
            vec![
                Request { arrival_ns: 938513000, lba: 264719034, sectors: 16, op: Op::Write, approx: false, context: 0, handle: None },
                Request { arrival_ns: 11413000, lba: 657728, sectors: 64, op: Op::Read, approx: true, context: 0, handle: None },
            ]
        );
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
            text.push_str(&format!("{} 1 {} 16 {}\n", i * 1000, i * 16, i & 1));
        }
        let start = std::time::Instant::now();
        let (reqs, _) = read_all(Mqsim, &text, false).unwrap();
        assert_eq!(reqs.len(), 200_000);
        assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    }
}
