//! Guessing a trace's format from its first lines, so that the common case needs no
//! `--format`. Each line votes for the format whose shape it has; lines of no known shape
//! (blkparse's summary, stray text) abstain. The shapes do not overlap. Of the
//! comma-separated ones, MSR lines have seven to nine fields and `Read`/`Write` fourth;
//! SPC lines five or more, integers first to third and `r`/`w` fourth; Alibaba lines five
//! or more with `R`/`W` second and integers third to fifth; SYSTOR lines six or more with
//! `R`/`W` third and integers fourth to sixth. blkparse lines start with a `maj,min` device
//! (one comma) and MQSim lines have no commas at all.

use super::trace::is_digits;
use super::{alibaba, blkparse, msr, spc, systor, TraceFormat};

/// Lines looked at; the rest of `first_lines` is ignored.
pub const MAX_LINES: usize = 20;

/// The format most of the first (up to [`MAX_LINES`]) non-empty, non-comment lines have,
/// or `None` if no line has a known shape (or two formats tie).
pub fn detect_format(first_lines: &[String]) -> Option<TraceFormat> {
    let mut votes = [0usize; TraceFormat::ALL.len()];
    let lines = first_lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty() && !l.starts_with('#'));
    for line in lines.take(MAX_LINES) {
        if let Some(f) = classify(line) {
            votes[index(f)] += 1;
        }
    }
    let best = *votes.iter().max()?;
    if best == 0 || votes.iter().filter(|&&v| v == best).count() > 1 {
        return None;
    }
    TraceFormat::ALL.into_iter().find(|&f| votes[index(f)] == best)
}

fn index(f: TraceFormat) -> usize {
    TraceFormat::ALL.iter().position(|&g| g == f).unwrap_or(0)
}

/// The format whose shape `line` has, if any.
pub fn classify(line: &str) -> Option<TraceFormat> {
    if line.contains(',') {
        if looks_like_msr(line) {
            return Some(TraceFormat::Msr);
        }
        if spc::looks_like(line) {
            return Some(TraceFormat::Spc);
        }
        if alibaba::looks_like(line) {
            return Some(TraceFormat::Alibaba);
        }
        if systor::looks_like(line) {
            return Some(TraceFormat::Systor);
        }
    }
    let mut fields = line.split_ascii_whitespace();
    let first = fields.next()?;
    if blkparse::is_device(first) {
        return (fields.count() >= 6).then_some(TraceFormat::Blkparse);
    }
    let mut integers = 0;
    for field in std::iter::once(first).chain(fields.take(4)) {
        if !field.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        integers += 1;
    }
    (integers == 5).then_some(TraceFormat::Mqsim)
}

