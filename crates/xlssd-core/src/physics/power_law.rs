//! Seed 001 Eq. 1: RBER(PE, t) = RBER_wr(PE) + B (PE^n t)^m, with t the retention time in
//! hours and RBER_wr the error rate right after programming (seed 001 Table II, per
//! programming algorithm).
//!
//! The seed gives no values for B and n and says only that m usually lies between 1 and 2
//! (it ignores retention in its own evaluation). The defaults take m = 1.5 and n = 1, and
//! choose B so that data written at 10,000 P/E cycles and kept a year (8,760 h) gains an
//! RBER of 1e-3, the limit of a hard LDPC decode (seed 002): a drive at its rated wear then
//! needs soft decoding for year-old data, as real MLC drives do. These are assumptions.

use serde::{Deserialize, Serialize};

use std::cell::RefCell;

use super::{Ispp, PageHistory, RberModel, MAX_RBER};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PowerLawConfig {
    pub b: f64,
    pub n: f64,
    pub m: f64,
}

impl Default for PowerLawConfig {
    fn default() -> Self {
        let (n, m) = (1.0, 1.5);
        // B (1e4^n * 8760)^m = 1e-3
        let b = 1e-3 / (1e4f64.powf(n) * 8_760.0).powf(m);
        PowerLawConfig { b, n, m }
    }
}

impl RberModel for PowerLawConfig {
    fn rber(&self, p: &PageHistory) -> f64 {
        let retention =
            if p.retention_h > 0.0 && p.pe > 0.0 { self.b * (p.pe.powf(self.n) * p.retention_h).powf(self.m) } else { 0.0 };
        (p.algorithm.rber_written(p.pe) + retention).min(MAX_RBER)
    }
}

/// The power law with the terms that depend on wear alone remembered: blocks share a few
/// wear values, so most reads then cost one power of the retention time.
pub struct PowerLaw {
    cfg: PowerLawConfig,
    /// Direct-mapped by wear: (wear, algorithm, RBER_wr, B PE^(n m)).
    memo: RefCell<Vec<(f64, Option<Ispp>, f64, f64)>>,
}

const MEMO_SLOTS: usize = 256;

impl PowerLaw {
    pub fn new(cfg: PowerLawConfig) -> PowerLaw {
        PowerLaw { cfg, memo: RefCell::new(vec![(f64::NAN, None, 0.0, 0.0); MEMO_SLOTS]) }
    }
}

impl RberModel for PowerLaw {
    fn rber(&self, p: &PageHistory) -> f64 {
        let slot = (p.pe.to_bits().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % MEMO_SLOTS;
        let mut memo = self.memo.borrow_mut();
        let e = &mut memo[slot];
        if !(e.0 == p.pe && e.1 == Some(p.algorithm)) {
            let wear = if p.pe > 0.0 { self.cfg.b * p.pe.powf(self.cfg.n * self.cfg.m) } else { 0.0 };
            *e = (p.pe, Some(p.algorithm), p.algorithm.rber_written(p.pe), wear);
        }
        let retention = if p.retention_h > 0.0 { e.3 * self.retention_power(p.retention_h) } else { 0.0 };
        (e.2 + retention).min(MAX_RBER)
    }
}

impl PowerLaw {
    /// `t^m`. For the default m = 1.5 it is `t * sqrt(t)`, a correctly rounded square root
    /// and one product (within an ulp of `powf`, which costs a logarithm and an exponential
    /// on every read).
    #[inline]
    fn retention_power(&self, t: f64) -> f64 {
        if self.cfg.m == 1.5 {
            t * t.sqrt()
        } else {
            t.powf(self.cfg.m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::Ispp;

    #[test]
    fn zero_retention_gives_table_ii() {
        let m = PowerLawConfig::default();
        let p = PageHistory { pe: 10_000.0, retention_h: 0.0, weighted_reads: 0.0, ..PageHistory::fresh(Ispp::Rv) };
        assert!((m.rber(&p) - 1.526e-3).abs() < 1e-12);
    }

    #[test]
    fn calibration_point_and_monotonicity() {
        let m = PowerLawConfig::default();
        let p = PageHistory { pe: 10_000.0, retention_h: 8_760.0, weighted_reads: 0.0, ..PageHistory::fresh(Ispp::Sv) };
        let gained = m.rber(&p) - Ispp::Sv.rber_written(10_000.0);
        assert!((gained - 1e-3).abs() < 1e-12);
        for alg in Ispp::ALL {
            let mut last = 0.0;
            for pe in [0.0, 1.0, 10.0, 300.0, 3_000.0, 30_000.0, 100_000.0] {
                let mut last_t = 0.0;
                for t in [0.0, 1.0, 24.0, 720.0, 8_760.0, 87_600.0] {
                    let r = m.rber(&PageHistory { pe, retention_h: t, weighted_reads: 0.0, ..PageHistory::fresh(alg) });
                    assert!(r >= last_t && r <= MAX_RBER);
                    last_t = r;
                }
                let r0 = m.rber(&PageHistory { pe, retention_h: 720.0, weighted_reads: 0.0, ..PageHistory::fresh(alg) });
                assert!(r0 >= last);
                last = r0;
            }
        }
    }

    #[test]
    fn remembered_terms_give_the_formula() {
        let cfg = PowerLawConfig::default();
        let memo = PowerLaw::new(cfg.clone());
        for (pe, t, alg) in [
            (3000.0, 8760.0, Ispp::Sv),
            (3000.0, 10.0, Ispp::Rv),
            (0.0, 5.0, Ispp::Sv),
            (3000.0, 8760.0, Ispp::Sv),
            (12.5, 0.0, Ispp::Dv),
            (3000.0, 8760.0017, Ispp::Sv),
            (1e5, 1e-3, Ispp::Rv),
        ] {
            let p = PageHistory { pe, retention_h: t, weighted_reads: 0.0, ..PageHistory::fresh(alg) };
            let (a, b) = (cfg.rber(&p), memo.rber(&p));
            assert!((a - b).abs() <= 1e-12 * a.abs().max(1e-30), "{pe} {t} {alg:?}: {a:e} vs {b:e}");
        }
    }

    #[test]
    fn the_retention_power_is_powf_within_an_ulp_and_other_exponents_use_powf() {
        let m15 = PowerLaw::new(PowerLawConfig::default());
        let mut t = 1e-6;
        while t < 1e7 {
            let (fast, exact) = (m15.retention_power(t), t.powf(1.5));
            let ulp = f64::from_bits(exact.to_bits() + 1) - exact;
            assert!((fast - exact).abs() <= ulp, "t = {t}: {fast:e} vs {exact:e}");
            t *= 1.37;
        }
        let m12 = PowerLaw::new(PowerLawConfig { m: 1.2, ..PowerLawConfig::default() });
        for t in [0.5, 24.0, 8760.0] {
            assert_eq!(m12.retention_power(t), t.powf(1.2));
        }
    }
}
