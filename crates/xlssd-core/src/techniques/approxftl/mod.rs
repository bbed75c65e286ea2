//! Approximate writes (seed 000, ApproxFTL) and its baselines, as schemes:
//!
//! - `delta_b`: approximate pages with a 1.5x ISPP step, mixed with precise pages.
//! - `vth_b`: approximate pages with V_max_th lowered to about 62%, in blocks of their own.
//! - `approxftl`: Sec. IV: pattern-guided allocation over up to five active blocks per
//!   pool (hot, cold, GC), effective-wear levelling, the GC enhancements and refresh.
//!
//! The paper's Baseline (every page precise) is the generic `baseline` scheme.
//!
//! A host request may carry an approximate flag (or fall in `lba_ranges`); the flag follows
//! each logical page, and the scheme decides where its pages go and how they are programmed.

pub mod config;
pub mod layout;
pub mod report;
pub mod wear;

use self::config::{ApproxConfig, GcPool};
use self::layout::{ActiveBlocks, BlockKind, GC_POOL, POOLS};
use self::report::{ActiveBlockCounts, ApproxPages, ApproxReport, FastPrecise};
use super::hooks::*;
use super::{BuildCtx, SchemeInfo, TableInfo};
use crate::error::Result;
use crate::ftl::blocks::{BlockManager, NO_BLOCK};
use crate::ftl::policy::WearLeveler;
use crate::nand::Geometry;
use crate::nand::Ppn;
use crate::physics::ProgramMode;
use crate::sim::Time;

const TABLE_NAME: &str = "approxftl";
/// Keys every scheme of the family uses: which data is approximate, and when GC rewrites
/// it precise.
const COMMON_KEYS: [&str; 3] = ["lba_ranges", "lba_ranges_file", "promote_after"];
/// The relocation reason of refresh.
const REFRESH: &str = "refresh";

pub const DELTA_B: SchemeInfo = SchemeInfo {
    name: "delta_b",
    description: "seed 000's Delta_b: approximate pages programmed with a 1.5x ISPP step, mixed with precise pages",
    hooks: &[Hook::Placement, Hook::ProgramMode],
    table: Some(TABLE_NAME),
    keys: &COMMON_KEYS,
    streams: 1,
    uses_gc_policy: false,
    extra_streams: super::no_extra_streams,
    gc_reserve: super::no_extra_streams,
    needs: super::no_needs,
    build: |ctx| build(ctx, Variant::DeltaB),
};

pub const VTH_B: SchemeInfo = SchemeInfo {
    name: "vth_b",
    description: "seed 000's Vth_b: approximate pages with V_max_th lowered to 62%, in blocks of their own",
    hooks: &[Hook::Placement, Hook::ProgramMode, Hook::Erase],
    table: Some(TABLE_NAME),
    keys: &["lba_ranges", "lba_ranges_file", "promote_after", "all_approx_wear"],
    streams: 3,
    uses_gc_policy: false,
    extra_streams: super::no_extra_streams,
    gc_reserve: |_| 2,
    needs: super::no_needs,
    build: |ctx| build(ctx, Variant::VthB),
};

pub const APPROXFTL: SchemeInfo = SchemeInfo {
    name: "approxftl",
    description:
        "seed 000's ApproxFTL: pattern-guided approximate writes, effective-wear levelling, approximate-aware GC and refresh",
    hooks: &[Hook::Placement, Hook::ProgramMode, Hook::Cleaning, Hook::FreeBlocks, Hook::Erase, Hook::Background],
    table: Some(TABLE_NAME),
    keys: &[
        "lba_ranges",
        "lba_ranges_file",
        "promote_after",
        "all_approx_wear",
        "hot_max_bytes",
        "refresh_h",
        "wear_refresh_every",
        "gc_pool",
    ],
    // Room for the separate GC pool (`gc_pool = "separate"`); with the default, `ordinary`,
    // its streams stay closed.
    streams: POOLS * BlockKind::ALL.len() as u32,
    uses_gc_policy: false,
    extra_streams: super::no_extra_streams,
    gc_reserve: |_| BlockKind::ALL.len() as u32,
    needs: super::no_needs,
    build: |ctx| build(ctx, Variant::Approxftl),
};

