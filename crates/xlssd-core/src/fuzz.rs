//! Entry points for coverage-guided fuzzing of the input parsers, one per fuzz target.
//!
//! The cargo-fuzz targets in `fuzz/` call these functions with the fuzzer's bytes, and the
//! replay test (`tests/fuzz_replay.rs`) calls them with every file of the kept corpus
//! (`fuzz/corpus/<target>/`), so what the fuzzer found is checked again by every test run.
//! Each function panics when an invariant of the parser breaks, not only when the parser
//! itself panics:
//!
//! - whatever is accepted is well-formed (a request covers at least one sector and does
//!   not run past the end of the address space, a config validates and survives a JSON
//!   round trip, a workload spec applied twice gives what it gave once);
//! - whatever is refused is refused with the error kind that names the input (a config
//!   key, a trace file and line), and a message that holds no raw control byte or invisible
//!   formatting character (escaping it again changes nothing) and stays short.
//!
//! Each call costs about as much as parsing the input a few times over; nothing touches the
//! file system except a config naming a file (`scheme.approxftl.lba_ranges_file`).

use std::io::Cursor;

use crate::config::{Config, WorkloadConfig};
use crate::error::{printable, Error};
use crate::host::synthetic::SyntheticSource;
use crate::host::trace::{reader_detected, reader_for, MAX_ERROR_TEXT_CHARS};
use crate::host::{scaled_arrival_ns, Op, Request, RequestSource, TraceFormat, MAX_ARRIVAL_NS, MAX_HANDLE};

/// What trace errors call the fuzzed input.
const TRACE_NAME: &str = "fuzz.trace";

/// Longest message (in characters) an error about a short input may have: messages quote
/// bounded excerpts of their input, never all of it.
const MAX_MESSAGE_CHARS: usize = 1500;

/// Requests of a synthetic workload that [`workload_spec`] generates and checks.
const SYNTHETIC_REQUESTS: usize = 64;

/// Logical sectors of the device [`workload_spec`] generates requests for (64 GiB).
const SYNTHETIC_SECTORS: u64 = 1 << 27;

/// Checks what an error shows its user: a message that escaping again leaves unchanged (no
/// raw control or invisible formatting characters) and of bounded length. `input` is only
/// quoted when the check fails.
fn check_error(e: &Error, input: &str) {
    let shown = e.to_string();
    assert_eq!(printable(&shown, usize::MAX), shown, "error message holds unescaped characters: {shown:?} (input {input:?})");
    assert!(
        shown.chars().count() <= MAX_MESSAGE_CHARS,
        "error message of {} characters for an input of {} bytes: {shown:?}",
        shown.chars().count(),
        input.len()
    );
}

/// Every request of `source`, or its first error, with the lines it skipped.
fn read_all(mut source: Box<dyn RequestSource + Send>) -> Result<(Vec<Request>, u64), Error> {
    let mut out = Vec::new();
    while let Some(r) = source.next_request()? {
        out.push(r);
    }
    Ok((out, source.skipped_lines()))
}

/// Checks one read of a trace of `lines` physical lines, read with `time_scale`.
fn check_read(result: &Result<(Vec<Request>, u64), Error>, format: TraceFormat, lines: u64, time_scale: Option<f64>, text: &str) {
    match result {
        Ok((requests, skipped)) => {
            assert!(!requests.is_empty(), "{format:?}: a trace read without error has requests");
            assert!(requests.len() as u64 + skipped <= lines, "{format:?}: more requests and skipped lines than lines");
            let first = requests[0].arrival_ns;
            for r in requests {
                assert!(r.sectors >= 1, "{format:?}: a request of no sectors: {r:?}");
                assert!(r.lba.checked_add(r.sectors as u64).is_some(), "{format:?}: a request past 2^64 sectors: {r:?}");
                if format == TraceFormat::Msr {
                    assert_eq!(r.arrival_ns % 100, 0, "MSR arrivals are whole 100 ns ticks: {r:?}");
                }
                if format == TraceFormat::Alibaba {
                    assert_eq!(r.arrival_ns % 1000, 0, "Alibaba arrivals are whole microseconds: {r:?}");
                }
                if format != TraceFormat::Mqsim {
                    assert!(!r.approx, "{format:?} has no approximate flag: {r:?}");
                }
                if !matches!(format, TraceFormat::Mqsim | TraceFormat::Msr) {
                    assert!(r.context == 0 && r.handle.is_none(), "{format:?} has no context or handle: {r:?}");
                }
                assert!(r.handle.is_none_or(|h| h <= MAX_HANDLE), "{format:?}: a handle beyond {MAX_HANDLE}: {r:?}");
                if let Some(scale) = time_scale {
                    let after = r.arrival_ns.saturating_sub(first);
                    let at = scaled_arrival_ns(after, scale);
                    assert!(at.is_some_and(|ns| ns <= MAX_ARRIVAL_NS), "{format:?}: arrival beyond the time limit: {r:?}");
                }
            }
        }
        Err(e) => {
            check_error(e, text);
            match e {
                Error::Trace { file, line, text: shown, .. } => {
                    assert_eq!(file, TRACE_NAME);
                    assert!((1..=lines).contains(line), "{format:?}: error on line {line} of {lines}");
                    assert!(shown.chars().count() <= MAX_ERROR_TEXT_CHARS, "{format:?}: quoted text too long: {shown:?}");
                }
                Error::Io { path, message } => {
                    assert_eq!(path, TRACE_NAME);
                    assert!(message.starts_with("no requests to replay"), "{format:?}: unexpected I/O error {message:?}");
                }
                other => panic!("{format:?}: a trace read fails with {other:?}"),
            }
        }
    }
}

