//! Seed 002 Eq. 1: RBER = G(PE) + H(t), with G exponential in P/E cycles and H linear in
//! retention time ("in a time scale of a day or even larger").
//!
//! The seed gives the shapes but no coefficients. Defaults: G(PE) = a exp(b PE) with a =
//! 1e-6 (a fresh MLC page, as seed 001 Table II's floor) and b chosen so that G reaches
//! 1e-3, the hard-decode limit of seed 002's LDPC flow, at 3,000 cycles (a common MLC
//! endurance rating); H(t) = c t with c chosen so that a year adds 2e-3 (past the hard
//! limit, inside the soft range that ends at 1.3e-2). These are assumptions.

use serde::{Deserialize, Serialize};

use super::{PageHistory, RberModel, MAX_RBER};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExpLinearConfig {
    /// G(0).
    pub a: f64,
    /// Growth rate of G per P/E cycle.
    pub b: f64,
    /// Slope of H per hour of retention.
    pub c: f64,
}

impl Default for ExpLinearConfig {
    fn default() -> Self {
        ExpLinearConfig { a: 1e-6, b: (1e3f64).ln() / 3_000.0, c: 2e-3 / 8_760.0 }
    }
}

impl RberModel for ExpLinearConfig {
    fn rber(&self, p: &PageHistory) -> f64 {
        (self.a * (self.b * p.pe.max(0.0)).exp() + self.c * p.retention_h.max(0.0)).min(MAX_RBER)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::Ispp;

    fn at(pe: f64, t: f64) -> PageHistory {
        PageHistory { pe, retention_h: t, weighted_reads: 0.0, ..PageHistory::fresh(Ispp::Sv) }
    }

    #[test]
    fn calibration_points() {
        let m = ExpLinearConfig::default();
        assert!((m.rber(&at(0.0, 0.0)) - 1e-6).abs() < 1e-15);
        assert!((m.rber(&at(3_000.0, 0.0)) - 1e-3).abs() < 1e-12);
        assert!((m.rber(&at(0.0, 8_760.0)) - (1e-6 + 2e-3)).abs() < 1e-12);
    }

    #[test]
    fn never_falls_as_wear_or_retention_grow() {
        let m = ExpLinearConfig::default();
        let mut last = 0.0;
        for pe in (0..60).map(|i| i as f64 * 200.0) {
            let r = m.rber(&at(pe, 100.0));
            assert!(r >= last && r <= MAX_RBER);
            last = r;
        }
    }
}
