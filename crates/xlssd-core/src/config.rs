//! The simulator's configuration: one typed structure whose sections mirror the modules.
//!
//! Every key has a default, so a config file only names what differs from them. Unknown
//! keys and wrong types are rejected by serde (with the dotted path of the key), and
//! impossible values by [`Config::validate`], which names the key and the allowed range.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Seed of every pseudo-random stream (workload, policies); each concern derives its own.
    pub seed: u64,
    pub geometry: GeometryConfig,
    pub timing: TimingConfig,
    pub channel: ChannelConfig,
    pub host: HostConfig,
    pub ftl: FtlConfig,
    pub gc: GcConfig,
    pub wl: WlConfig,
    pub cache: CacheConfig,
    pub mapping: MappingConfig,
    pub precondition: PreconditionConfig,
    pub energy: EnergyConfig,
    pub workload: WorkloadConfig,
    pub physics: PhysicsConfig,
    pub ecc: EccConfig,
    pub aging: AgingConfig,
    /// The scheme: which techniques run, and their parameters.
    pub scheme: crate::techniques::SchemeConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            geometry: GeometryConfig::default(),
            timing: TimingConfig::default(),
            channel: ChannelConfig::default(),
            host: HostConfig::default(),
            ftl: FtlConfig::default(),
            gc: GcConfig::default(),
            wl: WlConfig::default(),
            cache: CacheConfig::default(),
            mapping: MappingConfig::default(),
            precondition: PreconditionConfig::default(),
            energy: EnergyConfig::default(),
            workload: WorkloadConfig::default(),
            physics: PhysicsConfig::default(),
            ecc: EccConfig::default(),
            aging: AgingConfig::default(),
            scheme: Default::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn bits_per_cell(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GeometryConfig {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    /// Bytes of user data per page.
    pub page_size: u32,
    /// Word-line layers of a 3D part (1 for planar NAND); a block spans all layers.
    pub layers: u32,
    pub cell: CellType,
}

impl GeometryConfig {
    /// One plane of `blocks` blocks of `pages` pages over `layers` layers, for unit tests.
    #[cfg(test)]
    pub fn one_plane(blocks: u32, pages: u32, layers: u32) -> GeometryConfig {
        GeometryConfig {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: blocks,
            pages_per_block: pages,
            layers,
            ..Default::default()
        }
    }
}

impl Default for GeometryConfig {
    fn default() -> Self {
        GeometryConfig {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 256,
            pages_per_block: 64,
            page_size: 4096,
            layers: 1,
            cell: CellType::Mlc,
        }
    }
}

/// A latency given once for every page type, or once per page type (LSB, CSB, MSB, TSB).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PerPageType {
    Same(f64),
    PerType(Vec<f64>),
}

