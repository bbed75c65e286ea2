//! Measurements taken during a run: latency histograms, counters, busy time and energy.

pub mod config;
mod latency;
pub mod relocation;

pub use latency::{round3, LatencyStats, LatencySummary};

/// What a die or channel was busy with, for the time breakdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Activity {
    HostRead = 0,
    HostWrite = 1,
    Gc = 2,
    Erase = 3,
    Mapping = 4,
}

pub const ACTIVITIES: usize = 5;

/// Busy nanoseconds per activity of one resource.
#[derive(Debug, Clone, Default)]
pub struct Busy {
    pub ns: [u64; ACTIVITIES],
}

impl Busy {
    #[inline]
    pub fn add(&mut self, a: Activity, ns: u64) {
        self.ns[a as usize] += ns;
    }
    pub fn total(&self) -> u64 {
        self.ns.iter().sum()
    }
}

/// Channel time, summed over channels, by what it carried beyond data: commands, and the
/// time read data waited for room in the ECC engine's buffer while holding the channel.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChannelUse {
    pub command_ns: u64,
    pub ecc_wait_ns: u64,
}

/// Energy in joules by source.
#[derive(Debug, Clone, Default)]
pub struct Energy {
    pub read_j: f64,
    pub program_j: f64,
    pub erase_j: f64,
    pub transfer_j: f64,
    pub dram_j: f64,
    /// BCH encoders and decoders (`ecc.bch.{encode,decode}_mw`).
    pub ecc_j: f64,
}

impl Energy {
    pub fn total_j(&self) -> f64 {
        self.read_j + self.program_j + self.erase_j + self.transfer_j + self.dram_j + self.ecc_j
    }
}

/// Counters of the FTL and the flash array.
#[derive(Debug, Clone, Default)]
pub struct Counters {
    /// Blocks' RBER measured for a scheme (`Observer::probed`).
    pub probes: u64,
    pub host_pages_read: u64,
    pub host_pages_written: u64,
    pub flash_reads: u64,
    pub flash_programs: u64,
    /// Pages read to merge a partly written mapping unit (read-modify-write).
    pub rmw_reads: u64,
    pub flash_erases: u64,
    pub host_flash_reads: u64,
    pub host_flash_programs: u64,
    pub gc_invocations: u64,
    pub gc_dead_victims: u64,
    pub gc_pages_moved: u64,
    pub gc_blocks_erased: u64,
    pub wl_invocations: u64,
    pub wl_pages_moved: u64,
    pub buffer_read_hits: u64,
    pub buffer_write_hits: u64,
    pub buffer_flushes: u64,
    pub inflight_read_hits: u64,
    pub unmapped_reads: u64,
    pub unmapped_zero_reads: u64,
    pub wl_blocks_erased: u64,
    pub materialized_pages: u64,
    pub cmt_hits: u64,
    pub cmt_misses: u64,
    pub mapping_reads: u64,
    pub mapping_writes: u64,
    pub multiplane_ops: u64,
    pub blocked_writes: u64,
    /// Host writes programmed but not mapped because a newer write of their page was
    /// queued before they got a page, and GC copies dropped because the host rewrote their
    /// page before they got one.
    pub superseded_writes: u64,
    pub gc_copies_dropped: u64,
    /// Open blocks closed early to be relocated, and their pages left unwritten.
    pub sealed_blocks: u64,
    pub sealed_unused_pages: u64,
}
