//! The simulator: owns the layers and runs the event loop. Each part of the data path lives
//! in its own file as an `impl Simulator` block: host requests (`host_path`), flash
//! scheduling and timing (`flash_path`), cleaning and wear levelling (`gc_path`).

mod cache_path;
mod check;
mod copies;
mod erase_path;
mod erase_suspend;
mod flash_path;
mod gc_path;
mod handles;
mod host_path;
mod payload;
mod reliability;
mod report_build;
mod setup;
mod tasks;

use std::collections::VecDeque;

use strength_reduce::{StrengthReducedU32, StrengthReducedU64};

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::config::{AllocationScheme, Config, ReplayMode};
use crate::controller::buffer::WriteBuffer;
use crate::controller::cmt::Cmt;
use crate::controller::die::{Channel, Die};
use crate::controller::translation::Translations;
use crate::controller::txn::{TxnKind, TxnSlab};
use crate::error::{Error, Result};
use crate::ftl::alloc::{DynamicLeastBusy, StaticCwdp};
use crate::ftl::blocks::{BlockManager, NO_BLOCK};
use crate::ftl::gc::selector;
use crate::ftl::mapping::Mapping;
use crate::ftl::policy::{PlaneAllocator, VictimSelector, WearLeveler};
use crate::ftl::wear::EraseCountLeveler;
use crate::host::{Op, Request, RequestSource};
use crate::interrupt;
use crate::nand::{Geometry, Timing};
use crate::report::Report;
use crate::seams::{FreeBlocks, Joined, Reason, Relocating, SetupCtx, TaskCounts, Technique};
use crate::sim::{us_to_ns, EventQueue, Time};
use crate::stats::relocation::RelocationStats;
use crate::stats::{Busy, ChannelUse, Counters, Energy, LatencyStats};
pub use payload::{FinalReadStats, Payload, PayloadStats};

/// Events of the simulation. Payloads are small indices so that events stay `Copy`.
#[derive(Debug, Clone, Copy)]
enum Ev {
    /// The next queued host request arrives.
    Arrival,
    /// A channel finished its current transfer.
    ChannelDone(u32),
    /// A die's array operation (sense, program, erase) of the given generation finished.
    ArrayDone(u32, u32),
    /// A page of a host request was served from DRAM.
    PageDone(u32),
    /// A read request's data has crossed the host interface to the host.
    ReqDone(u32),
    /// A write request's data has crossed the host interface to the device.
    WriteDataIn(u32),
    /// The host has been idle since the generation given: flush the write buffer.
    IdleFlush(u64),
    /// A read's decode finished on its channel's ECC engine, with an outcome code.
    Decoded(u32, u8),
    /// Time for the scheme's periodic background task.
    Background,
    /// The disk's data for a cache slot is in (`[backing]`).
    CacheFill(u32),
}

/// Divisors the engine divides by per request or per page, each a multiply and a shift
/// instead of a hardware division.
#[derive(Clone, Copy)]
struct EngineDivisors {
    /// Sectors per logical page (one mapping unit).
    unit_sectors: StrengthReducedU64,
    logical_pages: StrengthReducedU64,
    /// Mapping entries per translation page.
    tpage_entries: StrengthReducedU32,
}

/// A host request in flight.
#[derive(Debug, Clone, Copy)]
struct HostReq {
    arrival: Time,
    bytes: u64,
    op: Op,
    /// First sector, after wrapping.
    first_lba: u64,
    first_lpn: u64,
    /// Logical pages (mapping units) the request touches.
    n_pages: u32,
    /// Flash pages it touches: its units' pages, or fewer when it covers part of a unit.
    flash_pages: u32,
    /// A write: reads of the pages its partial units need that have not finished yet.
    rmw_left: u32,
    pages_left: u32,
    /// When the data of its pages done so far is ready (a page may be counted done when
    /// its last stage is scheduled, ahead of the stage's end).
    ready: Time,
    /// Next page to place in the write buffer when the buffer was full.
    next_page: u32,
    /// A read: the relocation reasons running when it arrived, as bits, and those running
    /// on the dies its pages were sent to when they were.
    during: u16,
    on_die: u16,
    /// A write: the placement handle it was written under.
    handle: u8,
    /// Who it belongs to: the host, or the cache layer ([`cache_path::origin`]).
    parent: u32,
    /// A read: pages that came back uncorrectable.
    failed: u16,
    /// The bit error rate the request tolerates (`Request::tolerance`).
    tolerance: f32,
}

