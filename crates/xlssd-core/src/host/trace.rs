//! Machinery every trace format shares: reading a file line by line without loading it,
//! skipping blank and comment lines, turning a line the format cannot parse into an error
//! that names file, line and text (or counting it when the user asked to skip such lines),
//! and opening a trace with its format given or detected.
//!
//! A format only supplies a [`LineParser`]: a pure function from one line to a request, so
//! the formats stay small and the error handling is the same for all of them.

use std::io::{BufRead, BufReader, Chain, Cursor, Read};

use super::input::{open_input, read_error};
use super::{detect, Op, Request, RequestSource, TraceFormat, MAX_ARRIVAL_NS, MAX_HANDLE, SECTOR_BYTES};
use crate::error::{printable, Error, Result};

/// A line longer than this ends the read with an error, even when bad lines are skipped:
/// a file without line breaks (a binary file or `/dev/zero` given by mistake) must be
/// neither buffered whole nor read to its end looking for one.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Offending text in an error is cut to this many characters, so that one bad line cannot
/// flood the terminal.
pub const MAX_ERROR_TEXT_CHARS: usize = 200;

/// A field quoted in a message is cut to this many characters.
pub const MAX_FIELD_CHARS: usize = 40;

/// Detection stops peeking after this many bytes even if it has not seen
/// [`detect::MAX_LINES`] lines (a file starting with a huge comment block).
const DETECT_MAX_BYTES: usize = 1 << 20;

/// Reads the non-blank, non-comment lines of a trace, numbering them as an editor would
/// (from 1, counting every physical line), and reports bad lines uniformly.
///
/// The line buffer is reused (its bytes move between `Vec<u8>` for reading and `String`
/// for parsing without copying), so reading costs no allocation per line.
pub struct LineReader<R> {
    reader: R,
    path: String,
    line: String,
    line_no: u64,
    skip_bad_lines: bool,
    skipped: u64,
}

/// What one physical line turned out to be.
enum RawLine {
    Text,
    TooLong,
    NotUtf8,
}

impl<R: BufRead> LineReader<R> {
    /// `path` is what errors call the input.
    pub fn new(reader: R, path: impl Into<String>, skip_bad_lines: bool) -> Self {
        LineReader { reader, path: path.into(), line: String::with_capacity(256), line_no: 0, skip_bad_lines, skipped: 0 }
    }

    /// The next line with content, as (line number, text without surrounding ASCII whitespace),
    /// or `None` at the end of the input. A line that is not UTF-8 goes through
    /// [`LineReader::reject`] like any other malformed line; a line over
    /// [`MAX_LINE_BYTES`] is an error whether or not bad lines are skipped.
    pub fn next_line(&mut self) -> Result<Option<(u64, &str)>> {
        loop {
            match self.read_raw_line()? {
                None => return Ok(None),
                Some(RawLine::TooLong) => {
                    return Err(too_long(&self.path, self.line_no, &self.line));
                }
                Some(RawLine::NotUtf8) => self.reject("line is not valid UTF-8 text".to_string())?,
                Some(RawLine::Text) => {
                    let t = self.line.trim_ascii();
                    if !(t.is_empty() || t.starts_with('#')) {
                        return Ok(Some((self.line_no, self.line.trim_ascii())));
                    }
                }
            }
        }
    }

    /// Reads one physical line into `self.line` (without its line break). Returns `None`
    /// at the end of the input. Of a line over [`MAX_LINE_BYTES`] only the start is read.
    fn read_raw_line(&mut self) -> Result<Option<RawLine>> {
        let mut bytes = std::mem::take(&mut self.line).into_bytes();
        bytes.clear();
        let read = (&mut self.reader).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut bytes);
        let n = match read {
            Ok(n) => n,
            Err(e) => return Err(self.io_error(e)),
        };
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        let mut status = RawLine::Text;
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        } else if bytes.len() > MAX_LINE_BYTES {
            status = RawLine::TooLong;
        }
        match String::from_utf8(bytes) {
            Ok(s) => self.line = s,
            Err(e) => {
                self.line = String::from_utf8_lossy(e.as_bytes()).into_owned();
                if matches!(status, RawLine::Text) {
                    status = RawLine::NotUtf8;
                }
            }
        }
        Ok(Some(status))
    }

    fn io_error(&self, e: std::io::Error) -> Error {
        read_error(&self.path, &format!("read failed after line {}", self.line_no), &e)
    }

    /// Reports the current line as malformed: an [`Error::Trace`] naming file, line and
    /// (trimmed, shortened) text, or, with skipping enabled, `Ok(())` after counting it.
    pub fn reject(&mut self, message: String) -> Result<()> {
        if self.skip_bad_lines {
            self.skipped += 1;
            return Ok(());
        }
        Err(self.error(message))
    }

    /// An [`Error::Trace`] about the current line, naming file, line and (trimmed,
    /// shortened, escaped) text.
    pub fn error(&self, message: String) -> Error {
        Error::Trace { file: self.path.clone(), line: self.line_no, text: shorten(self.line.trim()), message }
    }

    /// Physical lines read so far.
    pub fn lines_read(&self) -> u64 {
        self.line_no
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// Malformed lines skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }
}