pub const TABLE: TableInfo = TableInfo { name: TABLE_NAME, report_key: report::KEY, resolve, memory };

/// Request tags per logical page (`tags`).
pub const TAG_BYTES: u64 = 1;
/// Approximate-page flags per physical page (`page_approx`), one bit each.
pub const PAGE_FLAG_BITS: u64 = 1;
/// Per block: kind, precise and approximate program counts, valid precise pages, write
/// generation and the age of its oldest approximate page.
pub const BLOCK_BYTES: u64 = 1 + 4 + 4 + 4 + 1 + 8;

/// What [`Approx::new`] allocates, for the estimate made before a run.
fn memory(logical_pages: u64, pages: u64, blocks: u64) -> Vec<crate::limits::estimate::Part> {
    use crate::limits::estimate::Part;
    vec![
        Part { name: "ApproxFTL request tags", bytes: logical_pages * TAG_BYTES },
        Part { name: "ApproxFTL page flags", bytes: pages.div_ceil(64) * 64 * PAGE_FLAG_BITS / 8 },
        Part { name: "ApproxFTL block state", bytes: blocks * BLOCK_BYTES },
    ]
}

fn resolve(raw: &serde_json::Value, prefix: &str) -> Result<serde_json::Value> {
    super::resolve_table(raw, prefix, ApproxConfig::validate)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    DeltaB,
    VthB,
    Approxftl,
}

fn build(ctx: &BuildCtx, variant: Variant) -> Result<Box<dyn Technique>> {
    let cfg: ApproxConfig = super::table_config(ctx, TABLE_NAME)?;
    let cfg = ApproxConfig { lba_ranges: cfg.all_ranges()?, lba_ranges_file: String::new(), ..cfg };
    let levels = if variant == Variant::Approxftl { FastLevels::from_model(&ctx.cfg.physics.vth) } else { FastLevels::NONE };
    Ok(Box::new(Approx::new(cfg, variant, levels, ctx.cfg.scheme.name.clone(), ctx.logical_pages, ctx.geo)?))
}

/// The ISPP step levels of precise pages whose later neighbours are all approximate
/// (checkerboard blocks, sequential interleaving) or that no later program disturbs
/// (second-phase blocks, two-phase interleaving), as the threshold-voltage model gives them
/// (seed 000 Sec. III-B, cases 2 and 3): the largest step at which such a page keeps the
/// RBER a precise page has under sequential programming, whose two later neighbours are
/// precise, at the model's calibration conditions (`reference_pe`, `reference_h`: Sec.
/// III-A's 10K P/E and 1,000 h). Fewer pulses of the wider step make the program faster.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FastLevels {
    chb: u8,
    phase2: u8,
    /// The program-time savings of the two levels, for the report.
    chb_speedup: f64,
    phase2_speedup: f64,
}

impl FastLevels {
    const NONE: FastLevels = FastLevels { chb: 0, phase2: 0, chb_speedup: 0.0, phase2_speedup: 0.0 };

    fn from_model(vth: &crate::physics::vth::VthConfig) -> FastLevels {
        use crate::physics::vth::Disturbers;
        let level = |d: Disturbers| vth.relaxed_step_level(ProgramMode::Precise, &d);
        let (chb, phase2) = (level(Disturbers::pair(ProgramMode::ApproxVmax)), level(Disturbers::NONE));
        let saving = |l: u8| vth.step_saving(ProgramMode::Precise, l);
        FastLevels { chb, phase2, chb_speedup: saving(chb), phase2_speedup: saving(phase2) }
    }

