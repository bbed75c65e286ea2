//! How many read-retry steps a page needs: the read reference voltage that reads a page with
//! the fewest errors moves away from the default as the page ages, and each entry of the
//! chip's retry table moves the reference by one fixed step towards where aged cells sit.
//!
//! The model, in units of retry-table steps:
//!
//! - The **optimal shift** of a page is `s = (base + per_kpe PE/1000) r(t) + spread z`, with
//!   `r(t) = ln(1 + t/tau) / ln(1 + 8760/tau)` the retention term (1 at one year). Charge
//!   loss in 3D NAND is fast in the first hours and then slows to a logarithm of time (the
//!   early retention loss of Luo et al., SIGMETRICS 2018), and worn cells lose charge
//!   faster, hence the factor that grows with wear. `z` is a standard normal fixed per page
//!   write (page-to-page and word-line variation).
//! - Reading at table entry `k` (0: the default reference) gives
//!   `RBER(k) = RBER_opt 10^(slope |s - k|)`: errors grow by `slope` decades per step away
//!   from the optimum (the V shape of RBER against reference voltage on a log scale).
//!   `RBER_opt` is the page's RBER from the device's RBER model, read as its error rate at
//!   the best reference.
//! - An attempt succeeds when `RBER(k)` is within the code's capability
//!   (`capability_bits_per_kib` / 8192 bits). The table is tried in order from 0, so the
//!   steps a read needs are the first `k` that succeeds: `ceil(s - m)` with the margin
//!   `m = log10(capability / RBER_opt) / slope`, or none when even the best reference
//!   fails or the table ends first.
//!
//! Schemes that start retrying elsewhere in the table (near the optimum) use
//! [`ReadRetryModel::succeeds`] for any entry.

use serde::{Deserialize, Serialize};

use crate::config::ranges::bad;
use crate::error::Result;

/// Bits in a KiB: the capability is given per KiB of data.
const BITS_PER_KIB: f64 = 8_192.0;
/// The longest retry table (a read's attempts are counted in a byte).
pub const MAX_TABLE_STEPS: u32 = 200;
/// Steps by which an attempt may miss the margin and still count as within it: an RBER at
/// exactly the capability decodes, whatever the last bit of the arithmetic says.
const EDGE: f64 = 1e-9;
/// One year, the retention the shift is quoted at.
const YEAR_H: f64 = 8_760.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReadRetryConfig {
    /// Whether reads follow this model (needs a physics model and `ecc.scheme = "ldpc"`):
    /// each attempt is a hard decode at one retry-table entry.
    pub enabled: bool,
    /// Entries of the retry table after the default reference.
    pub table_steps: u32,
    /// Optimal shift (steps) of one-year-old data on a fresh block.
    pub base_shift: f64,
    /// Optimal shift (steps) one year adds per 1,000 P/E cycles.
    pub shift_per_kpe: f64,
    /// Time constant (hours) of the logarithmic retention term.
    pub tau_h: f64,
    /// Standard deviation (steps) of the optimal shift from page to page.
    pub spread: f64,
    /// Decades of RBER per step away from the optimal reference.
    pub slope: f64,
    /// Bit errors per KiB the decoder corrects in one attempt (hard decode).
    pub capability_bits_per_kib: f64,
    /// Hard-decode time (us) of data with no errors; it grows linearly with the RBER to
    /// `ecc.ldpc.hard_us` at the capability, and a failing decode takes `hard_us` (every
    /// iteration).
    pub decode_min_us: f64,
}

impl Default for ReadRetryConfig {
    fn default() -> Self {
        ReadRetryConfig {
            enabled: false,
            table_steps: 16,
            base_shift: 2.0,
            shift_per_kpe: 2.0,
            tau_h: 1.0,
            spread: 1.0,
            slope: 0.25,
            capability_bits_per_kib: 80.0,
            decode_min_us: 2.0,
        }
    }
}