/// `text` as an error shows a line: escaped by [`printable`] and cut to
/// [`MAX_ERROR_TEXT_CHARS`] characters, the cut marked with "...".
pub fn shorten(text: &str) -> String {
    printable(text, MAX_ERROR_TEXT_CHARS)
}

/// `field` as a message quotes it: escaped by [`printable`] and cut to [`MAX_FIELD_CHARS`].
pub fn quote(field: &str) -> String {
    printable(field, MAX_FIELD_CHARS)
}

/// The error for a line over [`MAX_LINE_BYTES`], of which `start` was read.
fn too_long(path: &str, line: u64, start: &str) -> Error {
    Error::Trace {
        file: path.to_string(),
        line,
        text: shorten(start.trim()),
        message: format!("line is longer than {MAX_LINE_BYTES} bytes, the limit on one trace line; is this a trace?"),
    }
}

/// Parses a field that must be a non-negative decimal integer, naming the field in the
/// message otherwise. Digits only: `str::parse` alone would also take a leading `+`, which
/// no trace writes, so it most likely marks a corrupted line.
pub fn parse_u64(field: &str, name: &str) -> Result<u64, String> {
    let not_integer = || format!("{name} `{}` is not a non-negative integer", quote(field));
    if !field.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
        return Err(not_integer());
    }
    field.parse::<u64>().map_err(|_| {
        // `parse` reports overflow before looking at all the characters.
        if field.bytes().all(|b| b.is_ascii_digit()) {
            format!("{name} `{}` is too large (at most {})", quote(field), u64::MAX)
        } else {
            not_integer()
        }
    })
}

/// Parses a program context field (MQSim's seventh, MSR's eighth): an integer from 0 to
/// 2^32 - 1, where 0, `-` and an empty field mean none (0). `name` is what messages call
/// the field.
pub fn parse_context(field: &str, name: &str) -> Result<u32, String> {
    if field.is_empty() || field == "-" {
        return Ok(0);
    }
    let context = parse_u64(field, name)?;
    u32::try_from(context).map_err(|_| format!("{name} `{}` is too large (at most {})", quote(field), u32::MAX))
}

/// Parses a placement handle field (MQSim's eighth, MSR's ninth): an integer from 0 to
/// [`MAX_HANDLE`], or `-` or an empty field for none. `name` is what messages call the
/// field.
pub fn parse_handle(field: &str, name: &str) -> Result<Option<u16>, String> {
    if field.is_empty() || field == "-" {
        return Ok(None);
    }
    match parse_u64(field, name) {
        Ok(h) if h <= MAX_HANDLE as u64 => Ok(Some(h as u16)),
        _ => Err(format!("{name} `{}` is not a placement handle: expected 0 to {MAX_HANDLE}, or - for none", quote(field))),
    }
}

