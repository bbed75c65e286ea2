//! The MSR Cambridge block traces (SNIA IOTTA): CSV lines
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, optionally followed by
//! `Context,Handle`.
//!
//! Timestamp is in Windows filetime ticks (100 ns), Offset and Size in bytes. Requests are
//! converted to the 512-byte sectors they touch: a request that is not sector-aligned
//! covers every sector it overlaps, as a device would have to serve it. Hostname, disk
//! number and response time are not used: requests of all disks are replayed onto one
//! device.
//!
//! The published traces have seven fields. An eighth, if present, is the program context
//! that issued the request (an integer from 0 to 2^32 - 1), and a ninth its placement
//! handle (0 to 65534, [`MAX_HANDLE`](super::MAX_HANDLE)); either may be empty or `-` for
//! none. Fields after the ninth are ignored.

use super::trace::{byte_extent, csv_fields, parse_context, parse_handle, quote, starts_with_word, units_to_ns};
use super::{Op, Request};

const EXPECTED: &str = "expected 7 comma-separated fields: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime, \
                        then optionally Context,Handle";

/// Nanoseconds per Windows tick.
const NS_PER_TICK: u64 = 100;

/// True for the optional header line (`Timestamp,Hostname,...`).
pub fn is_header(line: &str) -> bool {
    starts_with_word(line, "timestamp")
}

/// Parses one line: `Ok(None)` for the header. Fields after the ninth are ignored.
pub fn parse(line: &str) -> Result<Option<Request>, String> {
    if is_header(line) {
        return Ok(None);
    }
    let ([timestamp, _host, _disk, kind, offset, size, _response], mut fields) = csv_fields::<7>(line, EXPECTED)?;
    let arrival_ns = units_to_ns(timestamp, "Timestamp", NS_PER_TICK, "100 ns ticks")?;
    let op = if kind.eq_ignore_ascii_case("read") {
        Op::Read
    } else if kind.eq_ignore_ascii_case("write") {
        Op::Write
    } else {
        return Err(format!("Type `{}` is neither Read nor Write", quote(kind)));
    };
    let (lba, sectors) = byte_extent(offset, size, "Offset", "Size")?;
    let context = fields.next().map_or(Ok(0), |f| parse_context(f, "Context"))?;
    let handle = fields.next().map_or(Ok(None), |f| parse_handle(f, "Handle"))?;
    Ok(Some(Request { arrival_ns, lba, sectors, op, approx: false, context, handle, tolerance: 0.0 }))
}

#[cfg(test)]
// The request tables are laid out one request per line, as the trace lines they come from.
#[rustfmt::skip]
mod tests {
    use super::*;
    use crate::host::trace::test_util::{assert_bad, read_all};
    use crate::host::TraceFormat::Msr;

    const HEADER: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n";

    #[test]
    fn converts_fields() {
        let text = format!(
            "{HEADER}128166372003061629,wdev,0,Read,1054081024,4096,1331\n\
             128166372016382155, hm , 1 , write , 1000 , 100 , 5\n\
             5,h,0,WRITE,511,2,7\n\
             7,h,0,Read,0,1,7\n\
             8,h,0,Write,0,512,7,4294967295\n\
             9,h,0,Write,0,512,7, 12 , 65534 ,extra,cols\n\
             10,h,0,Write,0,512,7,-,0\n\
             11,h,0,Write,0,512,7,,-\n\
             12,h,0,Read,0,512,7,5,\n"
        );
        let (reqs, skipped) = read_all(Msr, &text, false).unwrap();
        assert_eq!(skipped, 0);
        assert_eq!(
            reqs,
            vec![
                Request { arrival_ns: 12816637200306162900, lba: 1054081024 / 512, sectors: 8, op: Op::Read, approx: false, context: 0, handle: None, tolerance: 0.0 },
                // 1000 = sector 1 + 488 bytes; 488 + 100 = 588 bytes -> 2 sectors.
                Request { arrival_ns: 12816637201638215500, lba: 1, sectors: 2, op: Op::Write, approx: false, context: 0, handle: None, tolerance: 0.0 },
                // The last byte of sector 0 and the first of sector 1.
                Request { arrival_ns: 500, lba: 0, sectors: 2, op: Op::Write, approx: false, context: 0, handle: None, tolerance: 0.0 },
                Request { arrival_ns: 700, lba: 0, sectors: 1, op: Op::Read, approx: false, context: 0, handle: None, tolerance: 0.0 },
                Request { arrival_ns: 800, lba: 0, sectors: 1, op: Op::Write, approx: false, context: u32::MAX, handle: None, tolerance: 0.0 },
                Request { arrival_ns: 900, lba: 0, sectors: 1, op: Op::Write, approx: false, context: 12, handle: Some(65534), tolerance: 0.0 },
                Request { arrival_ns: 1000, lba: 0, sectors: 1, op: Op::Write, approx: false, context: 0, handle: Some(0), tolerance: 0.0 },
                Request { arrival_ns: 1100, lba: 0, sectors: 1, op: Op::Write, approx: false, context: 0, handle: None, tolerance: 0.0 },
                Request { arrival_ns: 1200, lba: 0, sectors: 1, op: Op::Read, approx: false, context: 5, handle: None, tolerance: 0.0 },
            ]
        );
    }

