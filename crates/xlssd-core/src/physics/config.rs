//! Configuration of the device physics and of the device's state before the run.

use serde::{Deserialize, Serialize};

use crate::config::ranges::{bad, fraction, non_negative};
use crate::error::Result;

/// Device physics: which RBER model pages follow, how they are programmed, and how fast
/// data ages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PhysicsConfig {
    /// `none` keeps the fixed-latency core (no bit errors); `power-law` (seed 001 Eq. 1) or
    /// `exp-linear` (seed 002 Eq. 1) give every page an RBER.
    pub model: crate::physics::ModelKind,
    /// Programming algorithm of every page (seed 001): `sv`, `dv` or `rv`.
    pub algorithm: crate::physics::Ispp,
    /// How pages are programmed (seed 000): `precise`, `approx-vmax` (lower top of the
    /// threshold-voltage window) or `approx-dvpp` (coarser ISPP step). Approximate modes
    /// program faster by the ratio of ISPP step counts of `physics.vth`.
    pub program_mode: crate::physics::ProgramMode,
    /// Fraction by which program time has fallen at 100,000 P/E cycles (cells program
    /// faster as they wear; seed 001 Sec. 2.2).
    pub program_speedup_at_100k: f64,
    /// Hours of retention that pass per hour of simulated I/O, so that months-old data can
    /// be studied without simulating months.
    pub retention_scale: f64,
    /// Whether reads disturb their block (seed 003).
    pub read_disturb: bool,
    pub power_law: crate::physics::power_law::PowerLawConfig,
    pub exp_linear: crate::physics::exp_linear::ExpLinearConfig,
    pub read_disturbance: crate::physics::read_disturb::ReadDisturbConfig,
    pub vth: crate::physics::vth::VthConfig,
    /// Read-retry by retry-table steps (seed 004, RiF).
    pub read_retry: crate::physics::read_retry::ReadRetryConfig,
    /// Erase stress and the lifetime it allows (seed 004, AERO).
    pub erase: crate::physics::erase_model::EraseStressConfig,
    /// How the pages of a block differ in RBER (page type, last word line).
    pub page_spread: crate::physics::page_spread::PageSpreadConfig,
}

impl Default for PhysicsConfig {
    fn default() -> Self {
        PhysicsConfig {
            model: crate::physics::ModelKind::None,
            algorithm: crate::physics::Ispp::Sv,
            program_mode: crate::physics::ProgramMode::Precise,
            program_speedup_at_100k: 0.2,
            retention_scale: 1.0,
            read_disturb: true,
            power_law: Default::default(),
            exp_linear: Default::default(),
            read_disturbance: Default::default(),
            vth: Default::default(),
            read_retry: Default::default(),
            erase: Default::default(),
            page_spread: Default::default(),
        }
    }
}

/// The device's state before the run: wear and the age of its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgingConfig {
    /// Mean P/E cycles every block has already seen.
    pub initial_pe: f64,
    /// The spread of blocks' P/E counts around `initial_pe`: the half-width of a uniform
    /// distribution, or the standard deviation of a normal one (`initial_pe_distribution`).
    pub initial_pe_spread: f64,
    /// How blocks' P/E counts spread: `uniform` over initial_pe +- spread, or `normal`
    /// with that mean and standard deviation, cut at +- 3 standard deviations and at 0.
    pub initial_pe_distribution: PeDistribution,
    /// Hours since the preconditioned data was written, when the run starts.
    pub data_age_h: f64,
}

impl Default for AgingConfig {
    fn default() -> Self {
        AgingConfig { initial_pe: 0.0, initial_pe_spread: 0.0, initial_pe_distribution: PeDistribution::Uniform, data_age_h: 0.0 }
    }
}

/// The distribution of blocks' initial P/E counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PeDistribution {
    Uniform,
    Normal,
}

impl AgingConfig {
    /// How far from `initial_pe` a block's count may be.
    pub fn max_deviation(&self) -> f64 {
        match self.initial_pe_distribution {
            PeDistribution::Uniform => self.initial_pe_spread,
            PeDistribution::Normal => 3.0 * self.initial_pe_spread,
        }
    }
}

