//! The keys of `[scheme.redftl]`, shared by the read-disturb schemes (each uses some of
//! them). Defaults are seed 003's TLC setup.

use serde::{Deserialize, Serialize};

use crate::config::ranges::bad;
use crate::error::Result;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedConfig {
    /// Reads of a block since its erase at which read reclaim moves it (seed 003 Table 2:
    /// 38,000, against a maximum read count of 40,000).
    pub reclaim_threshold: u32,
    /// A reclaim's operations go ahead of host reads on its die, so that the reads behind
    /// it wait for the whole block to move (seed 003 Sec. 3.2.2: all valid pages move at
    /// once, and the reads of the 326-332 ms peaks wait for them); `false` lets host reads
    /// overtake it as they overtake cleaning.
    pub reclaim_ahead_of_reads: bool,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig { reclaim_threshold: 38_000, reclaim_ahead_of_reads: true }
    }
}

impl RedConfig {
    /// Rejects impossible values, naming the key (under `prefix`) and the range.
    pub fn validate(&self, prefix: &str) -> Result<()> {
        if self.reclaim_threshold == 0 {
            return Err(bad(&format!("{prefix}.reclaim_threshold"), self.reclaim_threshold, "at least 1 read"));
        }
        Ok(())
    }
}
