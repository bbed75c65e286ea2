//! The `aero` report section: what the erase scheme planned, and the lifetime its
//! algorithm gives under the erase-stress model.

use serde::{Deserialize, Serialize};

pub const KEY: &str = "aero";

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct AeroReport {
    /// The running scheme's name.
    pub scheme: String,
    /// Erases planned.
    pub planned: u64,
    /// Erases that began with AERO's 1 ms shallow erase.
    pub shallow: u64,
    /// Erases FELP mispredicted (one more 0.5 ms loop).
    pub mispredicted: u64,
    /// `aero`: erases cut short of AERO_CONS's latency (their blocks' next data has the
    /// higher RBER of `cut_rber_factor`).
    pub cut: u64,
    /// Lifetime (P/E cycles) of the scheme's algorithm under `physics.erase`: the cycles
    /// after which a block has taken the erase stress conventional ISPE gives it over
    /// `physics.erase.rated_pe` cycles (a model evaluated from the algorithm's erase-time
    /// distributions, not measured by the run); 0 when no erase scheme runs.
    pub lifetime_pe: f64,
    /// `lifetime_pe` over conventional ISPE's.
    pub lifetime_vs_ispe: f64,
}
