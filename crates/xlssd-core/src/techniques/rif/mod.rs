//! Read-retry schemes of seed 004 (RiF, HPCA 2024, as the NVRAMOS 2024 talk presents it),
//! on the retry-table model of `physics.read_retry`:
//!
//! - `retry`: the conventional read-retry: every attempt is sensed, moved over the channel
//!   and decoded by the controller, walking the retry table from the default reference.
//! - `ideal`: the talk's SSD_ideal: every read starts at the table entry nearest its optimal
//!   reference (no retry unless no entry decodes).
//! - `senc`: Sentinel (MICRO 2020): the first read fails as in `retry`, and the errors of
//!   the sentinel cells give an estimate of the optimal reference that the next attempt
//!   uses; later attempts step towards the optimum from there.
//! - `swr`: SwiftRead in the talk's "optimal" setting: at most one retry, straight to the
//!   entry nearest the optimum.
//! - `rif`: Retry-in-Flash: after each sense the die predicts from the syndrome weight of a
//!   4 KiB subpage whether the data will decode (right with probability `accuracy`); a
//!   predicted failure is sensed again inside the die at the next entry, and nothing
//!   crosses the channel. A wrong "decodes" costs a transfer and a controller retry, a
//!   wrong "fails" an extra sense.
//!
//! `rif` overrides the read-retry hook and `senc`/`swr` the retry-reference hook, so
//! `rif+senc` and `rif+swr` compose.

pub mod config;
pub mod report;

use self::config::RifConfig;
use self::report::RifReport;
use super::hooks::*;
use super::{SchemeInfo, TableInfo};
use crate::error::Result;
use crate::physics::read_retry::{hash64, page_normal};

const TABLE_NAME: &str = "rif";

pub const TABLE: TableInfo = TableInfo { name: TABLE_NAME, report_key: report::KEY, resolve, memory: |_, _, _| Vec::new() };

fn resolve(raw: &serde_json::Value, prefix: &str) -> Result<serde_json::Value> {
    super::resolve_table(raw, prefix, RifConfig::validate)
}

/// Where a scheme's retries read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// Walk the table from the default reference.
    Walk,
    /// The entry nearest the optimum from the first attempt on.
    Oracle,
    /// The default reference, then the entry nearest the optimum.
    OneStep,
    /// The default reference, then an estimate of the optimum, then steps towards it.
    Sentinel,
}

pub struct ReadRetryScheme {
    start: Start,
    /// Whether the die predicts and retries inside itself (RiF).
    in_die: bool,
    cfg: RifConfig,
    report: RifReport,
}

impl ReadRetryScheme {
    fn new(name: &str, start: Start, in_die: bool, cfg: RifConfig) -> ReadRetryScheme {
        ReadRetryScheme { start, in_die, cfg, report: RifReport { scheme: name.to_string(), ..Default::default() } }
    }
}

/// The table entry nearest a page's optimal shift.
fn nearest(shift: f64) -> u32 {
    if shift.is_finite() {
        shift.round().max(0.0) as u32
    } else {
        0
    }
}

/// A uniform in [0, 1) fixed by an attempt, so that runs repeat exactly.
fn attempt_uniform(a: &Attempt, salt: u64) -> f64 {
    let key = a.ppn ^ (a.step as u64) << 52 ^ (a.reference as u64) << 44 ^ a.rber.to_bits().rotate_left(7) ^ salt;
    (hash64(key) >> 11) as f64 / (1u64 << 53) as f64
}

impl ReadRetry for ReadRetryScheme {
    fn retry_in_die(&mut self, a: &Attempt) -> bool {
        if !self.in_die {
            return false;
        }
        self.report.checks += 1;
        let right = attempt_uniform(a, 0x5157) < self.cfg.accuracy;
        let predicts_failure = if right { !a.decodable } else { a.decodable };
        match (predicts_failure, a.decodable) {
            (true, false) => self.report.predicted_failures += 1,
            (true, true) => self.report.false_failures += 1,
            (false, false) => self.report.false_successes += 1,
            (false, true) => {}
        }
        predicts_failure
    }
}

impl RetryReference for ReadRetryScheme {
    fn first_reference(&mut self, a: &Attempt) -> u32 {
        match self.start {
            Start::Oracle => nearest(a.shift),
            _ => 0,
        }
    }

