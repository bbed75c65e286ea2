//! Machinery every trace format shares: reading a file line by line without loading it,
//! skipping blank and comment lines, turning a line the format cannot parse into an error
//! that names file, line and text (or counting it when the user asked to skip such lines),
//! and opening a trace with its format given or detected.
//!
//! A format only supplies a [`LineParser`]: a pure function from one line to a request, so
//! the formats stay small and the error handling is the same for all of them.

use std::fs::File;
use std::io::{BufRead, BufReader, Chain, Cursor, Read};

use super::{detect, Request, RequestSource, TraceFormat};
use crate::error::{Error, Result};

/// Lines longer than this are rejected instead of being buffered: a file without line
/// breaks (a binary file given by mistake) must not be read into memory whole.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Offending text in an error is cut to this many characters, so that one bad line cannot
/// flood the terminal.
pub const MAX_ERROR_TEXT_CHARS: usize = 200;

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
        LineReader {
            reader,
            path: path.into(),
            line: String::with_capacity(256),
            line_no: 0,
            skip_bad_lines,
            skipped: 0,
        }
    }

    /// The next line with content, as (line number, text without surrounding ASCII whitespace),
    /// or `None` at the end of the input. A line that is not UTF-8 or too long goes
    /// through [`LineReader::reject`] like any other malformed line.
    pub fn next_line(&mut self) -> Result<Option<(u64, &str)>> {
        loop {
            match self.read_raw_line()? {
                None => return Ok(None),
                Some(RawLine::TooLong) => self.reject(format!("line is longer than {MAX_LINE_BYTES} bytes"))?,
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
    /// at the end of the input. A line over [`MAX_LINE_BYTES`] has its rest consumed and
    /// dropped.
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
            self.discard_rest_of_line()?;
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

    fn discard_rest_of_line(&mut self) -> Result<()> {
        loop {
            let avail = match self.reader.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.io_error(e)),
            };
            if avail.is_empty() {
                return Ok(());
            }
            match avail.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.reader.consume(i + 1);
                    return Ok(());
                }
                None => {
                    let len = avail.len();
                    self.reader.consume(len);
                }
            }
        }
    }

    fn io_error(&self, e: std::io::Error) -> Error {
        Error::Io { path: self.path.clone(), message: format!("read failed after line {}: {e}", self.line_no) }
    }

    /// Reports the current line as malformed: an [`Error::Trace`] naming file, line and
    /// (trimmed, shortened) text, or, with skipping enabled, `Ok(())` after counting it.
    pub fn reject(&mut self, message: String) -> Result<()> {
        if self.skip_bad_lines {
            self.skipped += 1;
            return Ok(());
        }
        Err(Error::Trace { file: self.path.clone(), line: self.line_no, text: shorten(self.line.trim()), message })
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// Malformed lines skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }
}

/// Cuts `text` to [`MAX_ERROR_TEXT_CHARS`] characters (on a character boundary), marking
/// the cut with "...".
pub fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_ERROR_TEXT_CHARS {
        return text.to_string();
    }
    let mut s: String = text.chars().take(MAX_ERROR_TEXT_CHARS - 3).collect();
    s.push_str("...");
    s
}

/// Parses a field that must be a non-negative decimal integer, naming the field in the
/// message otherwise. Digits only: `str::parse` alone would also take a leading `+`, which
/// no trace writes, so it most likely marks a corrupted line.
pub fn parse_u64(field: &str, name: &str) -> Result<u64, String> {
    let not_integer = || format!("{name} `{field}` is not a non-negative integer");
    if !field.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
        return Err(not_integer());
    }
    field.parse::<u64>().map_err(|_| {
        // `parse` reports overflow before looking at all the characters.
        if field.bytes().all(|b| b.is_ascii_digit()) {
            format!("{name} `{field}` is too large (at most {})", u64::MAX)
        } else {
            not_integer()
        }
    })
}

/// One trace format: turns a line (trimmed, non-empty, not a comment) into a request.
pub trait LineParser {
    /// `Ok(None)` for a line the format defines but that carries no request (a header, an
    /// event kind that is not replayed); `Err(message)` for a malformed line, the message
    /// saying what was expected (file, line and text are added by the caller).
    fn parse_line(&mut self, line: &str) -> Result<Option<Request>, String>;
}

/// A [`RequestSource`] reading one request per line with a format's [`LineParser`].
pub struct TraceReader<R, P> {
    lines: LineReader<R>,
    parser: P,
}

impl<R: BufRead, P: LineParser> TraceReader<R, P> {
    /// `path` is what messages call the input.
    pub fn new(reader: R, path: impl Into<String>, skip_bad_lines: bool, parser: P) -> Self {
        TraceReader { lines: LineReader::new(reader, path, skip_bad_lines), parser }
    }
}

