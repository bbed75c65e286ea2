//! ApproxFTL's report section (`approx`), written for every scheme so that sweeps over
//! schemes have the same columns.

use serde::{Deserialize, Serialize};

/// Top-level report key of the section.
pub const KEY: &str = "approx";

/// Approximate writes: what each scheme programmed and how.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct ApproxReport {
    /// The running scheme's name.
    pub scheme: String,
    /// Pages programmed precisely and approximately (host writes and GC copies).
    pub pages: ApproxPages,
    /// Precise pages programmed faster because their later neighbours are approximate.
    pub fast_precise: FastPrecise,
    /// Blocks that served as each active-block type (seed 000 Fig. 6).
    pub active_blocks: ActiveBlockCounts,
    /// Approximate pages GC rewrote as precise after repeated approximate rewrites.
    pub promoted_pages: u64,
    /// Erases of blocks that held only approximate pages (at the lowered voltage).
    pub erases_all_approx: u64,
    /// Refresh of aged approximate data (rewritten precise): pages moved and blocks.
    pub refreshed_pages: u64,
    pub refreshed_blocks: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct ApproxPages {
    pub precise: u64,
    pub approx: u64,
}

/// Precise pages programmed with a coarser step, and the step the model allows each kind
/// of block (seed 000 Sec. III-B, cases 2 and 3).
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct FastPrecise {
    /// Pages programmed at the coarser step in checkerboard and second-phase blocks.
    pub chb: u64,
    pub approx_phase2: u64,
    /// The step levels (`physics::vth::step_factor`) and the program-time savings they
    /// give against a precise page's step (the paper reports about 24% and 33%).
    pub chb_step_level: u8,
    pub approx_phase2_step_level: u8,
    pub chb_speedup: f64,
    pub approx_phase2_speedup: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct ActiveBlockCounts {
    pub chb: u64,
    pub precise: u64,
    pub approx_phase1: u64,
    pub approx_phase2: u64,
    pub all_approx: u64,
}

/// The section of a finished run's report.
pub fn of(report: &crate::report::Report) -> ApproxReport {
    report.techniques.get(KEY).and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default()
}