impl ReadRetryConfig {
    /// Rejects impossible values, naming the key under `prefix`.
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let k = |name: &str| format!("{prefix}.{name}");
        // A read's attempts are counted in a byte.
        if !(1..=MAX_TABLE_STEPS).contains(&self.table_steps) {
            return Err(bad(&k("table_steps"), self.table_steps, &format!("1 to {MAX_TABLE_STEPS}")));
        }
        for (name, v, lo, hi) in [
            ("base_shift", self.base_shift, 0.0, 1e3),
            ("shift_per_kpe", self.shift_per_kpe, 0.0, 1e3),
            ("spread", self.spread, 0.0, 1e3),
            ("decode_min_us", self.decode_min_us, 0.0, 1e6),
        ] {
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return Err(bad(&k(name), v, &format!("a number in [{lo}, {hi}]")));
            }
        }
        for (name, v, hi) in [
            ("tau_h", self.tau_h, 1e6),
            ("slope", self.slope, 10.0),
            ("capability_bits_per_kib", self.capability_bits_per_kib, BITS_PER_KIB / 2.0),
        ] {
            if !(v.is_finite() && v > 0.0 && v <= hi) {
                return Err(bad(&k(name), v, &format!("a number in (0, {hi}]")));
            }
        }
        Ok(())
    }
}

/// The model with its constants worked out once.
#[derive(Debug, Clone)]
pub struct ReadRetryModel {
    cfg: ReadRetryConfig,
    /// RBER the decoder corrects in one attempt.
    capability: f64,
    /// ln(1 + 8760 / tau): the retention term's value at one year.
    year_term: f64,
}

/// What a page's state makes of a read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryNeed {
    /// The page's optimal shift, in table steps.
    pub shift: f64,
    /// How far from the optimum (steps) an attempt may be and still decode; negative when
    /// even the optimum fails.
    pub margin: f64,
}

impl ReadRetryModel {
    pub fn new(cfg: ReadRetryConfig) -> ReadRetryModel {
        let capability = cfg.capability_bits_per_kib / BITS_PER_KIB;
        let year_term = (1.0 + YEAR_H / cfg.tau_h).ln();
        ReadRetryModel { cfg, capability, year_term }
    }

    pub fn config(&self) -> &ReadRetryConfig {
        &self.cfg
    }

    /// The RBER the decoder corrects in one attempt.
    pub fn capability(&self) -> f64 {
        self.capability
    }

    /// The optimal shift of data kept `retention_h` hours on a block at `pe` cycles, for a
    /// page whose variation is `z` standard deviations; never below 0.
    pub fn shift(&self, pe: f64, retention_h: f64, z: f64) -> f64 {
        let c = &self.cfg;
        let r = (1.0 + retention_h.max(0.0) / c.tau_h).ln() / self.year_term;
        ((c.base_shift + c.shift_per_kpe * pe.max(0.0) / 1e3) * r + c.spread * z).max(0.0)
    }

    /// A page's optimal shift and margin, from its state and its RBER at the best reference.
    pub fn need(&self, pe: f64, retention_h: f64, z: f64, rber_opt: f64) -> RetryNeed {
        let margin = if rber_opt > 0.0 { (self.capability / rber_opt).log10() / self.cfg.slope } else { f64::INFINITY };
        RetryNeed { shift: self.shift(pe, retention_h, z), margin }
    }

    /// The RBER of a read at table entry `k` (0: the default reference) of a page whose
    /// optimal shift is `shift` and whose RBER there is `rber_opt`.
    pub fn rber_at(&self, shift: f64, rber_opt: f64, k: u32) -> f64 {
        (rber_opt * 10f64.powf(self.cfg.slope * (shift - k as f64).abs())).min(0.5)
    }

    /// Whether a read at table entry `k` decodes.
    pub fn succeeds(&self, need: RetryNeed, k: u32) -> bool {
        (need.shift - k as f64).abs() <= need.margin + EDGE
    }

    /// Retry steps a read that walks the table from the default reference needs: `Some(0)`
    /// when the default reference decodes, `None` when no entry of the table does.
    pub fn steps(&self, need: RetryNeed) -> Option<u32> {
        if need.margin < 0.0 {
            return None;
        }
        let k = (need.shift - need.margin - EDGE).ceil().max(0.0);
        (k <= self.cfg.table_steps as f64).then_some(k as u32)
    }
}

/// A standard normal fixed by `key` (a page and when it was written), so that every attempt
/// of a read, and every read of the same data, sees the same page: Box-Muller on two
/// uniforms hashed from the key.
pub fn page_normal(key: u64) -> f64 {
    let (a, b) = (hash64(key), hash64(key ^ 0xD1B5_4A32_D192_ED03));
    // Uniforms strictly inside (0, 1), so that the logarithm is finite.
    let unit = |x: u64| ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    (-2.0 * unit(a).ln()).sqrt() * (std::f64::consts::TAU * unit(b)).cos()
}

