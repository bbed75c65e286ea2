//! The `rif` report section: what the die's predictions did.

use serde::{Deserialize, Serialize};

pub const KEY: &str = "rif";

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct RifReport {
    /// The running scheme's name.
    pub scheme: String,
    /// Senses after which the die predicted (every sense of a read under `rif`).
    pub checks: u64,
    /// Predicted failures that would have failed: retried inside the die, no transfer.
    pub predicted_failures: u64,
    /// Predicted failures of data that would have decoded: an extra sense.
    pub false_failures: u64,
    /// Predicted successes of data that then failed to decode: a transfer and a
    /// controller retry.
    pub false_successes: u64,
}

/// The section of a finished run's report.
pub fn of(report: &crate::report::Report) -> RifReport {
    report.techniques.get(KEY).and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default()
}
