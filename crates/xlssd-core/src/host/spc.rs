//! The SPC trace format of the UMass Trace Repository, in which the public Financial and
//! WebSearch traces are distributed: CSV lines `ASU,LBA,Size,Opcode,Timestamp`, e.g.
//! `0,303567,3584,r,0.026214`.
//!
//! ASU is the application-specific unit (an integer, like a disk number); LBA is in
//! 512-byte blocks; Size in bytes; Opcode `r` or `w` (either case); Timestamp in seconds
//! from the start of the trace, with a decimal fraction. Requests of all ASUs are replayed
//! onto one device at their own LBAs. A size that is not a multiple of 512 covers the
//! sectors it overlaps. Fields after the fifth are ignored (some copies carry more).
//!
//! The format has no program context or placement handle (the ASU names a storage unit,
//! not a program), so its requests carry neither: context 0 and no handle.

use super::blkparse::seconds_to_ns;
use super::trace::{csv_fields, is_decimal, is_digits, parse_u64, quote, read_or_write, sectors_covering};
use super::Request;

const EXPECTED: &str = "expected 5 comma-separated fields: ASU,LBA,Size,Opcode,Timestamp";

/// The shape of an SPC line, for format detection: five or more comma-separated fields,
/// the first three integers, an `r`/`w` opcode and a decimal timestamp.
pub fn looks_like(line: &str) -> bool {
    let f: Vec<&str> = line.split(',').map(str::trim).collect();
    f.len() >= 5 && f[..3].iter().all(|s| is_digits(s)) && read_or_write(f[3]).is_some() && is_decimal(f[4])
}

/// Parses one line.
pub fn parse(line: &str) -> Result<Option<Request>, String> {
    let ([asu, lba, size, opcode, timestamp], _) = csv_fields::<5>(line, EXPECTED)?;
    parse_u64(asu, "ASU")?;
    let lba = parse_u64(lba, "LBA")?;
    let size = parse_u64(size, "Size")?;
    let sectors = sectors_covering(0, size, "Size")?;
    let op = read_or_write(opcode).ok_or_else(|| format!("Opcode `{}` is neither r nor w", quote(opcode)))?;
    let arrival_ns = seconds_to_ns(timestamp).map_err(|m| format!("Timestamp: {m}"))?;
    if lba.checked_add(sectors as u64).is_none() {
        return Err(format!("LBA {lba} plus {sectors} sectors passes the largest address"));
    }
    Ok(Some(Request { arrival_ns, lba, sectors, op, approx: false, context: 0, handle: None, tolerance: 0.0 }))
}

#[cfg(test)]
// The request tables are laid out one request per line, as the trace lines they come from.
#[rustfmt::skip]
mod tests {
    use super::*;
    use crate::host::Op;
    use crate::host::trace::test_util::{assert_bad, read_all};
    use crate::host::TraceFormat::Spc;

    #[test]
    fn converts_fields() {
        let text = "0,303567,3584,r,0.026214\n1, 20941264 ,8192,W,1.5,extra\n2,0,1,w,12\n0,7,513,R,0.000000001\n";
        let (reqs, skipped) = read_all(Spc, text, false).unwrap();
        assert_eq!(skipped, 0);
        assert_eq!(
            reqs,
            vec![
                Request { arrival_ns: 26_214_000, lba: 303_567, sectors: 7, op: Op::Read, approx: false, context: 0, handle: None, tolerance: 0.0 },
                Request { arrival_ns: 1_500_000_000, lba: 20_941_264, sectors: 16, op: Op::Write, approx: false, context: 0, handle: None, tolerance: 0.0 },
                // One byte still takes a sector; 513 bytes take two.
                Request { arrival_ns: 12_000_000_000, lba: 0, sectors: 1, op: Op::Write, approx: false, context: 0, handle: None, tolerance: 0.0 },
                Request { arrival_ns: 1, lba: 7, sectors: 2, op: Op::Read, approx: false, context: 0, handle: None, tolerance: 0.0 },
            ]
        );
    }

    #[test]
    fn malformed_lines_name_line_and_text() {
        let ok = "0,0,512,r,0.1\n";
        assert_bad(Spc, &format!("{ok}0,0,512,r\n"), 2, "0,0,512,r", "only 4 fields; expected 5");
        assert_bad(Spc, &format!("{ok}a,0,512,r,0.1\n"), 2, "a,0", "ASU `a`");
        assert_bad(Spc, &format!("{ok}0,-5,512,r,0.1\n"), 2, "-5", "LBA `-5`");
        assert_bad(Spc, &format!("{ok}0,0,0,r,0.1\n"), 2, "0,0,0,r,0.1", "Size is 0");
        assert_bad(Spc, &format!("{ok}0,0,512,t,0.1\n"), 2, "t", "Opcode `t` is neither r nor w");
        assert_bad(Spc, &format!("{ok}0,0,512,read,0.1\n"), 2, "read", "neither r nor w");
        assert_bad(Spc, &format!("{ok}0,0,512,r,-1\n"), 2, "-1", "Timestamp: time `-1`");
        assert_bad(Spc, &format!("{ok}0,0,512,r,1e3\n"), 2, "1e3", "Timestamp");
        assert_bad(Spc, &format!("{ok}0,0,512,r,99999999999999\n"), 2, "9999", "too large");
        assert_bad(Spc, &format!("{ok}0,0,2199023255553,r,0\n"), 2, "2199023255553", "too large");
        assert_bad(Spc, &format!("{ok}0,18446744073709551615,512,r,0\n"), 2, "18446744073709551615", "largest address");
    }

    #[test]
    fn the_shape_is_recognised() {
        assert!(looks_like("0,303567,3584,r,0.026214"));
        assert!(looks_like("1,2,3,W,4,extra"));
        for not in ["0,1,2,x,0.5", "0,1,2,r", "a,1,2,r,0.5", "1,h,0,Read,0,512,1", "0,1,2,r,"] {
            assert!(!looks_like(not), "{not}");
        }
    }
}