/// SplitMix64's finaliser: spreads consecutive keys over the whole range.
pub fn hash64(key: u64) -> u64 {
    let mut x = key.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> ReadRetryModel {
        ReadRetryModel::new(ReadRetryConfig::default())
    }

    #[test]
    fn the_shift_grows_with_wear_and_as_a_logarithm_of_time() {
        let m = model();
        // One year: base + per_kpe * PE/1000 = 2 + 2 * 2 = 6 steps at 2K P/E.
        assert!((m.shift(2_000.0, 8_760.0, 0.0) - 6.0).abs() < 1e-12);
        assert!((m.shift(0.0, 8_760.0, 0.0) - 2.0).abs() < 1e-12);
        // Fresh data needs no shift; a tenth of a year with tau = 1 h is ln(877)/ln(8761)
        // of the year's shift.
        assert_eq!(m.shift(2_000.0, 0.0, 0.0), 0.0);
        let tenth = m.shift(2_000.0, 876.0, 0.0);
        assert!((tenth - 6.0 * 877f64.ln() / 8_761f64.ln()).abs() < 1e-12, "{tenth}");
        // The page's variation adds spread * z, and the shift never goes below 0.
        assert!((m.shift(2_000.0, 8_760.0, 1.5) - 7.5).abs() < 1e-12);
        assert_eq!(m.shift(0.0, 8_760.0, -3.0), 0.0);
    }

    #[test]
    fn steps_are_the_first_table_entry_within_the_margin() {
        let m = model();
        // Capability 80 / 8192 = 9.765625e-3. With RBER_opt at a hundredth of it the margin
        // is 2 decades / 0.25 = 8 steps.
        let rber_opt = 9.765625e-5;
        let need = m.need(2_000.0, 8_760.0, 0.0, rber_opt);
        assert!((need.margin - 8.0).abs() < 1e-9 && (need.shift - 6.0).abs() < 1e-12);
        assert_eq!(m.steps(need), Some(0));
        // A page with z = 3: shift 9, so the default reference is 9 steps away: one retry.
        let need = m.need(2_000.0, 8_760.0, 3.0, rber_opt);
        assert_eq!(m.steps(need), Some(1));
        assert!(!m.succeeds(need, 0) && m.succeeds(need, 1) && m.succeeds(need, 17));
        // The RBER at the entries: 10^(0.25 * 9) and 10^(0.25 * 8) times the optimum.
        assert!((m.rber_at(need.shift, rber_opt, 0) / rber_opt - 10f64.powf(2.25)).abs() < 1e-6);
        assert!((m.rber_at(need.shift, rber_opt, 1) - m.capability()).abs() < 1e-12);
        // RBER_opt at a tenth of the capability: margin 4, shift 9: five retries.
        let need = m.need(2_000.0, 8_760.0, 3.0, 9.765625e-4);
        assert_eq!(m.steps(need), Some(5));
        // Past the capability even at the optimum: no entry decodes.
        let need = m.need(2_000.0, 8_760.0, 0.0, 2e-2);
        assert!(need.margin < 0.0 && m.steps(need).is_none() && !m.succeeds(need, 6));
        // A shift beyond the table: 16 entries cannot reach 30 - 4.
        let need = m.need(14_000.0, 8_760.0, 0.0, 9.765625e-4);
        assert!((need.shift - 30.0).abs() < 1e-9);
        assert_eq!(m.steps(need), None);
    }

    #[test]
    fn page_normals_are_fixed_per_key_and_standard() {
        assert_eq!(page_normal(42), page_normal(42));
        let n = 200_000u64;
        let (mut sum, mut sq, mut above2) = (0.0, 0.0, 0u64);
        for k in 0..n {
            let z = page_normal(k);
            sum += z;
            sq += z * z;
            above2 += (z > 2.0) as u64;
        }
        let mean = sum / n as f64;
        let var = sq / n as f64 - mean * mean;
        assert!(mean.abs() < 0.01 && (var - 1.0).abs() < 0.01, "{mean} {var}");
        // P(Z > 2) = 0.02275.
        assert!((above2 as f64 / n as f64 - 0.02275).abs() < 0.002);
    }

    #[test]
    fn bad_values_name_their_key() {
        let c = ReadRetryConfig { slope: 0.0, ..Default::default() };
        let e = c.validate("physics.read_retry").unwrap_err().to_string();
        assert!(e.contains("physics.read_retry.slope"), "{e}");
        let c = ReadRetryConfig { table_steps: 0, ..Default::default() };
        assert!(c.validate("physics.read_retry").unwrap_err().to_string().contains("table_steps"));
    }
}
