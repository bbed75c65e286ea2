//! Measurements: what the report is made of and nothing reads back to decide. Latencies,
//! counters, busy time per die and channel and what channels carried, energy, every
//! relocation's statistics, what erases did, the scheme's tasks, and what became of extra copies.

use super::*;

pub(super) struct Measurements {
    pub(super) lat: [LatencyStats; 2],
    pub(super) counters: Counters,
    pub(super) die_busy: Vec<Busy>,
    pub(super) chan_busy: Vec<Busy>,
    /// Channel time by what it carried (commands, ECC waits; the rest is data).
    pub(super) chan_use: ChannelUse,
    pub(super) energy: Energy,
    /// Every relocation's service time, die time and the reads that arrived during it.
    pub(super) relocs: RelocationStats,
    /// Relocations made by the scheme's own tasks, by reason.
    pub(super) tasks: TaskCounts,
    pub(super) copy_counts: ftl::CopyCounts,
    pub(super) copy_batches: ftl::CopyBatches,
    pub(super) erases: ftl::EraseStats,
}
