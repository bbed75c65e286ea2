//! The SYSTOR '17 block traces (SNIA IOTTA, LUN traces of an enterprise virtual desktop
//! infrastructure): CSV with the header `Timestamp,Response,IOType,LUN,Offset,Size`, e.g.
//! `1487348895.080533,0.000234,R,3,7415377920,4096`.
//!
//! Timestamp is in seconds since the Unix epoch with a decimal fraction, converted exactly
//! as blkparse and SPC times are; Response is the response time the traced system saw, not
//! used (the simulator produces its own), and may be empty; IOType `R` or `W` (either
//! case); LUN an integer; Offset and Size in bytes, converted to the 512-byte sectors they
//! touch as MSR's are. Requests of all LUNs are replayed onto one device at their own
//! offsets. Fields after the sixth are ignored.
//!
//! Any line starting with `Timestamp` (any case) is a header and is skipped, wherever it
//! occurs: the release splits its traces over many files, and files joined with `cat` keep
//! every header. The format has no program context or placement handle (a LUN names a
//! volume, not a program): its requests carry neither.

use super::blkparse::seconds_to_ns;
use super::trace::{byte_extent, csv_fields, is_decimal, is_digits, parse_u64, quote, read_or_write, starts_with_word};
use super::Request;

const EXPECTED: &str = "expected 6 comma-separated fields: Timestamp,Response,IOType,LUN,Offset,Size";

/// True for a header line, as the parser skips it.
pub fn is_header(line: &str) -> bool {
    starts_with_word(line, "timestamp")
}

/// The shape of a SYSTOR line, for format detection: the format's own header (its first
/// two columns `Timestamp,Response`; MSR's header also starts with `Timestamp`), or six or
/// more comma-separated fields with a decimal timestamp, an `R`/`W` third field and three
/// integers after it. The response time is not looked at, as the parser does not read it.
/// An operation in the third field sets the lines apart from SPC's (an integer there),
/// Alibaba's (an operation in the second) and MSR's (`Read`/`Write` in the fourth).
pub fn looks_like(line: &str) -> bool {
    let f: Vec<&str> = line.split(',').map(str::trim).collect();
    if f.len() >= 2 && f[0].eq_ignore_ascii_case("timestamp") && f[1].eq_ignore_ascii_case("response") {
        return true;
    }
    f.len() >= 6 && is_decimal(f[0]) && read_or_write(f[2]).is_some() && f[3..6].iter().all(|s| is_digits(s))
}