/// The two directions of the host interface.
#[derive(Debug, Clone, Copy)]
enum Link {
    ToDevice = 0,
    ToHost = 1,
}

/// The cleaning job of one plane: at most one victim at a time.
#[derive(Debug, Clone, Copy)]
struct GcJob {
    block: u32,
    reason: Reason,
    erase_issued: bool,
    /// When it started, and its reason's index in the relocation statistics.
    start: Time,
    stats: u8,
    /// Its operations go ahead of host reads on its die.
    ahead_of_reads: bool,
}

impl GcJob {
    const NONE: GcJob =
        GcJob { block: NO_BLOCK, reason: Reason::Gc, erase_issued: false, start: 0, stats: 0, ahead_of_reads: false };
    fn active(&self) -> bool {
        self.block != NO_BLOCK
    }

    /// The relocation it runs, if any.
    fn relocating(&self) -> Option<Relocating> {
        self.active().then_some(Relocating { block: self.block, reason: self.reason })
    }
}

/// A page write waiting for its plane to have a free block.
#[derive(Debug, Clone, Copy)]
struct PendingProgram {
    lpn: u32,
    owner: u32,
    kind: TxnKind,
}

/// Work waiting for a mapping entry to be loaded into the cached mapping table.
#[derive(Debug, Clone, Copy)]
enum Parked {
    /// A read of a known physical page.
    Read(crate::controller::txn::Txn),
    /// A host page write, which takes its physical page once the entry is loaded.
    Write { lpn: u32, owner: u32 },
}

/// Called every so often during a run; returning `false` stops the run.
pub trait Progress {
    fn update(&mut self, requests_done: u64, simulated_ns: Time) -> bool;

    /// The device is being set up before the first request: `done` of `total` steps of
    /// `stage` (such as "preconditioning") are finished. Returning false stops the set-up.
    fn setting_up(&mut self, _stage: &str, _done: u64, _total: u64) -> bool {
        true
    }
}

/// Options of one run that are not part of the device configuration.
#[derive(Default)]
pub struct RunOptions<'p> {
    /// Run the invariant checker during the run and at its end.
    pub check: bool,
    pub progress: Option<&'p mut dyn Progress>,
    /// Description of the workload for the report.
    pub workload_description: serde_json::Value,
    /// Real bytes to carry for a range of logical pages; after the run its `returned` holds
    /// what the host would read back (payload mode).
    pub payload: Option<&'p mut Payload>,
}

/// Stream numbers beyond the host's streams.
struct Streams {
    gc: u32,
    mapping: u32,
    materialize: u32,
}