impl PerPageType {
    pub fn get(&self, page_type: usize) -> f64 {
        match self {
            PerPageType::Same(v) => *v,
            PerPageType::PerType(v) => v[page_type.min(v.len() - 1)],
        }
    }
    fn values(&self) -> Vec<f64> {
        match self {
            PerPageType::Same(v) => vec![*v],
            PerPageType::PerType(v) => v.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimingConfig {
    /// Array read (sense) time tR in microseconds, per page type.
    pub read_us: PerPageType,
    /// Array program time tPROG in microseconds, per page type.
    pub program_us: PerPageType,
    /// Block erase time tBERS in microseconds.
    pub erase_us: f64,
    /// Command and address cycles on the channel before each flash operation, in ns.
    pub cmd_ns: u64,
    /// Latency of one page access in the controller's DRAM, in ns.
    pub dram_ns: u64,
}

impl Default for TimingConfig {
    fn default() -> Self {
        TimingConfig {
            read_us: PerPageType::Same(50.0),
            program_us: PerPageType::Same(600.0),
            erase_us: 3000.0,
            cmd_ns: 0,
            dram_ns: 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChannelConfig {
    /// Transfer rate in mega-transfers per second.
    pub rate_mts: f64,
    /// Bus width in bits.
    pub width_bits: u32,
}

impl Default for ChannelConfig {
    fn default() -> Self {
        ChannelConfig { rate_mts: 400.0, width_bits: 8 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplayMode {
    /// Honour each request's arrival time.
    Open,
    /// Keep `queue_depth` requests outstanding, ignoring arrival times.
    Closed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressMode {
    /// An address beyond the logical capacity stops the run.
    Error,
    /// Addresses are taken modulo the logical capacity.
    Wrap,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnmappedReads {
    /// A read of a never-written page is served as if the page had been written before the
    /// run: it is given a physical page (without programming time) and read from flash.
    Materialize,
    /// A read of a never-written page returns zeros from the controller without a flash read.
    Zero,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// Host interface bandwidth in GB/s (10^9 bytes/s) used for data transfer to and from
    /// the host; 0 models an ideal interface.
    pub interface_gbps: f64,
    pub replay: ReplayMode,
    /// Outstanding requests in closed-loop replay.
    pub queue_depth: u32,
    /// Arrival times are multiplied by this factor in open-loop replay.
    pub time_scale: f64,
    pub address_mode: AddressMode,
    pub unmapped_reads: UnmappedReads,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            interface_gbps: 0.0,
            replay: ReplayMode::Open,
            queue_depth: 32,
            time_scale: 1.0,
            address_mode: AddressMode::Error,
            unmapped_reads: UnmappedReads::Materialize,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AllocationScheme {
    /// Channel, way, die, plane striping of logical pages (MQSim's CWDP).
    Static,
    /// Each page goes to the least busy die.
    Dynamic,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Fraction of physical capacity hidden from the host, in (0, 1).
    pub overprovisioning: f64,
    pub allocation: AllocationScheme,
    /// Host write streams, each with its own active block per plane.
    pub streams: u32,
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig { overprovisioning: 0.07, allocation: AllocationScheme::Static, streams: 1 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicy {
    Greedy,
    CostBenefit,
    Fifo,
    RandomGreedy,
}

impl GcPolicy {
    pub fn name(self) -> &'static str {
        match self {
            GcPolicy::Greedy => "greedy",
            GcPolicy::CostBenefit => "cost-benefit",
            GcPolicy::Fifo => "fifo",
            GcPolicy::RandomGreedy => "random-greedy",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GcConfig {
    pub policy: GcPolicy,
    /// Background GC starts in a plane when its free blocks fall below this fraction.
    pub threshold: f64,
    /// Below this fraction of free blocks GC runs in the foreground: it goes ahead of host
    /// writes on the die.
    pub hard_threshold: f64,
    /// Candidates drawn by `random-greedy` before the one with fewest valid pages is taken.
    pub rga_candidates: u32,
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig { policy: GcPolicy::Greedy, threshold: 0.05, hard_threshold: 0.005, rga_candidates: 10 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WlConfig {
    /// Dynamic wear levelling: a new block is the least-erased free block of its plane.
    pub dynamic: bool,
    /// Static wear levelling: cold data leaves the least-erased block of a plane when the
    /// erase-count gap in that plane exceeds `static_threshold`.
    #[serde(rename = "static")]
    pub static_enabled: bool,
    pub static_threshold: u32,
}

impl Default for WlConfig {
    fn default() -> Self {
        WlConfig { dynamic: true, static_enabled: true, static_threshold: 100 }
    }
}

/// When the write buffer sends its pages to flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WritePolicy {
    /// Dirty pages stay in DRAM until the buffer is full or the host is idle.
    Lazy,
    /// Every page written is sent to flash at once; the buffer only hides program latency.
    Eager,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    /// DRAM write-buffer capacity in bytes; 0 disables the buffer (write-through).
    pub capacity_bytes: u64,
    pub write_policy: WritePolicy,
    /// The buffer is written back once the host has been idle this long, in microseconds.
    pub idle_flush_us: f64,
    /// Most buffer pages being programmed at once (0 = no limit). With the eager policy a
    /// host write waits for room under this limit before it enters the buffer.
    pub max_inflight_flush_pages: u32,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            capacity_bytes: 1 << 20,
            write_policy: WritePolicy::Lazy,
            idle_flush_us: 1000.0,
            max_inflight_flush_pages: 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MappingConfig {
    /// Capacity of the demand-cached mapping table in bytes; 0 keeps the whole page-level
    /// table in DRAM.
    pub cached_table_bytes: u64,
    /// Bytes one logical-to-physical entry takes, in DRAM and in a translation page.
    pub entry_bytes: u32,
}

impl Default for MappingConfig {
    fn default() -> Self {
        MappingConfig { cached_table_bytes: 0, entry_bytes: 8 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PreconditionConfig {
    /// Fraction of the logical space holding data before the run, in [0, 1].
    pub occupancy: f64,
    /// Spread the data as long uniform random overwrites would leave it, instead of packing
    /// it into full blocks.
    pub steady_state: bool,
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        PreconditionConfig { occupancy: 0.0, steady_state: false }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EnergyConfig {
    pub voltage_v: f64,
    pub read_ma: f64,
    pub program_ma: f64,
    pub erase_ma: f64,
    /// Current drawn while a channel transfers data or commands.
    pub transfer_ma: f64,
    /// Current drawn by DRAM while it serves a buffer access.
    pub dram_ma: f64,
}

impl Default for EnergyConfig {
    fn default() -> Self {
        EnergyConfig {
            voltage_v: 3.3,
            read_ma: 25.0,
            program_ma: 25.0,
            erase_ma: 25.0,
            transfer_ma: 25.0,
            dram_ma: 125.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    Read,
    Write,
    Randread,
    Randwrite,
    Randrw,
    Rw,
}

/// A synthetic workload in fio's vocabulary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadConfig {
    pub rw: RwMode,
    /// Request size in bytes (a multiple of 512).
    pub bs: u64,
    /// Percentage of reads in mixed workloads.
    pub rwmixread: f64,
    /// Outstanding requests (closed loop); 0 means open loop with `interarrival_us`.
    pub iodepth: u32,
    /// Number of requests.
    pub n: u64,
    /// Fraction of the logical space addressed, from its start.
    pub span: f64,
    /// Zipf exponent of address popularity; 0 is uniform.
    pub zipf: f64,
    /// Hot/cold skew: `hot_fraction` of requests go to `hot_space` of the span (0 = off).
    pub hot_fraction: f64,
    pub hot_space: f64,
    /// Mean gap between arrivals in open loop, in microseconds (exponential).
    pub interarrival_us: f64,
    /// Fraction of the addressed slots whose data may be stored approximately; which
    /// slots is fixed by a hash of the slot, so an address keeps its tag.
    pub approx: f64,
    /// Seed of this workload; 0 derives it from the top-level seed.
    pub seed: u64,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            rw: RwMode::Randrw,
            bs: 4096,
            rwmixread: 70.0,
            iodepth: 16,
            n: 20_000,
            span: 1.0,
            zipf: 0.0,
            hot_fraction: 0.0,
            hot_space: 0.2,
            interarrival_us: 0.0,
            approx: 0.0,
            seed: 0,
        }
    }
}

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
        }
    }
}

/// Which decoder protects the pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EccScheme {
    /// No decoding stage: reads cost sense and transfer only.
    None,
    /// A BCH code with read-retry (seed 001).
    Bch,
    /// The LDPC flow of seed 002: hard decode, soft levels, RAID.
    Ldpc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EccConfig {
    pub scheme: EccScheme,
    /// UBER the adaptive BCH code is sized for (seed 001: 1e-13 standard, 1e-15 enhanced,
    /// 1e-11 reduced).
    pub target_uber: f64,
    /// BCH correction capability per codeword; 0 adapts t to the page's wear and
    /// programming algorithm at program time to hold `target_uber` (seed 001 Table IV).
    pub bch_t: u32,
    pub bch: crate::ecc::bch::BchConfig,
    pub ldpc: crate::ecc::ldpc::LdpcConfig,
    /// Read-retry steps after a failed BCH decode, each a new sense, transfer and decode
    /// with shifted read references.
    pub retry_steps: u32,
    /// RBER left after each retry step, as a fraction of the step before (a shifted read
    /// reference recovers part of the drifted cells).
    pub retry_rber_factor: f64,
    /// Read approximately programmed pages raw, without decoding (seed 000 Sec. III-A: the
    /// ECC of approximate pages may be skipped).
    pub skip_approximate: bool,
}

impl Default for EccConfig {
    fn default() -> Self {
        EccConfig {
            scheme: EccScheme::None,
            target_uber: 1e-13,
            bch_t: 0,
            bch: Default::default(),
            ldpc: Default::default(),
            retry_steps: 8,
            retry_rber_factor: 0.6,
            skip_approximate: false,
        }
    }
}

/// The device's state before the run: wear and the age of its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgingConfig {
    /// Mean P/E cycles every block has already seen.
    pub initial_pe: f64,
    /// Blocks' P/E counts are spread uniformly over initial_pe +- this many cycles.
    pub initial_pe_spread: f64,
    /// Hours since the preconditioned data was written, when the run starts.
    pub data_age_h: f64,
}

impl Default for AgingConfig {
    fn default() -> Self {
        AgingConfig { initial_pe: 0.0, initial_pe_spread: 0.0, data_age_h: 0.0 }
    }
}

pub(crate) fn bad(key: &str, value: impl std::fmt::Display, expected: &str) -> Error {
    Error::Config { key: key.to_string(), message: format!("value {value} is out of range: expected {expected}") }
}

fn positive_u32(key: &str, v: u32) -> Result<()> {
    if v == 0 {
        return Err(bad(key, v, "an integer >= 1"));
    }
    Ok(())
}

fn positive_f64(key: &str, v: f64) -> Result<()> {
    if !(v.is_finite() && v > 0.0) {
        return Err(bad(key, v, "a number > 0"));
    }
    Ok(())
}

pub(crate) fn fraction(key: &str, v: f64, lo_open: bool, hi_open: bool) -> Result<()> {
    let lo_ok = if lo_open { v > 0.0 } else { v >= 0.0 };
    let hi_ok = if hi_open { v < 1.0 } else { v <= 1.0 };
    if !(v.is_finite() && lo_ok && hi_ok) {
        let range = format!(
            "a fraction in {}0, 1{}",
            if lo_open { "(" } else { "[" },
            if hi_open { ")" } else { "]" }
        );
        return Err(bad(key, v, &range));
    }
    Ok(())
}

fn per_page_type(key: &str, v: &PerPageType, types: usize) -> Result<()> {
    let values = v.values();
    if let PerPageType::PerType(list) = v {
        if list.len() != types {
            return Err(Error::Config {
                key: key.to_string(),
                message: format!(
                    "has {} values; the cell type has {types} page types (give one number or {types})",
                    list.len()
                ),
            });
        }
    }
    for x in values {
        positive_f64(key, x)?;
    }
    Ok(())
}

/// Sizes that follow from a config: the logical space, the GC reserve, the mapping table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    pub physical_pages: u64,
    /// Pages the host can address: physical pages less over-provisioning.
    pub logical_pages: u64,
    /// Translation pages holding the mapping table on flash (cached mapping table only).
    pub translation_pages: u64,
    /// Mapping entries in one translation page.
    pub entries_per_translation_page: u64,
    /// Background GC starts in a plane with fewer free blocks than this.
    pub gc_threshold_blocks: u32,
    /// Below this many free blocks a plane's GC runs in the foreground.
    pub gc_hard_blocks: u32,
    /// Blocks per plane that can never hold the logical space: the foreground-GC reserve
    /// (hard threshold), the block kept for GC itself, and one open block per allocation
    /// stream in use (host streams, GC, materialised reads, translation pages), whose
    /// unwritten pages the other streams cannot use.
    pub reserved_blocks_per_plane: u32,
    /// Physical pages outside that reserve, which must hold the logical space and the
    /// translation pages.
    pub usable_pages: u64,
}

/// Most planes one multi-plane command can span.
pub const MAX_PLANES_PER_DIE: u32 = 16;

/// Upper bound for durations given in configs (one year), so that time arithmetic in
/// nanoseconds cannot overflow.
const MAX_DURATION_US: f64 = 3.2e13;

impl Config {
    /// Sizes derived from the geometry, over-provisioning, GC thresholds and mapping.
    /// Host write streams: those configured, or as many as the scheme needs.
    pub fn host_streams(&self) -> u32 {
        self.ftl.streams.max(self.scheme.streams())
    }

    pub fn capacity(&self) -> Capacity {
        let g = &self.geometry;
        let planes = g.channels as u64 * g.chips_per_channel as u64 * g.dies_per_chip as u64 * g.planes_per_die as u64;
        let physical_pages = planes * g.blocks_per_plane as u64 * g.pages_per_block as u64;
        let logical_pages = ((physical_pages as f64) * (1.0 - self.ftl.overprovisioning)).floor() as u64;
        let entries = (g.page_size / self.mapping.entry_bytes.max(1)).max(1) as u64;
        let translation_pages =
            if self.mapping.cached_table_bytes > 0 { logical_pages.div_ceil(entries) } else { 0 };
        let gc_threshold_blocks = ((self.gc.threshold * g.blocks_per_plane as f64).round() as u32).max(2);
        let gc_hard_blocks = ((self.gc.hard_threshold * g.blocks_per_plane as f64).round() as u32).max(1);
        let open_streams = self.host_streams()
            + 1
            + (self.host.unmapped_reads == UnmappedReads::Materialize) as u32
            + (translation_pages > 0) as u32;
        let reserved_blocks_per_plane = gc_hard_blocks + 1 + open_streams;
        let reserve = reserved_blocks_per_plane as u64 * planes * g.pages_per_block as u64;
        Capacity {
            physical_pages,
            logical_pages,
            translation_pages,
            entries_per_translation_page: entries,
            gc_threshold_blocks,
            gc_hard_blocks,
            reserved_blocks_per_plane,
            usable_pages: physical_pages.saturating_sub(reserve),
        }
    }

    /// The scheme's names and tables, and no engine key the scheme overrides set to
    /// anything but its default (it would be silently ignored).
    fn validate_scheme(&self) -> Result<()> {
        use crate::techniques::Hook;
        self.scheme.resolved()?;
        let hooks = self.scheme.hooks()?;
        let by = |hook: Hook| {
            let parts = self.scheme.parts().unwrap_or_default();
            parts.iter().find(|p| p.hooks.contains(&hook)).map_or("", |p| p.name)
        };
        let gc = GcConfig::default();
        if hooks.has(Hook::Cleaning) && (self.gc.policy != gc.policy || self.gc.rga_candidates != gc.rga_candidates) {
            let key = if self.gc.policy != gc.policy { "gc.policy" } else { "gc.rga_candidates" };
            return Err(Error::Config {
                key: key.into(),
                message: format!(
                    "has no effect under scheme `{}`, which chooses its own GC victims: leave it at its default or choose a scheme that does not override cleaning",
                    by(Hook::Cleaning)
                ),
            });
        }
        if hooks.has(Hook::FreeBlocks) && self.wl != WlConfig::default() {
            return Err(Error::Config {
                key: "wl".into(),
                message: format!(
                    "has no effect under scheme `{}`, which chooses free blocks and levels wear its own way: leave [wl] at its defaults or choose a scheme that does not override free-block choice",
                    by(Hook::FreeBlocks)
                ),
            });
        }
        Ok(())
    }

    /// Parses a TOML document over the defaults.
    pub fn from_toml_str(text: &str) -> Result<Config> {
        let de = toml::Deserializer::new(text);
        let mut cfg: Config = serde_path_to_error::deserialize(de).map_err(|e| Error::Config {
            key: e.path().to_string(),
            message: e.inner().message().to_string(),
        })?;
        cfg.scheme = cfg.scheme.resolved()?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Parses a JSON document over the defaults (the form the Python layer hands over).
    pub fn from_json_str(text: &str) -> Result<Config> {
        let mut de = serde_json::Deserializer::from_str(text);
        let mut cfg: Config = serde_path_to_error::deserialize(&mut de).map_err(|e| Error::Config {
            key: e.path().to_string(),
            message: strip_position(&e.inner().to_string()),
        })?;
        cfg.scheme = cfg.scheme.resolved()?;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("config serialises")
    }

    /// Rejects impossible values, naming the key and the allowed range.
    pub fn validate(&self) -> Result<()> {
        self.validate_scheme()?;
        let g = &self.geometry;
        positive_u32("geometry.channels", g.channels)?;
        positive_u32("geometry.chips_per_channel", g.chips_per_channel)?;
        positive_u32("geometry.dies_per_chip", g.dies_per_chip)?;
        positive_u32("geometry.planes_per_die", g.planes_per_die)?;
        positive_u32("geometry.blocks_per_plane", g.blocks_per_plane)?;
        positive_u32("geometry.pages_per_block", g.pages_per_block)?;
        positive_u32("geometry.layers", g.layers)?;
        if g.page_size < 512 || g.page_size % 512 != 0 {
            return Err(bad("geometry.page_size", g.page_size, "a multiple of 512 bytes"));
        }
        if g.pages_per_block % g.layers != 0 {
            return Err(bad(
                "geometry.layers",
                g.layers,
                &format!("a divisor of geometry.pages_per_block ({})", g.pages_per_block),
            ));
        }
        if g.blocks_per_plane < 4 {
            return Err(bad("geometry.blocks_per_plane", g.blocks_per_plane, "at least 4"));
        }
        if g.pages_per_block > u16::MAX as u32 {
            return Err(bad("geometry.pages_per_block", g.pages_per_block, "at most 65535"));
        }
        let pages = g.channels as u64
            * g.chips_per_channel as u64
            * g.dies_per_chip as u64
            * g.planes_per_die as u64
            * g.blocks_per_plane as u64
            * g.pages_per_block as u64;
        if pages >= u32::MAX as u64 {
            return Err(Error::Config {
                key: "geometry".into(),
                message: format!("{pages} physical pages; at most {} are supported", u32::MAX - 1),
            });
        }
        if g.planes_per_die > MAX_PLANES_PER_DIE {
            return Err(bad("geometry.planes_per_die", g.planes_per_die, &format!("at most {MAX_PLANES_PER_DIE}")));
        }
        let types = g.cell.bits_per_cell();
        per_page_type("timing.read_us", &self.timing.read_us, types)?;
        per_page_type("timing.program_us", &self.timing.program_us, types)?;
        positive_f64("timing.erase_us", self.timing.erase_us)?;
        for (key, ns) in [("timing.cmd_ns", self.timing.cmd_ns), ("timing.dram_ns", self.timing.dram_ns)] {
            if ns as f64 > MAX_DURATION_US * 1e3 {
                return Err(bad(key, ns, "at most one year in ns"));
            }
        }
        positive_f64("channel.rate_mts", self.channel.rate_mts)?;
        if ![8, 16, 32].contains(&self.channel.width_bits) {
            return Err(bad("channel.width_bits", self.channel.width_bits, "8, 16 or 32"));
        }
        let h = &self.host;
        if !(h.interface_gbps.is_finite() && h.interface_gbps >= 0.0) {
            return Err(bad("host.interface_gbps", h.interface_gbps, "a number >= 0 (0 = ideal)"));
        }
        positive_u32("host.queue_depth", h.queue_depth)?;
        positive_f64("host.time_scale", h.time_scale)?;
        fraction("ftl.overprovisioning", self.ftl.overprovisioning, true, true)?;
        positive_u32("ftl.streams", self.ftl.streams)?;
        if self.ftl.streams > 64 {
            return Err(bad("ftl.streams", self.ftl.streams, "at most 64"));
        }
        fraction("gc.threshold", self.gc.threshold, true, true)?;
        fraction("gc.hard_threshold", self.gc.hard_threshold, false, true)?;
        if self.gc.hard_threshold > self.gc.threshold {
            return Err(bad(
                "gc.hard_threshold",
                self.gc.hard_threshold,
                &format!("at most gc.threshold ({})", self.gc.threshold),
            ));
        }
        positive_u32("gc.rga_candidates", self.gc.rga_candidates)?;
        if !(self.cache.idle_flush_us.is_finite() && (0.0..=MAX_DURATION_US).contains(&self.cache.idle_flush_us)) {
            return Err(bad("cache.idle_flush_us", self.cache.idle_flush_us, "a number of microseconds in [0, 3.2e13]"));
        }
        positive_u32("wl.static_threshold", self.wl.static_threshold)?;
        if self.mapping.entry_bytes == 0 || self.mapping.entry_bytes > g.page_size {
            return Err(bad("mapping.entry_bytes", self.mapping.entry_bytes, "between 1 and geometry.page_size"));
        }
        if self.mapping.cached_table_bytes != 0 && self.mapping.cached_table_bytes < self.mapping.entry_bytes as u64 {
            return Err(bad(
                "mapping.cached_table_bytes",
                self.mapping.cached_table_bytes,
                "0 (whole table in DRAM) or at least one entry (mapping.entry_bytes)",
            ));
        }
        fraction("precondition.occupancy", self.precondition.occupancy, false, false)?;
        let e = &self.energy;
        for (k, v) in [
            ("energy.voltage_v", e.voltage_v),
            ("energy.read_ma", e.read_ma),
            ("energy.program_ma", e.program_ma),
            ("energy.erase_ma", e.erase_ma),
            ("energy.transfer_ma", e.transfer_ma),
            ("energy.dram_ma", e.dram_ma),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(bad(k, v, "a number >= 0"));
            }
        }
        self.workload.validate("workload")?;
        self.validate_physics()?;
        self.validate_capacity()
    }

    fn validate_vth(&self) -> Result<()> {
        let v = &self.physics.vth;
        if !(1..=4).contains(&v.bits_per_cell) {
            return Err(bad("physics.vth.bits_per_cell", v.bits_per_cell, "1 to 4"));
        }
        for (k, x) in [
            ("physics.vth.erased_sigma_v", v.erased_sigma_v),
            ("physics.vth.dvpp_v", v.dvpp_v),
            ("physics.vth.approx_dvpp_factor", v.approx_dvpp_factor),
            ("physics.vth.lambda_v", v.lambda_v),
            ("physics.vth.retention_t0_h", v.retention_t0_h),
            ("physics.vth.reference_pe", v.reference_pe),
            ("physics.vth.reference_h", v.reference_h),
            ("physics.vth.grid_step_v", v.grid_step_v),
        ] {
            positive_f64(k, x)?;
        }
        for (k, x) in [
            ("physics.vth.disturb_y_v", v.disturb_y_v),
            ("physics.vth.disturb_z_v", v.disturb_z_v),
            ("physics.vth.disturb_sigma_frac", v.disturb_sigma_frac),
            ("physics.vth.lambda_fresh_v", v.lambda_fresh_v),
            ("physics.vth.lambda_pe_exponent", v.lambda_pe_exponent),
            ("physics.vth.retention_loss", v.retention_loss),
            ("physics.vth.retention_sigma_frac", v.retention_sigma_frac),
            ("physics.vth.retention_pe_exponent", v.retention_pe_exponent),
        ] {
            if !(x.is_finite() && x >= 0.0) {
                return Err(bad(k, x, "a number >= 0"));
            }
        }
        if v.lambda_fresh_v > v.lambda_v {
            return Err(bad("physics.vth.lambda_fresh_v", v.lambda_fresh_v, "at most physics.vth.lambda_v (noise grows with wear)"));
        }
        if v.grid_step_v > 0.05 {
            return Err(bad("physics.vth.grid_step_v", v.grid_step_v, "at most 0.05 V"));
        }
        // Every window must hold its programmed states above the erased state.
        for mode in crate::physics::ProgramMode::ALL {
            let (dvpp, vmax) = v.window(mode);
            let key = match mode {
                crate::physics::ProgramMode::ApproxVmax => "physics.vth.approx_vmax_v",
                _ => "physics.vth.vmax_v",
            };
            if !(v.first_verify_v > v.erased_mean_v && vmax - dvpp > v.first_verify_v && vmax > v.ispp_start_v) {
                return Err(bad(
                    key,
                    vmax,
                    &format!("above physics.vth.first_verify_v ({}) by more than one ISPP step ({dvpp} V), with first_verify_v above erased_mean_v and V_max above ispp_start_v", v.first_verify_v),
                ));
            }
        }
        Ok(())
    }

    fn validate_physics(&self) -> Result<()> {
        let p = &self.physics;
        fraction("physics.program_speedup_at_100k", p.program_speedup_at_100k, false, true)?;
        if !(p.retention_scale.is_finite() && p.retention_scale >= 0.0 && p.retention_scale <= 1e12) {
            return Err(bad("physics.retention_scale", p.retention_scale, "a number in [0, 1e12]"));
        }
        for (k, v) in [
            ("physics.power_law.b", p.power_law.b),
            ("physics.power_law.n", p.power_law.n),
            ("physics.power_law.m", p.power_law.m),
            ("physics.exp_linear.a", p.exp_linear.a),
            ("physics.exp_linear.b", p.exp_linear.b),
            ("physics.exp_linear.c", p.exp_linear.c),
            ("physics.read_disturbance.rber_per_read", p.read_disturbance.rber_per_read),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(bad(k, v, "a number >= 0"));
            }
        }
        // Page types beyond the list take its last weight.
        if p.read_disturbance.beta.is_empty() || p.read_disturbance.beta.iter().any(|b| !(b.is_finite() && *b >= 0.0)) {
            return Err(bad(
                "physics.read_disturbance.beta",
                format!("{:?}", p.read_disturbance.beta),
                "weights >= 0, one per page type (LSB first)",
            ));
        }
        if p.read_disturbance.alpha.is_empty() || p.read_disturbance.alpha.iter().any(|a| !(a.is_finite() && *a > 0.0)) {
            return Err(bad("physics.read_disturbance.alpha", format!("{:?}", p.read_disturbance.alpha), "factors > 0, one per read mode"));
        }
        self.validate_vth()?;
        let e = &self.ecc;
        if !(e.target_uber > 0.0 && e.target_uber < 1.0) {
            return Err(bad("ecc.target_uber", e.target_uber, "a probability in (0, 1)"));
        }
        if e.bch_t > crate::ecc::bch::MAX_T {
            return Err(bad("ecc.bch_t", e.bch_t, &format!("0 (adaptive) or at most {}", crate::ecc::bch::MAX_T)));
        }
        if e.bch.k_bytes == 0 || (e.scheme == EccScheme::Bch && e.bch.k_bytes > self.geometry.page_size) {
            return Err(bad("ecc.bch.k_bytes", e.bch.k_bytes, "between 1 and geometry.page_size"));
        }
        if e.bch.m != 0 && !(3..=32).contains(&e.bch.m) {
            return Err(bad("ecc.bch.m", e.bch.m, "0 (automatic) or 3 to 32"));
        }
        positive_f64("ecc.bch.clock_mhz", e.bch.clock_mhz)?;
        positive_u32("ecc.bch.parallelism", e.bch.parallelism)?;
        let l = &e.ldpc;
        positive_f64("ecc.ldpc.hard_us", l.hard_us)?;
        positive_f64("ecc.ldpc.soft_us", l.soft_us)?;
        fraction("ecc.ldpc.hard_limit", l.hard_limit, true, true)?;
        fraction("ecc.ldpc.soft_limit", l.soft_limit, true, true)?;
        if l.soft_limit < l.hard_limit {
            return Err(bad("ecc.ldpc.soft_limit", l.soft_limit, &format!("at least ecc.ldpc.hard_limit ({})", l.hard_limit)));
        }
        if !(l.raid_us.is_finite() && l.raid_us >= 0.0 && l.raid_us <= MAX_DURATION_US) {
            return Err(bad("ecc.ldpc.raid_us", l.raid_us, "a number of microseconds >= 0 (0 disables RAID)"));
        }
        if e.retry_steps > 64 {
            return Err(bad("ecc.retry_steps", e.retry_steps, "at most 64"));
        }
        fraction("ecc.retry_rber_factor", e.retry_rber_factor, true, true)?;
        let a = &self.aging;
        if !(a.initial_pe.is_finite() && a.initial_pe >= 0.0 && a.initial_pe <= 1e7) {
            return Err(bad("aging.initial_pe", a.initial_pe, "a number of cycles in [0, 1e7]"));
        }
        if !(a.initial_pe_spread.is_finite() && a.initial_pe_spread >= 0.0 && a.initial_pe_spread <= a.initial_pe) {
            return Err(bad("aging.initial_pe_spread", a.initial_pe_spread, "a number in [0, aging.initial_pe]"));
        }
        if !(a.data_age_h.is_finite() && a.data_age_h >= 0.0 && a.data_age_h <= 1e7) {
            return Err(bad("aging.data_age_h", a.data_age_h, "a number of hours in [0, 1e7]"));
        }
        Ok(())
    }

    /// The logical space and the mapping table must fit outside the free-block reserve.
    fn validate_capacity(&self) -> Result<()> {
        let c = self.capacity();
        let bpp = self.geometry.blocks_per_plane;
        if c.gc_threshold_blocks + 2 >= bpp {
            return Err(Error::Config {
                key: "gc.threshold".into(),
                message: format!(
                    "keeps {} of {bpp} blocks per plane free, leaving none for data; expected a smaller fraction",
                    c.gc_threshold_blocks
                ),
            });
        }
        if c.logical_pages + c.translation_pages >= c.usable_pages {
            let table = if c.translation_pages > 0 {
                format!(" and {} translation pages of the mapping table", c.translation_pages)
            } else {
                String::new()
            };
            return Err(Error::Config {
                key: "ftl.overprovisioning".into(),
                message: format!(
                    "{} leaves {} logical pages{table}, but only {} physical pages lie outside the {} blocks per \
                     plane that cannot hold them (the gc.hard_threshold reserve, one block for GC, and one open \
                     block per allocation stream); raise ftl.overprovisioning",
                    self.ftl.overprovisioning, c.logical_pages, c.usable_pages, c.reserved_blocks_per_plane
                ),
            });
        }
        Ok(())
    }
}

impl WorkloadConfig {
    /// Validates with `prefix` naming where the workload came from (config section or spec).
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let k = |name: &str| format!("{prefix}.{name}");
        if self.bs == 0 || self.bs % 512 != 0 {
            return Err(bad(&k("bs"), self.bs, "a positive multiple of 512 bytes"));
        }
        if !(self.rwmixread.is_finite() && (0.0..=100.0).contains(&self.rwmixread)) {
            return Err(bad(&k("rwmixread"), self.rwmixread, "a percentage in [0, 100]"));
        }
        if self.n == 0 {
            return Err(bad(&k("n"), self.n, "an integer >= 1"));
        }
        fraction(&k("span"), self.span, true, false)?;
        if !(self.zipf.is_finite() && self.zipf >= 0.0) {
            return Err(bad(&k("zipf"), self.zipf, "a number >= 0 (0 = uniform)"));
        }
        fraction(&k("hot_fraction"), self.hot_fraction, false, false)?;
        fraction(&k("hot_space"), self.hot_space, true, false)?;
        fraction(&k("approx"), self.approx, false, false)?;
        if self.zipf > 0.0 && self.hot_fraction > 0.0 {
            return Err(Error::Config {
                key: k("zipf"),
                message: format!("cannot be combined with {}; choose one skew", k("hot_fraction")),
            });
        }
        if !(self.interarrival_us.is_finite() && self.interarrival_us >= 0.0) {
            return Err(bad(&k("interarrival_us"), self.interarrival_us, "a number >= 0"));
        }
        if self.iodepth == 0 && self.interarrival_us == 0.0 {
            return Err(Error::Config {
                key: k("iodepth"),
                message: "is 0 (open loop) but interarrival_us is 0 too; give one of them".into(),
            });
        }
        Ok(())
    }
}

/// serde_json appends "at line 1 column N" to its messages; the key path says more.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_is_named_with_its_path() {
        let err = Config::from_toml_str("[geometry]\nchanels = 4\n").unwrap_err();
        match err {
            Error::Config { key, message } => {
                assert_eq!(key, "geometry.chanels");
                assert!(message.contains("unknown field"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn wrong_type_is_named() {
        let err = Config::from_json_str(r#"{"gc": {"threshold": "high"}}"#).unwrap_err();
        assert!(matches!(err, Error::Config { ref key, .. } if key == "gc.threshold"), "{err:?}");
    }

    #[test]
    fn overprovisioning_outside_open_interval_is_rejected() {
        for v in ["0.0", "1.0", "-0.1", "1.5"] {
            let err = Config::from_toml_str(&format!("[ftl]\noverprovisioning = {v}\n")).unwrap_err();
            let text = err.to_string();
            assert!(text.contains("ftl.overprovisioning") && text.contains("(0, 1)"), "{text}");
        }
        assert!(Config::from_toml_str("[ftl]\noverprovisioning = 0.2\n").is_ok());
    }

    #[test]
    fn threshold_voltage_windows_must_hold_their_states() {
        let err = Config::from_toml_str("[physics.vth]\napprox_vmax_v = 2.5\n").unwrap_err();
        assert!(err.to_string().contains("physics.vth.approx_vmax_v"), "{err}");
        let err = Config::from_toml_str("[physics.vth]\nlambda_fresh_v = 0.5\n").unwrap_err();
        assert!(err.to_string().contains("physics.vth.lambda_fresh_v"), "{err}");
        let err = Config::from_toml_str("[physics]\nprogram_mode = \"sloppy\"\n").unwrap_err();
        assert!(err.to_string().contains("physics.program_mode"), "{err}");
        assert!(Config::from_toml_str("[physics]\nmodel = \"vth\"\nprogram_mode = \"approx-dvpp\"\n").is_ok());
    }

    #[test]
    fn zero_sizes_are_rejected() {
        let err = Config::from_toml_str("[geometry]\nchannels = 0\n").unwrap_err();
        assert!(err.to_string().contains("geometry.channels"), "{err}");
    }

    #[test]
    fn per_page_type_latency_must_match_cell() {
        let err = Config::from_toml_str("[geometry]\ncell = \"tlc\"\n[timing]\nread_us = [50, 60]\n").unwrap_err();
        assert!(err.to_string().contains("timing.read_us"), "{err}");
        let cfg = Config::from_toml_str("[geometry]\ncell = \"tlc\"\n[timing]\nread_us = [50, 60, 70]\n").unwrap();
        assert_eq!(cfg.timing.read_us.get(2), 70.0);
    }
}
