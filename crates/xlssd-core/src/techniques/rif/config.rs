//! The keys of `[scheme.rif]`, shared by seed 004's read-retry schemes.

use serde::{Deserialize, Serialize};

use crate::config::ranges::bad;
use crate::error::Result;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RifConfig {
    /// `rif`: the share of the die's syndrome-weight predictions that are right (seed 004:
    /// 98.7% for RiF's on-die module).
    pub accuracy: f64,
    /// `senc`: standard deviation, in retry-table steps, of the sentinel cells' estimate of
    /// a page's optimal reference (an assumption: Sentinel reports the optimum found within
    /// two retries in 94% of reads, MICRO 2020).
    pub senc_error_steps: f64,
}

impl Default for RifConfig {
    fn default() -> Self {
        RifConfig { accuracy: 0.987, senc_error_steps: 1.0 }
    }
}

impl RifConfig {
    pub fn validate(&self, prefix: &str) -> Result<()> {
        if !(self.accuracy.is_finite() && (0.0..=1.0).contains(&self.accuracy)) {
            return Err(bad(&format!("{prefix}.accuracy"), self.accuracy, "a fraction in [0, 1]"));
        }
        if !(self.senc_error_steps.is_finite() && (0.0..=100.0).contains(&self.senc_error_steps)) {
            return Err(bad(&format!("{prefix}.senc_error_steps"), self.senc_error_steps, "a number in [0, 100]"));
        }
        Ok(())
    }
}