/// Parses one line: `Ok(None)` for a header.
pub fn parse(line: &str) -> Result<Option<Request>, String> {
    if is_header(line) {
        return Ok(None);
    }
    let ([timestamp, _response, io_type, lun, offset, size], _) = csv_fields::<6>(line, EXPECTED)?;
    let arrival_ns = seconds_to_ns(timestamp).map_err(|m| format!("Timestamp: {m}"))?;
    let op = read_or_write(io_type).ok_or_else(|| format!("IOType `{}` is neither R nor W", quote(io_type)))?;
    parse_u64(lun, "LUN")?;
    let (lba, sectors) = byte_extent(offset, size, "Offset", "Size")?;
    Ok(Some(Request { arrival_ns, lba, sectors, op, approx: false, context: 0, handle: None, tolerance: 0.0 }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::trace::test_util::{assert_bad, plain, read_all, read_rebased};
    use crate::host::Op::{Read, Write};
    use crate::host::TraceFormat::Systor;

    const HEADER: &str = "Timestamp,Response,IOType,LUN,Offset,Size\n";

    #[test]
    fn converts_fields() {
        let text = format!(
            "{HEADER}1487348895.080533,0.000234,R,3,7415377920,4096\n\
             1487348895.090533,,w,0,1000,100\n\
             1487348895.1 , 0.5 , W , 12 , 511 , 2 ,extra\n\
             1487348896,0.000001,r,1,4096,8192\n\
             1487348895.0805331239,,R,1,0,1\n"
        );
        let (first, rows) = read_rebased(Systor, &text);
        assert_eq!(first, 1_487_348_895_080_533_000);
        assert_eq!(
            rows,
            vec![
                // 7415377920 / 512 = 14483160 exactly; 4096 bytes are 8 sectors.
                (0, 14_483_160, 8, Read),
                // 10 ms later, without a response time. Byte 1000 is 488 bytes into sector
                // 1; 588 bytes take 2 sectors.
                (10_000_000, 1, 2, Write),
                // .1 s is 19.467 ms after .080533 s. The last byte of sector 0 and the
                // first of sector 1.
                (19_467_000, 0, 2, Write),
                (919_467_000, 8, 16, Read),
                // Digits beyond the nanosecond are dropped: 123 ns after the first.
                (123, 0, 1, Read),
            ]
        );
    }

    #[test]
    fn headers_are_skipped_wherever_they_are() {
        let text = format!("{HEADER}1.5,,W,0,0,512\n{HEADER}2,,R,0,512,512\n");
        assert_eq!(
            read_all(Systor, &text, false).unwrap(),
            (vec![plain(1_500_000_000, 0, 1, Write), plain(2_000_000_000, 1, 1, Read)], 0)
        );
        // The header is optional.
        assert_eq!(read_all(Systor, "3,,R,0,0,512\n", false).unwrap(), (vec![plain(3_000_000_000, 0, 1, Read)], 0));
    }

    #[test]
    fn malformed_lines_name_line_and_text() {
        let ok = format!("{HEADER}1487348895.080533,0.000234,R,3,0,4096\n");
        let bad =
            |line: &str, text_part: &str, message: &str| assert_bad(Systor, &format!("{ok}{line}\n"), 3, text_part, message);
        bad(
            "1487348895.1,0.1,R,3,0",
            "1487348895.1,0.1,R,3,0",
            "only 5 fields; expected 6 comma-separated fields: Timestamp,Response",
        );
        bad("1487348895.1 0.1 R 3 0 4096", "0.1 R", "only 1 fields");
        bad("-1487348895.1,0.1,R,3,0,4096", "-1487348895.1", "Timestamp: time `-1487348895.1` is not a number of seconds");
        bad("1487348895.1.2,0.1,R,3,0,4096", "1487348895.1.2", "Timestamp: time `1487348895.1.2`");
        bad("1.48e9,0.1,R,3,0,4096", "1.48e9", "Timestamp: time `1.48e9`");
        bad("99999999999,0.1,R,3,0,4096", "99999999999", "Timestamp: time `99999999999` is too large");
        bad(",0.1,R,3,0,4096", ",0.1,R", "Timestamp: time `` is not a number");
        bad("1487348895.1,0.1,T,3,0,4096", "T,3", "IOType `T` is neither R nor W");
        bad("1487348895.1,0.1,Read,3,0,4096", "Read", "IOType `Read` is neither R nor W");
        bad("1487348895.1,0.1,R,lun3,0,4096", "lun3", "LUN `lun3` is not a non-negative integer");
        bad("1487348895.1,0.1,R,3,0x1000,4096", "0x1000", "Offset `0x1000` is not a non-negative integer");
        bad("1487348895.1,0.1,R,3,0,4096.0", "4096.0", "Size `4096.0` is not a non-negative integer");
        bad("1487348895.1,0.1,R,3,0,0", "R,3,0,0", "Size is 0 bytes");
        bad("1487348895.1,0.1,R,3,0,2199023255553", "2199023255553", "Size 2199023255553 bytes is too large");
    }

    #[test]
    fn skip_bad_lines_counts_them() {
        let text = format!("{HEADER}1.0,,R,0,0,4096\n1.1,,R,0,0,0\n2.0,,X,0,0,4096\nnot a line\n2.5,,W,0,8192,4096\n");
        let (reqs, skipped) = read_all(Systor, &text, true).unwrap();
        assert_eq!(reqs, vec![plain(1_000_000_000, 0, 8, Read), plain(2_500_000_000, 16, 8, Write)]);
        assert_eq!(skipped, 3);
    }

    #[test]
    fn the_shape_is_recognised() {
        assert!(looks_like("Timestamp,Response,IOType,LUN,Offset,Size"));
        assert!(looks_like("timestamp , response"));
        assert!(looks_like("1487348895.080533,0.000234,R,3,7415377920,4096"));
        assert!(looks_like("1487348895,,w,0,0,512,extra"));
        for not in [
            "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime", // MSR's header
            "128166372003061629,wdev,0,Read,1054081024,4096,1331",         // MSR
            "0,303567,3584,r,0.026214",                                    // SPC
            "123,R,4096,4096,1577808000000000",                            // Alibaba
            "1487348895.080533,0.000234,R,3,7415377920",                   // too few fields
            "1487348895.080533,0.000234,D,3,7415377920,4096",              // not a read or write
        ] {
            assert!(!looks_like(not), "{not}");
        }
    }

    #[test]
    fn never_panics_on_arbitrary_text() {
        use proptest::prelude::*;
        proptest!(|(line in "\\PC{0,60}", csv in "[0-9.rRwW,\\- ]{0,60}")| {
            let _ = parse(&line);
            let _ = parse(&csv);
        });
    }
}
