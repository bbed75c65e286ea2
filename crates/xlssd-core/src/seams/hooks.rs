//! The seams the engine calls a scheme at. Each axis is a trait whose default methods are
//! the baseline behaviour, so a technique overrides only what it changes; every method that
//! can change the simulated outcome belongs to exactly one [`Hook`], which at most one part
//! of a joined scheme may claim. Observation (validity changes, erases, invariant checks)
//! and the report go to every part.
//!
//! Contexts hand a hook what the engine knows at that seam, read-only unless the decision
//! needs to act on it (opening a block to see its first page, handing a block to another
//! stream).

use crate::ftl::blocks::{BlockManager, FreeBlockPicker};
use crate::ftl::copies::ExtraCopies;
use crate::ftl::mapping::Mapping;
use crate::ftl::policy::{VictimSelector, WearLeveler};
use crate::host::Request;
use crate::nand::Geometry;
use crate::nand::Ppn;
use crate::physics::{Ispp, ProgramMode};
use crate::sim::Time;

/// The axes a scheme may override.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Hook {
    Placement,
    ProgramMode,
    Cleaning,
    FreeBlocks,
    ReadPath,
    ReadRetry,
    RetryReference,
    Erase,
    Background,
    CacheTier,
}

impl Hook {
    pub const ALL: [Hook; 10] = [
        Hook::Placement,
        Hook::ProgramMode,
        Hook::Cleaning,
        Hook::FreeBlocks,
        Hook::ReadPath,
        Hook::ReadRetry,
        Hook::RetryReference,
        Hook::Erase,
        Hook::Background,
        Hook::CacheTier,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Hook::Placement => "placement",
            Hook::ProgramMode => "program_mode",
            Hook::Cleaning => "cleaning",
            Hook::FreeBlocks => "free_blocks",
            Hook::ReadPath => "read_path",
            Hook::ReadRetry => "read_retry",
            Hook::RetryReference => "retry_reference",
            Hook::Erase => "erase",
            Hook::Background => "background",
            Hook::CacheTier => "cache_tier",
        }
    }

    pub fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A set of hooks, as bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HookSet(pub u16);

impl HookSet {
    pub fn of(hooks: &[Hook]) -> HookSet {
        HookSet(hooks.iter().fold(0, |acc, h| acc | h.bit()))
    }

    #[inline]
    pub fn has(self, hook: Hook) -> bool {
        self.0 & hook.bit() != 0
    }
}

/// What a page write is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    /// Host data (directly or written back from the buffer).
    Host,
    /// A copy made by cleaning, wear levelling or a background task.
    Relocation,
    /// A translation page of the cached mapping table.
    Mapping,
}

/// Where a page write goes: an allocation stream (its own active block per plane) and
/// whether it may take the free blocks reserved for cleaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub stream: u32,
    pub privileged: bool,
}

/// Why a block's data is being moved out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    Gc,
    WearLevelling,
    /// A scheme's own task (refresh, read reclaim, ...), by the name its report uses.
    Task(&'static str),
}

/// The relocation a plane is running: its block and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relocating {
    pub block: u32,
    pub reason: Reason,
}

/// A host write request as it arrives, before its pages are placed.
#[derive(Debug, Clone, Copy)]
pub struct HostWrite {
    pub first_lpn: u64,
    pub n_pages: u32,
    pub lba: u64,
    pub bytes: u64,
    /// The host allows the data to be stored approximately (the request's flag).
    pub approximate: bool,
    /// The program context that issued it (0: none).
    pub context: u32,
    /// The placement handle it names, if any.
    pub handle: Option<u16>,
    /// The bit error rate the application tolerates when it reads the data back (seed
    /// 002's AP_BER of an AP_WRITE; 0: none).
    pub tolerance: f32,
    /// Logical pages of the device: page numbers past it wrap.
    pub logical_pages: u64,
}

/// What a placement decision may look at and act on.
pub struct PlaceCtx<'a> {
    pub geo: &'a Geometry,
    pub blocks: &'a mut BlockManager,
    /// The free-block choice in force, for a placement that opens a block ahead of its
    /// first write.
    pub picker: &'a mut dyn FreeBlockPicker,
    /// The relocation running in the write's plane, if any.
    pub relocating: Option<Relocating>,
    /// Where the write goes by default.
    pub default: Target,
    /// The retention clock, read when a placement asks ([`PlaceCtx::clock_h`]).
    pub clock: RetentionClock,
    pub now: Time,
}