/// The first `N` fields of a comma-separated line, each trimmed of whitespace, and an
/// iterator over the rest, trimmed too. A line with fewer is malformed; the message says
/// how many it has and what was `expected`. Borrows from `line`, so it allocates nothing.
pub fn csv_fields<'a, const N: usize>(
    line: &'a str,
    expected: &str,
) -> Result<([&'a str; N], impl Iterator<Item = &'a str> + 'a), String> {
    let mut rest = line.split(',').map(str::trim);
    let mut fields = [""; N];
    for (i, slot) in fields.iter_mut().enumerate() {
        *slot = rest.next().ok_or_else(|| format!("only {i} fields; {expected}"))?;
    }
    Ok((fields, rest))
}

/// True if `line` starts with `word`, ignoring ASCII case: how the CSV formats recognise a
/// header line by its first column's name.
pub fn starts_with_word(line: &str, word: &str) -> bool {
    line.get(..word.len()).is_some_and(|p| p.eq_ignore_ascii_case(word))
}

/// Digits only, at least one: an integer field as format detection recognises it.
pub fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Digits and decimal points only, at least one character: a number of seconds as format
/// detection recognises it.
pub fn is_decimal(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// A one-letter operation code as the CSV formats write it: `r` or `w`, either case.
pub fn read_or_write(code: &str) -> Option<Op> {
    match code {
        "r" | "R" => Some(Op::Read),
        "w" | "W" => Some(Op::Write),
        _ => None,
    }
}

/// A timestamp field counting whole units of `ns_per_unit` ns (`unit` names them in
/// messages), in ns.
pub fn units_to_ns(field: &str, name: &str, ns_per_unit: u64, unit: &str) -> Result<u64, String> {
    let units = parse_u64(field, name)?;
    units.checked_mul(ns_per_unit).ok_or_else(|| format!("{name} {units} ({unit}) is too large to express in ns"))
}

/// The sectors `size` bytes occupy when they start `skew` bytes into a sector: every sector
/// they overlap, since a device has to serve whole sectors. `name` is what messages call
/// the size field; a size of 0 is malformed, since every request covers at least a sector.
pub fn sectors_covering(skew: u64, size: u64, name: &str) -> Result<u32, String> {
    if size == 0 {
        return Err(format!("{name} is 0 bytes; a request covers at least one byte"));
    }
    // In 128 bits, so that a size near 2^64 cannot overflow before it is refused.
    let sectors = (skew as u128 + size as u128).div_ceil(SECTOR_BYTES as u128);
    u32::try_from(sectors).map_err(|_| format!("{name} {size} bytes is too large (at most {} sectors)", u32::MAX))
}

/// A request given as a byte offset and a size in bytes (fields named `offset_name` and
/// `size_name` in messages), as its first sector and the sectors it overlaps: `size` bytes
/// at offset 1000 start in sector 1, 488 bytes into it.
pub fn byte_extent(offset: &str, size: &str, offset_name: &str, size_name: &str) -> Result<(u64, u32), String> {
    let offset = parse_u64(offset, offset_name)?;
    let size = parse_u64(size, size_name)?;
    let sectors = sectors_covering(offset % SECTOR_BYTES, size, size_name)?;
    // The first sector is at most 2^64 / 512, so adding up to 2^32 sectors cannot overflow.
    Ok((offset / SECTOR_BYTES, sectors))
}

/// One trace format: turns a line (trimmed, non-empty, not a comment) into a request.
pub trait LineParser {
    /// `Ok(None)` for a line the format defines but that carries no request (a header, an
    /// event kind that is not replayed); `Err(message)` for a malformed line, the message
    /// saying what was expected (file, line and text are added by the caller).
    fn parse_line(&mut self, line: &str) -> Result<Option<Request>, String>;
}

/// A format's `parse` function is its parser: the formats keep no state between lines, and
/// a function item costs nothing to carry and is called without indirection.
impl<F: FnMut(&str) -> Result<Option<Request>, String>> LineParser for F {
    fn parse_line(&mut self, line: &str) -> Result<Option<Request>, String> {
        self(line)
    }
}

/// A [`RequestSource`] reading one request per line with a format's [`LineParser`].
pub struct TraceReader<R, P> {
    lines: LineReader<R>,
    parser: P,
    requests: u64,
    /// Open-loop replay multiplies arrivals (after the first) by this: an arrival that
    /// would then lie beyond [`MAX_ARRIVAL_NS`] is a bad line. `None` in closed loop.
    time_scale: Option<f64>,
    first_arrival: Option<u64>,
}

impl<R: BufRead, P: LineParser> TraceReader<R, P> {
    /// `path` is what messages call the input.
    pub fn new(reader: R, path: impl Into<String>, skip_bad_lines: bool, parser: P) -> Self {
        TraceReader {
            lines: LineReader::new(reader, path, skip_bad_lines),
            parser,
            requests: 0,
            time_scale: None,
            first_arrival: None,
        }
    }

    /// Checks every arrival, relative to the first and scaled by `time_scale`, against
    /// [`MAX_ARRIVAL_NS`].
    pub fn with_time_scale(mut self, time_scale: Option<f64>) -> Self {
        self.time_scale = time_scale;
        self
    }

    /// A message if `req`'s arrival, as open-loop replay will schedule it, lies beyond
    /// [`MAX_ARRIVAL_NS`].
    fn arrival_beyond_horizon(&mut self, req: &Request) -> Option<String> {
        let scale = self.time_scale?;
        let first = *self.first_arrival.get_or_insert(req.arrival_ns);
        let after = req.arrival_ns.saturating_sub(first);
        super::scaled_arrival_ns(after, scale).is_none().then(|| {
            format!(
                "arrives {after} ns after the first request, {:e} ns with host.time_scale = {}: beyond the \
                 simulated-time limit of {MAX_ARRIVAL_NS} ns (about 146 years)",
                after as f64 * scale,
                crate::config::ranges::show_f64(scale)
            )
        })
    }

    fn no_requests(&self) -> Error {
        let lines = self.lines.lines_read();
        let why = match (lines, self.lines.skipped()) {
            (0, _) => "the trace is empty".to_string(),
            (n, 0) => format!(
                "none of its {n} line(s) is a request (only blank lines, comments, headers or events that are not replayed)"
            ),
            (n, skipped) => format!("{skipped} of its {n} line(s) were malformed and skipped, and no other is a request"),
        };
        Error::Io { path: self.lines.path().to_string(), message: format!("no requests to replay: {why}") }
    }
}

impl<R: BufRead, P: LineParser> RequestSource for TraceReader<R, P> {
    fn next_request(&mut self) -> Result<Option<Request>> {
        loop {
            let parsed = match self.lines.next_line()? {
                None if self.requests == 0 => return Err(self.no_requests()),
                None => return Ok(None),
                Some((_, line)) => self.parser.parse_line(line),
            };
            match parsed {
                Ok(Some(req)) => match self.arrival_beyond_horizon(&req) {
                    Some(message) => self.lines.reject(message)?,
                    None => {
                        self.requests += 1;
                        return Ok(Some(req));
                    }
                },
                Ok(None) => {}
                Err(message) => self.lines.reject(message)?,
            }
        }
    }

    fn name(&self) -> &str {
        self.lines.path()
    }

    fn skipped_lines(&self) -> u64 {
        self.lines.skipped()
    }
}

/// Builds the reader for `format` over any buffered input (a file, or bytes in tests).
/// `time_scale`, given for open-loop replay, bounds the arrivals (see
/// [`TraceReader::with_time_scale`]).
pub fn reader_for<R: BufRead + Send + 'static>(
    format: TraceFormat,
    reader: R,
    path: &str,
    skip_bad_lines: bool,
    time_scale: Option<f64>,
) -> Box<dyn RequestSource + Send> {
    fn boxed<R: BufRead + Send + 'static, P: LineParser + Send + 'static>(
        reader: R,
        path: &str,
        skip_bad_lines: bool,
        time_scale: Option<f64>,
        parser: P,
    ) -> Box<dyn RequestSource + Send> {
        Box::new(TraceReader::new(reader, path, skip_bad_lines, parser).with_time_scale(time_scale))
    }
    let (r, p, skip, scale) = (reader, path, skip_bad_lines, time_scale);
    match format {
        TraceFormat::Mqsim => boxed(r, p, skip, scale, |line: &str| super::mqsim::parse(line).map(Some)),
        TraceFormat::Msr => boxed(r, p, skip, scale, super::msr::parse),
        TraceFormat::Blkparse => boxed(r, p, skip, scale, super::blkparse::parse),
        TraceFormat::Spc => boxed(r, p, skip, scale, super::spc::parse),
        TraceFormat::Alibaba => boxed(r, p, skip, scale, super::alibaba::parse),
        TraceFormat::Systor => boxed(r, p, skip, scale, super::systor::parse),
    }
}

/// The bytes already read for detection, followed by the rest of the input: a file is
/// read once, from the start, so detection also works on pipes (`<(zcat t.gz)`).
type Peeked<R> = Chain<Cursor<Vec<u8>>, R>;

/// Opens a trace file and returns a streaming reader for it. With `format` `None` the
/// format is detected from the first lines ([`detect::detect_format`]).
///
/// A missing or unreadable file is an [`Error::Io`] naming the path and the OS reason; an
/// undetectable format is an [`Error::Io`] that says to pass `--format`.
pub fn open_trace(path: &str, format: Option<TraceFormat>, skip_bad_lines: bool) -> Result<Box<dyn RequestSource>> {
    open_trace_detected(path, format, skip_bad_lines, None).map(|(source, _)| source)
}

/// Like [`open_trace`], also saying which format the trace was read as (given or detected),
/// and, for open-loop replay, bounding arrivals scaled by `time_scale`.
pub fn open_trace_detected(
    path: &str,
    format: Option<TraceFormat>,
    skip_bad_lines: bool,
    time_scale: Option<f64>,
) -> Result<(Box<dyn RequestSource>, TraceFormat)> {
    let file = open_input(path, "trace")?;
    let reader = BufReader::with_capacity(1 << 16, file);
    let (source, format) = reader_detected(reader, path, format, skip_bad_lines, time_scale)?;
    Ok((Box::new(super::prefetch::Prefetch::new(source).started()?), format))
}

/// The reader for a trace in any buffered input, its format given or detected from the
/// first lines, read once from the first byte (the lines read for detection are read
/// again from memory). `path` is what messages call the input.
pub fn reader_detected<R: BufRead + Send + 'static>(
    mut reader: R,
    path: &str,
    format: Option<TraceFormat>,
    skip_bad_lines: bool,
    time_scale: Option<f64>,
) -> Result<(Box<dyn RequestSource + Send>, TraceFormat)> {
    let (format, prefix) = match format {
        Some(f) => (f, Vec::new()),
        None => {
            let (lines, prefix) = peek_lines(&mut reader, path)?;
            match detect::detect_format(&lines) {
                Some(f) => (f, prefix),
                None => {
                    let what = if lines.is_empty() {
                        "has no trace lines to detect the format from".to_string()
                    } else {
                        format!("cannot detect the trace format from its first {} lines", lines.len())
                    };
                    let names: Vec<&str> = TraceFormat::ALL.iter().map(|f| f.name()).collect();
                    return Err(Error::Io {
                        path: path.to_string(),
                        message: format!("{what}; pass --format ({})", names.join(", ")),
                    });
                }
            }
        }
    };
    let input: Peeked<R> = Cursor::new(prefix).chain(reader);
    Ok((reader_for(format, input, path, skip_bad_lines, time_scale), format))
}

