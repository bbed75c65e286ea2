//! Device physics as pure models: given a page's history they answer its raw bit error rate
//! (RBER) and how long programming takes. They hold no simulation state of their own.
//!
//! - [`ispp`]: the programming algorithms of seed 001 (ISPP-SV, -DV, -RV): program time,
//!   RBER right after writing, relative program power.
//! - [`power_law`]: seed 001 Eq. 1, RBER = RBER_wr(PE) + B (PE^n t)^m.
//! - [`exp_linear`]: seed 002 Eq. 1, RBER = G(PE) + H(t), G exponential and H linear.
//! - [`read_disturb`]: seed 003 Eq. 2.1 and Table 5, RBER growth with weighted reads.
//! - [`erase_model`]: per-block erase times and loops of ISPE, i-ISPE, DPES, AERO_CONS and
//!   AERO, from the AERO authors' public simulator's distributions (seed 004).
//! - [`read_retry`]: the retry-table steps a read needs as its optimal reference moves with
//!   wear and retention (seed 004, RiF).
//! - [`vth`]: seed 000 Sec. III-C, threshold-voltage distributions with 3D program
//!   disturbance, and [`vth_table`], the same model tabulated for use on every read.

pub mod config;
pub mod erase_model;
pub mod exp_linear;
pub mod ispp;
pub mod page_spread;
pub mod power_law;
pub mod read_disturb;
pub mod read_retry;
pub mod vth;
pub mod vth_cost;
pub mod vth_table;

use serde::{Deserialize, Serialize};

pub use ispp::Ispp;

/// What the models need to know about a page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageHistory {
    /// Program/erase cycles of its block (effective wear: a cycle may count less than 1).
    pub pe: f64,
    /// Hours since the page was programmed, on the retention clock.
    pub retention_h: f64,
    /// Reads of its block since the last erase, weighted by page type and read mode.
    pub weighted_reads: f64,
    /// How it was programmed.
    pub algorithm: Ispp,
    /// Precise or approximate programming (seed 000).
    pub mode: ProgramMode,
    /// Its ISPP step as a multiple of its mode's ([`vth::step_factor`]; 0: the mode's own
    /// step). Only the threshold-voltage model reads it.
    pub step_level: u8,
    /// Neighbours programmed after it (3D program disturbance, seed 000 Eq. 1).
    pub disturbers: vth::Disturbers,
}

impl PageHistory {
    pub fn fresh(algorithm: Ispp) -> Self {
        PageHistory {
            pe: 0.0,
            retention_h: 0.0,
            weighted_reads: 0.0,
            algorithm,
            mode: ProgramMode::Precise,
            step_level: 0,
            disturbers: vth::Disturbers::NONE,
        }
    }
}

/// A raw-bit-error-rate model.
pub trait RberModel {
    fn rber(&self, page: &PageHistory) -> f64;
}

/// Which RBER model a device uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// Fixed latencies and no bit errors: the core simulator alone.
    None,
    PowerLaw,
    ExpLinear,
    /// Threshold-voltage distributions (seed 000 Sec. III-C).
    Vth,
}

/// How a page is programmed (seed 000 Sec. III): precisely, or approximately by lowering
/// the top of the threshold-voltage window (`approx-vmax`, the paper's V_max_th
/// reduction) or by a coarser ISPP step (`approx-dvpp`, its Delta_b baseline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProgramMode {
    Precise,
    ApproxVmax,
    ApproxDvpp,
}

impl ProgramMode {
    pub const ALL: [ProgramMode; 3] = [ProgramMode::Precise, ProgramMode::ApproxVmax, ProgramMode::ApproxDvpp];

    pub fn index(self) -> usize {
        match self {
            ProgramMode::Precise => 0,
            ProgramMode::ApproxVmax => 1,
            ProgramMode::ApproxDvpp => 2,
        }
    }

    pub fn from_index(i: usize) -> ProgramMode {
        ProgramMode::ALL[i.min(2)]
    }

    pub fn name(self) -> &'static str {
        match self {
            ProgramMode::Precise => "precise",
            ProgramMode::ApproxVmax => "approx-vmax",
            ProgramMode::ApproxDvpp => "approx-dvpp",
        }
    }

    pub fn parse(name: &str) -> Option<ProgramMode> {
        ProgramMode::ALL.into_iter().find(|m| m.name() == name)
    }

    pub fn is_approximate(self) -> bool {
        self != ProgramMode::Precise
    }
}

/// RBERs are probabilities; models are clamped to this ceiling so that a far extrapolation
/// cannot leave [0, 0.5].
pub const MAX_RBER: f64 = 0.5;
