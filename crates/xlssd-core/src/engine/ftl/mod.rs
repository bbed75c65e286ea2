//! The FTL's state: the logical space and its mapping, blocks and their pages, allocation
//! streams and placement handles, the configured policies (victim selection, plane
//! allocation, wear levelling), each plane's cleaning job and thresholds, writes parked for
//! a free block, erases under way, and extra copies of logical pages. Its fields are its
//! own: page writes (`writes.rs`), cleaning (`gc_path.rs`), erases (`erase_path.rs`), a
//! read path scheme's copies (`copies.rs`), set-up (`setup.rs`) and the invariant checker
//! (`check.rs`) act on them; the rest of the engine goes through the methods below.

mod check;
mod copies;
mod erase_path;
mod gc_path;
mod handles;
mod setup;
mod versions;
mod writes;

pub(super) use copies::{CopyBatches, CopyCounts};
pub(super) use erase_path::{EraseStats, Erases, LoopEnd};
pub(super) use handles::Handles;
pub(super) use writes::UNBOUND;

use super::*;
use crate::seams::{PlaceCtx, RetentionClock, Target};

pub(super) struct FtlState {
    logical_pages: u64,
    /// Flash pages per logical page (`mapping.unit_bytes`).
    unit_pages: u32,
    /// The divisors of the per-request address arithmetic, reduced once.
    div: EngineDivisors,
    map: Mapping,
    blocks: BlockManager,
    streams: Streams,
    handles: handles::Handles,
    victim: Box<dyn VictimSelector>,
    alloc: Box<dyn PlaneAllocator>,
    wl: Box<dyn WearLeveler>,
    gc_jobs: Vec<GcJob>,
    /// Unbound programs waiting for a free block in their plane.
    blocked_programs: Vec<VecDeque<crate::controller::txn::Txn>>,
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
    /// Relocated units whose pages are partly read, with the pages read so far.
    gc_unit_reads: rustc_hash::FxHashMap<u32, u32>,
    /// A victim's valid pages, reused between cleanings.
    scratch_pages: Vec<crate::nand::Ppn>,
    erases: erase_path::Erases,
    /// Extra copies of logical pages a read path scheme asked for, and what became of them.
    copies: crate::ftl::copies::ExtraCopies,
    /// Relocations running ahead of host reads (so the die scheduler looks for them only
    /// when there are some).
    jobs_ahead_of_reads: u32,
    /// When a write is given its physical page (`ftl.page_binding`).
    binding: crate::ftl::config::PageBinding,
    /// Versions of the logical pages whose host writes wait for a page.
    versions: versions::WriteVersions,
    /// Per plane, programs queued at its die without a page yet.
    unbound: Vec<u32>,
}