/// The retention clock: hours of retention a page's data has seen, from the data's age at
/// the start (`aging.data_age_h`) and the simulated time, scaled (`physics.retention_scale`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetentionClock {
    pub start_h: f64,
    pub scale: f64,
}

impl RetentionClock {
    /// The clock's reading at simulated time `now`, in hours.
    #[inline]
    pub fn hours_at(&self, now: Time) -> f64 {
        self.start_h + now as f64 / 3.6e12 * self.scale
    }
}

impl PlaceCtx<'_> {
    /// The retention clock now, in hours.
    pub fn clock_h(&self) -> f64 {
        self.clock.hours_at(self.now)
    }

    /// `want`, or for a cleaning copy (a privileged write) whose stream can take no page in
    /// `plane` now, the first of `others` that can. A scheme whose copies go to several
    /// streams can otherwise be stuck: a victim's pages may need a block in more streams at
    /// once than the plane has free, and only the victim's erase would free one. Writes that
    /// may wait (host writes, tasks' copies) keep `want`.
    pub fn stream_with_room(&self, plane: u32, want: Target, others: impl IntoIterator<Item = u32>) -> Target {
        if !want.privileged || self.blocks.can_allocate(plane, want.stream, true) {
            return want;
        }
        others
            .into_iter()
            .find(|&s| self.blocks.can_allocate(plane, s, true))
            .map_or(want, |stream| Target { stream, privileged: true })
    }
}

#[cfg(test)]
impl<'a> PlaceCtx<'a> {
    /// A write with nothing relocating, to stream 0 by default, at retention hour 0.
    pub(crate) fn plain(geo: &'a Geometry, blocks: &'a mut BlockManager, picker: &'a mut dyn FreeBlockPicker) -> Self {
        PlaceCtx {
            geo,
            blocks,
            picker,
            relocating: None,
            default: Target { stream: 0, privileged: true },
            clock: RetentionClock { start_h: 0.0, scale: 1.0 },
            now: 0,
        }
    }
}

/// Placement: which stream a page write goes to, and what it holds once placed.
pub trait Placement {
    /// A host write request arrived.
    fn host_write(&mut self, _w: &HostWrite) {}

    /// The stream a write of `lpn` to `plane` goes to.
    fn target(&mut self, ctx: &mut PlaceCtx, _lpn: u32, _kind: WriteKind, _plane: u32) -> Target {
        ctx.default
    }

    /// The write was given physical page `ppn` of `stream`'s active block.
    fn placed(&mut self, _ctx: &mut PlaceCtx, _lpn: u32, _kind: WriteKind, _ppn: Ppn, _stream: u32) {}

    /// Whether the placement reads every host write of the workload before the run (an
    /// offline oracle, as seed 003's ORA): the workload is then read twice.
    fn wants_preview(&self) -> bool {
        false
    }

    /// A host write of the workload, in arrival order, before the run starts.
    fn preview(&mut self, _w: &HostWrite) {}
}

/// The BCH code a page is encoded with (`ecc.scheme = "bch"`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CodeStrength {
    /// The smallest t that meets this UBER at the page's RBER when programmed (its
    /// algorithm at its block's wear), as a flash driver's table of t against P/E gives it
    /// (seed 001 Sec. 4.2), at most `ecc.bch.t_max`.
    Uber(f64),
    /// This t, whatever the wear.
    Fixed(u32),
}

/// How a page is programmed.
pub trait ProgramModes {
    /// The page's program mode; `None` is `physics.program_mode`.
    fn mode(&self, _ppn: Ppn) -> Option<ProgramMode> {
        None
    }

    /// The page's programming algorithm; `None` is `physics.algorithm`.
    fn algorithm(&self, _ppn: Ppn) -> Option<Ispp> {
        None
    }