pub struct Simulator<'s> {
    cfg: Config,
    geo: Geometry,
    timing: Timing,
    q: EventQueue<Ev>,

    // Host side.
    source: Box<dyn RequestSource + 's>,
    closed_loop: Option<u32>,
    /// Requests taken from the source: first the `scheduled` ones, whose arrivals are
    /// scheduled, in order, then those read ahead (`host_path::READ_AHEAD`).
    upcoming: VecDeque<Request>,
    scheduled: usize,
    /// The source has no more requests (some may still wait in `upcoming`).
    source_ended: bool,
    first_raw_arrival: Option<u64>,
    last_arrival: Time,
    reqs: Vec<HostReq>,
    free_reqs: Vec<u32>,
    outstanding: u32,
    submitted: u64,
    completed: u64,
    blocked_writes: VecDeque<u32>,
    logical_pages: u64,
    logical_sectors: u64,
    /// Sectors per logical page (one mapping unit).
    sectors_per_page: u64,
    /// The divisors of the per-request address arithmetic, reduced once.
    div: EngineDivisors,
    /// Flash pages per logical page (`mapping.unit_bytes`).
    unit_pages: u32,
    /// Relocated units whose pages are partly read, with the pages read so far.
    gc_unit_reads: rustc_hash::FxHashMap<u32, u32>,
    idle_gen: u64,
    idle_flush_ns: Time,
    /// When each direction of the host interface is next free.
    host_link_free: [Time; 2],

    // Controller.
    /// Transactions from the start of their command until they are settled, by the ids
    /// events and the decoder name; queued ones wait in their die's queue.
    txns: TxnSlab,
    dies: Vec<Die>,
    channels: Vec<Channel>,
    die_load: Vec<u32>,
    buffer: WriteBuffer,
    /// Send each buffered page to flash at once (`cache.write_policy = "eager"`).
    eager_flush: bool,
    /// Keep writing the buffer back until it holds no dirty page (idle host, end of run).
    write_back_all: bool,
    cmt: Option<Cmt>,
    /// Mapping entries per translation page.
    tpage_entries: u32,
    /// Translation reads in flight with the work parked until they end (logical page, work,
    /// whether it writes the entry), and translation writes in flight.
    translations: Translations<(u32, Parked, bool)>,
    /// The waiters of the translation read that just ended, reused between reads.
    arrived_waiters: Vec<(u32, Parked, bool)>,
    scratch: Vec<u32>,
    /// A victim's valid pages, reused between cleanings.
    scratch_pages: Vec<crate::nand::Ppn>,

    // FTL.
    map: Mapping,
    blocks: BlockManager,
    streams: Streams,
    handles: handles::Handles,
    victim: Box<dyn VictimSelector>,
    alloc: Box<dyn PlaneAllocator>,
    wl: Box<dyn WearLeveler>,
    gc_jobs: Vec<GcJob>,
    blocked_programs: Vec<VecDeque<PendingProgram>>,
    /// Writes parked in `blocked_programs`, over all planes.
    parked_programs: u64,
    gc_threshold_blocks: u32,
    /// Background GC, once started in a plane, goes on below this many free blocks; per
    /// plane, whether such a round is under way.
    gc_stop_blocks: u32,
    gc_round: Vec<bool>,
    gc_hard_blocks: u32,
    /// Translation pages each plane's current GC job has changed.
    gc_translation_updates: Vec<Vec<u32>>,

    // Measurements.
    lat: [LatencyStats; 2],
    counters: Counters,
    die_busy: Vec<Busy>,
    chan_busy: Vec<Busy>,
    /// Channel time by what it carried (commands, ECC waits; the rest is data).
    chan_use: ChannelUse,
    energy: Energy,
    /// A background run is scheduled (at most one is).
    background_pending: bool,
    /// Pages of the program command whose completion is being handled, not yet counted
    /// as programmed.
    finishing: Vec<crate::nand::Ppn>,
    first_arrival_time: Option<Time>,
    last_completion: Time,

    /// Physics and decoding of the read path; `None` in the fixed-latency mode.
    rel: Option<reliability::Reliability>,
    /// Bytes carried for a range of logical pages (payload mode).
    payload: Option<payload::PayloadStore>,
    /// The cache layer in front of a disk (`[backing]`).
    backing: Option<Box<cache_path::CacheLayer>>,
    /// `host.ap_ber`: the tolerance of requests that give none.
    default_tolerance: f32,
    /// The scheme (`[scheme]`): the hooks it overrides, and whether it observes changes.
    scheme: Joined,
    observed: bool,
    /// Relocations made by the scheme's own tasks, by reason.
    tasks: TaskCounts,
    /// Every relocation's service time, die time and the reads that arrived during it.
    relocs: RelocationStats,
    /// Extra copies of logical pages a read path scheme asked for, and what became of them.
    copies: crate::ftl::copies::ExtraCopies,
    copy_counts: copies::CopyCounts,
    copy_batches: copies::CopyBatches,
    erases: erase_path::Erases,
    scratch_actions: Vec<crate::seams::ReadAction>,
    /// Relocations running ahead of host reads (so the die scheduler looks for them only
    /// when there are some).
    jobs_ahead_of_reads: u32,

    check: bool,
    error: Option<Error>,
    setup_s: f64,
}