impl PhysicsConfig {
    pub fn validate(&self) -> Result<()> {
        fraction("physics.program_speedup_at_100k", self.program_speedup_at_100k, false, true)?;
        self.read_retry.validate("physics.read_retry")?;
        self.erase.validate("physics.erase")?;
        self.page_spread.validate("physics.page_spread")?;
        if !(self.retention_scale.is_finite() && self.retention_scale >= 0.0 && self.retention_scale <= 1e12) {
            return Err(bad("physics.retention_scale", self.retention_scale, "a number in [0, 1e12]"));
        }
        for (k, v) in [
            ("physics.power_law.b", self.power_law.b),
            ("physics.power_law.n", self.power_law.n),
            ("physics.power_law.m", self.power_law.m),
            ("physics.exp_linear.a", self.exp_linear.a),
            ("physics.exp_linear.b", self.exp_linear.b),
            ("physics.exp_linear.c", self.exp_linear.c),
            ("physics.read_disturbance.rber_per_read", self.read_disturbance.rber_per_read),
        ] {
            non_negative(k, v)?;
        }
        let rd = &self.read_disturbance;
        // Page types beyond the list take its last weight.
        if rd.beta.is_empty() || rd.beta.iter().any(|b| !(b.is_finite() && *b >= 0.0)) {
            return Err(bad(
                "physics.read_disturbance.beta",
                format!("{:?}", rd.beta),
                "weights >= 0, one per page type (LSB first)",
            ));
        }
        if rd.alpha.is_empty() || rd.alpha.iter().any(|a| !(a.is_finite() && *a > 0.0)) {
            return Err(bad("physics.read_disturbance.alpha", format!("{:?}", rd.alpha), "factors > 0, one per read mode"));
        }
        self.vth.validate()
    }
}

impl AgingConfig {
    /// Every key in range; under the threshold-voltage model, within the P/E and retention
    /// its tables cover (a read beyond would silently take the value at their edge).
    pub fn validate(&self, physics: &PhysicsConfig) -> Result<()> {
        if !(self.initial_pe.is_finite() && self.initial_pe >= 0.0 && self.initial_pe <= 1e7) {
            return Err(bad("aging.initial_pe", self.initial_pe, "a number of cycles in [0, 1e7]"));
        }
        if !(self.initial_pe_spread.is_finite() && self.initial_pe_spread >= 0.0 && self.initial_pe_spread <= self.initial_pe) {
            return Err(bad("aging.initial_pe_spread", self.initial_pe_spread, "a number in [0, aging.initial_pe]"));
        }
        if !(self.data_age_h.is_finite() && self.data_age_h >= 0.0 && self.data_age_h <= 1e7) {
            return Err(bad("aging.data_age_h", self.data_age_h, "a number of hours in [0, 1e7]"));
        }
        if physics.model == crate::physics::ModelKind::Vth {
            use crate::physics::vth_table::{MAX_HOURS, MAX_PE};
            let tabulated = |what: &str| {
                format!("{what} with physics.model = \"vth\", whose tables cover 0 to {MAX_PE} P/E and 0 to {MAX_HOURS} h")
            };
            if self.initial_pe > MAX_PE {
                return Err(bad("aging.initial_pe", self.initial_pe, &tabulated(&format!("at most {MAX_PE} cycles"))));
            }
            if self.initial_pe + self.max_deviation() > MAX_PE {
                let most = match self.initial_pe_distribution {
                    PeDistribution::Uniform => {
                        format!("at most {} cycles (initial_pe + initial_pe_spread at most {MAX_PE})", MAX_PE - self.initial_pe)
                    }
                    PeDistribution::Normal => format!(
                        "at most {} cycles (initial_pe + 3 x initial_pe_spread at most {MAX_PE} with a normal distribution)",
                        (MAX_PE - self.initial_pe) / 3.0
                    ),
                };
                return Err(bad("aging.initial_pe_spread", self.initial_pe_spread, &tabulated(&most)));
            }
            if self.data_age_h > MAX_HOURS {
                return Err(bad("aging.data_age_h", self.data_age_h, &tabulated(&format!("at most {MAX_HOURS} hours"))));
            }
        }
        Ok(())
    }
}