    /// The level of a precise page in a block of kind `kind`.
    fn of(&self, kind: u8) -> u8 {
        match kind {
            k if k == BlockKind::Chb as u8 => self.chb,
            k if k == BlockKind::Phase2 as u8 => self.phase2,
            _ => 0,
        }
    }
}

const TAG_APPROX: u8 = 1;
const TAG_HOT: u8 = 2;
const NO_KIND: u8 = u8::MAX;

/// Counts for the report.
#[derive(Debug, Clone, Default)]
struct Stats {
    precise_pages: u64,
    approx_pages: u64,
    fast_precise_chb: u64,
    fast_precise_phase2: u64,
    /// Blocks that became each kind of active block (Fig. 6), by [`BlockKind`] index.
    active_blocks: [u64; 5],
    promoted_pages: u64,
    erases_all_approx: u64,
}

struct Approx {
    cfg: ApproxConfig,
    variant: Variant,
    levels: FastLevels,
    /// The running scheme's full name, for the report.
    scheme_name: String,
    geo: Geometry,
    /// Pages in the first phase of a two-phase block, by the colour that goes first.
    phase1_pages: [u32; 2],
    /// Per logical page: approximate and hot tags.
    tags: Vec<u8>,
    /// Per physical page: holds approximate data.
    page_approx: Vec<u64>,
    /// Per block: the active-block kind it was opened as or became (ApproxFTL).
    kind: Vec<u8>,
    precise_programs: Vec<u32>,
    approx_programs: Vec<u32>,
    valid_precise: Vec<u32>,
    /// Largest number of times any of its approximate pages has been written approximately
    /// (the 3-bit flag of Sec. IV-E).
    approx_gen: Vec<u8>,
    /// Retention clock (hours) when each block took its first approximate page since its
    /// erase; infinite when it holds none.
    oldest_approx_h: Vec<f64>,
    stats: Stats,
}

impl Approx {
    fn new(
        cfg: ApproxConfig,
        variant: Variant,
        levels: FastLevels,
        scheme_name: String,
        logical_pages: u64,
        geo: &Geometry,
    ) -> crate::error::Result<Approx> {
        use crate::limits::alloc::{filled, zeroed};
        let blocks = geo.blocks as usize;
        Ok(Approx {
            cfg,
            variant,
            levels,
            scheme_name,
            geo: geo.clone(),
            phase1_pages: [layout::phase1_pages(geo, false), layout::phase1_pages(geo, true)],
            tags: zeroed(logical_pages as usize, "ApproxFTL request tags")?,
            page_approx: zeroed((geo.pages as usize).div_ceil(64), "ApproxFTL page flags")?,
            kind: filled(blocks, NO_KIND, "ApproxFTL block state")?,
            precise_programs: filled(blocks, 0, "ApproxFTL block state")?,
            approx_programs: filled(blocks, 0, "ApproxFTL block state")?,
            valid_precise: filled(blocks, 0, "ApproxFTL block state")?,
            approx_gen: filled(blocks, 0, "ApproxFTL block state")?,
            oldest_approx_h: filled(blocks, f64::INFINITY, "ApproxFTL block state")?,
            stats: Stats::default(),
        })
    }

    fn is_approx_page(&self, ppn: Ppn) -> bool {
        self.page_approx[(ppn / 64) as usize] >> (ppn % 64) & 1 == 1
    }

    fn set_page(&mut self, ppn: Ppn, approx: bool) {
        let (w, bit) = ((ppn / 64) as usize, 1u64 << (ppn % 64));
        if approx {
            self.page_approx[w] |= bit;
        } else {
            self.page_approx[w] &= !bit;
        }
    }

    fn lpn_approx(&self, lpn: u32) -> bool {
        self.tags.get(lpn as usize).is_some_and(|t| t & TAG_APPROX != 0)
    }