/// Events between two questions whether to stop: asking reads the clock, so it is done a
/// few hundred microseconds apart rather than after each event.
const POLL_EVERY: u64 = 1 << 10;
/// Events between two calls of the progress display.
const PROGRESS_EVERY: u64 = 1 << 16;

/// Events between two invariant checks (`--check`) on a device of `pages` flash pages:
/// 4,096, or one per 4,096 pages on devices of more than 16 M pages. A check reads every
/// valid page, so a fixed cadence would make checking a large drive cost thousands of times
/// more per event than a small one (a few hundred requests on a 67 M-page preset took 45 s).
fn check_every(pages: crate::nand::Ppn) -> u64 {
    const EVENTS: u64 = 1 << 12;
    EVENTS.max(pages / EVENTS)
}

pub(crate) use crate::sim::seed::{stream_seed, SEED_AGING, SEED_GC, SEED_PAYLOAD, SEED_PHYSICS, SEED_PRECONDITION};

impl<'s> Simulator<'s> {
    /// Builds the device `cfg` describes, running `scheme`, and sets it up (aging,
    /// preconditioning, translation pages), telling `progress` how the set-up goes. `cfg`
    /// must be validated and its memory checked, and `scheme` built from it: the top level
    /// (`xlssd_core::simulator`) does all three.
    pub fn assemble(
        cfg: &Config,
        scheme: Joined,
        source: Box<dyn RequestSource + 's>,
        progress: Option<&mut dyn Progress>,
    ) -> Result<Simulator<'s>> {
        debug_assert!(cfg.scheme.is_resolved(), "the scheme section is resolved before the simulator is built");
        let geo = Geometry::new(&cfg.geometry);
        let timing = Timing::new(cfg.timing_sections());
        let cap = cfg.capacity();
        let logical_pages = cap.logical_pages;
        let (gc_threshold_blocks, gc_hard_blocks) = (cap.gc_threshold_blocks, cap.gc_hard_blocks);
        let gc_stop_blocks = cap.gc_stop_blocks;

        let host_streams = cfg.host_streams();
        let streams = Streams { gc: host_streams, mapping: host_streams + 1, materialize: host_streams + 2 };
        let mut blocks = BlockManager::new(&geo, host_streams + 3 + cfg.extra_gc_streams())?;
        blocks.gc_reserve = cap.gc_reserve_blocks;
        let handles = handles::Handles::new(cfg, logical_pages, streams.gc, host_streams + 3)?;

        let entries_per_tpage = cap.entries_per_translation_page;
        // Translation pages exist (and move) only with a cached mapping table: the
        // capacity rule counts them then, and the map and the table of them follow it.
        let translation_pages = cap.translation_pages;
        let cmt = match cfg.mapping.cached_entries(logical_pages) {
            0 => None,
            entries => Some(Cmt::new(entries)?),
        };
        assert_eq!(cmt.is_some(), translation_pages > 0, "a cached mapping table comes with translation pages");
        let translations = Translations::new(translation_pages as usize);
        let map = Mapping::new(logical_pages + translation_pages, geo.pages, cap.unit_pages)?;

