//! How the pages of one block differ in RBER. The RBER models give a page's errors from
//! its block's wear, its age and the reads of its block; within a block they differ too:
//!
//! - **By page type.** A page's bit errors happen where neighbouring threshold-voltage
//!   states overlap at the reference voltages it is read with. An MLC LSB page is read
//!   with one reference and its MSB page with two (seed 003, Sec. 4: "only one reference
//!   voltage (i.e., Vr2) is used while two reference voltages (i.e., Vr1 and Vr3) are
//!   necessary for reading an MSB page"). With the same overlap at every reference, a
//!   page's errors are in proportion to its references: 1 : 2 for MLC, and 1 : 2 : 4 (: 8)
//!   for TLC (QLC) under the binary-reflected Gray code assumed here.
//! - **On the block's last word line**, which no later program disturbs (seed 000, Sec.
//!   III-C: a page's program disturbance comes from the neighbours programmed after it),
//!   by a factor given as a setting.
//!
//! The factors are scaled to a mean of 1 over the block, so the model's RBER stays the
//! block's mean and its calibration holds.

use serde::{Deserialize, Serialize};

use crate::config::ranges::bad;
use crate::error::Result;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PageSpreadConfig {
    /// Spread a block's errors over its page types in proportion to their read references.
    pub by_page_type: bool,
    /// RBER of the pages of a block's last word line relative to the others' (1: none).
    pub last_wordline: f64,
}

impl Default for PageSpreadConfig {
    fn default() -> Self {
        PageSpreadConfig { by_page_type: false, last_wordline: 1.0 }
    }
}

impl PageSpreadConfig {
    pub fn validate(&self, prefix: &str) -> Result<()> {
        if !(self.last_wordline.is_finite() && self.last_wordline > 0.0 && self.last_wordline <= 100.0) {
            return Err(bad(&format!("{prefix}.last_wordline"), self.last_wordline, "a factor in (0, 100]"));
        }
        Ok(())
    }

    /// Whether the pages of a block differ at all.
    pub fn spreads(&self) -> bool {
        self.by_page_type || self.last_wordline != 1.0
    }

    /// Each page's RBER factor, by its index in a block of `pages_per_block` pages of
    /// `bits_per_cell` bits per cell (page types cycle with the index, a word line holding
    /// one page of each type), scaled to a mean of 1; empty when the pages do not differ.
    pub fn factors(&self, pages_per_block: u32, bits_per_cell: u32) -> Vec<f32> {
        if !self.spreads() || pages_per_block == 0 {
            return Vec::new();
        }
        let bits = bits_per_cell.max(1);
        let last_wordline = (pages_per_block - 1) / bits;
        let raw: Vec<f64> = (0..pages_per_block)
            .map(|p| {
                let by_type = if self.by_page_type { (1u64 << (p % bits).min(62)) as f64 } else { 1.0 };
                let by_line = if p / bits == last_wordline { self.last_wordline } else { 1.0 };
                by_type * by_line
            })
            .collect();
        let mean = raw.iter().sum::<f64>() / raw.len() as f64;
        raw.iter().map(|&f| (f / mean) as f32).collect()
    }
}

/// The index of the page with the largest factor (the first such), 0 when pages do not
/// differ.
pub fn worst_page(factors: &[f32]) -> u32 {
    let mut best = 0;
    for (i, &f) in factors.iter().enumerate() {
        if f > factors[best] {
            best = i;
        }
    }
    best as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mlc_pages_split_a_blocks_errors_one_to_two_and_keep_its_mean() {
        let c = PageSpreadConfig { by_page_type: true, ..Default::default() };
        let f = c.factors(8, 2);
        // LSB : MSB = 1 : 2, mean 1: 2/3 and 4/3.
        for (i, &x) in f.iter().enumerate() {
            let want = if i % 2 == 0 { 2.0 / 3.0 } else { 4.0 / 3.0 };
            assert!((x as f64 - want).abs() < 1e-6, "page {i}: {x}");
        }
        assert_eq!(worst_page(&f), 1, "the first MSB page");
    }

    #[test]
    fn tlc_types_and_the_last_word_line_combine() {
        // 4 word lines of 3 pages: types 1, 2, 4 references; the last line's at half.
        let c = PageSpreadConfig { by_page_type: true, last_wordline: 0.5 };
        let f = c.factors(12, 3);
        let raw = [1.0, 2.0, 4.0, 1.0, 2.0, 4.0, 1.0, 2.0, 4.0, 0.5, 1.0, 2.0];
        let mean: f64 = raw.iter().sum::<f64>() / 12.0;
        for (x, r) in f.iter().zip(raw) {
            assert!((*x as f64 - r / mean).abs() < 1e-6);
        }
        let sum: f64 = f.iter().map(|&x| x as f64).sum();
        assert!((sum / 12.0 - 1.0).abs() < 1e-6);
        assert_eq!(worst_page(&f), 2);
    }

    #[test]
    fn no_spread_is_no_table_and_bad_factors_are_refused_by_key() {
        assert!(PageSpreadConfig::default().factors(64, 2).is_empty());
        assert_eq!(worst_page(&[]), 0);
        let e = PageSpreadConfig { last_wordline: 0.0, ..Default::default() }.validate("physics.page_spread").unwrap_err();
        assert!(e.to_string().contains("physics.page_spread.last_wordline"), "{e}");
    }
}