impl FtlState {
    /// The FTL of the device `cfg` describes (`cap`, its capacity), with the wear leveller
    /// `scheme` brings, if any.
    pub(super) fn new(cfg: &Config, geo: &Geometry, cap: &crate::config::Capacity, scheme: &mut Joined) -> Result<FtlState> {
        let logical_pages = cap.logical_pages;
        let host_streams = cfg.host_streams();
        let streams = Streams { gc: host_streams, mapping: host_streams + 1, materialize: host_streams + 2 };
        let mut blocks = BlockManager::new(geo, host_streams + 3 + cfg.extra_gc_streams())?;
        blocks.gc_reserve = cap.gc_reserve_blocks;
        if cap.unit_pages > 1 {
            // Config::validate refused a scheme that handles single pages.
            blocks.set_unit_pages(cap.unit_pages);
        }
        let handles = Handles::new(cfg, logical_pages, streams.gc, host_streams + 3)?;
        let map = Mapping::new(logical_pages + cap.translation_pages, geo.pages, cap.unit_pages)?;
        let alloc: Box<dyn PlaneAllocator> = match cfg.ftl.allocation {
            AllocationScheme::Static => Box::new(StaticCwdp::new(geo)),
            AllocationScheme::Dynamic => Box::new(DynamicLeastBusy::new(geo)),
        };
        let wl: Box<dyn WearLeveler> = match scheme.wear_leveler() {
            Some(wl) => wl,
            None => Box::new(EraseCountLeveler::new(cfg.wl.dynamic, cfg.wl.static_enabled, cfg.wl.static_threshold)),
        };
        let victim =
            selector(cfg.gc.policy, cfg.gc.rga_candidates, Xoshiro256PlusPlus::seed_from_u64(stream_seed(cfg.seed, SEED_GC)));
        // Sectors per logical page (one mapping unit).
        let unit_sectors = geo.sectors_per_page() * cap.unit_pages as u64;
        let planes = geo.planes as usize;
        Ok(FtlState {
            logical_pages,
            div: EngineDivisors {
                unit_sectors: StrengthReducedU64::new(unit_sectors.max(1)),
                logical_pages: StrengthReducedU64::new(logical_pages.max(1)),
                tpage_entries: StrengthReducedU32::new((cap.entries_per_translation_page as u32).max(1)),
            },
            unit_pages: cap.unit_pages,
            gc_unit_reads: Default::default(),
            scratch_pages: Vec::new(),
            map,
            blocks,
            streams,
            handles,
            victim,
            alloc,
            wl,
            gc_jobs: vec![GcJob::NONE; planes],
            blocked_programs: (0..planes).map(|_| VecDeque::new()).collect(),
            parked_programs: 0,
            gc_threshold_blocks: cap.gc_threshold_blocks,
            gc_stop_blocks: cap.gc_stop_blocks,
            gc_round: vec![false; planes],
            gc_hard_blocks: cap.gc_hard_blocks,
            gc_translation_updates: vec![Vec::new(); planes],
            copies: Default::default(),
            erases: Erases::new(geo.planes),
            jobs_ahead_of_reads: 0,
            binding: cfg.ftl.page_binding,
            versions: Default::default(),
            unbound: vec![0; planes],
        })
    }

    /// What the scheme's set-up hook may change: the blocks and the cleaning thresholds.
    pub(super) fn setup_ctx<'a>(&'a mut self, geo: &'a Geometry) -> SetupCtx<'a> {
        SetupCtx {
            geo,
            blocks: &mut self.blocks,
            gc_threshold_blocks: &mut self.gc_threshold_blocks,
            gc_hard_blocks: &mut self.gc_hard_blocks,
        }
    }

    /// Logical pages (mapping units) the host addresses.
    pub(super) fn logical_pages(&self) -> u64 {
        self.logical_pages
    }

    /// Flash pages per logical page (`mapping.unit_bytes`).
    pub(super) fn unit_pages(&self) -> u32 {
        self.unit_pages
    }

    /// The divisors of the per-request address arithmetic.
    pub(super) fn div(&self) -> &EngineDivisors {
        &self.div
    }

    /// The translation page holding logical page `lpn`'s mapping entry.
    pub(super) fn translation_page(&self, lpn: u32) -> u32 {
        lpn / self.div.tpage_entries
    }

    /// The logical page translation page `tvpn` is stored under (past the host's pages).
    pub(super) fn translation_lpn(&self, tvpn: u32) -> u32 {
        self.logical_pages as u32 + tvpn
    }

    /// The translation page stored under logical page `tlpn` (the inverse of
    /// [`Self::translation_lpn`]).
    pub(super) fn translation_page_at(&self, tlpn: u32) -> u32 {
        tlpn - self.logical_pages as u32
    }

    pub(super) fn blocks(&self) -> &BlockManager {
        &self.blocks
    }

    pub(super) fn map(&self) -> &Mapping {
        &self.map
    }

    pub(super) fn handles(&self) -> &Handles {
        &self.handles
    }

    pub(super) fn handles_mut(&mut self) -> &mut Handles {
        &mut self.handles
    }

    /// Plane `plane`'s cleaning job.
    pub(super) fn gc_job(&self, plane: u32) -> &GcJob {
        &self.gc_jobs[plane as usize]
    }

