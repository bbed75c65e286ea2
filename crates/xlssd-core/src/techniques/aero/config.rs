//! The keys of `[scheme.aero]`, shared by seed 004's erase schemes.

use serde::{Deserialize, Serialize};

use crate::config::ranges::bad;
use crate::error::Result;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AeroConfig {
    /// `aero-cons`, `aero`: the share of erases whose fail-bit-count prediction (FELP)
    /// falls one 0.5 ms step short, so that one more 0.5 ms loop finishes the block. The
    /// AERO authors' simulator draws it per erase; its shipped configurations use 0.
    pub misprediction: f64,
    /// `aero`: the factor on the RBER of data written to a block whose last erase AERO cut
    /// short of AERO_CONS's (the ECC margin absorbs the errors an incomplete erase leaves).
    /// An assumption: the extra RBER is not given in the sources.
    pub cut_rber_factor: f64,
    /// Whether a read may suspend the last loop of an erase (`timing.erase_suspend`); the
    /// AERO authors' simulator never suspends it.
    pub suspend_last_loop: bool,
}

impl Default for AeroConfig {
    fn default() -> Self {
        AeroConfig { misprediction: 0.0, cut_rber_factor: 1.2, suspend_last_loop: true }
    }
}

impl AeroConfig {
    pub fn validate(&self, prefix: &str) -> Result<()> {
        if !(self.misprediction.is_finite() && (0.0..=1.0).contains(&self.misprediction)) {
            return Err(bad(&format!("{prefix}.misprediction"), self.misprediction, "a fraction in [0, 1]"));
        }
        if !(self.cut_rber_factor.is_finite() && (1.0..=100.0).contains(&self.cut_rber_factor)) {
            return Err(bad(&format!("{prefix}.cut_rber_factor"), self.cut_rber_factor, "a number in [1, 100]"));
        }
        Ok(())
    }
}
