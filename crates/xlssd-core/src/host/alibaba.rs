//! The Alibaba Cloud block traces (the 2020 public release, from the virtual disks of an
//! elastic block storage cluster): CSV lines `device_id,opcode,offset,length,timestamp`,
//! e.g. `0,R,126703644672,4096,1577808000000626`.
//!
//! device_id is the virtual disk (an integer); opcode `R` or `W` (either case); offset and
//! length in bytes; timestamp in microseconds since the Unix epoch. Requests are converted
//! to the 512-byte sectors they touch, as MSR's are: a request that is not sector-aligned
//! covers every sector it overlaps. Requests of all virtual disks are replayed onto one
//! device at their own offsets. Fields after the fifth are ignored.
//!
//! The published file has no header line; a line starting with `device_id` (any case) is
//! taken for one and skipped, for copies that added it. The format has no program context
//! or placement handle (the device id names a disk, not a program): its requests carry
//! neither.

use super::trace::{byte_extent, csv_fields, is_digits, parse_u64, quote, read_or_write, starts_with_word, units_to_ns};
use super::Request;

const EXPECTED: &str = "expected 5 comma-separated fields: device_id,opcode,offset,length,timestamp";

/// Nanoseconds per microsecond, the unit of the timestamps.
const NS_PER_US: u64 = 1000;

/// True for a header line (`device_id,opcode,...`).
pub fn is_header(line: &str) -> bool {
    starts_with_word(line, "device_id")
}

/// The shape of an Alibaba line, for format detection: a header, or five or more
/// comma-separated fields, an integer, an `R`/`W` opcode and three integers. The opcode in
/// the second field sets it apart from SPC (an integer there) and MSR (whose fourth field
/// is `Read`/`Write`, not an integer).
pub fn looks_like(line: &str) -> bool {
    if is_header(line) {
        return true;
    }
    let f: Vec<&str> = line.split(',').map(str::trim).collect();
    f.len() >= 5 && is_digits(f[0]) && read_or_write(f[1]).is_some() && f[2..5].iter().all(|s| is_digits(s))
}

/// Parses one line: `Ok(None)` for a header.
pub fn parse(line: &str) -> Result<Option<Request>, String> {
    if is_header(line) {
        return Ok(None);
    }
    let ([device, opcode, offset, length, timestamp], _) = csv_fields::<5>(line, EXPECTED)?;
    parse_u64(device, "device_id")?;
    let op = read_or_write(opcode).ok_or_else(|| format!("opcode `{}` is neither R nor W", quote(opcode)))?;
    let (lba, sectors) = byte_extent(offset, length, "offset", "length")?;
    let arrival_ns = units_to_ns(timestamp, "timestamp", NS_PER_US, "microseconds")?;
    Ok(Some(Request { arrival_ns, lba, sectors, op, approx: false, context: 0, handle: None, tolerance: 0.0 }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::trace::test_util::{assert_bad, plain, read_all, read_rebased};
    use crate::host::Op::{Read, Write};
    use crate::host::TraceFormat::Alibaba;

    /// 2020-01-01 00:00:00 +08:00 in microseconds since the epoch, where the release starts.
    const T0: u64 = 1_577_808_000_000_000;

    #[test]
    fn converts_fields() {
        let text = "\
0,R,126703644672,4096,1577808000000626
17, w , 1000 , 100 , 1577808000001626
3,W,511,2,1577808000002000,extra,cols
4294967295,r,0,1,1577808000002001
";
        let (first, rows) = read_rebased(Alibaba, text);
        assert_eq!(first, 1_577_808_000_000_626_000);
        assert_eq!(
            rows,
            vec![
                // 126703644672 / 512 = 247468056 exactly; 4096 bytes are 8 sectors.
                (0, 247_468_056, 8, Read),
                // 1000 us later. Byte 1000 is 488 bytes into sector 1; 488 + 100 = 588 bytes
                // take 2 sectors.
                (1_000_000, 1, 2, Write),
                // The last byte of sector 0 and the first of sector 1.
                (1_374_000, 0, 2, Write),
                (1_375_000, 0, 1, Read),
            ]
        );
    }

    #[test]
    fn a_header_line_is_skipped() {
        let text = format!("device_id,opcode,offset,length,timestamp\n5,W,4096,8192,{T0}\n");
        assert_eq!(read_all(Alibaba, &text, false).unwrap(), (vec![plain(T0 * 1000, 8, 16, Write)], 0));
    }

    #[test]
    fn malformed_lines_name_line_and_text() {
        let ok = format!("0,R,0,4096,{T0}\n");
        let bad =
            |line: &str, text_part: &str, message: &str| assert_bad(Alibaba, &format!("{ok}{line}\n"), 2, text_part, message);
        bad("0,R,0,4096", "0,R,0,4096", "only 4 fields; expected 5 comma-separated fields: device_id,opcode");
        bad("0 R 0 4096 1", "0 R 0", "only 1 fields");
        bad("x,R,0,4096,1", "x,R", "device_id `x` is not a non-negative integer");
        bad("0,D,0,4096,1", "0,D", "opcode `D` is neither R nor W");
        bad("0,Read,0,4096,1", "Read", "opcode `Read` is neither R nor W");
        bad("0,R,4k,4096,1", "4k", "offset `4k` is not a non-negative integer");
        bad("0,R,-512,4096,1", "-512", "offset `-512` is not a non-negative integer");
        bad("0,R,0,0,1", "0,R,0,0,1", "length is 0 bytes");
        bad("0,R,0,2199023255553,1", "2199023255553", "length 2199023255553 bytes is too large");
        bad("0,R,0,4096,-1577808000000000", "-1577", "timestamp `-1577808000000000` is not a non-negative integer");
        bad("0,R,0,4096,1577808000.5", "1577808000.5", "timestamp `1577808000.5` is not a non-negative integer");
        bad("0,R,0,4096,soon", "soon", "timestamp `soon`");
        bad("0,R,0,4096,18446744073709552", "18446744073709552", "timestamp 18446744073709552 (microseconds) is too large");
    }

    #[test]
    fn skip_bad_lines_counts_them() {
        let text = format!("0,R,0,4096,{T0}\n0,R,0,0,{T0}\nbad\n0,X,0,4096,{T0}\n1,W,8192,4096,{}\n", T0 + 5);
        let (reqs, skipped) = read_all(Alibaba, &text, true).unwrap();
        assert_eq!(reqs, vec![plain(T0 * 1000, 0, 8, Read), plain((T0 + 5) * 1000, 16, 8, Write)]);
        assert_eq!(skipped, 3);
    }

    #[test]
    fn the_shape_is_recognised() {
        assert!(looks_like("123,R,4096,4096,1577808000000000"));
        assert!(looks_like("1, w ,0,1,2,extra"));
        assert!(looks_like("device_id,opcode,offset,length,timestamp"));
        for not in [
            "0,303567,3584,r,0.026214",              // SPC: an integer second field
            "1,h,0,Read,0,512,1",                    // MSR
            "1,R,0,Read,0,512,1",                    // MSR with a host called R
            "1,R,0,4096",                            // too few fields
            "1,R,0,4096,1.5",                        // seconds, not microseconds
            "1487348895.080533,0.000234,W,3,0,4096", // SYSTOR
        ] {
            assert!(!looks_like(not), "{not}");
        }
    }

    #[test]
    fn never_panics_on_arbitrary_text() {
        use proptest::prelude::*;
        proptest!(|(line in "\\PC{0,60}", csv in "[0-9rRwW,\\- ]{0,60}")| {
            let _ = parse(&line);
            let _ = parse(&csv);
        });
    }
}