    fn pool(&self, lpn: u32) -> u32 {
        // Pool 0 is hot, 1 cold.
        u32::from(self.tags.get(lpn as usize).is_some_and(|t| t & TAG_HOT == 0))
    }

    /// The checkerboard colour a block's pattern starts with this use: it flips with each
    /// use (intra-block wear levelling).
    fn flip(blocks: &BlockManager, block: u32) -> bool {
        blocks.layout_uses[block as usize] % 2 == 1
    }

    fn block_became(&mut self, block: u32, kind: BlockKind) {
        self.kind[block as usize] = kind as u8;
        self.stats.active_blocks[kind as usize] += 1;
    }

    /// GC copies of a block whose data has been rewritten approximately often enough are
    /// promoted to precise first (Sec. IV-D); refresh upgrades whatever it rewrites.
    fn maybe_promote(&mut self, lpn: u32, relocating: Option<Relocating>) {
        let Some(job) = relocating else { return };
        if !self.lpn_approx(lpn) {
            return;
        }
        if job.reason == Reason::Task(REFRESH) || self.approx_gen[job.block as usize] as u32 >= self.cfg.promote_after {
            self.tags[lpn as usize] &= !TAG_APPROX;
            self.stats.promoted_pages += 1;
        }
    }

    /// What Algorithm 1 sees in one plane and pool. The checkerboard block is opened ahead
    /// of its first write, so that the type its first page wants is known.
    fn active_blocks(&mut self, ctx: &mut PlaceCtx, plane: u32, pool: u32, privileged: bool) -> ActiveBlocks {
        let chb_stream = BlockKind::Chb.stream(pool);
        let fresh = ctx.blocks.active(plane, chb_stream) == NO_BLOCK;
        let chb = ctx.blocks.open(plane, chb_stream, privileged, &mut *ctx.picker);
        let chb_wants = chb.and_then(|b| {
            if fresh {
                self.block_became(b, BlockKind::Chb);
            }
            let page = ctx.blocks.next_page(b)?;
            Some(layout::page_is_approx(ctx.geo, BlockKind::Chb, Self::flip(ctx.blocks, b), page))
        });
        let open = |k: BlockKind| ctx.blocks.active(plane, k.stream(pool)) != NO_BLOCK;
        ActiveBlocks { chb_wants, phase2: open(BlockKind::Phase2), all_approx: open(BlockKind::AllApprox) }
    }
}

impl Placement for Approx {
    fn host_write(&mut self, w: &HostWrite) {
        let approx = w.approximate || self.cfg.is_approx_lba(w.lba);
        let tag = if approx { TAG_APPROX } else { 0 } | if w.bytes <= self.cfg.hot_max_bytes { TAG_HOT } else { 0 };
        for i in 0..w.n_pages as u64 {
            let lpn = ((w.first_lpn + i) % w.logical_pages) as usize;
            self.tags[lpn] = tag;
        }
    }

    fn target(&mut self, ctx: &mut PlaceCtx, lpn: u32, kind: WriteKind, plane: u32) -> Target {
        if kind == WriteKind::Mapping {
            return ctx.default;
        }
        if kind == WriteKind::Relocation {
            self.maybe_promote(lpn, ctx.relocating);
        }
        let approx = self.lpn_approx(lpn);
        let privileged = ctx.default.privileged;
        match self.variant {
            Variant::DeltaB => ctx.default,
            // Vth_b's approximate data has blocks of its own, host and GC copies apart.
            Variant::VthB if approx => Target { stream: if kind == WriteKind::Relocation { 2 } else { 1 }, privileged },
            Variant::VthB => ctx.default,
            Variant::Approxftl => {
                let separate = kind == WriteKind::Relocation && self.cfg.gc_pool == GcPool::Separate;
                let pool = if separate { GC_POOL } else { self.pool(lpn) };
                let active = self.active_blocks(ctx, plane, pool, privileged);
                Target { stream: layout::choose_block(approx, active).stream(pool), privileged }
            }
        }
    }