    /// The BCH code the page is encoded with; `None` is `ecc.bch_t`, or `ecc.target_uber`
    /// when that is 0. Asked when the page is programmed and when it is read: the answer
    /// must not change in between (the block is not erased in between, so its wear is the
    /// same).
    fn code(&self, _ppn: Ppn) -> Option<CodeStrength> {
        None
    }

    /// The page's ISPP step level (`physics::vth::step_factor`: its step as a multiple of
    /// its mode's; 0, the mode's own step, by default). Its program takes fewer pulses and
    /// the threshold-voltage model gives it wider states. Asked when the program starts and
    /// when it ends: the answer must not change in between.
    fn step_level(&self, _ppn: Ppn, _mode: ProgramMode) -> u8 {
        0
    }

    /// A factor on the page's program time beyond its mode's, step level's and algorithm's
    /// (asked once per program, when it starts).
    fn time_factor(&mut self, _ppn: Ppn, _mode: ProgramMode) -> f64 {
        1.0
    }

    /// The read mode `block` is read in: an index into `physics.read_disturbance.alpha`
    /// (0, the nominal read voltage, by default). A block written for a lowered read
    /// voltage is disturbed less by each read.
    fn read_mode(&self, _block: u32) -> usize {
        0
    }
}

/// What victim selection may look at.
pub struct VictimCtx<'a> {
    pub plane: u32,
    pub blocks: &'a BlockManager,
    pub now: Time,
    /// The victim policy configured by `gc.policy`.
    pub policy: &'a mut dyn VictimSelector,
}

/// Cleaning: which block GC empties and in which order its pages move.
pub trait Cleaning {
    /// A closed block of `ctx.plane` to clean, or `None`.
    fn victim(&mut self, ctx: &mut VictimCtx) -> Option<u32> {
        ctx.policy.select(ctx.plane, ctx.blocks, ctx.now)
    }

    /// Orders the valid pages of a block being relocated (page order by default); `map`
    /// gives each page's logical owner.
    fn copy_order(&mut self, _map: &Mapping, _pages: &mut [Ppn]) {}
}

/// Free-block choice and static wear levelling, replaced as a whole when the simulator is
/// built.
pub trait FreeBlocks {
    /// The wear leveller to use instead of the one `wl.*` configures.
    fn wear_leveler(&mut self) -> Option<Box<dyn WearLeveler>> {
        None
    }
}

/// Which flash read a logical read is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    Host,
    Relocation,
    Mapping,
}

/// What a read path decision may look at.
pub struct SenseCtx<'a> {
    pub geo: &'a Geometry,
    pub blocks: &'a BlockManager,
    pub map: &'a Mapping,
    /// Extra copies of logical pages (made by [`ReadAction::Copy`]).
    pub copies: &'a ExtraCopies,
    pub now: Time,
}

/// What a sense may lead to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAction {
    /// Relocate the sensed page's block. The engine starts it when the block is closed and
    /// its plane is not relocating already, and otherwise leaves it to a later read.
    Reclaim(Reclaim),
    /// Copy logical page `lpn`, as mapped now, to a new page of `plane`'s host-write block,
    /// leaving the mapping where it is: an extra copy a host read may be sent to
    /// ([`ReadPath::read_copy`]). The engine reads and programs it as relocation work and
    /// reports it by [`Observer::copy_made`], or [`Observer::copy_abandoned`] when the page
    /// changed before its read finished or the plane had no room.
    Copy { lpn: u32, plane: u32 },
    /// Make the extra copy `copy` the mapped page of `lpn`; the page mapped before becomes
    /// stale. Other copies stay.
    Promote { lpn: u32, copy: Ppn },
}

/// The read path: which copy a host read goes to, and what each sense leads to.
pub trait ReadPath {
    /// The physical page a host read of `lpn` goes to; `ppn` is the mapped one. Any other
    /// answer must be a live extra copy of `lpn`.
    fn read_copy(&mut self, _lpn: u32, ppn: Ppn) -> Ppn {
        ppn
    }

    /// Page `ppn` was sensed: push what it leads to, if anything.
    fn sensed(&mut self, _ctx: &SenseCtx, _ppn: Ppn, _kind: ReadKind, _actions: &mut Vec<ReadAction>) {}
}