/// Reads up to [`detect::MAX_LINES`] content lines for detection. Returns them and every byte
/// consumed, so that reading can start over from the first byte.
fn peek_lines<R: BufRead>(reader: &mut R, path: &str) -> Result<(Vec<String>, Vec<u8>)> {
    let mut prefix = Vec::new();
    let mut lines = Vec::new();
    let mut line_no = 0u64;
    while lines.len() < detect::MAX_LINES && prefix.len() < DETECT_MAX_BYTES {
        let start = prefix.len();
        let n = reader
            .by_ref()
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut prefix)
            .map_err(|e| read_error(path, "read failed", &e))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let text = String::from_utf8_lossy(prefix.get(start..).unwrap_or_default());
        if n > MAX_LINE_BYTES && !text.ends_with('\n') {
            return Err(too_long(path, line_no, &text));
        }
        let t = text.trim();
        if !t.is_empty() && !t.starts_with('#') {
            lines.push(t.to_string());
        }
    }
    Ok((lines, prefix))
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Helpers the format tests share.

    use super::*;
    use crate::host::Request;

    /// All requests of `text` read as `format`, or the first error.
    pub fn read_all(format: TraceFormat, text: &str, skip: bool) -> Result<(Vec<Request>, u64)> {
        let mut src = reader_for(format, Cursor::new(text.as_bytes().to_vec()), "mem.trace", skip, None);
        let mut out = Vec::new();
        while let Some(r) = src.next_request()? {
            out.push(r);
        }
        Ok((out, src.skipped_lines()))
    }

    /// A request of a format without approximate, context or handle columns.
    pub fn plain(arrival_ns: u64, lba: u64, sectors: u32, op: crate::host::Op) -> Request {
        Request { arrival_ns, lba, sectors, op, approx: false, context: 0, handle: None, tolerance: 0.0 }
    }

    /// The requests of `text` read as `format`, none skipped, each as (ns after the first
    /// request, as replay schedules it at time scale 1; first sector; sectors; operation),
    /// with the first request's own arrival. Asserts that none carries an approximate flag,
    /// a context or a handle.
    pub fn read_rebased(format: TraceFormat, text: &str) -> (u64, Vec<(u64, u64, u32, crate::host::Op)>) {
        let (reqs, skipped) = read_all(format, text, false).expect("a clean trace");
        assert_eq!(skipped, 0);
        let first = reqs.first().expect("at least one request").arrival_ns;
        let rows = reqs
            .iter()
            .map(|r| {
                assert_eq!(*r, plain(r.arrival_ns, r.lba, r.sectors, r.op), "{format:?} carries no extra columns");
                (r.arrival_ns - first, r.lba, r.sectors, r.op)
            })
            .collect();
        (first, rows)
    }

    /// Asserts that reading `text` fails at `line` with `text_part` in the shown text and
    /// `msg_part` in the message.
    pub fn assert_bad(format: TraceFormat, text: &str, line: u64, text_part: &str, msg_part: &str) {
        match read_all(format, text, false) {
            Err(Error::Trace { file, line: l, text: t, message }) => {
                assert_eq!(file, "mem.trace");
                assert_eq!(l, line, "line number for {text:?}: {message}");
                assert!(t.contains(text_part), "text {t:?} lacks {text_part:?}");
                assert!(message.contains(msg_part), "message {message:?} lacks {msg_part:?}");
            }
            other => panic!("expected a trace error for {text:?}, got {other:?}"),
        }
    }

    /// A file in the temp directory, removed when dropped.
    pub struct TempFile(pub std::path::PathBuf);

    impl TempFile {
        pub fn new(tag: &str, contents: &[u8]) -> TempFile {
            use std::sync::atomic::{AtomicU64, Ordering};
            static COUNTER: AtomicU64 = AtomicU64::new(0);
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!("xlssd-host-test-{}-{n}-{tag}.trace", std::process::id()));
            std::fs::write(&path, contents).expect("write temp file");
            TempFile(path)
        }
        pub fn path(&self) -> &str {
            self.0.to_str().expect("temp path is UTF-8")
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

#[cfg(test)]
// The request tables are laid out one request per line, as the trace lines they come from.
#[rustfmt::skip]
mod tests {
    use super::test_util::*;
    use super::*;
    use crate::host::Op;

    fn lines_of(text: &[u8]) -> Vec<(u64, String)> {
        let mut r = LineReader::new(Cursor::new(text.to_vec()), "x", true);
        let mut out = Vec::new();
        while let Some((n, l)) = r.next_line().unwrap() {
            out.push((n, l.to_string()));
        }
        out
    }

    #[test]
    fn line_numbers_count_blank_and_comment_lines() {
        let got = lines_of(b"# header\n\n  a b \r\n\t\n  # indented comment\nc\nlast-without-newline");
        assert_eq!(got, vec![(3, "a b".to_string()), (6, "c".to_string()), (7, "last-without-newline".to_string())]);
        assert!(lines_of(b"").is_empty());
    }

    #[test]
    fn invalid_utf8_lines_are_bad_lines() {
        let text = b"ok\n\xff\xfe bad\nafter\n".to_vec();
        let mut r = LineReader::new(Cursor::new(text.clone()), "x", true);
        let mut got = Vec::new();
        while let Some((n, l)) = r.next_line().unwrap() {
            got.push((n, l.to_string()));
        }
        assert_eq!(got, vec![(1, "ok".to_string()), (3, "after".to_string())]);
        assert_eq!(r.skipped(), 1);

        let mut r = LineReader::new(Cursor::new(text), "x", false);
        assert!(r.next_line().unwrap().is_some());
        match r.next_line() {
            Err(Error::Trace { line: 2, message, .. }) => assert!(message.contains("UTF-8")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_overlong_line_ends_the_read_even_when_skipping() {
        let mut text = b"ok\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        text.extend(b"\nafter\n");
        for skip in [false, true] {
            let mut r = LineReader::new(Cursor::new(text.clone()), "x", skip);
            assert!(r.next_line().unwrap().is_some());
            match r.next_line() {
                Err(Error::Trace { line: 2, message, text, .. }) => {
                    assert!(message.contains("longer than 65536 bytes"), "{message}");
                    assert_eq!(text.chars().count(), MAX_ERROR_TEXT_CHARS);
                }
                other => panic!("{other:?}"),
            }
        }
        // A line of exactly the limit is read.
        let mut exact = vec![b'#'; MAX_LINE_BYTES];
        exact.extend(b"\n1 0 0 8 0");
        assert_eq!(read_all(TraceFormat::Mqsim, std::str::from_utf8(&exact).unwrap(), false).unwrap().0.len(), 1);
    }

    #[test]
    fn an_endless_input_without_line_breaks_stops_at_the_limit() {
        // /dev/zero never ends: only the limit stops it, with or without detection.
        for format in [None, Some(TraceFormat::Mqsim)] {
            let err = open_trace("/dev/zero", format, true).and_then(|mut s| s.next_request().map(|_| ()));
            match err {
                Err(Error::Trace { file, line: 1, message, text }) => {
                    assert_eq!(file, "/dev/zero");
                    assert!(message.contains("longer than"), "{message}");
                    assert!(text.starts_with("\\x00\\x00"), "{text}");
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_trace_without_requests_is_an_error() {
        for (format, text, why) in [
            (TraceFormat::Mqsim, "", "is empty"),
            (TraceFormat::Mqsim, "# only\n\n# comments\n", "none of its 3 line(s)"),
            (TraceFormat::Msr, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n", "none of its 1 line(s)"),
            (TraceFormat::Blkparse, "8,0 0 1 0.1 1 C W 0 + 8 [a]\n", "none of its 1 line(s)"),
            (TraceFormat::Mqsim, "x\ny\n", "2 of its 2 line(s) were malformed"),
            (TraceFormat::Alibaba, "", "is empty"),
            (TraceFormat::Alibaba, "device_id,opcode,offset,length,timestamp\n", "none of its 1 line(s)"),
            (TraceFormat::Alibaba, "0,R,0,0,1\n0,X,0,512,1\n", "2 of its 2 line(s) were malformed"),
            (TraceFormat::Systor, "", "is empty"),
            (TraceFormat::Systor, "Timestamp,Response,IOType,LUN,Offset,Size\n", "none of its 1 line(s)"),
            (TraceFormat::Systor, "Timestamp,Response,IOType,LUN,Offset,Size\n1.0,,R,0,0\n", "1 of its 2 line(s) were malformed"),
        ] {
            match read_all(format, text, true) {
                Err(Error::Io { path, message }) => {
                    assert_eq!(path, "mem.trace");
                    assert!(message.starts_with("no requests to replay") && message.contains(why), "{message}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
        let f = TempFile::new("header-only", b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n");
        let err = open_trace(f.path(), None, false).and_then(|mut s| s.next_request()).unwrap_err();
        assert!(err.to_string().starts_with(&format!("{}: no requests", f.path())), "{err}");
    }

    #[test]
    fn arrivals_scaled_beyond_the_time_limit_are_bad_lines() {
        let text = "0 0 0 8 0\n4611686018427387904 0 0 8 0\n9223372036854775807 0 0 8 0\n";
        let read = |scale: Option<f64>, skip: bool| {
            let mut src = reader_for(TraceFormat::Mqsim, Cursor::new(text.as_bytes().to_vec()), "t", skip, scale);
            let mut n = 0;
            while src.next_request()?.is_some() {
                n += 1;
            }
            Ok::<_, Error>((n, src.skipped_lines()))
        };
        assert_eq!(read(None, false).unwrap(), (3, 0));
        assert_eq!(read(Some(1e-3), false).unwrap(), (3, 0));
        assert_eq!(read(Some(1.0), true).unwrap(), (2, 1));
        match read(Some(1.0), false) {
            Err(Error::Trace { file, line: 3, message, .. }) => {
                assert_eq!(file, "t");
                assert!(message.contains("host.time_scale = 1") && message.contains("simulated-time limit"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        match read(Some(4.0), false) {
            Err(Error::Trace { line: 2, .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn inputs_that_are_not_files_pipes_or_devices_are_refused() {
        let dir = std::env::temp_dir();
        match open_trace(dir.to_str().unwrap(), None, false) {
            Err(Error::Io { message, .. }) => assert!(message.contains("a directory"), "{message}"),
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("opened a directory"),
        }
    }

    #[test]
    fn a_named_pipe_nobody_writes_reads_as_empty() {
        let path = std::env::temp_dir().join(format!("xlssd-host-test-{}-fifo", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let p = path.to_str().unwrap();
        let start = std::time::Instant::now();
        let err = open_trace(p, Some(TraceFormat::Mqsim), false).and_then(|mut s| s.next_request()).unwrap_err();
        assert!(err.to_string().contains("no requests to replay: the trace is empty"), "{err}");
        assert!(matches!(open_trace(p, None, false), Err(Error::Io { .. })));
        // A writer that is there first is read in full, however slowly it writes. (It opens
        // read-write to get in without a reader, then keeps only a write end.)
        let (ready, is_ready) = std::sync::mpsc::channel();
        let writer = {
            let p = path.clone();
            std::thread::spawn(move || {
                use std::io::Write;
                use std::os::unix::fs::OpenOptionsExt;
                let mut both = std::fs::OpenOptions::new().read(true).write(true).open(&p).unwrap();
                both.write_all(b"1 0 0 8 0\n").unwrap();
                let mut w = std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(&p).unwrap();
                drop(both);
                ready.send(()).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(200));
                w.write_all(b"2 0 8 8 1\n").unwrap();
            })
        };
        is_ready.recv().unwrap();
        let mut src = open_trace(p, None, false).unwrap();
        let mut got = 0;
        while src.next_request().unwrap().is_some() {
            got += 1;
        }
        assert_eq!(got, 2);
        writer.join().unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(start.elapsed().as_secs() < 10);
    }

    #[test]
    fn error_text_is_trimmed_and_shortened() {
        let long = format!("  {}  ", "é".repeat(500));
        let shown = shorten(long.trim());
        assert_eq!(shown.chars().count(), MAX_ERROR_TEXT_CHARS);
        assert!(shown.ends_with("..."));
        assert_eq!(shorten("short"), "short");
        let text = format!("1 2 3 4 1\n{long}\n");
        match read_all(TraceFormat::Mqsim, &text, false) {
            Err(Error::Trace { line: 2, text, .. }) => {
                assert!(text.starts_with('é'));
                assert_eq!(text.chars().count(), MAX_ERROR_TEXT_CHARS);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn escaped_error_text_is_shortened_too() {
        // Found by fuzzing: the text was cut to 200 characters before escaping, so a line
        // of NUL bytes was shown four times as long.
        let text = format!("1 0 0 8 0\n1 0 0 8 {}1\n", "\0".repeat(500));
        match read_all(TraceFormat::Mqsim, &text, false) {
            Err(Error::Trace { line: 2, text, .. }) => {
                assert!(text.chars().count() <= MAX_ERROR_TEXT_CHARS && text.starts_with("1 0 0 8 \\x00"), "{text}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parse_u64_accepts_digits_only() {
        assert_eq!(parse_u64("0", "x"), Ok(0));
        assert_eq!(parse_u64("0042", "x"), Ok(42));
        assert_eq!(parse_u64("18446744073709551615", "x"), Ok(u64::MAX));
        for bad in ["", "+1", "-1", " 1", "1.0", "1e3", "x", "٣"] {
            let e = parse_u64(bad, "lba").unwrap_err();
            assert!(e.contains("lba") && e.contains("not a non-negative integer"), "{bad}: {e}");
        }
        assert!(parse_u64("18446744073709551616", "lba").unwrap_err().contains("too large"));
        assert!(parse_u64("99999999999999999999x", "lba").unwrap_err().contains("not a non-negative"));
    }

    #[test]
    fn missing_file_is_an_io_error_naming_the_path() {
        let path = std::env::temp_dir().join("xlssd-no-such-dir-4711/none.trace");
        let path = path.to_str().unwrap();
        for format in [None, Some(TraceFormat::Mqsim)] {
            match open_trace(path, format, false) {
                Err(e @ Error::Io { .. }) => {
                    let Error::Io { path: p, message } = &e else { unreachable!() };
                    assert_eq!(p, path);
                    assert!(message.contains("No such file"), "{message}");
                    assert!(e.to_string().starts_with(path));
                }
                Err(other) => panic!("{other:?}"),
                Ok(_) => panic!("opened a missing file"),
            }
        }
    }

    fn collect(mut src: Box<dyn RequestSource>) -> Vec<Request> {
        let mut out = Vec::new();
        while let Some(r) = src.next_request().unwrap() {
            out.push(r);
        }
        out
    }

    #[test]
    fn open_trace_detects_each_format_and_rereads_from_the_start() {
        let mqsim = TempFile::new("mq", b"# c\n100 0 8 16 1\n200 0 24 8 0\n");
        let src = open_trace(mqsim.path(), None, false).unwrap();
        assert_eq!(src.name(), mqsim.path());
        let got = collect(src);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], Request { arrival_ns: 100, lba: 8, sectors: 16, op: Op::Read, approx: false, context: 0, handle: None, tolerance: 0.0 });

        let msr = TempFile::new(
            "msr",
            b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n128166372003061629,wdev,0,Write,4096,4096,100\n",
        );
        let got = collect(open_trace(msr.path(), None, false).unwrap());
        assert_eq!(got, vec![Request { arrival_ns: 12816637200306162900, lba: 8, sectors: 8, op: Op::Write, approx: false, context: 0, handle: None, tolerance: 0.0 }]);

        let blk = TempFile::new("blk", b"  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kjournald]\n");
        let got = collect(open_trace(blk.path(), None, false).unwrap());
        assert_eq!(got, vec![Request { arrival_ns: 0, lba: 3417048, sectors: 8, op: Op::Write, approx: false, context: 0, handle: None, tolerance: 0.0 }]);

        let alibaba = TempFile::new("alibaba", b"3,W,1000,100,1577808000000626\n3,R,0,4096,1577808000001626\n");
        let got = collect(open_trace(alibaba.path(), None, false).unwrap());
        assert_eq!(
            got,
            vec![
                Request { arrival_ns: 1_577_808_000_000_626_000, lba: 1, sectors: 2, op: Op::Write, approx: false, context: 0, handle: None, tolerance: 0.0 },
                Request { arrival_ns: 1_577_808_000_001_626_000, lba: 0, sectors: 8, op: Op::Read, approx: false, context: 0, handle: None, tolerance: 0.0 },
            ]
        );

        let systor = TempFile::new(
            "systor",
            b"Timestamp,Response,IOType,LUN,Offset,Size\n1487348895.080533,0.000234,R,3,7415377920,4096\n",
        );
        let got = collect(open_trace(systor.path(), None, false).unwrap());
        assert_eq!(got, vec![Request { arrival_ns: 1_487_348_895_080_533_000, lba: 14_483_160, sectors: 8, op: Op::Read, approx: false, context: 0, handle: None, tolerance: 0.0 }]);

        // An explicit format is honoured, even where detection would say otherwise.
        match open_trace(mqsim.path(), Some(TraceFormat::Msr), false).and_then(|mut s| s.next_request()) {
            Err(Error::Trace { line: 2, .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn long_files_stream_past_the_peeked_prefix() {
        let mut text = String::new();
        for i in 0..5000u64 {
            text.push_str(&format!("{} 0 {} 8 {}\n", i * 10, i * 8, i % 2));
        }
        let f = TempFile::new("long", text.as_bytes());
        let got = collect(open_trace(f.path(), None, false).unwrap());
        assert_eq!(got.len(), 5000);
        assert_eq!(got[4999].lba, 4999 * 8);
        assert!(got.iter().enumerate().all(|(i, r)| r.arrival_ns == i as u64 * 10));
    }

    #[test]
    fn undetectable_file_says_to_pass_format() {
        for contents in [&b"hello world\nfoo\n"[..], b"", b"# only a comment\n\n"] {
            let f = TempFile::new("unknown", contents);
            match open_trace(f.path(), None, false) {
                Err(Error::Io { path, message }) => {
                    assert_eq!(path, f.path());
                    assert!(message.contains("--format (mqsim, msr, blkparse, spc, alibaba, systor)"), "{message}");
                }
                Err(other) => panic!("{other:?}"),
                Ok(_) => panic!("detected a format in {contents:?}"),
            }
        }
    }

    #[test]
    fn skip_bad_lines_through_open_trace() {
        let f = TempFile::new("skip", b"1 0 0 8 0\nbad line\n2 0 8 8 1\n3 0 16 0 1\n");
        let mut src = open_trace(f.path(), Some(TraceFormat::Mqsim), true).unwrap();
        let mut n = 0;
        while src.next_request().unwrap().is_some() {
            n += 1;
        }
        assert_eq!((n, src.skipped_lines()), (2, 2));
    }
}