    /// Records what the page holds, and ends a first phase that is complete (Fig. 4).
    fn placed(&mut self, ctx: &mut PlaceCtx, lpn: u32, kind: WriteKind, ppn: Ppn, stream: u32) {
        let block = ctx.geo.block_of(ppn);
        let plane = ctx.geo.plane_of_block(block);
        let bi = block as usize;
        let own_stream = stream < POOLS * BlockKind::ALL.len() as u32;
        let (block_kind, pool) = BlockKind::of_stream(stream);
        let holds_approx = match self.variant {
            Variant::Approxftl if kind != WriteKind::Mapping && own_stream => {
                layout::page_is_approx(ctx.geo, block_kind, Self::flip(ctx.blocks, block), ctx.geo.page_in_block(ppn))
            }
            _ => kind != WriteKind::Mapping && self.lpn_approx(lpn),
        };
        self.set_page(ppn, holds_approx);
        if holds_approx {
            if self.oldest_approx_h[bi].is_infinite() {
                self.oldest_approx_h[bi] = ctx.clock_h();
            }
            self.approx_programs[bi] += 1;
            self.stats.approx_pages += 1;
            let gen = match ctx.relocating {
                Some(job) if kind == WriteKind::Relocation => self.approx_gen[job.block as usize] + 1,
                _ => 1,
            };
            self.approx_gen[bi] = self.approx_gen[bi].max(gen.min(7));
        } else {
            self.precise_programs[bi] += 1;
            self.stats.precise_pages += 1;
        }
        if !holds_approx && kind != WriteKind::Mapping {
            match self.kind[bi] {
                k if k == BlockKind::Chb as u8 && self.levels.chb > 0 => self.stats.fast_precise_chb += 1,
                k if k == BlockKind::Phase2 as u8 && self.levels.phase2 > 0 => self.stats.fast_precise_phase2 += 1,
                _ => {}
            }
        }
        if self.variant != Variant::Approxftl || !own_stream {
            return;
        }
        if self.kind[bi] == NO_KIND {
            self.block_became(block, block_kind);
        }
        let first_phase_end = self.phase1_pages[Self::flip(ctx.blocks, block) as usize];
        if block_kind == BlockKind::Phase1 && ctx.blocks.write_ptr[bi] == first_phase_end {
            let phase2_open = ctx.blocks.active(plane, BlockKind::Phase2.stream(pool)) != NO_BLOCK;
            let next = layout::end_of_phase1(phase2_open);
            if ctx.blocks.active(plane, next.stream(pool)) == NO_BLOCK {
                ctx.blocks.move_active(plane, stream, next.stream(pool));
                self.block_became(block, next);
            }
        }
    }
}

impl ProgramModes for Approx {
    fn mode(&self, ppn: Ppn) -> Option<ProgramMode> {
        Some(match self.variant {
            _ if !self.is_approx_page(ppn) => ProgramMode::Precise,
            Variant::DeltaB => ProgramMode::ApproxDvpp,
            _ => ProgramMode::ApproxVmax,
        })
    }

    /// A precise page in a checkerboard or second-phase block takes the coarser step its
    /// later neighbours allow ([`FastLevels`]); the physics makes its program faster and
    /// its states wider.
    fn step_level(&self, ppn: Ppn, mode: ProgramMode) -> u8 {
        if mode != ProgramMode::Precise {
            return 0;
        }
        self.levels.of(self.kind[self.geo.block_of(ppn) as usize])
    }
}

impl Cleaning for Approx {
    /// ApproxFTL's victim choice (Sec. IV-D).
    fn victim(&mut self, ctx: &mut VictimCtx) -> Option<u32> {
        if self.variant != Variant::Approxftl {
            return ctx.policy.select(ctx.plane, ctx.blocks, ctx.now);
        }
        let phase2_open = (0..POOLS).any(|pool| ctx.blocks.active(ctx.plane, BlockKind::Phase2.stream(pool)) != NO_BLOCK);
        layout::select_victim(ctx.plane, ctx.blocks, &self.valid_precise, &self.kind, phase2_open)
    }

