//! Read disturbance (seed 003, Sec. 2.1 and 4.2.3): every read applies a pass voltage to the
//! other word lines of its block and injects charge, so a block's RBER grows with the reads
//! it has served since its last erase. Eq. 2.1 makes the injected charge linear in the
//! number of reads and in the read time, so the added RBER is modelled as linear in the
//! block's *weighted* read count D = sum over reads of beta(page type) / alpha(read mode):
//! reading a page type that needs more sensing disturbs more (beta), and a block read with
//! lowered read voltages tolerates more reads (alpha). Table 5 gives both (TLCbase model).
//!
//! The slope is calibrated on the seed's measurement: a normal TLC block read on its
//! slowest page type reaches the limit of a 40-bit-per-1-KiB ECC after 40,000 reads (seed
//! 003 Sec. 3.1, Sec. 4.4). That limit is the RBER at which a t = 40 BCH code over 1 KiB
//! of data just meets UBER 1e-15 (1.385e-3, from seed 001 Eq. 2). The maximum read count
//! of any block is then an output: (ECC limit - the block's other errors) / slope per
//! weighted read.

use serde::{Deserialize, Serialize};

/// RBER at which a 40-bit BCH code over 1 KiB just meets UBER 1e-15 (seed 001 Eq. 2).
pub const ECC40_LIMIT: f64 = 1.385e-3;
/// Reads of the slowest page type that a normal block survives under that ECC (seed 003).
pub const NORMAL_MAX_READS: f64 = 40_000.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReadDisturbConfig {
    /// RBER added per weighted read.
    pub rber_per_read: f64,
    /// Disturbance of one read per page type, indexed like the cell's page types (LSB,
    /// CSB, MSB for TLC), relative to the slowest type: seed 003 Table 5, TLCbase
    /// (LSB 0.25, CSB 0.5, MSB 1).
    pub beta: Vec<f64>,
    /// Read-count tolerance of each read mode relative to a normal read: seed 003 Table 5
    /// (alpha 1, 2, 5 for read voltages scaled by 1.00, 0.98, 0.96).
    pub alpha: Vec<f64>,
}

impl Default for ReadDisturbConfig {
    fn default() -> Self {
        ReadDisturbConfig {
            rber_per_read: ECC40_LIMIT / NORMAL_MAX_READS,
            beta: vec![0.25, 0.5, 1.0],
            alpha: vec![1.0, 2.0, 5.0],
        }
    }
}

impl ReadDisturbConfig {
    /// Weight of one read of a page of `page_type` in `read_mode`.
    pub fn weight(&self, page_type: usize, read_mode: usize) -> f64 {
        let beta = self.beta.get(page_type).or(self.beta.last()).copied().unwrap_or(1.0);
        let alpha = self.alpha.get(read_mode).or(self.alpha.last()).copied().unwrap_or(1.0);
        beta / alpha
    }

    /// RBER added by `weighted_reads` weighted reads.
    pub fn rber(&self, weighted_reads: f64) -> f64 {
        self.rber_per_read * weighted_reads.max(0.0)
    }

    /// How many reads of `page_type` in `read_mode` a block survives before its RBER
    /// (`base_rber` from other causes plus read disturbance) passes `ecc_limit`.
    pub fn max_reads(&self, page_type: usize, read_mode: usize, base_rber: f64, ecc_limit: f64) -> f64 {
        if base_rber >= ecc_limit {
            return 0.0;
        }
        (ecc_limit - base_rber) / (self.rber_per_read * self.weight(page_type, read_mode))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_point_normal_block_slowest_page() {
        let m = ReadDisturbConfig::default();
        let reads = m.max_reads(2, 0, 0.0, ECC40_LIMIT);
        assert!((reads - 40_000.0).abs() < 1e-6);
    }

    #[test]
    fn faster_page_types_and_lower_read_voltage_allow_more_reads() {
        let m = ReadDisturbConfig::default();
        // Seed 003 Sec. 4.2.3: an LSB read in Rmode2 disturbs 0.25 / 5 of a normal MSB read.
        let lsb_rmode2 = m.max_reads(0, 2, 0.0, ECC40_LIMIT);
        assert!((lsb_rmode2 / 40_000.0 - 20.0).abs() < 1e-9);
        assert!(m.max_reads(2, 1, 0.0, ECC40_LIMIT) > m.max_reads(2, 0, 0.0, ECC40_LIMIT));
        // Errors from other causes leave less room.
        assert!(m.max_reads(2, 0, 1e-3, ECC40_LIMIT) < m.max_reads(2, 0, 1e-4, ECC40_LIMIT));
        assert_eq!(m.max_reads(2, 0, 2e-3, ECC40_LIMIT), 0.0);
    }

    #[test]
    fn the_ecc_limit_is_where_a_40_bit_code_over_1_kib_meets_uber_1e_15() {
        let code = crate::ecc::bch::BchConfig { k_bytes: 1024, ..Default::default() };
        assert!(code.required_t(ECC40_LIMIT * 0.995, 1e-15).unwrap() <= 40);
        assert!(code.required_t(ECC40_LIMIT * 1.01, 1e-15).unwrap() > 40);
    }

    #[test]
    fn rber_never_falls_as_reads_grow() {
        let m = ReadDisturbConfig::default();
        let mut last = 0.0;
        for n in (0..50).map(|i| i as f64 * 1_000.0) {
            let r = m.rber(n);
            assert!(r >= last);
            last = r;
        }
    }
}