    #[test]
    fn written_lines_read_back_as_the_same_requests() {
        // A line as a tool writing the extended format would write each request (sector
        // offsets and sizes, so that the conversion to sectors is exact).
        let write = |r: &Request| {
            let (context, handle) = (r.context.to_string(), r.handle.map_or(String::new(), |h| h.to_string()));
            let kind = if r.op == Op::Write { "Write" } else { "Read" };
            format!("{},h,0,{kind},{},{},0,{context},{handle}\n", r.arrival_ns / 100, r.lba * 512, r.sectors as u64 * 512)
        };
        let mut reqs = Vec::new();
        for i in 0..500u64 {
            let op = if i % 3 == 0 { Op::Read } else { Op::Write };
            let context = [0, 1, 77, u32::MAX][i as usize % 4];
            let handle = [None, Some(0), Some(9), Some(crate::host::MAX_HANDLE)][i as usize / 4 % 4];
            reqs.push(Request { arrival_ns: i * 1000, lba: i * 8, sectors: 8, op, approx: false, context, handle, tolerance: 0.0 });
        }
        let text: String = std::iter::once(HEADER.replace("\n", ",Context,Handle\n")).chain(reqs.iter().map(write)).collect();
        assert_eq!(read_all(Msr, &text, false).unwrap(), (reqs, 0));
    }

    #[test]
    fn header_is_optional() {
        let (reqs, _) = read_all(Msr, "1,h,0,Read,512,512,1\n", false).unwrap();
        assert_eq!(reqs, vec![Request { arrival_ns: 100, lba: 1, sectors: 1, op: Op::Read, approx: false, context: 0, handle: None, tolerance: 0.0 }]);
    }

    #[test]
    fn malformed_lines_name_line_and_text() {
        let ok = format!("{HEADER}1,h,0,Read,0,512,1\n");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,0,512\n"), 3, "1,h,0,Read,0,512", "only 6 fields");
        assert_bad(Msr, &format!("{ok}1 h 0 Read 0 512 1\n"), 3, "1 h 0 Read", "only 1 fields; expected 7");
        assert_bad(Msr, &format!("{ok}t,h,0,Read,0,512,1\n"), 3, "t,h", "Timestamp `t`");
        assert_bad(Msr, &format!("{ok}184467440737095517,h,0,Read,0,512,1\n"), 3, "1844", "too large to express");
        assert_bad(Msr, &format!("{ok}1,h,0,Trim,0,512,1\n"), 3, "Trim", "Type `Trim` is neither Read nor Write");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,-1,512,1\n"), 3, "-1", "Offset `-1`");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,0,4k,1\n"), 3, "4k", "Size `4k`");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,0,0,1\n"), 3, "1,h,0,Read,0,0,1", "Size is 0");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,0,2199023255553,1\n"), 3, "2199023255553", "too large");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,0,512,1,extra\n"), 3, "1,h,0,Read,0,512,1,extra", "Context `extra` is not a non-negative integer");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,0,512,1,1.5\n"), 3, "1.5", "Context `1.5` is not a non-negative integer");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,0,512,1,4294967296\n"), 3, "4294967296", "Context `4294967296` is too large");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,0,512,1,3,65535\n"), 3, "3,65535", "Handle `65535` is not a placement handle: expected 0 to 65534");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,0,512,1,3,none\n"), 3, "3,none", "Handle `none` is not a placement handle");
        assert_bad(Msr, &format!("{ok}1,h,0,Read,0,512,1,3,+2\n"), 3, "+2", "Handle `+2` is not");
    }

    #[test]
    fn skip_bad_lines_counts_them() {
        let text = format!("{HEADER}1,h,0,Read,0,512,1\n1,h,0,Read,0,0,1\nbad\n2,h,0,Write,0,512,1\n");
        let (reqs, skipped) = read_all(Msr, &text, true).unwrap();
        assert_eq!(reqs.len(), 2);
        assert_eq!(skipped, 2);
    }

    #[test]
    fn never_panics_on_arbitrary_text() {
        use proptest::prelude::*;
        proptest!(|(line in "\\PC{0,60}", csv in "[0-9a-zA-Z,\\- ]{0,60}")| {
            let _ = parse(&line);
            let _ = parse(&csv);
        });
    }
}
