//! The keys of `[scheme.ascache]`, shared by seed 002's cache schemes.

use serde::{Deserialize, Serialize};

use crate::config::ranges::bad;
use crate::error::Result;

/// Where an approximate write is placed among the levels that tolerate it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preference {
    /// The most reliable level with room, as the paper's text says ("preferring the highest
    /// available level"): an approximate write is then placed as a precise one.
    Highest,
    /// The least reliable level that still tolerates the write, keeping reliable blocks for
    /// data that needs them.
    LowestAdequate,
}

/// Which page of a block is its reference page (Sec. 3.2: "the first page or another
/// optional page").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReferencePage {
    /// The page the physics gives the largest RBER by its place in the block
    /// (`physics.page_spread`), so that the block's RBER_U bounds every page's, as the
    /// paper means its tracking to ("pessimistic"); the first page when pages do not differ.
    Worst,
    /// The first page, which holds the block's oldest data (the paper's example).
    First,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AscacheConfig {
    /// Eq. 2's bias added to a measured reference-page RBER, for the retention errors that
    /// grow until the next measurement. Not given by the paper; the default is about two
    /// days of the exp-linear model's retention slope (2e-3 a year).
    pub delta: f64,
    /// The idle scan (Sec. 3.2: "when idle, read the reference page"): how often the
    /// background task looks, how long the host must have been idle, and how many blocks it
    /// probes each time (round robin). Not given by the paper.
    pub scan_period_ms: f64,
    pub scan_idle_ms: f64,
    pub scan_blocks: u32,
    /// Whether a block's erase also programs and reads its reference page (Sec. 3.2: the
    /// page is written at GC and its RBER measured): the die spends a page program and a
    /// page read after the erase.
    pub reference_page_time: bool,
    /// Which page of a block is measured.
    pub reference_page: ReferencePage,
    /// `ascache`: where an AP_WRITE goes among the levels that tolerate its AP_BER.
    pub write_preference: Preference,
    /// `ascache`: an AP_READ that must be decoded senses every soft level its block's level
    /// predicts inside the die, then transfers and decodes once, instead of decoding level
    /// by level (Sec. 3.2, after Zhao et al.).
    pub direct_decode: bool,
}

impl Default for AscacheConfig {
    fn default() -> Self {
        AscacheConfig {
            delta: 1e-5,
            scan_period_ms: 1000.0,
            scan_idle_ms: 10.0,
            scan_blocks: 64,
            reference_page_time: true,
            reference_page: ReferencePage::Worst,
            write_preference: Preference::Highest,
            direct_decode: true,
        }
    }
}

impl AscacheConfig {
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let k = |name: &str| format!("{prefix}.{name}");
        if !(self.delta.is_finite() && (0.0..=0.5).contains(&self.delta)) {
            return Err(bad(&k("delta"), self.delta, "an RBER in [0, 0.5]"));
        }
        if !(self.scan_period_ms.is_finite() && self.scan_period_ms >= 0.001 && self.scan_period_ms <= 3.6e6) {
            return Err(bad(&k("scan_period_ms"), self.scan_period_ms, "a number of ms in [0.001, 3.6e6]"));
        }
        if !(self.scan_idle_ms.is_finite() && (0.0..=3.6e6).contains(&self.scan_idle_ms)) {
            return Err(bad(&k("scan_idle_ms"), self.scan_idle_ms, "a number of ms in [0, 3.6e6]"));
        }
        Ok(())
    }
}
