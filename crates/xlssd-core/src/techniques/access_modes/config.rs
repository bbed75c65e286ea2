//! The keys of `[scheme.access_modes]`: the three storage services of seed 001 (Sec. 4.2,
//! Fig. 12), each an access mode (a programming algorithm and a target UBER) owning a share
//! of the logical space.

use serde::{Deserialize, Serialize};

use crate::config::ranges::{bad, fraction};
use crate::ecc::bch::MAX_T;
use crate::error::Result;
use crate::physics::Ispp;

/// One storage service: its access mode and its partition's share of the logical pages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceConfig {
    /// The ISPP algorithm its pages are programmed with.
    pub algorithm: Ispp,
    /// The UBER its BCH code is sized for at each page's wear (seed 001 Table IV).
    pub uber: f64,
    /// Share of the logical pages its partition holds.
    pub share: f64,
}

impl ServiceConfig {
    fn new(algorithm: Ispp, uber: f64, share: f64) -> Self {
        ServiceConfig { algorithm, uber, share }
    }
}

/// The services in partition order (logical pages ascending).
pub const SERVICES: [&str; 3] = ["standard", "enhanced", "reduced"];

/// A service's keys as written: any left out take that service's defaults.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServiceKeys {
    algorithm: Option<Ispp>,
    uber: Option<f64>,
    share: Option<f64>,
}

impl ServiceKeys {
    fn over(self, default: ServiceConfig) -> ServiceConfig {
        ServiceConfig {
            algorithm: self.algorithm.unwrap_or(default.algorithm),
            uber: self.uber.unwrap_or(default.uber),
            share: self.share.unwrap_or(default.share),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AccessModesKeys {
    standard: Option<ServiceKeys>,
    enhanced: Option<ServiceKeys>,
    reduced: Option<ServiceKeys>,
    fixed_t: Option<u32>,
}

impl From<AccessModesKeys> for AccessModesConfig {
    fn from(k: AccessModesKeys) -> Self {
        let d = AccessModesConfig::default();
        AccessModesConfig {
            standard: k.standard.unwrap_or_default().over(d.standard),
            enhanced: k.enhanced.unwrap_or_default().over(d.enhanced),
            reduced: k.reduced.unwrap_or_default().over(d.reduced),
            fixed_t: k.fixed_t.unwrap_or(d.fixed_t),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "AccessModesKeys")]
pub struct AccessModesConfig {
    /// UBER 1e-13 (seed 001 Sec. 3, after Mielke et al. 2008), ISPP-SV: the reference
    /// operating point of Sec. 4.
    pub standard: ServiceConfig,
    /// UBER 1e-15. The paper serves it with ISPP-SV or ISPP-DV (Sec. 5, Fig. 18); the
    /// default takes DV, the reliable corner of Fig. 9.
    pub enhanced: ServiceConfig,
    /// UBER 1e-11. The paper serves it with ISPP-RV or ISPP-SV (Sec. 5, Fig. 16); the
    /// default takes RV, the fast corner of Fig. 9.
    pub reduced: ServiceConfig,
    /// `fixed-t`: the correction capability of every page, whatever its wear (seed 001
    /// Sec. 4.1: 70, what ISPP-SV needs at 100,000 P/E for UBER 1e-13).
    pub fixed_t: u32,
}

impl Default for AccessModesConfig {
    fn default() -> Self {
        AccessModesConfig {
            standard: ServiceConfig::new(Ispp::Sv, 1e-13, 1.0),
            enhanced: ServiceConfig::new(Ispp::Dv, 1e-15, 0.0),
            reduced: ServiceConfig::new(Ispp::Rv, 1e-11, 0.0),
            fixed_t: 70,
        }
    }
}

impl AccessModesConfig {
    /// The services in partition order.
    pub fn services(&self) -> [&ServiceConfig; 3] {
        [&self.standard, &self.enhanced, &self.reduced]
    }

    pub fn validate(&self, prefix: &str) -> Result<()> {
        let mut total = 0.0;
        for (name, s) in SERVICES.iter().zip(self.services()) {
            let k = |field: &str| format!("{prefix}.{name}.{field}");
            if !(s.uber > 0.0 && s.uber < 1.0) {
                return Err(bad(&k("uber"), s.uber, "a probability in (0, 1)"));
            }
            fraction(&k("share"), s.share, false, false)?;
            total += s.share;
        }
        if (total - 1.0).abs() > 1e-9 {
            return Err(bad(
                &format!("{prefix}.standard.share"),
                self.standard.share,
                &format!("shares of standard, enhanced and reduced that add up to 1 (they add up to {total})"),
            ));
        }
        if !(1..=MAX_T).contains(&self.fixed_t) {
            return Err(bad(&format!("{prefix}.fixed_t"), self.fixed_t, &format!("1 to {MAX_T}")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_left_partly_unsaid_keeps_its_own_defaults() {
        let c: AccessModesConfig = serde_json::from_value(serde_json::json!({
            "enhanced": {"algorithm": "sv"},
            "reduced": {"share": 0.5},
            "standard": {"share": 0.5},
        }))
        .unwrap();
        assert_eq!(c.enhanced, ServiceConfig::new(Ispp::Sv, 1e-15, 0.0));
        assert_eq!(c.reduced, ServiceConfig::new(Ispp::Rv, 1e-11, 0.5));
        assert_eq!(c.standard, ServiceConfig::new(Ispp::Sv, 1e-13, 0.5));
        c.validate("scheme.access_modes").unwrap();
        let unknown = serde_json::from_value::<AccessModesConfig>(serde_json::json!({"reduced": {"ubr": 1e-11}}));
        assert!(unknown.unwrap_err().to_string().contains("ubr"));
        let m = AccessModesConfig { reduced: ServiceConfig::new(Ispp::Rv, 1e-11, 0.5), ..Default::default() }
            .validate("scheme.access_modes")
            .unwrap_err()
            .to_string();
        assert!(m.contains("scheme.access_modes.standard.share") && m.contains("add up to 1"), "{m}");
    }
}