/// Fuzz target `trace`: `data` as a trace file, read as each format (strict, strict with
/// open-loop arrival limits, and skipping bad lines) and with its format detected.
///
/// Invariants: every request covers at least one sector and ends below 2^64 sectors; MSR
/// arrivals are whole ticks, Alibaba arrivals whole microseconds; only MQSim and MSR carry
/// program contexts and placement handles, and no handle exceeds [`MAX_HANDLE`]; with a
/// time scale, no arrival lies beyond the time limit; a strict read that succeeds reads the same with bad lines skipped (skipping none); a read
/// with the format detected reads exactly as a read with that format given; errors are
/// trace errors naming a line of the input, or "no requests", with printable messages.
pub fn trace(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    // Physical lines as the reader numbers them (a last line without a break counts).
    let lines = data.split(|&b| b == b'\n').count() as u64 - u64::from(data.ends_with(b"\n") || data.is_empty());
    let read = |format: TraceFormat, skip: bool, scale: Option<f64>| {
        read_all(reader_for(format, Cursor::new(data.to_vec()), TRACE_NAME, skip, scale))
    };
    for format in TraceFormat::ALL {
        let strict = read(format, false, None);
        check_read(&strict, format, lines, None, &text);
        let scaled = read(format, false, Some(1.0));
        check_read(&scaled, format, lines, Some(1.0), &text);
        let skipping = read(format, true, Some(1.0));
        check_read(&skipping, format, lines, Some(1.0), &text);
        if let Ok((requests, _)) = &scaled {
            assert_eq!(skipping.as_ref().ok(), Some(&(requests.clone(), 0)), "{format:?}: skipping changed a clean read");
        }
        if let (Ok(all), Ok(bounded)) = (&strict, &scaled) {
            assert_eq!(all, bounded, "{format:?}: the time limit changed a read it did not refuse");
        }
    }
    match reader_detected(Cursor::new(data.to_vec()), TRACE_NAME, None, false, None) {
        Ok((source, format)) => {
            let detected = read_all(source);
            let given = read(format, false, None);
            assert_eq!(detected, given, "{format:?}: detection read differently from the format given");
        }
        Err(e) => {
            check_error(&e, &text);
            match &e {
                Error::Io { path, message } => {
                    assert_eq!(path, TRACE_NAME);
                    assert!(
                        message.ends_with("pass --format (mqsim, msr, blkparse, spc, alibaba, systor)"),
                        "unexpected detection error {message:?}"
                    );
                }
                Error::Trace { file, line, message, .. } => {
                    assert_eq!(file, TRACE_NAME);
                    assert!((1..=lines).contains(line), "detection error on line {line} of {lines}");
                    assert!(message.contains("longer than"), "unexpected detection error {message:?}");
                }
                other => panic!("detection fails with {other:?}"),
            }
        }
    }
}

/// Fuzz target `workload_spec`: `data` (UTF-8, invalid sequences replaced) as a
/// `--workload` spec over the default `[workload]` section.
///
/// Invariants: an accepted spec gives a workload that validates, survives a JSON round
/// trip, is what the spec gives when applied to it again, and generates requests of at
/// least one sector inside the device in non-decreasing arrival order, writes with a
/// context of the workload's and a handle below its `handles`, reads with neither; a
/// refused spec is a config error on a `workload` key with a printable message.
pub fn workload_spec(data: &[u8]) {
    let spec = String::from_utf8_lossy(data);
    let base = WorkloadConfig::default();
    match WorkloadConfig::from_spec(&spec, &base) {
        Ok(w) => {
            if let Err(e) = w.validate("workload") {
                panic!("an accepted spec does not validate: {e}");
            }
            let json = serde_json::to_string(&w).expect("a workload serialises");
            let back: WorkloadConfig = serde_json::from_str(&json).expect("a workload's JSON reads back");
            assert_eq!(back, w, "JSON round trip changed the workload");
            assert_eq!(WorkloadConfig::from_spec(&spec, &w).as_ref(), Ok(&w), "applying the spec again changed it");
            assert_eq!(WorkloadConfig::from_spec("", &w).as_ref(), Ok(&w), "an empty spec changed the workload");
            check_synthetic(&w);
        }
        Err(e) => {
            check_error(&e, &spec);
            match &e {
                Error::Config { key, .. } => assert!(key.starts_with("workload."), "error on key {key:?}"),
                other => panic!("a spec fails with {other:?}"),
            }
        }
    }
}