        let alloc: Box<dyn PlaneAllocator> = match cfg.ftl.allocation {
            AllocationScheme::Static => Box::new(StaticCwdp::new(&geo)),
            AllocationScheme::Dynamic => Box::new(DynamicLeastBusy::new(&geo)),
        };
        let mut scheme = scheme;
        if cap.unit_pages > 1 {
            // Config::validate refused a scheme that handles single pages.
            blocks.set_unit_pages(cap.unit_pages);
        }
        let wl: Box<dyn WearLeveler> = match scheme.wear_leveler() {
            Some(wl) => wl,
            None => Box::new(EraseCountLeveler::new(cfg.wl.dynamic, cfg.wl.static_enabled, cfg.wl.static_threshold)),
        };
        let victim =
            selector(cfg.gc.policy, cfg.gc.rga_candidates, Xoshiro256PlusPlus::seed_from_u64(stream_seed(cfg.seed, SEED_GC)));
        let closed_loop = match source.preferred_queue_depth() {
            Some(qd) => Some(qd),
            None if cfg.host.replay == ReplayMode::Closed => Some(cfg.host.queue_depth),
            None => None,
        };
        let buffer_pages = cfg.cache.capacity_bytes / (geo.page_size as u64 * cap.unit_pages as u64);
        // Sectors per logical page (one mapping unit).
        let unit_sectors = geo.sectors_per_page() * cap.unit_pages as u64;

