//! The run report: one typed structure, serialised as JSON with a stable key order. The
//! schema is documented in `docs/report.md`; add keys, never rename or remove them.

use serde::Serialize;

mod text;
pub use text::to_python_json;

pub use crate::stats::LatencySummary;

/// Version of the report schema.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub schema: u32,
    pub version: String,
    /// The fully resolved configuration of the run.
    pub config: serde_json::Value,
    pub workload: serde_json::Value,
    pub host: HostReport,
    /// The SSD as a cache in front of a disk (`[backing]`); `enabled` false otherwise.
    pub backing: BackingReport,
    pub ftl: FtlReport,
    pub nand: NandReport,
    pub energy: EnergyReport,
    pub reliability: ReliabilityReport,
    pub payload: PayloadReport,
    /// The sections of the techniques that ran (`approx`, ...), by key: a technique whose
    /// schemes did not run has no section.
    #[serde(flatten)]
    pub techniques: serde_json::Map<String, serde_json::Value>,
    pub sim: SimReport,
}

/// Payload mode: real bytes carried for a range of logical pages.
#[derive(Debug, Clone, Serialize, Default)]
pub struct PayloadReport {
    pub enabled: bool,
    /// Logical pages of the range.
    pub pages: u64,
    /// Host reads of those pages served by flash.
    pub pages_read: u64,
    /// Of those, how many came back with at least one flipped bit.
    pub pages_returned_with_errors: u64,
    pub bits_flipped: u64,
    pub final_read: FinalReadReport,
}

/// The payload's final read after the run (`Payload::final_read_after_h`): every page of the
/// range read once more, outside simulated time.
#[derive(Debug, Clone, Serialize, Default)]
pub struct FinalReadReport {
    pub enabled: bool,
    /// Hours of retention between the end of the run and the read.
    pub after_h: f64,
    pub pages: u64,
    /// Pages that the run's host writes put where they are.
    pub host_written: u64,
    /// Pages found on flash (the rest were in the write buffer or never written).
    pub from_flash: u64,
    /// Pages on flash programmed in an approximate mode.
    pub approximate: u64,
    /// Pages returned without correction.
    pub raw: u64,
    pub with_errors: u64,
    pub bits_flipped: u64,
    /// Mean RBER of the pages found on flash, decoded or not.
    pub rber_mean: f64,
}