/// A block relocation a read asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reclaim {
    /// The relocation's reason, by the name its report uses.
    pub reason: &'static str,
    /// Its reads, programs and erase go ahead of host reads on its die (a reclaim that must
    /// finish before the block is read again), instead of behind them.
    pub ahead_of_reads: bool,
}

/// One sense and decode attempt of a read.
#[derive(Debug, Clone, Copy)]
pub struct Attempt {
    pub ppn: Ppn,
    /// Attempts before this one.
    pub step: u32,
    /// The page's RBER at its best read reference.
    pub rber: f64,
    pub kind: ReadKind,
    /// With `physics.read_retry` on: the retry-table entry this attempt reads at (0: the
    /// default reference), the page's optimal shift in table steps (NaN otherwise), and
    /// whether this attempt's data decodes (what a syndrome-weight check predicts).
    pub reference: u32,
    pub shift: f64,
    pub decodable: bool,
    /// A host read: the bit error rate its request tolerates (seed 002's AP_BER; 0: none,
    /// the data must come back corrected). 0 for every other read.
    pub tolerance: f64,
}

/// What to do with a decoded read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Settle as the decoder says (corrected, RAID, uncorrectable, or retry if the decoder
    /// has steps left).
    AsDecoded,
    /// Return the data as read, errors and all.
    Raw,
    /// Sense, transfer and decode again.
    Retry,
}

/// Read-retry control.
pub trait ReadRetry {
    /// After the first transfer, before any decoding: whether the read's data is decoded
    /// at all. False returns it as read, errors and all, without decode time (seed 002's
    /// approximate read of data its reader tolerates).
    fn decode(&mut self, _a: &Attempt) -> bool {
        true
    }

    /// After a sense, before the data leaves the die: whether the die senses again at once
    /// (an in-die retry: no transfer, no decode of the failed data).
    fn retry_in_die(&mut self, _a: &Attempt) -> bool {
        false
    }

    /// After a decode: `decoder_retries` says whether the decoder would try another step.
    fn after_decode(&mut self, _a: &Attempt, _decoder_retries: bool) -> Verdict {
        Verdict::AsDecoded
    }
}

/// Where read-retry attempts read: entries of the retry table (`physics.read_retry`).
pub trait RetryReference {
    /// The table entry a read's first attempt reads at (`a.reference` is 0 when asked).
    fn first_reference(&mut self, _a: &Attempt) -> u32 {
        0
    }

    /// The table entry the attempt after the failed attempt `a` reads at (walking the
    /// table by default).
    fn next_reference(&mut self, a: &Attempt) -> u32 {
        a.reference + 1
    }
}

/// Most erase-and-verify loops one erase may run.
pub const MAX_ERASE_LOOPS: usize = 8;

/// How an erase runs: erase-and-verify loops, each a command of its own on the die (reads
/// may run between them), each with its pulse's time and the voltage step of its incremental pulse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErasePlan {
    loop_ns: [Time; MAX_ERASE_LOOPS],
    level: [u8; MAX_ERASE_LOOPS],
    loops: u8,
}

impl ErasePlan {
    /// No loop yet.
    pub const EMPTY: ErasePlan = ErasePlan { loop_ns: [0; MAX_ERASE_LOOPS], level: [0; MAX_ERASE_LOOPS], loops: 0 };

    /// One loop of `ns` at the first voltage step: what `timing.erase_us` describes.
    pub fn single(ns: Time) -> ErasePlan {
        let mut p = ErasePlan::EMPTY;
        p.push(ns, 0);
        p
    }

    /// Appends a loop of `ns` whose pulse is at voltage step `level` (0 = the first);
    /// a loop of no time is left out. Loops past [`MAX_ERASE_LOOPS`] are an invariant
    /// violation the caller avoids; they are merged into the last loop.
    pub fn push(&mut self, ns: Time, level: u8) {
        if ns == 0 {
            return;
        }
        let n = self.loops as usize;
        debug_assert!(n < MAX_ERASE_LOOPS, "erase plan with more than {MAX_ERASE_LOOPS} loops");
        if n == MAX_ERASE_LOOPS {
            self.loop_ns[n - 1] += ns;
            return;
        }
        self.loop_ns[n] = ns;
        self.level[n] = level;
        self.loops += 1;
    }

