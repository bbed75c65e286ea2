//! The FTL's state: the logical space and its mapping, blocks and their pages, allocation
//! streams and placement handles, the configured policies (victim selection, plane
//! allocation, wear levelling), each plane's cleaning job and thresholds, writes parked for
//! a free block, erases under way, and extra copies of logical pages. Cleaning
//! (`gc_path.rs`), erases (`erase_path.rs`) and the flash path act on it.

use super::*;
use crate::seams::{PlaceCtx, RetentionClock, Target};

pub(super) struct FtlState {
    pub(super) logical_pages: u64,
    /// Flash pages per logical page (`mapping.unit_bytes`).
    pub(super) unit_pages: u32,
    /// The divisors of the per-request address arithmetic, reduced once.
    pub(super) div: EngineDivisors,
    pub(super) map: Mapping,
    pub(super) blocks: BlockManager,
    pub(super) streams: Streams,
    pub(super) handles: handles::Handles,
    pub(super) victim: Box<dyn VictimSelector>,
    pub(super) alloc: Box<dyn PlaneAllocator>,
    pub(super) wl: Box<dyn WearLeveler>,
    pub(super) gc_jobs: Vec<GcJob>,
    pub(super) blocked_programs: Vec<VecDeque<PendingProgram>>,
    /// Writes parked in `blocked_programs`, over all planes.
    pub(super) parked_programs: u64,
    pub(super) gc_threshold_blocks: u32,
    /// Background GC, once started in a plane, goes on below this many free blocks; per
    /// plane, whether such a round is under way.
    pub(super) gc_stop_blocks: u32,
    pub(super) gc_round: Vec<bool>,
    pub(super) gc_hard_blocks: u32,
    /// Translation pages each plane's current GC job has changed.
    pub(super) gc_translation_updates: Vec<Vec<u32>>,
    /// Relocated units whose pages are partly read, with the pages read so far.
    pub(super) gc_unit_reads: rustc_hash::FxHashMap<u32, u32>,
    /// A victim's valid pages, reused between cleanings.
    pub(super) scratch_pages: Vec<crate::nand::Ppn>,
    pub(super) erases: erase_path::Erases,
    /// Extra copies of logical pages a read path scheme asked for, and what became of them.
    pub(super) copies: crate::ftl::copies::ExtraCopies,
    /// Relocations running ahead of host reads (so the die scheduler looks for them only
    /// when there are some).
    pub(super) jobs_ahead_of_reads: u32,
}

impl FtlState {
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

/// A page write waiting for its plane to have a free block.
#[derive(Debug, Clone, Copy)]
pub(super) struct PendingProgram {
    pub(super) lpn: u32,
    pub(super) owner: u32,
    pub(super) kind: TxnKind,
}

/// Stream numbers beyond the host's streams.
pub(super) struct Streams {
    pub(super) gc: u32,
    pub(super) mapping: u32,
    pub(super) materialize: u32,
}
