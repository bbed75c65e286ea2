//! The read-disturb schemes' report section (`read_disturb`), written for every scheme so
//! that sweeps over schemes have the same columns. Relocations themselves (count, pages,
//! service times, reads held up) are in `ftl.relocations` under the reason `read_reclaim`.

use serde::{Deserialize, Serialize};

/// Top-level report key of the section.
pub const KEY: &str = "read_disturb";

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct ReadDisturbReport {
    /// The running scheme's name.
    pub scheme: String,
    /// The reclaim threshold in force (0 when no read-disturb scheme runs).
    pub reclaim_threshold: u32,
    /// Reads that found their block at or past the threshold (each asks for a reclaim;
    /// the engine starts one when the block's plane is free).
    pub reclaim_requests: u64,
    /// The most reads any block served between two erases (`rrb`: the largest effective
    /// read disturbance, in reads of the slowest page type in a normal block).
    pub max_block_reads: u32,
    /// Blocks opened in each read mode (`rrb`): normal, mode 1, mode 2.
    pub blocks_opened_per_mode: Vec<u64>,
    /// Host reads sensed on each page type (LSB, CSB, MSB for TLC) under the read-resistant
    /// schemes: read-resistant pages raise the share of the first.
    pub host_reads_by_page_type: Vec<u64>,
    /// Replicas of read-hot pages (redFTL).
    pub replicas: Replicas,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct Replicas {
    /// Replicas asked for, made, migrated (became the mapped page) and died (the page was
    /// written or the replica's block cleaned); alive at the end.
    pub asked: u64,
    pub made: u64,
    pub migrated: u64,
    pub died: u64,
    pub alive: u64,
    /// Read-hot pages left without a replica because every block of the pool was at its
    /// limit, or because the replicas alive (and being made) reached the device-wide cap.
    pub pool_empty: u64,
    pub capped: u64,
}

/// The section of a finished run's report.
pub fn of(report: &crate::report::Report) -> ReadDisturbReport {
    report.techniques.get(KEY).and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default()
}
