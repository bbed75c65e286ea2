//! The default text output of `blkparse`, e.g.
//! `  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kjournald]`:
//! device `maj,min`, cpu, sequence number, time in seconds, pid, action, RWBS flags, then
//! for requests with data `sector + count` and the process name.
//!
//! Every request passes through several actions (Q queued, G get request, I inserted,
//! D issued, C completed, ...); only Q is replayed, as it is the moment the application
//! handed the request to the block layer, before any scheduling the simulated device
//! should do itself. Other actions and the summary blkparse prints at the end (lines not
//! starting with `maj,min`) are ignored. Discards (D), flushes and barriers without data
//! (F, B) and requests without data (N) carry nothing the simulator models and are
//! skipped; a flush with data (`FWFS 8 + 8`) is replayed as the write it carries.
//!
//! blkparse's output has no place for a program context or a placement handle (its fields
//! are fixed, and the process name is not a context), so its requests carry neither:
//! context 0 and no handle.

use super::trace::{is_digits, parse_u64, quote};
use super::{Op, Request};

const EXPECTED: &str = "expected a blkparse event: maj,min cpu seq seconds pid action rwbs sector + count";

/// True if `field` is a device number `maj,min` (both decimal).
pub fn is_device(field: &str) -> bool {
    match field.split_once(',') {
        Some((maj, min)) => is_digits(maj) && is_digits(min),
        None => false,
    }
}

/// Parses one line: `Ok(None)` for lines that are not queued events with data.
pub fn parse(line: &str) -> Result<Option<Request>, String> {
    let mut fields = line.split_ascii_whitespace();
    match fields.next() {
        Some(dev) if is_device(dev) => {}
        _ => return Ok(None), // summary, header or other text around the events
    }
    let mut next = |name: &str| fields.next().ok_or_else(|| format!("missing {name}; {EXPECTED}"));
    let cpu = next("cpu")?;
    let seq = next("sequence number")?;
    let time = next("time")?;
    let pid = next("pid")?;
    let action = next("action")?;
    if action != "Q" {
        return Ok(None);
    }
    let rwbs = next("rwbs")?;
    // The sector and count are absent for requests without data (a flush).
    let sector = fields.next();
    let plus = fields.next();
    let count = fields.next();

    counter(cpu, "cpu")?;
    counter(seq, "sequence number")?;
    counter(pid, "pid")?;
    let arrival_ns = seconds_to_ns(time)?;
    if !rwbs.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(format!("rwbs `{}` is not a set of flags like R, WS, FWFS", quote(rwbs)));
    }
    if rwbs.contains('D') || rwbs.contains('N') {
        return Ok(None);
    }
    let has_data = sector.is_some_and(is_digits);
    if !has_data && (rwbs.contains('F') || rwbs.contains('B')) {
        return Ok(None); // a flush or barrier without data
    }
    let op = if rwbs.contains('R') {
        Op::Read
    } else if rwbs.contains('W') {
        Op::Write
    } else {
        return Err(format!("rwbs `{}` is neither a read (R) nor a write (W)", quote(rwbs)));
    };
    let (sector, count) = match (sector, plus, count) {
        (Some(s), Some("+"), Some(c)) => (s, c),
        _ => return Err(format!("missing `sector + count`; {EXPECTED}")),
    };
    let lba = parse_u64(sector, "sector")?;
    let count = parse_u64(count, "count")?;
    if count == 0 {
        if rwbs.contains('F') || rwbs.contains('B') {
            return Ok(None);
        }
        return Err("count is 0 sectors; a request covers at least one sector".to_string());
    }
    let sectors = u32::try_from(count).map_err(|_| format!("count {count} is too large (at most {} sectors)", u32::MAX))?;
    if lba.checked_add(count).is_none() {
        return Err(format!("sector {lba} + count {count} overflows"));
    }
    Ok(Some(Request { arrival_ns, lba, sectors, op, approx: false, context: 0, handle: None, tolerance: 0.0 }))
}