    /// Approximate pages first, so that they can open a second phase for the precise ones.
    fn copy_order(&mut self, _map: &crate::ftl::mapping::Mapping, pages: &mut [Ppn]) {
        if self.variant == Variant::Approxftl {
            layout::copy_order(pages, |p| self.is_approx_page(p));
        }
    }
}

impl FreeBlocks for Approx {
    fn wear_leveler(&mut self) -> Option<Box<dyn WearLeveler>> {
        (self.variant == Variant::Approxftl).then(|| Box::new(wear::EffectiveWearPicker::new(self.cfg.wear_refresh_every)) as _)
    }
}

impl EraseControl for Approx {
    /// Eq. 10: an erase of a block that held only V_max_th-reduced pages counts less.
    fn erase_wear(&mut self, block: u32) -> f32 {
        let bi = block as usize;
        let lowered_vmax = matches!(self.variant, Variant::VthB | Variant::Approxftl);
        if lowered_vmax && self.precise_programs[bi] == 0 && self.approx_programs[bi] > 0 {
            self.stats.erases_all_approx += 1;
            self.cfg.all_approx_wear as f32
        } else {
            1.0
        }
    }
}

impl Background for Approx {
    /// An eighth of the refresh age on the retention clock; none when refresh is off or the
    /// clock does not run.
    fn period_ns(&self, retention_scale: f64) -> Option<Time> {
        if self.variant != Variant::Approxftl || self.cfg.refresh_h <= 0.0 || retention_scale <= 0.0 {
            return None;
        }
        Some(((self.cfg.refresh_h / 8.0) * 3.6e12 / retention_scale).max(1.0).min(u64::MAX as f64 / 4.0) as u64)
    }

    /// Refresh (Sec. IV-D): in every idle plane, the full block whose approximate data has
    /// been there longest, once that is past the refresh age, is rewritten precise.
    fn run(&mut self, ctx: &BackgroundCtx, moves: &mut Vec<Move>) {
        let due = ctx.clock_h - self.cfg.refresh_h;
        for plane in (0..ctx.geo.planes).filter(|&p| !ctx.busy[p as usize]) {
            let oldest = ctx
                .blocks
                .plane_blocks(plane)
                .filter(|&b| {
                    ctx.blocks.is_closed(b) && ctx.blocks.valid[b as usize] > 0 && self.oldest_approx_h[b as usize] <= due
                })
                .min_by(|&x, &y| self.oldest_approx_h[x as usize].total_cmp(&self.oldest_approx_h[y as usize]));
            if let Some(block) = oldest {
                moves.push(Move { plane, block, reason: REFRESH });
            }
        }
    }
}

impl ReadPath for Approx {}
impl ReadRetry for Approx {}
impl RetryReference for Approx {}
impl CacheTier for Approx {}

impl Observer for Approx {
    fn validity(&mut self, ppn: Ppn, valid: bool) {
        if self.is_approx_page(ppn) {
            return;
        }
        let block = self.geo.block_of(ppn) as usize;
        if valid {
            self.valid_precise[block] += 1;
        } else {
            debug_assert!(self.valid_precise[block] > 0, "block {block}: a precise page went stale that was never counted");
            self.valid_precise[block] -= 1;
        }
    }

    fn erased(&mut self, block: u32) {
        let bi = block as usize;
        self.precise_programs[bi] = 0;
        self.approx_programs[bi] = 0;
        self.approx_gen[bi] = 0;
        self.kind[bi] = NO_KIND;
        self.oldest_approx_h[bi] = f64::INFINITY;
    }