        let mut sim = Simulator {
            timing,
            q: EventQueue::new(),
            source,
            closed_loop,
            upcoming: VecDeque::new(),
            scheduled: 0,
            source_ended: false,
            first_raw_arrival: None,
            last_arrival: 0,
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            outstanding: 0,
            submitted: 0,
            completed: 0,
            blocked_writes: VecDeque::new(),
            logical_pages,
            // With a cache tier, host requests address the disk.
            logical_sectors: cfg.logical_sectors(),
            sectors_per_page: unit_sectors,
            div: EngineDivisors {
                unit_sectors: StrengthReducedU64::new(unit_sectors.max(1)),
                logical_pages: StrengthReducedU64::new(logical_pages.max(1)),
                tpage_entries: StrengthReducedU32::new((entries_per_tpage as u32).max(1)),
            },
            unit_pages: cap.unit_pages,
            gc_unit_reads: Default::default(),
            idle_gen: 0,
            idle_flush_ns: us_to_ns(cfg.cache.idle_flush_us),
            host_link_free: [0; 2],
            txns: TxnSlab::default(),
            dies: (0..geo.dies).map(|_| Die::new()).collect(),
            channels: (0..geo.channels).map(|_| Channel::new()).collect(),
            die_load: vec![0; geo.dies as usize],
            buffer: WriteBuffer::new(buffer_pages),
            eager_flush: cfg.cache.write_policy == crate::config::WritePolicy::Eager,
            write_back_all: false,
            cmt,
            tpage_entries: entries_per_tpage as u32,
            translations,
            arrived_waiters: Vec::new(),
            scratch: Vec::new(),
            scratch_pages: Vec::new(),
            map,
            blocks,
            streams,
            handles,
            victim,
            alloc,
            wl,
            gc_jobs: vec![GcJob::NONE; geo.planes as usize],
            blocked_programs: (0..geo.planes).map(|_| VecDeque::new()).collect(),
            parked_programs: 0,
            gc_threshold_blocks,
            gc_stop_blocks,
            gc_round: vec![false; geo.planes as usize],
            gc_hard_blocks,
            gc_translation_updates: vec![Vec::new(); geo.planes as usize],
            lat: Default::default(),
            counters: Counters::default(),
            die_busy: vec![Busy::default(); geo.dies as usize],
            chan_busy: vec![Busy::default(); geo.channels as usize],
            chan_use: ChannelUse::default(),
            energy: Energy::default(),
            background_pending: false,
            finishing: Vec::with_capacity(crate::controller::die::MAX_PLANES),
            first_arrival_time: None,
            last_completion: 0,
            rel: reliability::Reliability::new(cfg, geo.blocks, geo.pages, geo.channels, stream_seed(cfg.seed, SEED_PHYSICS))?,
            payload: None,
            backing: cache_path::CacheLayer::new(&cfg.backing, logical_pages, geo.page_size as u64 * cap.unit_pages as u64)
                .map(Box::new),
            default_tolerance: cfg.host.ap_ber as f32,
            observed: scheme.observed(),
            scheme,
            tasks: TaskCounts::default(),
            relocs: RelocationStats::default(),
            copies: Default::default(),
            copy_counts: Default::default(),
            copy_batches: Default::default(),
            erases: erase_path::Erases::new(geo.planes),
            scratch_actions: Vec::new(),
            jobs_ahead_of_reads: 0,
            check: false,
            error: None,
            setup_s: 0.0,
            geo,
            cfg: cfg.clone(),
        };
        let setup = std::time::Instant::now();
        sim.scheme.set_up(&mut SetupCtx {
            geo: &sim.geo,
            blocks: &mut sim.blocks,
            gc_threshold_blocks: &mut sim.gc_threshold_blocks,
            gc_hard_blocks: &mut sim.gc_hard_blocks,
        });
        sim.set_up_device(progress)?;
        sim.setup_s = setup.elapsed().as_secs_f64();
        Ok(sim)
    }

    /// Logical capacity in pages.
    pub fn logical_pages(&self) -> u64 {
        self.logical_pages
    }

    /// Runs the workload to its end and returns the report.
    pub fn run(mut self, mut opts: RunOptions) -> Result<Report> {
        let wall = std::time::Instant::now();
        if let Some(p) = opts.payload.as_deref() {
            self.payload = Some(self.payload_store(p)?);
        }
        self.check = opts.check;
        if self.check {
            self.check_invariants()?;
        }
        self.probe_all()?;
        self.prime_arrivals()?;
        self.schedule_background();
        let check_every = check_every(self.geo.pages);
        loop {
            while !self.only_background_left() {
                let Some((_, ev)) = self.q.pop() else { break };
                self.handle(ev);
                // Looked at, not taken: taking writes the whole (large) `Option` back after
                // every event.
                if self.error.is_some() {
                    return Err(self.error.take().expect("checked"));
                }
                let n = self.q.processed();
                if self.check && n % check_every == 0 {
                    self.check_invariants()?;
                }
                if n % POLL_EVERY == 0 {
                    self.between_events(n, &mut opts.progress)?;
                }
            }
            // The host is done; write back what the buffer still holds, then stop.
            if self.buffer.dirty_pages() > 0 {
                let before = self.buffer.dirty_pages();
                self.write_back_all = true;
                self.flush_buffer(u64::MAX);
                if let Some(e) = self.error.take() {
                    return Err(e);
                }
                if self.buffer.dirty_pages() < before || !self.q.is_empty() {
                    continue;
                }
                return Err(Error::Stalled(format!(
                    "{before} buffered pages could not be written back: no free block could be made in their planes"
                )));
            }
            break;
        }
        if self.parked_programs > 0 && self.outstanding == 0 {
            return Err(Error::Stalled(format!(
                "{} page writes still wait for a free block at the end of the run: no block could be cleaned in \
                 their planes (raise ftl.overprovisioning)",
                self.parked_programs
            )));
        }
        if self.outstanding > 0 {
            return Err(Error::Stalled(format!(
                "{} host requests could not complete: no free block could be made in their plane \
                 (the device is full of valid data; raise ftl.overprovisioning)",
                self.outstanding
            )));
        }
        if self.check {
            self.check_invariants()?;
        }
        self.payload_final_read()?;
        let wall_s = wall.elapsed().as_secs_f64();
        let report = self.build_report(self.setup_s, wall_s, opts.workload_description.take());
        if let (Some(p), Some(store)) = (opts.payload, self.payload.take()) {
            p.returned = store.into_returned();
        }
        Ok(report)
    }

    /// Every [`POLL_EVERY`] events: whether the run must stop, and now and then the
    /// progress display. Kept out of the event loop's line, which stays as compact as it
    /// was without it.
    #[cold]
    #[inline(never)]
    fn between_events(&self, n: u64, progress: &mut Option<&mut dyn Progress>) -> Result<()> {
        interrupt::poll()?;
        if n % PROGRESS_EVERY == 0 {
            if let Some(p) = progress.as_mut() {
                if !p.update(self.completed, self.q.now()) {
                    return Err(Error::Interrupted);
                }
            }
        }
        Ok(())
    }

    /// Checks where a payload goes and makes its store.
    fn payload_store(&self, p: &Payload) -> Result<payload::PayloadStore> {
        if self.unit_pages > 1 {
            return Err(Error::Config {
                key: "mapping.unit_bytes".into(),
                message: format!(
                    "value {}: payload mode carries bytes page by page; use a unit of one page",
                    self.cfg.mapping.unit_bytes
                ),
            });
        }
        let spp = self.geo.sectors_per_page();
        let bad = |message: String| Error::Config { key: "payload.lba".into(), message };
        if p.first_lba % spp != 0 {
            return Err(bad(format!("value {} is not on a page boundary: expected a multiple of {spp} sectors", p.first_lba)));
        }
        if p.data.is_empty() {
            return Err(Error::Config { key: "payload.data".into(), message: "is empty: expected at least one byte".into() });
        }
        let page_bytes = self.geo.page_size as usize;
        let pages = p.data.len().div_ceil(page_bytes) as u64;
        let first = p.first_lba / spp;
        // With a cache tier the payload lies on the disk.
        let capacity = if self.backing.is_some() { self.logical_sectors / spp } else { self.logical_pages };
        if self.backing.is_some() && p.final_read_after_h.is_some() {
            return Err(Error::Config {
                key: "payload.final_read_after_h".into(),
                message:
                    "a final read is not available with a cache tier ([backing]): the workload's own reads return the payload"
                        .into(),
            });
        }
        if first + pages > capacity {
            return Err(bad(format!(
                "value {}: {pages} pages of payload from there end beyond the logical capacity of {capacity} pages",
                p.first_lba
            )));
        }
        if let Some(h) = p.final_read_after_h.filter(|h| !(h.is_finite() && *h >= 0.0)) {
            return Err(Error::Config {
                key: "payload.final_read_after_h".into(),
                message: format!("value {h} is out of range: expected hours >= 0"),
            });
        }
        Ok(payload::PayloadStore::new(first, page_bytes, p, stream_seed(self.cfg.seed, SEED_PAYLOAD)))
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Arrival => self.on_arrival(),
            Ev::ChannelDone(ch) => self.on_channel_done(ch),
            Ev::ArrayDone(die, gen) => self.on_array_done(die, gen),
            Ev::PageDone(req) => self.page_done(req),
            Ev::ReqDone(req) => self.finish_request(req),
            Ev::WriteDataIn(req) => self.write_data_in(req),
            Ev::Decoded(id, outcome) => self.on_decoded(id, outcome),
            Ev::Background => self.background(),
            Ev::CacheFill(slot) => self.on_cache_fill(slot),
            Ev::IdleFlush(gen) => {
                if gen == self.idle_gen && self.outstanding == 0 {
                    self.write_back_all = true;
                    self.flush_buffer(u64::MAX);
                }
            }
        }
    }

    fn now(&self) -> Time {
        self.q.now()
    }

    /// Whether the host has nothing more to send or wait for: the workload is exhausted,
    /// every request has completed, the buffer holds nothing to write back, and no write
    /// waits for a free block.
    fn host_finished(&self) -> bool {
        self.source_ended
            && self.upcoming.is_empty()
            && self.outstanding == 0
            && self.buffer.used_slots() == 0
            && self.parked_programs == 0
    }

    /// Records the first error; the event loop stops after the current event.
    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check_every;

    #[test]
    fn the_check_cadence_grows_with_the_device_past_16_m_pages() {
        assert_eq!(check_every(4_096), 4_096);
        assert_eq!(check_every(16 * 1024 * 1024), 4_096);
        // aero-tlc: 8 x 2 x 1 x 4 planes x 497 blocks x 2,112 pages.
        assert_eq!(check_every(67_178_496), 16_401);
    }
}