    fn next_reference(&mut self, a: &Attempt) -> u32 {
        let toward = |from: u32| {
            let target = nearest(a.shift);
            match from.cmp(&target) {
                std::cmp::Ordering::Less => from + 1,
                std::cmp::Ordering::Greater => from - 1,
                // At the optimum and still failing: nothing nearer; walk on.
                std::cmp::Ordering::Equal => from + 1,
            }
        };
        match (self.start, a.step) {
            (Start::Walk, _) => a.reference + 1,
            (Start::OneStep, 0) => nearest(a.shift),
            (Start::Sentinel, 0) => {
                // The sentinel cells' estimate of the optimum, off by a normal error.
                let e = self.cfg.senc_error_steps * page_normal(a.ppn ^ a.rber.to_bits().rotate_left(21));
                nearest(a.shift + e)
            }
            (Start::Oracle | Start::OneStep | Start::Sentinel, _) => toward(a.reference),
        }
    }
}

impl Placement for ReadRetryScheme {}
impl ProgramModes for ReadRetryScheme {}
impl Cleaning for ReadRetryScheme {}
impl FreeBlocks for ReadRetryScheme {}
impl ReadPath for ReadRetryScheme {}
impl EraseControl for ReadRetryScheme {}
impl Background for ReadRetryScheme {}
impl CacheTier for ReadRetryScheme {}
impl Observer for ReadRetryScheme {}

impl Technique for ReadRetryScheme {
    fn report(&self, _tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        // Joined schemes (`rif+senc`) are two parts of this technique: their counts add up.
        let mut r = self.report.clone();
        if let Some(other) = sections.get(report::KEY).and_then(|v| serde_json::from_value::<RifReport>(v.clone()).ok()) {
            r.checks += other.checks;
            r.predicted_failures += other.predicted_failures;
            r.false_failures += other.false_failures;
            r.false_successes += other.false_successes;
        }
        sections.insert(report::KEY.into(), serde_json::to_value(&r).expect("report serialises"));
    }
}

fn build(ctx: &super::BuildCtx, start: Start, in_die: bool) -> Result<Box<dyn Technique>> {
    let cfg: RifConfig = super::table_config(ctx, TABLE_NAME)?;
    Ok(Box::new(ReadRetryScheme::new(&ctx.cfg.scheme.name, start, in_die, cfg)))
}

const fn scheme(
    name: &'static str,
    description: &'static str,
    hooks: &'static [Hook],
    keys: &'static [&'static str],
    build: fn(&super::BuildCtx) -> Result<Box<dyn Technique>>,
) -> SchemeInfo {
    SchemeInfo { needs: retry_model, ..super::table_scheme(name, description, hooks, TABLE_NAME, keys, build) }
}

/// Every read-retry scheme walks the retry-table model's attempts.
fn retry_model(cfg: &crate::config::Config, _table: &serde_json::Value) -> Result<()> {
    if cfg.physics.read_retry.enabled {
        return Ok(());
    }
    Err(super::need(cfg, "scheme.name", "decides where read-retry attempts read: it needs physics.read_retry.enabled = true"))
}

pub const RETRY: SchemeInfo = scheme(
    "retry",
    "seed 004's conventional read-retry: every attempt through the channel and the controller's decoder, walking the retry table",
    &[],
    &[],
    |ctx| build(ctx, Start::Walk, false),
);

pub const IDEAL: SchemeInfo = scheme(
    "ideal",
    "seed 004's SSD_ideal: every read starts at the retry-table entry nearest its optimal reference",
    &[Hook::RetryReference],
    &[],
    |ctx| build(ctx, Start::Oracle, false),
);

pub const SENC: SchemeInfo = scheme(
    "senc",
    "Sentinel (seed 004's SENC): after a failed read, an estimate of the optimal reference from sentinel cells",
    &[Hook::RetryReference],
    &["senc_error_steps"],
    |ctx| build(ctx, Start::Sentinel, false),
);

pub const SWR: SchemeInfo = scheme(
    "swr",
    "SwiftRead (seed 004's SWR, its optimal setting): at most one retry, straight to the optimal reference",
    &[Hook::RetryReference],
    &[],
    |ctx| build(ctx, Start::OneStep, false),
);

pub const RIF: SchemeInfo = scheme(
    "rif",
    "seed 004's RiF: the die predicts a read's failure from the syndrome weight and retries inside itself",
    &[Hook::ReadRetry],
    &["accuracy"],
    |ctx| build(ctx, Start::Walk, true),
);