    /// Preconditioned data is precise, in all-precise blocks.
    fn preconditioned(&mut self, blocks: &BlockManager, _map: &crate::ftl::mapping::Mapping) {
        for b in 0..self.geo.blocks {
            let bi = b as usize;
            self.valid_precise[bi] = blocks.valid[bi];
            if blocks.is_closed(b) {
                self.kind[bi] = BlockKind::Precise as u8;
                self.precise_programs[bi] = self.geo.pages_per_block;
            }
        }
    }

    /// Every page handed out in an ApproxFTL block holds the type its block's pattern puts
    /// there, and valid-precise counts agree with the pages.
    fn check(&self, blocks: &BlockManager) -> std::result::Result<(), String> {
        for b in 0..self.geo.blocks {
            let bi = b as usize;
            let pages = self.geo.block_pages(b);
            let precise = pages.clone().filter(|&p| blocks.is_valid(p) && !self.is_approx_page(p)).count() as u32;
            if precise != self.valid_precise[bi] {
                return Err(format!("block {b}: {} valid precise pages counted, {precise} found", self.valid_precise[bi]));
            }
            if self.variant != Variant::Approxftl || self.kind[bi] == NO_KIND {
                continue;
            }
            let kind = BlockKind::from_index(self.kind[bi] as usize);
            for p in pages.filter(|&p| blocks.is_allocated(p)) {
                let want = layout::page_is_approx(&self.geo, kind, Self::flip(blocks, b), self.geo.page_in_block(p));
                if want != self.is_approx_page(p) {
                    return Err(format!(
                        "page {p} of {} block {b} holds {} data against its pattern",
                        kind.name(),
                        if want { "precise" } else { "approximate" }
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Technique for Approx {
    /// Streams' page layouts (the GC reserve of one block per stream GC copies into is the
    /// registry's `gc_reserve`, which the engine applies).
    fn set_up(&mut self, ctx: &mut SetupCtx) {
        if self.variant == Variant::Approxftl {
            // Checkerboard blocks program in page order, their colours flipping with each
            // use; two-phase blocks take one colour, then the other, the first flipping too.
            let sequential = 0;
            let two_phase = [
                ctx.blocks.add_order(layout::two_phase_order(ctx.geo, 0)),
                ctx.blocks.add_order(layout::two_phase_order(ctx.geo, 1)),
            ];
            for pool in 0..POOLS {
                ctx.blocks.set_stream_layout(BlockKind::Chb.stream(pool), vec![sequential, sequential]);
                ctx.blocks.set_stream_layout(BlockKind::Phase1.stream(pool), two_phase.to_vec());
            }
        }
    }

    fn report(&self, tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        let s = &self.stats;
        let k = s.active_blocks;
        let (refreshed_blocks, refreshed_pages) = tasks.get(REFRESH);
        let r = ApproxReport {
            scheme: self.scheme_name.clone(),
            pages: ApproxPages { precise: s.precise_pages, approx: s.approx_pages },
            fast_precise: FastPrecise {
                chb: s.fast_precise_chb,
                approx_phase2: s.fast_precise_phase2,
                chb_step_level: self.levels.chb,
                approx_phase2_step_level: self.levels.phase2,
                chb_speedup: self.levels.chb_speedup,
                approx_phase2_speedup: self.levels.phase2_speedup,
            },
            active_blocks: ActiveBlockCounts {
                chb: k[0],
                precise: k[1],
                approx_phase1: k[2],
                approx_phase2: k[3],
                all_approx: k[4],
            },
            promoted_pages: s.promoted_pages,
            erases_all_approx: s.erases_all_approx,
            refreshed_pages,
            refreshed_blocks,
        };
        sections.insert(report::KEY.to_string(), serde_json::to_value(r).expect("report section serialises"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, GeometryConfig};

    #[test]
    fn precise_pages_take_the_steps_the_model_gives_their_layouts() {
        use crate::physics::vth::{Disturbers, VthConfig};
        let vth = VthConfig::default();
        let levels = FastLevels::from_model(&vth);
        // Fewer and lighter later neighbours, a coarser step (Sec. III-B, cases 2 and 3).
        assert!(0 < levels.chb && levels.chb < levels.phase2, "{levels:?}");
        // Each keeps a precise page's RBER under sequential programming at the calibration
        // point, and the next level would not.
        let (pe, h) = (vth.reference_pe, vth.reference_h);
        let target = vth.rber(ProgramMode::Precise, &Disturbers::pair(ProgramMode::Precise), pe, h);
        for (level, d) in [(levels.chb, Disturbers::pair(ProgramMode::ApproxVmax)), (levels.phase2, Disturbers::NONE)] {
            assert!(vth.rber_at(ProgramMode::Precise, level, &d, pe, h) <= target);
            assert!(vth.rber_at(ProgramMode::Precise, level + 1, &d, pe, h) > target);
        }
        assert!((levels.chb_speedup - (1.0 - 1.0 / crate::physics::vth::step_factor(levels.chb))).abs() < 1e-12);
        // Other blocks, and every page of the baselines, keep the precise step.
        assert_eq!(levels.of(BlockKind::Precise as u8), 0);
        assert_eq!(levels.of(NO_KIND), 0);
        assert_eq!(FastLevels::NONE.of(BlockKind::Chb as u8), 0);
    }

    /// Where ApproxFTL sends a GC copy of a hot and of a cold page, with `gc_pool` as given.
    fn relocation_streams(gc_pool: &str) -> (u32, u32) {
        let mut cfg = Config { geometry: GeometryConfig::one_plane(32, 16, 4), ..Config::default() };
        cfg.scheme.name = "approxftl".into();
        let geo = Geometry::new(&cfg.geometry);
        let table = serde_json::json!({ "gc_pool": gc_pool });
        let resolved = resolve(&table, "scheme.approxftl").unwrap();
        let ctx = BuildCtx { cfg: &cfg, geo: &geo, logical_pages: 256, table: Some(&resolved) };
        let mut t = build(&ctx, Variant::Approxftl).unwrap();
        let mut blocks = BlockManager::new(&geo, APPROXFTL.streams).unwrap();
        let (mut threshold, mut hard) = (3, 1);
        let mut set_up =
            SetupCtx { geo: &geo, blocks: &mut blocks, gc_threshold_blocks: &mut threshold, gc_hard_blocks: &mut hard };
        t.set_up(&mut set_up);
        // Page 0 written by a small (hot) request, page 1 by a large (cold) one; both precise.
        let write = |lpn: u64, bytes: u64| HostWrite {
            first_lpn: lpn,
            n_pages: 1,
            lba: lpn * 8,
            bytes,
            approximate: false,
            tolerance: 0.0,
            context: 0,
            handle: None,
            logical_pages: 256,
        };
        t.host_write(&write(0, 4096));
        t.host_write(&write(1, 1 << 20));
        let mut picker = crate::ftl::wear::EraseCountLeveler::new(false, false, 0);
        let mut place = |lpn: u32| {
            let mut ctx = PlaceCtx::plain(&geo, &mut blocks, &mut picker);
            t.target(&mut ctx, lpn, WriteKind::Relocation, 0).stream
        };
        (place(0), place(1))
    }

    #[test]
    fn gc_copies_go_to_the_pages_own_pool_unless_a_separate_one_is_asked_for() {
        let kinds = BlockKind::ALL.len() as u32;
        let (hot, cold) = relocation_streams("ordinary");
        assert!(hot < kinds, "hot page to stream {hot}, outside the hot pool");
        assert!((kinds..2 * kinds).contains(&cold), "cold page to stream {cold}, outside the cold pool");
        let (hot, cold) = relocation_streams("separate");
        for s in [hot, cold] {
            assert!((GC_POOL * kinds..(GC_POOL + 1) * kinds).contains(&s), "stream {s} outside the GC pool");
        }
    }
}