    pub fn loops(&self) -> u32 {
        self.loops as u32
    }

    /// Array time of loop `i`.
    pub fn loop_ns(&self, i: u32) -> Time {
        self.loop_ns[i as usize]
    }

    /// Voltage step of loop `i`'s pulse.
    pub fn level(&self, i: u32) -> u8 {
        self.level[i as usize]
    }

    /// Array time of the whole erase.
    pub fn total_ns(&self) -> Time {
        self.loop_ns[..self.loops as usize].iter().sum()
    }
}

/// What an erase control knows of a block about to be erased.
#[derive(Debug, Clone, Copy)]
pub struct EraseCtx {
    pub block: u32,
    /// P/E cycles the block has seen (its erase count, `aging.initial_pe` included).
    pub pe: u32,
    /// `timing.erase_us`.
    pub base_ns: Time,
    /// A program and a read of the block's first page (a plan may add work the die does
    /// right after the erase, such as programming and reading a reference page).
    pub program_ns: Time,
    pub read_ns: Time,
}

/// Erase control.
pub trait EraseControl {
    /// How the erase of a block runs; by default one loop of `timing.erase_us`.
    fn erase_plan(&mut self, ctx: &EraseCtx) -> ErasePlan {
        ErasePlan::single(ctx.base_ns)
    }

    /// The wear (in effective P/E cycles) the finished erase of `block` adds.
    fn erase_wear(&mut self, _block: u32) -> f32 {
        1.0
    }

    /// Whether a read may suspend the erase of `block` while its loop `index` (from 0) of
    /// `loops` runs. Asked only when `timing.erase_suspend` is on. The baseline allows
    /// every loop.
    fn may_suspend(&mut self, _block: u32, _index: u32, _loops: u32) -> bool {
        true
    }

    /// The factor on the RBER of data written to `block` since its last erase: above 1
    /// when the erase stopped short of a complete one (and the ECC margin absorbs the
    /// errors left).
    fn erased_rber_factor(&self, _block: u32) -> f64 {
        1.0
    }
}

/// What a background task may look at.
pub struct BackgroundCtx<'a> {
    pub geo: &'a Geometry,
    pub blocks: &'a BlockManager,
    /// Planes running a relocation already.
    pub busy: &'a [bool],
    /// How long the host has been idle (no request outstanding since the last completion);
    /// 0 while a request is outstanding.
    pub host_idle_ns: Time,
    pub now: Time,
    pub clock_h: f64,
}

/// A relocation a background task asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub plane: u32,
    pub block: u32,
    pub reason: &'static str,
}

/// Background work: periodic tasks that relocate data.
pub trait Background {
    /// Time between runs of [`Self::run`]; `None` for no periodic task.
    /// `retention_scale` is `physics.retention_scale` (retention hours per real hour).
    fn period_ns(&self, _retention_scale: f64) -> Option<Time> {
        None
    }

    /// Relocations to start now, each in an idle plane.
    fn run(&mut self, _ctx: &BackgroundCtx, _moves: &mut Vec<Move>) {}

    /// Blocks to probe now (see [`Observer::probed`]): their first page is read and its
    /// RBER measured, as a read of a reference page when the device is idle.
    fn probes(&mut self, _ctx: &BackgroundCtx, _blocks: &mut Vec<u32>) {}
}

/// Which page of a block its probes measure (seed 002, Sec. 3.2: "the first page or
/// another optional page of each block is reserved as the reference page").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProbePage {
    /// The first page, which holds the block's oldest data.
    #[default]
    First,
    /// The page whose RBER is the largest by its place in the block
    /// (`physics.page_spread`), so that the block's measurement bounds every page's.
    Worst,
}

/// When a block's RBER was probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// Before the first request: the reference page's RBER as the device stands (that of
    /// the page programmed now, if it holds nothing).
    Start,
    /// Right after the block's erase: the RBER of a page programmed now (a reference page
    /// written at erase and read back).
    Erased,
    /// Asked for by [`Background::probes`]: the reference page's RBER now (skipped when it
    /// holds nothing).
    Idle,
}