impl<R: BufRead, P: LineParser> RequestSource for TraceReader<R, P> {
    fn next_request(&mut self) -> Result<Option<Request>> {
        loop {
            let parsed = match self.lines.next_line()? {
                None => return Ok(None),
                Some((_, line)) => self.parser.parse_line(line),
            };
            match parsed {
                Ok(Some(req)) => return Ok(Some(req)),
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
pub fn reader_for<R: BufRead + Send + 'static>(
    format: TraceFormat,
    reader: R,
    path: &str,
    skip_bad_lines: bool,
) -> Box<dyn RequestSource + Send> {
    match format {
        TraceFormat::Mqsim => Box::new(TraceReader::new(reader, path, skip_bad_lines, super::mqsim::MqsimParser)),
        TraceFormat::Msr => Box::new(TraceReader::new(reader, path, skip_bad_lines, super::msr::MsrParser)),
        TraceFormat::Blkparse => {
            Box::new(TraceReader::new(reader, path, skip_bad_lines, super::blkparse::BlkparseParser))
        }
    }
}

/// The bytes already read for detection, followed by the rest of the file: the file is
/// read once, from the start, so detection also works on pipes (`<(zcat t.gz)`).
type PeekedFile = Chain<Cursor<Vec<u8>>, BufReader<File>>;

/// Opens a trace file and returns a streaming reader for it. With `format` `None` the
/// format is detected from the first lines ([`detect::detect_format`]).
///
/// A missing or unreadable file is an [`Error::Io`] naming the path and the OS reason; an
/// undetectable format is an [`Error::Io`] that says to pass `--format`.
pub fn open_trace(path: &str, format: Option<TraceFormat>, skip_bad_lines: bool) -> Result<Box<dyn RequestSource>> {
    open_trace_detected(path, format, skip_bad_lines).map(|(source, _)| source)
}

/// Like [`open_trace`], also saying which format the trace was read as (given or detected).
pub fn open_trace_detected(
    path: &str,
    format: Option<TraceFormat>,
    skip_bad_lines: bool,
) -> Result<(Box<dyn RequestSource>, TraceFormat)> {
    let file = File::open(path)
        .map_err(|e| Error::Io { path: path.to_string(), message: format!("cannot open trace: {e}") })?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
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
                    return Err(Error::Io {
                        path: path.to_string(),
                        message: format!("{what}; pass --format (mqsim, msr, blkparse)"),
                    });
                }
            }
        }
    };
    let input: PeekedFile = Cursor::new(prefix).chain(reader);
    Ok((Box::new(super::prefetch::Prefetch::new(reader_for(format, input, path, skip_bad_lines))), format))
}

/// Reads up to [`detect::MAX_LINES`] content lines for detection. Returns them and every byte
/// consumed, so that reading can start over from the first byte.
fn peek_lines(reader: &mut BufReader<File>, path: &str) -> Result<(Vec<String>, Vec<u8>)> {
    let mut prefix = Vec::new();
    let mut lines = Vec::new();
    while lines.len() < detect::MAX_LINES && prefix.len() < DETECT_MAX_BYTES {
        let start = prefix.len();
        let n = reader
            .by_ref()
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut prefix)
            .map_err(|e| Error::Io { path: path.to_string(), message: format!("read failed: {e}") })?;
        if n == 0 {
            break;
        }
        let text = String::from_utf8_lossy(prefix.get(start..).unwrap_or_default());
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
        let mut src = reader_for(format, Cursor::new(text.as_bytes().to_vec()), "mem.trace", skip);
        let mut out = Vec::new();
        while let Some(r) = src.next_request()? {
            out.push(r);
        }
        Ok((out, src.skipped_lines()))
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
    fn invalid_utf8_and_overlong_lines_are_bad_lines() {
        let mut text = b"ok\n\xff\xfe bad\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        text.extend(b"\nafter\n");
        let mut r = LineReader::new(Cursor::new(text.clone()), "x", true);
        let mut got = Vec::new();
        while let Some((n, l)) = r.next_line().unwrap() {
            got.push((n, l.to_string()));
        }
        assert_eq!(got, vec![(1, "ok".to_string()), (4, "after".to_string())]);
        assert_eq!(r.skipped(), 2);

        let mut r = LineReader::new(Cursor::new(text), "x", false);
        assert!(r.next_line().unwrap().is_some());
        match r.next_line() {
            Err(Error::Trace { line: 2, message, .. }) => assert!(message.contains("UTF-8")),
            other => panic!("{other:?}"),
        }
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
        assert_eq!(got[0], Request { arrival_ns: 100, lba: 8, sectors: 16, op: Op::Read, approx: false });

        let msr = TempFile::new(
            "msr",
            b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n128166372003061629,wdev,0,Write,4096,4096,100\n",
        );
        let got = collect(open_trace(msr.path(), None, false).unwrap());
        assert_eq!(got, vec![Request { arrival_ns: 12816637200306162900, lba: 8, sectors: 8, op: Op::Write, approx: false }]);

        let blk = TempFile::new("blk", b"  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kjournald]\n");
        let got = collect(open_trace(blk.path(), None, false).unwrap());
        assert_eq!(got, vec![Request { arrival_ns: 0, lba: 3417048, sectors: 8, op: Op::Write, approx: false }]);

        // An explicit format is honoured, even where detection would say otherwise.
        match open_trace(mqsim.path(), Some(TraceFormat::Msr), false).unwrap().next_request() {
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
                    assert!(message.contains("--format (mqsim, msr, blkparse)"), "{message}");
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