/// The first requests of `w` on a 64 GiB device are inside it and in arrival order, and
/// carry contexts and handles as `w` says.
fn check_synthetic(w: &WorkloadConfig) {
    let source = SyntheticSource::new(w, SYNTHETIC_SECTORS, 1).and_then(|s| s.with_time_scale(w, 1.0));
    let mut source = match source {
        Ok(s) => s,
        Err(e) => {
            check_error(&e, "");
            assert!(matches!(e, Error::Config { ref key, .. } if key.starts_with("workload.")), "{e:?}");
            return;
        }
    };
    let mut last = 0u64;
    for _ in 0..SYNTHETIC_REQUESTS.min(w.n as usize) {
        let r = match source.next_request() {
            Ok(Some(r)) => r,
            Ok(None) => panic!("the generator ended before its {} requests", w.n),
            Err(e) => panic!("the generator failed: {e}"),
        };
        assert!(r.sectors >= 1, "a request of no sectors: {r:?}");
        assert!(r.lba + r.sectors as u64 <= SYNTHETIC_SECTORS, "a request beyond the device: {r:?}");
        assert!(r.arrival_ns >= last, "arrivals out of order: {r:?} after {last}");
        let write = r.op == Op::Write;
        assert!(
            if write { r.context <= w.contexts && (r.context > 0) == (w.contexts > 0) } else { r.context == 0 },
            "context of {r:?}"
        );
        assert!(
            r.handle.is_some() == (write && w.handles > 0) && r.handle.is_none_or(|h| (h as u32) < w.handles),
            "handle of {r:?}"
        );
        last = r.arrival_ns;
    }
}

/// Fuzz target `config`: `data` (UTF-8, invalid sequences replaced) as a TOML config file
/// and as the JSON the Python layer hands over.
///
/// Invariants: an accepted config validates, survives a JSON round trip exactly (what a
/// report carries rebuilds the same config), and has logical space; the same document
/// parsed as JSON and as TOML is never accepted as two different configs; a refused
/// document is a config error (or a file error about a file it names) with a printable
/// message.
pub fn config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let toml = crate::config_from_toml(&text);
    let json = crate::config_from_json(&text);
    for parsed in [&toml, &json] {
        match parsed {
            Ok(cfg) => check_config(cfg),
            Err(e) => {
                check_error(e, &text);
                assert!(matches!(e, Error::Config { .. } | Error::Io { .. } | Error::Trace { .. }), "a config fails with {e:?}");
            }
        }
    }
    if let (Ok(a), Ok(b)) = (&toml, &json) {
        assert_eq!(a, b, "one document read as two different configs");
    }
}

fn check_config(cfg: &Config) {
    if let Err(e) = cfg.validate() {
        panic!("an accepted config does not validate: {e}");
    }
    let json = serde_json::to_string(&cfg.to_json_value()).expect("a config serialises");
    match crate::config_from_json(&json) {
        Ok(back) => assert_eq!(&back, cfg, "JSON round trip changed the config"),
        Err(e) => panic!("an accepted config's JSON is refused: {e}"),
    }
    let c = cfg.capacity();
    assert!(c.logical_pages >= 1, "an accepted config has no logical space: {c:?}");
    assert!(c.logical_pages * c.unit_pages as u64 + c.translation_pages < c.usable_pages, "{c:?}");
    assert!(cfg.logical_sectors() >= 1);
    let l = cfg.precondition_layout();
    assert!(l.used == 0 || l.per_plane <= l.data_blocks as u64 * l.units_per_block as u64, "{l:?} {c:?}");
    // An accepted config sets up: small devices are built (preconditioning, translation
    // pages, a scheme's set-up), larger ones would cost the fuzzer too much time.
    if c.physical_pages <= SET_UP_PAGES {
        if let Err(e) = crate::simulator(cfg, Box::new(NoRequests), None) {
            panic!("an accepted config fails at set-up: {e}");
        }
    }
}

/// Largest device [`config`] builds.
const SET_UP_PAGES: u64 = 1 << 20;

/// A workload of no requests (also the invariant checker's tests').
pub(crate) struct NoRequests;

impl RequestSource for NoRequests {
    fn next_request(&mut self) -> crate::error::Result<Option<Request>> {
        Ok(None)
    }
    fn name(&self) -> &str {
        "no requests"
    }
}