fn counter(field: &str, name: &str) -> Result<(), String> {
    if is_digits(field) {
        Ok(())
    } else {
        Err(format!("{name} `{}` is not a non-negative integer; {EXPECTED}", quote(field)))
    }
}

/// `seconds.fraction` to ns, exactly (no floating point): `1.5` is 1_500_000_000.
/// Digits beyond nanoseconds are dropped.
pub fn seconds_to_ns(field: &str) -> Result<u64, String> {
    let bad = || format!("time `{}` is not a number of seconds like 0.000123456", quote(field));
    let (int, frac) = field.split_once('.').unwrap_or((field, ""));
    if !is_digits(int) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let secs: u64 = int.parse().map_err(|_| bad())?;
    let mut ns: u64 = 0;
    for i in 0..9 {
        let digit = frac.as_bytes().get(i).map_or(0, |b| (b - b'0') as u64);
        ns = ns * 10 + digit;
    }
    secs.checked_mul(1_000_000_000)
        .and_then(|s| s.checked_add(ns))
        .ok_or_else(|| format!("time `{}` is too large (at most ~584 years)", quote(field)))
}

#[cfg(test)]
// The request tables are laid out one request per line, as the trace lines they come from.
#[rustfmt::skip]
mod tests {
    use super::*;
    use crate::host::trace::test_util::{assert_bad, read_all};
    use crate::error::Error;
    use crate::host::TraceFormat::Blkparse;

    const SAMPLE: &str = "\
  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kjournald]
  8,0    3        2     0.000001234  4162  G  WS 3417048 + 8 [kjournald]
  8,0    3        3     0.000002000  4162  P   N [kjournald]
  8,0    3        4     0.000004000  4162  I  WS 3417048 + 8 [kjournald]
  8,0    3        5     0.000005000  4162  D  WS 3417048 + 8 [kjournald]
  8,0    3        6     0.000006000  4162  U   N [kjournald] 1
  8,0    3        7     0.000007000  4162  M  WS 3417056 + 8 [kjournald]
  8,0    1        8     0.5  200  Q   R 100 + 16 [cat]
  8,16   1        9     2.123456789123  200  Q  RA 7 + 1 [cat process with spaces]
  8,0    0       10     3.000000000  1  Q  FWS [kworker/0:1H]
  8,0    0       11     3.000000000  1  Q  FWFS 500 + 8 [jbd2/sda1-8]
  8,0    0       12     3.000000000  1  Q   D 600 + 8 [fstrim]
  8,0    0       13     3.000000000  1  Q  DS 600 + 8 [fstrim]
  8,0    0       14     3.000000000  1  Q   N 0 + 0 [x]
  8,0    0       15     3.000000000  1  Q  FWS 0 + 0 [kworker/0:1H]
  8,0    3        7     4.000000000  4162  C  WS 3417048 + 8 [0]
CPU0 (8,0):
 Reads Queued:           0,        0KiB\t Writes Queued:           4,       16KiB
 Read Dispatches:        0,        0KiB\t Write Dispatches:        2,       16KiB
Total (8,0):
 Reads Queued:           0,        0KiB\t Writes Queued:           4,       16KiB
Throughput (R/W): 0KiB/s / 5KiB/s
Events (8,0): 34 entries
Skips: 0 forward (0 -   0.0%)
";

    #[test]
    fn only_queued_events_with_data_are_replayed() {
        let (reqs, skipped) = read_all(Blkparse, SAMPLE, false).unwrap();
        assert_eq!(skipped, 0);
        assert_eq!(
            reqs,
            vec![
                Request { arrival_ns: 0, lba: 3417048, sectors: 8, op: Op::Write, approx: false, context: 0, handle: None, tolerance: 0.0 },
                Request { arrival_ns: 500_000_000, lba: 100, sectors: 16, op: Op::Read, approx: false, context: 0, handle: None, tolerance: 0.0 },
                Request { arrival_ns: 2_123_456_789, lba: 7, sectors: 1, op: Op::Read, approx: false, context: 0, handle: None, tolerance: 0.0 },
                Request { arrival_ns: 3_000_000_000, lba: 500, sectors: 8, op: Op::Write, approx: false, context: 0, handle: None, tolerance: 0.0 },
            ]
        );
    }