/// The header, or 7 to 9 comma-separated fields (the published seven, then a program
/// context and a placement handle) with a numeric timestamp and a Read/Write type. The MSR
/// parser skips any line starting with `Timestamp`, but SYSTOR's header does too: that one
/// is SYSTOR's.
fn looks_like_msr(line: &str) -> bool {
    if msr::is_header(line) {
        return !systor::looks_like(line);
    }
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    (7..=9).contains(&fields.len())
        && is_digits(fields[0])
        && (fields[3].eq_ignore_ascii_case("read") || fields[3].eq_ignore_ascii_case("write"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(String::from).collect()
    }

    #[test]
    fn detects_each_format() {
        assert_eq!(detect_format(&lines("938513000 4 264719034 16 0\n938828000 3 197570570 16 1")), Some(TraceFormat::Mqsim));
        assert_eq!(detect_format(&lines("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime")), Some(TraceFormat::Msr));
        assert_eq!(detect_format(&lines("128166372003061629,wdev,0,Read,1054081024,4096,1331")), Some(TraceFormat::Msr));
        // With a program context, and with a placement handle too.
        assert_eq!(detect_format(&lines("1,wdev,0,Write,0,4096,1,17\n2,wdev,0,Write,0,4096,1,17,3")), Some(TraceFormat::Msr));
        assert_eq!(detect_format(&lines("938513000 4 264719034 16 0 0 17 3")), Some(TraceFormat::Mqsim));
        assert_eq!(
            detect_format(&lines(
                "  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kjournald]\n  8,0    3        2     0.000001234  4162  G  WS 3417048 + 8 [kjournald]"
            )),
            Some(TraceFormat::Blkparse)
        );
        assert_eq!(
            detect_format(&lines(
                "0,303567,3584,r,0.026214
1,20941264,8192,W,0.551706"
            )),
            Some(TraceFormat::Spc)
        );
        assert_eq!(
            detect_format(&lines("123,R,4096,4096,1577808000000000\n7,W,0,512,1577808000000100")),
            Some(TraceFormat::Alibaba)
        );
        assert_eq!(detect_format(&lines("device_id,opcode,offset,length,timestamp")), Some(TraceFormat::Alibaba));
        assert_eq!(
            detect_format(&lines("Timestamp,Response,IOType,LUN,Offset,Size\n1487348895.080533,0.000234,R,3,7415377920,4096")),
            Some(TraceFormat::Systor)
        );
        // Without the header, with an empty response time, and with whole seconds.
        assert_eq!(detect_format(&lines("1487348895.080533,,W,0,0,4096\n1487348896,0.1,r,1,512,512")), Some(TraceFormat::Systor));
    }

    #[test]
    fn csv_shapes_do_not_overlap() {
        // Each line has the shape of exactly one format, and its own.
        for (line, format) in [
            ("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime", TraceFormat::Msr),
            ("Timestamp,Response,IOType,LUN,Offset,Size", TraceFormat::Systor),
            ("128166372003061629,wdev,0,Read,1054081024,4096,1331", TraceFormat::Msr),
            ("1,R,0,Read,0,512,1", TraceFormat::Msr),
            ("0,303567,3584,r,0.026214", TraceFormat::Spc),
            ("0,303567,3584,r,1", TraceFormat::Spc),
            ("123,R,4096,4096,1577808000000000", TraceFormat::Alibaba),
            ("123,w,4096,4096,1577808000000000,9", TraceFormat::Alibaba),
            ("1487348895.080533,0.000234,R,3,7415377920,4096", TraceFormat::Systor),
            ("1487348895,0,W,3,7415377920,4096", TraceFormat::Systor),
        ] {
            assert_eq!(classify(line), Some(format), "{line}");
            let shapes = [looks_like_msr(line), spc::looks_like(line), alibaba::looks_like(line), systor::looks_like(line)];
            assert_eq!(shapes.iter().filter(|&&s| s).count(), 1, "{line}: {shapes:?}");
        }
    }

    #[test]
    fn comments_blank_and_stray_lines_do_not_vote() {
        let text = "# generated by a tool\n\n   \nsome title\n1 0 8 8 0\n";
        assert_eq!(detect_format(&lines(text)), Some(TraceFormat::Mqsim));
        // A blkparse trace whose first lines in the window happen to be summary text.
        let text = "CPU0 (8,0):\n Reads Queued: 0, 0KiB\n8,0 0 1 0.1 1 Q W 0 + 8 [a]";
        assert_eq!(detect_format(&lines(text)), Some(TraceFormat::Blkparse));
    }

    #[test]
    fn majority_wins_and_ties_fail() {
        let text = "1 2 3 4 5\n1 2 3 4 5\n1,h,0,Read,0,512,1\n";
        assert_eq!(detect_format(&lines(text)), Some(TraceFormat::Mqsim));
        assert_eq!(detect_format(&lines("1 2 3 4 5\n1,h,0,Read,0,512,1\n")), None);
    }

    #[test]
    fn unknown_shapes_fail() {
        for text in [
            "",
            "hello world",
            "1 2 3 4",
            "1 2 x 4 5",
            "a,b,c",
            "1,h,0,Trim,0,512,1",
            "8,0 3 1 0.0",
            "1,D,0,4096,1",
            "1,R,0,4096",
            "1.5,0.1,D,0,0,512",
            "1.5,0.1,R,0,0",
        ] {
            assert_eq!(detect_format(&lines(text)), None, "{text:?}");
        }
    }

    #[test]
    fn only_the_first_lines_count() {
        let mut v = vec!["garbage".to_string(); MAX_LINES];
        v.push("1 2 3 4 5".to_string());
        assert_eq!(detect_format(&v), None);
    }
}