/// The read path's physics and decoding. All zero in the fixed-latency mode
/// (`physics.model = "none"` and `ecc.scheme = "none"`).
#[derive(Debug, Clone, Serialize, Default)]
pub struct ReliabilityReport {
    pub enabled: bool,
    pub rber: RberReport,
    pub decode: DecodeReport,
    pub read_retries: RetryReport,
    /// Reads whose data no stage could recover.
    pub uncorrectable_reads: u64,
    /// Blocks' RBER measured for a scheme that tracks it (reference pages: at the start,
    /// after erases, when idle).
    pub probes: u64,
    /// Mean time per host page read, in us, by where it went.
    pub read_breakdown_us: ReadBreakdown,
    /// The BCH codes pages were encoded with.
    pub bch: BchReport,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct BchReport {
    /// Pages encoded.
    pub programs: u64,
    /// Mean t they were encoded with.
    pub mean_t: f64,
    /// Those whose wear and target UBER needed more than `ecc.bch.t_max`: encoded with
    /// `t_max`, they miss their target.
    pub programs_over_t_max: u64,
    /// Decodes by the t of the page decoded, as [t, decodes] pairs in ascending t.
    pub decodes_by_t: Vec<(u32, u64)>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct RberReport {
    pub mean: f64,
    pub p99: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct DecodeReport {
    /// LDPC: reads recovered by the hard decode.
    pub hard: u64,
    /// LDPC: reads recovered at each soft level (index 0 = level 1).
    pub soft: Vec<u64>,
    /// LDPC: reads recovered by chip-level RAID.
    pub raid: u64,
    pub uncorrectable: u64,
    /// BCH: reads decoded successfully (after any retries).
    pub bch: u64,
    /// Reads returned without decoding (no decoder, or approximate pages read raw).
    pub raw: u64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct RetryReport {
    /// Extra sense-transfer-decode steps per read.
    pub mean: f64,
    pub max: u64,
    /// Completed reads by the extra steps they took (index 0: none).
    pub reads_by_steps: Vec<u64>,
    /// With `physics.read_retry`: senses repeated inside the die before any transfer.
    pub in_die_senses: u64,
    /// With `physics.read_retry`: pages moved to the controller whose decode failed, and
    /// the channel time they took (us).
    pub failed_transfers: u64,
    pub failed_transfer_us: f64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct ReadBreakdown {
    pub sense: f64,
    pub transfer: f64,
    pub decode: f64,
    /// From a read's first failed decode to its recovery.
    pub retry: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct HostReport {
    pub read: OpReport,
    pub write: OpReport,
    pub all: OpReport,
    /// From the first arrival to the last completion, in ns.
    pub span_ns: u64,
}

/// The cache layer and the disk behind it. Pages are cache pages (SSD logical pages).
#[derive(Debug, Clone, Serialize)]
pub struct BackingReport {
    pub enabled: bool,
    pub write_policy: crate::backing::WritePolicy,
    /// Pages the cache holds at most, holds at the end, and holds dirty at the end.
    pub slots: u64,
    pub cached_pages: u64,
    pub dirty_pages: u64,
    pub reads: CacheReadReport,
    pub writes: CacheWriteReport,
    /// Slots written with data read from the disk after a miss, and fills given up (the
    /// slot was evicted or written before the data came in).
    pub fills: u64,
    pub fills_dropped: u64,
    pub evictions: u64,
    pub dirty_evictions: u64,
    /// Dirty pages written to the disk after a fully corrected read, and those whose read
    /// was uncorrectable (not written: the disk keeps its older copy).
    pub written_back: u64,
    pub write_back_lost: u64,
    /// Host requests a scheme sent past the cache.
    pub bypassed: u64,
    /// The requests the cache layer sent the SSD, with their latency.
    pub ssd_reads: OpCount,
    pub ssd_writes: OpCount,
    pub disk: DiskReport,
}

#[derive(Debug, Clone, Serialize)]
pub struct CacheReadReport {
    pub pages: u64,
    pub hits: u64,
    /// hits / pages.
    pub hit_ratio: f64,
    /// Pages not cached, and cached pages the SSD returned uncorrectable.
    pub misses_not_cached: u64,
    pub misses_read_error: u64,
    /// Pages whose fill was under way: served when the disk's data came in.
    pub waits_for_fill: u64,
    /// Read errors of dirty pages: the disk's older copy was returned and kept.
    pub dirty_read_errors: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CacheWriteReport {
    pub pages: u64,
    /// Pages written to the SSD (and to the disk too under write-through), and to the disk
    /// only.
    pub cached: u64,
    pub around: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct OpCount {
    pub count: u64,
    pub latency_us: crate::stats::LatencySummary,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiskReport {
    pub reads: u64,
    pub writes: u64,
    pub sectors_read: u64,
    pub sectors_written: u64,
    /// Busy time over the run's span.
    pub utilization: f64,
    /// Service time (seek, rotation, transfer, overhead), and response time (queueing
    /// included), of each access.
    pub service_us: crate::stats::LatencySummary,
    pub response_us: crate::stats::LatencySummary,
    /// Mean parts of the service time, ms.
    pub seek_ms_mean: f64,
    pub rotation_ms_mean: f64,
    pub transfer_ms_mean: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct OpReport {
    pub count: u64,
    pub bytes: u64,
    pub iops: f64,
    /// Megabytes (10^6 bytes) per second over the host span.
    pub bandwidth_mbps: f64,
    pub latency_us: LatencySummary,
}

/// When page writes took their physical pages (`ftl.page_binding`), and the writes that
/// needed none.
#[derive(Debug, Clone, Serialize)]
pub struct BindingReport {
    /// `issue` or `queue`.
    pub at: String,
    /// Host writes programmed without pointing their logical page at the data: a newer
    /// write of the same page was queued before they got a page (possible only when pages
    /// are bound at issue, or after waiting for a free block), so the page they programmed
    /// holds stale data at once.
    pub superseded_writes: u64,
    /// GC copies dropped because the host rewrote their page after it was read but before
    /// the copy got a page.
    pub stale_gc_copies: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FtlReport {
    pub logical_pages: u64,
    pub physical_pages: u64,
    pub host_pages_read: u64,
    pub host_pages_written: u64,
    pub flash_pages_programmed: u64,
    /// Flash pages programmed per host page written.
    pub waf: f64,
    pub gc: GcReport,
    pub wl: WlReport,
    pub buffer: BufferReport,
    pub mapping: MappingReport,
    pub unmapped_reads: u64,
    /// Reads of never-written pages answered with zeros from the controller (always with
    /// `host.unmapped_reads = "zero"`; with "materialize" when the plane had no free page).
    pub unmapped_zero_reads: u64,
    pub materialized_pages: u64,
    pub blocked_writes: u64,
    /// When writes were given their physical pages, and what that saved.
    pub binding: BindingReport,
    pub rmw: RmwReport,
    /// Open blocks closed before they were full so that they could be relocated.
    pub sealed: SealedReport,
    /// Every relocation by reason: cleaning (`gc`), wear levelling, then the scheme's
    /// tasks in the order they first ran.
    pub relocations: Vec<crate::stats::relocation::RelocationReport>,
    /// Extra copies of logical pages a read path scheme made (replicas of read-hot data).
    pub copies: CopiesReport,
    /// Placement handles the host wrote under, and each one's write amplification.
    pub placement: PlacementReport,
}

/// Read-modify-writes of mapping units larger than a page (`mapping.unit_bytes`).
#[derive(Debug, Clone, Serialize)]
pub struct RmwReport {
    /// Flash pages read to merge a host write into the unit it covers only partly.
    pub reads: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct GcReport {
    pub invocations: u64,
    /// Victims with no valid page left when chosen: cleaned by an erase alone.
    pub dead_victims: u64,
    pub pages_moved: u64,
    pub blocks_erased: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SealedReport {
    pub blocks: u64,
    /// Their pages left unwritten until their erase.
    pub unused_pages: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct WlReport {
    pub invocations: u64,
    pub pages_moved: u64,
    pub blocks_erased: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct BufferReport {
    pub capacity_pages: u64,
    pub read_hits: u64,
    pub write_hits: u64,
    pub flushed_pages: u64,
    /// Reads of pages whose program was still in flight, served from controller memory.
    pub inflight_read_hits: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct MappingReport {
    pub cached: bool,
    pub capacity_entries: u64,
    pub hits: u64,
    pub misses: u64,
    pub flash_reads: u64,
    pub flash_writes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct NandReport {
    pub reads: u64,
    pub programs: u64,
    pub erases: u64,
    pub multiplane_ops: u64,
    /// Erase loops a read suspended (`timing.erase_suspend`); an erase may be suspended
    /// more than once.
    pub erase_suspensions: u64,
    /// Erases as loops: latencies, loops, stress, and the reads they met.
    pub erase: EraseReport,
    /// Suspensions of erase loops and programs by reads, and what they cost.
    pub suspensions: SuspensionReport,
    pub erase_count: EraseCountReport,
    /// Wear the run's erases added, in erases at the default voltage (an erase at a
    /// lowered voltage counts less, seed 000 Eq. 10).
    pub effective_wear: EffectiveWearReport,
    pub busy: BusyReport,
}

#[derive(Debug, Clone, Serialize)]
pub struct EraseReport {
    /// Erases whose plan finished (with `gc.lazy_erase`, counted when all loops but the
    /// deferred last one have run; their figures include that loop).
    pub erases: u64,
    /// Erase-and-verify loop commands run (a deferred last loop counted when it runs).
    pub loops: u64,
    /// Erases by number of loops in their plan: entry `i` is erases of `i` loops.
    pub by_loops: Vec<u64>,
    /// Array time of an erase (all its loops), in ms.
    pub latency_ms: EraseLatencyReport,
    /// The same distribution in us, with percentiles and a sampled CDF (for plotting).
    pub latency_us: crate::stats::LatencySummary,
    /// Erase stress (pulse time x voltage, V x ms; `physics.erase`): total and per erase.
    pub stress_v_ms: f64,
    pub stress_per_erase_v_ms: f64,
    /// Deferred last loops (`gc.lazy_erase`) that ran; the rest still wait for their
    /// block's first program.
    pub deferred_loops_run: u64,
    /// Host reads that reached a die while it was erasing (running or holding suspended
    /// an erase loop), and their share of host flash reads.
    pub host_reads_meeting_erase: u64,
    pub host_reads_meeting_erase_share: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct EraseLatencyReport {
    pub mean: f64,
    pub max: f64,
    /// `[ms, erases]` pairs, by total array time rounded to the microsecond.
    pub histogram: Vec<(f64, u64)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SuspensionReport {
    pub erase: u64,
    pub program: u64,
    /// Time the suspending reads spent suspending (`timing.*_suspend_us`, summed), us.
    pub suspend_us: f64,
    /// Array time lost by erase loops restarted on resuming (`timing.erase_resume =
    /// "restart"`), us.
    pub restart_lost_us: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct EffectiveWearReport {
    pub total: f64,
    pub mean: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct EraseCountReport {
    pub min: u64,
    pub mean: f64,
    pub max: u64,
    pub stddev: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct BusyReport {
    /// Sums over all channels.
    pub channels_total: BusyBreakdown,
    /// The same channel time by what it carried.
    pub channel_use: ChannelUseReport,
    /// Sums over all dies.
    pub dies_total: BusyBreakdown,
    pub channels: Vec<BusyBreakdown>,
    pub dies: Vec<BusyBreakdown>,
}

/// Channel time summed over channels, by what it carried, in ns: the parts add up to the
/// channels' time (simulated time x channels).
#[derive(Debug, Clone, Serialize, Default)]
pub struct ChannelUseReport {
    /// Commands and addresses.
    pub command_ns: u64,
    /// Data of writes, and of reads that decoded (or were not decoded).
    pub data_ns: u64,
    /// Read data whose decode failed (RiF's UNCOR).
    pub failed_data_ns: u64,
    /// Held by read data waiting for room in the ECC engine's buffer (RiF's ECCWAIT).
    pub ecc_wait_ns: u64,
    pub idle_ns: u64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct BusyBreakdown {
    pub host_read_ns: u64,
    pub host_write_ns: u64,
    pub gc_ns: u64,
    pub erase_ns: u64,
    pub mapping_ns: u64,
    pub idle_ns: u64,
    /// Busy fraction of the simulated time.
    pub utilization: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct EnergyReport {
    pub total_j: f64,
    pub read_j: f64,
    pub program_j: f64,
    pub erase_j: f64,
    pub transfer_j: f64,
    pub dram_j: f64,
    /// BCH encoding and decoding.
    pub ecc_j: f64,
    /// Total energy per flash page read or programmed, in uJ (0 without any).
    pub per_flash_op_uj: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SimReport {
    pub simulated_ns: u64,
    pub events: u64,
    pub requests: u64,
    pub skipped_lines: u64,
    /// Wall-clock fields: the only ones that differ between identical runs. `setup_s` is
    /// building the device and preconditioning it; `wall_s` is the event loop.
    pub setup_s: f64,
    pub wall_s: f64,
    pub requests_per_s: f64,
    pub events_per_s: f64,
}

/// Keys of the report that depend on the wall clock, so callers wanting byte-identical
/// output can blank them.
pub const WALL_CLOCK_KEYS: [&str; 4] = ["setup_s", "wall_s", "requests_per_s", "events_per_s"];

impl Report {
    /// The report as JSON, laid out as Python's `json.dumps(report, indent=2)` lays it out.
    pub fn to_json(&self) -> String {
        to_python_json(self)
    }

    /// Sets the wall-clock fields to zero (for byte-identical comparisons).
    pub fn clear_wall_clock(&mut self) {
        self.sim.setup_s = 0.0;
        self.sim.wall_s = 0.0;
        self.sim.requests_per_s = 0.0;
        self.sim.events_per_s = 0.0;
    }
}

/// What happened to extra copies over a run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CopiesReport {
    /// Copies asked for, made, and abandoned (the page changed before its read finished,
    /// or the plane had no free page).
    pub asked: u64,
    pub made: u64,
    pub abandoned: u64,
    /// Copies that died because the host wrote their page, or because their block was
    /// cleaned (a copy is not moved: it is dropped).
    pub dropped_on_write: u64,
    pub dropped_on_cleaning: u64,
    /// Copies that became the mapped page.
    pub promoted: u64,
    /// Copies alive at the end, and the most alive at once (each one flash page).
    pub alive: u64,
    pub peak: u64,
    /// Sets of copies asked for by one sense (a scheme's replication of one block's pages),
    /// and their service times, from the ask to the end of the last copy's program or its
    /// abandonment, in microseconds.
    pub batches: u64,
    pub batch_service_us: LatencySummary,
}

/// A handle's share of the writes, in the report.
#[derive(Debug, Clone, Serialize)]
pub struct HandleReport {
    pub handle: u32,
    /// Flash pages the host wrote under the handle.
    pub host_pages: u64,
    /// Flash pages relocations (cleaning, wear levelling, a scheme's tasks) programmed for
    /// the handle's data.
    pub relocated_pages: u64,
    /// (host + relocated) / host.
    pub waf: f64,
}

/// The `ftl.placement` report section.
#[derive(Debug, Clone, Serialize)]
pub struct PlacementReport {
    pub handles: u32,
    pub gc: &'static str,
    pub per_handle: Vec<HandleReport>,
}
