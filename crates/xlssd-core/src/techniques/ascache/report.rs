//! The `ascache` report section: blocks' tracked reliability levels and what the cache
//! schemes did with them.

use serde::{Deserialize, Serialize};

pub const KEY: &str = "ascache";

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct AscacheReport {
    /// The running scheme's name.
    pub scheme: String,
    /// Reference-page measurements: before the first request, after erases, when idle.
    pub probes_start: u64,
    pub probes_erased: u64,
    pub probes_idle: u64,
    /// Times a measurement moved a block to another level (the first measurement of each
    /// block not counted).
    pub level_moves: u64,
    /// Blocks by level at the end, level 1 first.
    pub blocks_by_level: Vec<u64>,
    /// Blocks by level after the first measurement, level 1 first.
    pub blocks_by_level_at_start: Vec<u64>,
    /// Host page writes by the level of the block they were placed in, level 1 first.
    pub host_writes_by_level: Vec<u64>,
    /// `ascache`: approximate writes placed in a block whose RBER_U is not below their
    /// AP_BER (no room in a level that tolerates it): their pages are mismatched, and always
    /// decoded.
    pub mismatched_writes: u64,
    /// `ascache`: AP_READs returned raw (not mismatched, block's RBER_U below AP_BER), and
    /// decoded straight to the stage their block's level predicts.
    pub raw_reads: u64,
    /// Of those, reads of a page whose RBER was above its block's RBER_U (the bound was not
    /// pessimistic for it), and above the read's AP_BER (the reader got more errors than it
    /// tolerates).
    pub raw_above_bound: u64,
    pub raw_beyond_tolerance: u64,
    pub direct_decodes: u64,
    /// Mean and largest tracked RBER_U over the blocks at the end.
    pub rber_u_mean: f64,
    pub rber_u_max: f64,
}