    #[test]
    fn time_is_converted_exactly() {
        assert_eq!(seconds_to_ns("0.000000001"), Ok(1));
        assert_eq!(seconds_to_ns("12"), Ok(12_000_000_000));
        assert_eq!(seconds_to_ns("12."), Ok(12_000_000_000));
        assert_eq!(seconds_to_ns("1.1"), Ok(1_100_000_000));
        assert_eq!(seconds_to_ns("4.123456789999"), Ok(4_123_456_789));
        assert_eq!(seconds_to_ns("18446744073.709551615"), Ok(u64::MAX));
        for bad in ["", ".5", "1.-5", "-1.0", "1e3", "1.2.3", "18446744074.0", "99999999999999999999.0"] {
            assert!(seconds_to_ns(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn malformed_event_lines_are_errors() {
        let ok = "8,0 0 1 0.1 1 Q W 0 + 8 [a]\n";
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 0.1\n"), 2, "8,0 0 2 0.1", "missing pid");
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 x 1 Q W 0 + 8 [a]\n"), 2, "x 1 Q", "time `x`");
        assert_bad(Blkparse, &format!("{ok}8,0 z 2 0.1 1 Q W 0 + 8 [a]\n"), 2, "8,0 z", "cpu `z`");
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 0.1 1 Q W 0 - 8 [a]\n"), 2, "0 - 8", "missing `sector + count`");
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 0.1 1 Q W 0 +\n"), 2, "0 +", "missing `sector + count`");
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 0.1 1 Q W [a]\n"), 2, "Q W [a]", "missing `sector + count`");
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 0.1 1 Q W 0 + y [a]\n"), 2, "+ y", "count `y`");
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 0.1 1 Q W 0 + 0 [a]\n"), 2, "+ 0", "count is 0");
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 0.1 1 Q S 0 + 8 [a]\n"), 2, "Q S", "neither a read");
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 0.1 1 Q w 0 + 8 [a]\n"), 2, "Q w", "rwbs `w`");
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 0.1 1 Q W 0 + 4294967296 [a]\n"), 2, "4294967296", "too large");
        assert_bad(Blkparse, &format!("{ok}8,0 0 2 0.1 1 Q\n"), 2, "8,0 0 2 0.1 1 Q", "missing rwbs");
    }

    #[test]
    fn non_event_lines_and_other_actions_are_not_checked() {
        let text = "8,0 0 1 0.1 1 C W garbage\n8,0 0 1 zz 1 X\nhello world\n1 2 3 4 5\n";
        let (reqs, skipped) = read_all(Blkparse, &format!("{text}8,0 0 1 0.1 1 Q W 0 + 8 [a]\n"), false).unwrap();
        assert_eq!((reqs.len(), skipped), (1, 0));
        // Without a queued event there is nothing to replay.
        match read_all(Blkparse, text, false) {
            Err(Error::Io { message, .. }) => assert!(message.contains("no requests"), "{message}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn skip_bad_lines_counts_them() {
        let text = "8,0 0 1 0.1 1 Q W 0 + 8 [a]\n8,0 0 2 0.1 1 Q W 0 + 0 [a]\n8,0 0 3 0.2 1 Q R 8 + 8 [a]\n";
        let (reqs, skipped) = read_all(Blkparse, text, true).unwrap();
        assert_eq!((reqs.len(), skipped), (2, 1));
    }

    #[test]
    fn never_panics_on_arbitrary_text() {
        use proptest::prelude::*;
        proptest!(|(rest in "\\PC{0,60}", time in "[0-9.]{0,25}")| {
            let _ = parse(&format!("8,0 1 2 {time} 3 Q {rest}"));
            let _ = parse(&rest);
            let _ = seconds_to_ns(&time);
        });
    }
}