/// How the cache layer (`[backing]`) handles a host request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Through the cache: hits from the SSD, misses admitted, writes by the write policy.
    Cache,
    /// Past it (as bcache bypasses the cache): cached pages are still read from the SSD,
    /// but a missing page is not admitted and a write goes around the cache to the disk.
    Bypass,
}

/// A cache tier: asked of every host request when the SSD caches a disk (`[backing]`).
pub trait CacheTier {
    fn route(&mut self, _r: &Request, _now: Time) -> Route {
        Route::Cache
    }
}

/// Observation: told of every change, changes nothing.
pub trait Observer {
    /// A physical page became valid or stale.
    fn validity(&mut self, _ppn: Ppn, _valid: bool) {}
    /// A block was erased.
    fn erased(&mut self, _block: u32) {}
    /// An extra copy of `lpn` was placed at `ppn` (valid from now on).
    fn copy_made(&mut self, _lpn: u32, _ppn: Ppn) {}
    /// An asked-for copy of `lpn` was not made.
    fn copy_abandoned(&mut self, _lpn: u32) {}
    /// The extra copy of `lpn` at `ppn` died: the host wrote the page, or its block is being
    /// cleaned. (A promoted copy does not die: it becomes the mapped page.)
    fn copy_dropped(&mut self, _lpn: u32, _ppn: Ppn) {}
    /// A never-written logical page `lpn` was given physical page `ppn` as if written before
    /// the run (`host.unmapped_reads = "materialize"`), without placement.
    fn materialized(&mut self, _lpn: u32, _ppn: Ppn) {}
    /// The device was preconditioned (before the engine records how its pages were
    /// programmed, so that a scheme's program modes apply to them too); `map` gives each
    /// page's logical owner.
    fn preconditioned(&mut self, _blocks: &BlockManager, _map: &Mapping) {}
    /// Whether the scheme measures blocks' RBER by probes (only with a physics model): at
    /// the start, after each erase, and when its background task asks.
    fn wants_probes(&self) -> bool {
        false
    }
    /// Which page of a block the probes measure.
    fn probe_page(&self) -> ProbePage {
        ProbePage::First
    }
    /// Block `block`'s probe measured `rber`.
    fn probed(&mut self, _block: u32, _rber: f64, _when: Probe) {}
    /// Invariants of the scheme's own state.
    fn check(&self, _blocks: &BlockManager) -> Result<(), String> {
        Ok(())
    }
}

/// What a scheme may adjust when the simulator is built.
pub struct SetupCtx<'a> {
    pub geo: &'a Geometry,
    pub blocks: &'a mut BlockManager,
    /// Free blocks per plane below which cleaning starts, and below which it is urgent.
    pub gc_threshold_blocks: &'a mut u32,
    pub gc_hard_blocks: &'a mut u32,
}

/// Relocations a scheme's tasks made, by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskCounts {
    /// (reason, blocks relocated, pages moved).
    pub by_reason: Vec<(&'static str, u64, u64)>,
}

impl TaskCounts {
    pub fn entry(&mut self, reason: &'static str) -> &mut (&'static str, u64, u64) {
        let i = match self.by_reason.iter().position(|e| e.0 == reason) {
            Some(i) => i,
            None => {
                self.by_reason.push((reason, 0, 0));
                self.by_reason.len() - 1
            }
        };
        &mut self.by_reason[i]
    }

    /// (blocks, pages) relocated for `reason`.
    pub fn get(&self, reason: &str) -> (u64, u64) {
        self.by_reason.iter().find(|e| e.0 == reason).map_or((0, 0), |e| (e.1, e.2))
    }
}

/// A scheme: a bundle of hook implementations and its parameters.
pub trait Technique:
    Placement
    + ProgramModes
    + Cleaning
    + FreeBlocks
    + ReadPath
    + ReadRetry
    + RetryReference
    + EraseControl
    + Background
    + CacheTier
    + Observer
{
    /// Adjusts the device when the simulator is built (streams' page layouts, reserves).
    fn set_up(&mut self, _ctx: &mut SetupCtx) {}

    /// The scheme's report sections, by top-level report key.
    fn report(&self, _tasks: &TaskCounts, _sections: &mut serde_json::Map<String, serde_json::Value>) {}
}