    /// Whether a relocation in planes `planes` runs ahead of host reads.
    pub(super) fn ahead_of_reads_in(&self, planes: std::ops::Range<u32>) -> bool {
        self.jobs_ahead_of_reads > 0 && self.gc_jobs[planes.start as usize..planes.end as usize].iter().any(|j| j.ahead_of_reads)
    }

    /// A program without its page was queued at `plane`'s die, or left it to be bound.
    pub(super) fn note_unbound(&mut self, plane: u32, queued: bool) {
        let n = &mut self.unbound[plane as usize];
        if queued {
            *n += 1;
        } else {
            *n -= 1;
        }
    }

    /// Page writes parked for a free block, over all planes.
    pub(super) fn parked_programs(&self) -> u64 {
        self.parked_programs
    }

    /// Whether writes to `plane` are short of blocks: below the hard cleaning threshold or
    /// parked for a free block.
    pub(super) fn short_of_blocks(&self, plane: u32) -> bool {
        self.blocks.free_count(plane) < self.gc_hard_blocks || !self.blocked_programs[plane as usize].is_empty()
    }

    /// A relocated entry of `plane`'s cleaning job changed translation page `tvpn`.
    pub(super) fn note_translation_update(&mut self, plane: u32, tvpn: u32) {
        self.gc_translation_updates[plane as usize].push(tvpn);
    }

    /// The translation pages `plane`'s cleaning job changed, each once, into `pages`
    /// (cleared).
    pub(super) fn take_translation_updates(&mut self, plane: u32, pages: &mut Vec<u32>) {
        let updates = &mut self.gc_translation_updates[plane as usize];
        updates.sort_unstable();
        updates.dedup();
        pages.clear();
        pages.append(updates);
    }

    /// What a placement hook sees of a write to `plane`: the blocks, the free-block choice
    /// in force and the plane's relocation, with the write's default target and the
    /// retention clock.
    pub(super) fn place_ctx<'a>(
        &'a mut self,
        geo: &'a Geometry,
        plane: u32,
        default: Target,
        clock: RetentionClock,
        now: Time,
    ) -> PlaceCtx<'a> {
        PlaceCtx {
            geo,
            blocks: &mut self.blocks,
            picker: &mut *self.wl,
            relocating: self.gc_jobs[plane as usize].relocating(),
            default,
            clock,
            now,
        }
    }
}

/// Divisors the engine divides by per request or per page, each a multiply and a shift
/// instead of a hardware division.
#[derive(Clone, Copy)]
pub(super) struct EngineDivisors {
    /// Sectors per logical page (one mapping unit).
    pub(super) unit_sectors: StrengthReducedU64,
    pub(super) logical_pages: StrengthReducedU64,
    /// Mapping entries per translation page.
    pub(super) tpage_entries: StrengthReducedU32,
}

/// The cleaning job of one plane: at most one victim at a time.
#[derive(Debug, Clone, Copy)]
pub(super) struct GcJob {
    pub(super) block: u32,
    pub(super) reason: Reason,
    pub(super) erase_issued: bool,
    /// When it started, and its reason's index in the relocation statistics.
    pub(super) start: Time,
    pub(super) stats: u8,
    /// Its operations go ahead of host reads on its die.
    pub(super) ahead_of_reads: bool,
}

impl GcJob {
    pub(super) const NONE: GcJob =
        GcJob { block: NO_BLOCK, reason: Reason::Gc, erase_issued: false, start: 0, stats: 0, ahead_of_reads: false };
    pub(super) fn active(&self) -> bool {
        self.block != NO_BLOCK
    }

    /// The relocation it runs, if any.
    pub(super) fn relocating(&self) -> Option<Relocating> {
        self.active().then_some(Relocating { block: self.block, reason: self.reason })
    }
}

/// Stream numbers beyond the host's streams.
pub(super) struct Streams {
    pub(super) gc: u32,
    pub(super) mapping: u32,
    pub(super) materialize: u32,
}
