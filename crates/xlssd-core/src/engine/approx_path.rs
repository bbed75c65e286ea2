//! Approximate writes in the engine: the host's approximate flag follows each logical page,
//! the scheme of `[approx]` decides which active block a write goes to and how its page is
//! programmed, and erases count effective wear. The decisions themselves are in
//! [`crate::ftl::approx`].

use super::{Ev, Relocation, Simulator};
use crate::controller::txn::TxnKind;
use crate::ftl::approx::{self, ActiveBlocks, ApproxConfig, BlockKind, Scheme, GC_POOL, POOLS};
use crate::ftl::blocks::{PageOrder, NO_BLOCK};
use crate::nand::Geometry;
use crate::physics::ProgramMode;

const TAG_APPROX: u8 = 1;
const TAG_HOT: u8 = 2;
const NO_KIND: u8 = u8::MAX;

/// Counts for the report.
#[derive(Debug, Clone, Default)]
pub struct ApproxStats {
    pub precise_pages: u64,
    pub approx_pages: u64,
    /// Precise pages programmed faster because their later neighbours are approximate.
    pub fast_precise_chb: u64,
    pub fast_precise_phase2: u64,
    /// Blocks that became each kind of active block (Fig. 6), by [`BlockKind`] index.
    pub active_blocks: [u64; 5],
    pub promoted_pages: u64,
    pub erases_all_approx: u64,
    /// Pages rewritten by refresh, and blocks refreshed.
    pub refreshed_pages: u64,
    pub refreshed_blocks: u64,
}

pub(super) struct ApproxState {
    pub cfg: ApproxConfig,
    /// Pages in the first phase of a two-phase block, by the colour that goes first.
    phase1_pages: [u32; 2],
    /// Per logical page: approximate and hot tags.
    tags: Vec<u8>,
    /// Per physical page: holds approximate data.
    page_approx: Vec<u64>,
    /// Per block: the active-block kind it was opened as or became (ApproxFTL).
    pub kind: Vec<u8>,
    precise_programs: Vec<u32>,
    approx_programs: Vec<u32>,
    pub valid_precise: Vec<u32>,
    /// Largest number of times any of its approximate pages has been written approximately
    /// (the 3-bit flag of Sec. IV-E).
    approx_gen: Vec<u8>,
    /// Retention clock (hours) when each block took its first approximate page since its
    /// erase; infinite when it holds none.
    oldest_approx_h: Vec<f64>,
    pub stats: ApproxStats,
}

impl ApproxState {
    pub fn new(cfg: &ApproxConfig, logical_pages: u64, geo: &Geometry) -> crate::error::Result<Option<ApproxState>> {
        let (pages, blocks) = (geo.pages, geo.blocks);
        if cfg.scheme == Scheme::Baseline && cfg.lba_ranges.is_empty() && cfg.lba_ranges_file.is_empty() {
            return Ok(None);
        }
        let cfg = ApproxConfig { lba_ranges: cfg.all_ranges()?, lba_ranges_file: String::new(), ..cfg.clone() };
        Ok(Some(ApproxState {
            cfg,
            phase1_pages: [approx::phase1_pages(geo, false), approx::phase1_pages(geo, true)],
            tags: vec![0; logical_pages as usize],
            page_approx: vec![0; (pages as usize).div_ceil(64)],
            kind: vec![NO_KIND; blocks as usize],
            precise_programs: vec![0; blocks as usize],
            approx_programs: vec![0; blocks as usize],
            valid_precise: vec![0; blocks as usize],
            approx_gen: vec![0; blocks as usize],
            oldest_approx_h: vec![f64::INFINITY; blocks as usize],
            stats: ApproxStats::default(),
        }))
    }

    pub fn is_approx_page(&self, ppn: u32) -> bool {
        self.page_approx[(ppn / 64) as usize] >> (ppn % 64) & 1 == 1
    }

    fn set_page(&mut self, ppn: u32, approx: bool) {
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
}

impl Simulator<'_> {
    /// Sets up the streams a scheme's active blocks use.
    pub(super) fn set_up_approx_streams(&mut self) {
        let Some(a) = self.approx.as_ref() else { return };
        // GC must always be able to open one block per stream it copies into.
        self.blocks.gc_reserve = match a.cfg.scheme {
            Scheme::Approxftl => BlockKind::ALL.len() as u32,
            Scheme::VthB => 2,
            _ => self.blocks.gc_reserve,
        };
        // Cleaning starts before the host is held back by that reserve.
        self.gc_threshold_blocks = self.gc_threshold_blocks.max(self.blocks.gc_reserve + 1);
        self.gc_hard_blocks = self.gc_hard_blocks.max(self.blocks.gc_reserve);
        if a.cfg.scheme == Scheme::Approxftl {
            for pool in 0..POOLS {
                self.blocks.stream_order[BlockKind::Chb.stream(pool) as usize] = PageOrder::Checkerboard;
                self.blocks.stream_order[BlockKind::Phase1.stream(pool) as usize] = PageOrder::TwoPhase;
            }
        }
    }

    /// Preconditioned data is precise, in all-precise blocks.
    pub(super) fn record_preconditioned_blocks(&mut self) {
        let Some(a) = self.approx.as_mut() else { return };
        for b in 0..self.geo.blocks {
            let bi = b as usize;
            a.valid_precise[bi] = self.blocks.valid[bi];
            if self.blocks.is_closed(b) {
                a.kind[bi] = BlockKind::Precise as u8;
                a.precise_programs[bi] = self.geo.pages_per_block;
            }
        }
    }

    /// A host write request arrived: tag its logical pages.
    pub(super) fn tag_write(&mut self, first_lpn: u64, n_pages: u32, lba: u64, bytes: u64, flag: bool) {
        let Some(a) = self.approx.as_mut() else { return };
        let approx = flag || a.cfg.is_approx_lba(lba);
        let tag = if approx { TAG_APPROX } else { 0 } | if bytes <= a.cfg.hot_max_bytes { TAG_HOT } else { 0 };
        for i in 0..n_pages as u64 {
            let lpn = ((first_lpn + i) % self.logical_pages) as usize;
            a.tags[lpn] = tag;
        }
    }

    /// The stream a page write goes to in `plane`, and whether it may use the reserve.
    /// GC copies of a block whose data has been rewritten approximately often enough are
    /// promoted to precise first (Sec. IV-D).
    pub(super) fn write_stream(&mut self, lpn: u32, kind: TxnKind, plane: u32) -> (u32, bool) {
        let (default, privileged) = match kind {
            TxnKind::GcWrite => (self.streams.gc, true),
            TxnKind::MapWrite => (self.streams.mapping, false),
            _ => (0, false),
        };
        if kind == TxnKind::MapWrite {
            return (default, privileged);
        }
        if kind == TxnKind::GcWrite {
            self.maybe_promote(lpn, plane);
        }
        let Some(a) = self.approx.as_ref() else { return (default, privileged) };
        let approx = a.lpn_approx(lpn);
        match a.cfg.scheme {
            Scheme::Baseline | Scheme::DeltaB => (default, privileged),
            Scheme::VthB if approx => (if kind == TxnKind::GcWrite { 2 } else { 1 }, privileged),
            Scheme::VthB => (default, privileged),
            Scheme::Approxftl => {
                let pool = if kind == TxnKind::GcWrite { GC_POOL } else { a.pool(lpn) };
                let active = self.active_blocks(plane, pool, privileged);
                (approx::choose_block(approx, active).stream(pool), privileged)
            }
        }
    }

    fn maybe_promote(&mut self, lpn: u32, plane: u32) {
        let job = self.gc_jobs[plane as usize];
        let Some(a) = self.approx.as_mut() else { return };
        if job.block == NO_BLOCK || !a.lpn_approx(lpn) {
            return;
        }
        // Refresh upgrades whatever it rewrites: retention errors cannot be corrected.
        if job.reason == Relocation::Refresh || a.approx_gen[job.block as usize] as u32 >= a.cfg.promote_after {
            a.tags[lpn as usize] &= !TAG_APPROX;
            a.stats.promoted_pages += 1;
        }
    }

    /// What Algorithm 1 sees in one plane and pool. The checkerboard block is opened ahead
    /// of its first write, so that the type its first page wants is known.
    fn active_blocks(&mut self, plane: u32, pool: u32, privileged: bool) -> ActiveBlocks {
        let chb_stream = BlockKind::Chb.stream(pool);
        let fresh = self.blocks.active(plane, chb_stream) == NO_BLOCK;
        let chb = self.blocks.open(plane, chb_stream, privileged, &mut *self.wl);
        let chb_wants = chb.and_then(|b| {
            if fresh {
                self.block_became(b, BlockKind::Chb);
            }
            let page = self.blocks.next_page(b)?;
            Some(approx::page_is_approx(&self.geo, BlockKind::Chb, self.blocks.first_flip[b as usize], page))
        });
        let open = |k: BlockKind| self.blocks.active(plane, k.stream(pool)) != NO_BLOCK;
        ActiveBlocks { chb_wants, phase2: open(BlockKind::Phase2), all_approx: open(BlockKind::AllApprox) }
    }

    fn block_became(&mut self, block: u32, kind: BlockKind) {
        if let Some(a) = self.approx.as_mut() {
            a.kind[block as usize] = kind as u8;
            a.stats.active_blocks[kind as usize] += 1;
        }
    }

    /// A write of `lpn` was given `ppn` from `stream`: record what the page holds, and end a
    /// first phase that is complete (Fig. 4).
    pub(super) fn approx_placed(&mut self, lpn: u32, ppn: u32, stream: u32, kind: TxnKind) {
        let block = self.geo.block_of(ppn);
        let plane = self.geo.plane_of_block(block);
        let victim = self.gc_jobs[plane as usize].block;
        let clock = self.retention_clock_h();
        let Some(a) = self.approx.as_mut() else { return };
        let bi = block as usize;
        let scheme = a.cfg.scheme;
        let (block_kind, pool) = BlockKind::of_stream(stream);
        let holds_approx = match scheme {
            Scheme::Approxftl if kind != TxnKind::MapWrite && stream < self.streams.gc => {
                approx::page_is_approx(&self.geo, block_kind, self.blocks.first_flip[bi], self.geo.page_in_block(ppn))
            }
            Scheme::Baseline => false,
            _ => kind != TxnKind::MapWrite && a.lpn_approx(lpn),
        };
        a.set_page(ppn, holds_approx);
        if holds_approx {
            if a.oldest_approx_h[bi].is_infinite() {
                a.oldest_approx_h[bi] = clock;
            }
            a.approx_programs[bi] += 1;
            a.stats.approx_pages += 1;
            let gen = if kind == TxnKind::GcWrite && victim != NO_BLOCK { a.approx_gen[victim as usize] + 1 } else { 1 };
            a.approx_gen[bi] = a.approx_gen[bi].max(gen.min(7));
        } else {
            a.precise_programs[bi] += 1;
            a.stats.precise_pages += 1;
        }
        let fresh = a.kind[bi] == NO_KIND;
        let first_phase_end = a.phase1_pages[self.blocks.first_flip[bi] as usize];
        if scheme != Scheme::Approxftl || stream >= self.streams.gc {
            return;
        }
        if fresh {
            self.block_became(block, block_kind);
        }
        if block_kind == BlockKind::Phase1
            && self.blocks.write_ptr[bi] == first_phase_end
        {
            let phase2_open = self.blocks.active(plane, BlockKind::Phase2.stream(pool)) != NO_BLOCK;
            let next = approx::end_of_phase1(phase2_open);
            if self.blocks.active(plane, next.stream(pool)) == NO_BLOCK {
                self.blocks.move_active(plane, stream, next.stream(pool));
                self.block_became(block, next);
            }
        }
    }

    /// A physical page became valid or stale: keep the block's count of valid precise pages.
    pub(super) fn approx_validity(&mut self, ppn: u32, valid: bool) {
        let block = self.geo.block_of(ppn) as usize;
        let Some(a) = self.approx.as_mut() else { return };
        if !a.is_approx_page(ppn) {
            if valid {
                a.valid_precise[block] += 1;
            } else {
                a.valid_precise[block] -= 1;
            }
        }
    }

    /// Effective wear an erase of `block` adds (Eq. 10), and its per-block state reset.
    pub(super) fn approx_erase_wear(&mut self, block: u32) -> f32 {
        let Some(a) = self.approx.as_mut() else { return 1.0 };
        let bi = block as usize;
        let lowered_vmax = matches!(a.cfg.scheme, Scheme::VthB | Scheme::Approxftl);
        let all_approx = lowered_vmax && a.precise_programs[bi] == 0 && a.approx_programs[bi] > 0;
        a.precise_programs[bi] = 0;
        a.approx_programs[bi] = 0;
        a.approx_gen[bi] = 0;
        a.kind[bi] = NO_KIND;
        a.oldest_approx_h[bi] = f64::INFINITY;
        if all_approx {
            a.stats.erases_all_approx += 1;
            a.cfg.all_approx_wear as f32
        } else {
            1.0
        }
    }

    /// How a page is programmed.
    pub(super) fn page_program_mode(&self, ppn: u32) -> ProgramMode {
        match self.approx.as_ref() {
            Some(a) if a.is_approx_page(ppn) => match a.cfg.scheme {
                Scheme::DeltaB => ProgramMode::ApproxDvpp,
                _ => ProgramMode::ApproxVmax,
            },
            Some(_) => ProgramMode::Precise,
            None => self.cfg.physics.program_mode,
        }
    }

    /// Program time of a page relative to a precise program with neighbours that will
    /// disturb it: fewer ISPP steps for approximate pages (the ratio the threshold-voltage
    /// window gives), and the speed-ups of Sec. III-B for precise pages whose later
    /// neighbours are all approximate.
    pub(super) fn approx_program_factor(&mut self, ppn: u32) -> f64 {
        let mode = self.page_program_mode(ppn);
        if mode != ProgramMode::Precise {
            return self.cfg.physics.vth.program_time_factor(mode);
        }
        let Some(a) = self.approx.as_mut() else { return 1.0 };
        if a.cfg.scheme != Scheme::Approxftl {
            return 1.0;
        }
        match a.kind[self.geo.block_of(ppn) as usize] {
            k if k == BlockKind::Chb as u8 => {
                a.stats.fast_precise_chb += 1;
                1.0 - a.cfg.chb_precise_speedup
            }
            k if k == BlockKind::Phase2 as u8 => {
                a.stats.fast_precise_phase2 += 1;
                1.0 - a.cfg.phase2_precise_speedup
            }
            _ => 1.0,
        }
    }

    /// GC under ApproxFTL: its own victim choice, and approximate pages copied first so
    /// that they can open a second phase for the precise ones (Sec. IV-D).
    pub(super) fn approx_victim(&self, plane: u32) -> Option<Option<u32>> {
        let a = self.approx.as_ref()?;
        if a.cfg.scheme != Scheme::Approxftl {
            return None;
        }
        let phase2_open = (0..POOLS).any(|pool| self.blocks.active(plane, BlockKind::Phase2.stream(pool)) != NO_BLOCK);
        Some(approx::select_victim(plane, &self.blocks, &a.valid_precise, &a.kind, phase2_open))
    }

    pub(super) fn approx_copy_order(&self, pages: &mut [u32]) {
        if let Some(a) = self.approx.as_ref().filter(|a| a.cfg.scheme == Scheme::Approxftl) {
            approx::copy_order(pages, |p| a.is_approx_page(p));
        }
    }

    /// Simulated time between looks for data to refresh: an eighth of the refresh age on
    /// the retention clock. `None` when refresh cannot happen in this run.
    fn refresh_period_ns(&self) -> Option<u64> {
        let a = self.approx.as_ref()?;
        let scale = self.cfg.physics.retention_scale;
        if a.cfg.scheme != Scheme::Approxftl || a.cfg.refresh_h <= 0.0 || scale <= 0.0 {
            return None;
        }
        Some(((a.cfg.refresh_h / 8.0) * 3.6e12 / scale).max(1.0).min(u64::MAX as f64 / 4.0) as u64)
    }

    pub(super) fn schedule_refresh_check(&mut self) {
        if let Some(period) = self.refresh_period_ns() {
            self.q.schedule_in(period, Ev::RefreshCheck);
        }
    }

    /// Starts a refresh in every idle plane that holds a full block whose approximate data
    /// has reached the refresh age, oldest first; looks again later while the host runs.
    pub(super) fn refresh_check(&mut self) {
        let clock = self.retention_clock_h();
        for plane in 0..self.geo.planes {
            if self.gc_jobs[plane as usize].active() {
                continue;
            }
            let Some(a) = self.approx.as_ref() else { return };
            let due = clock - a.cfg.refresh_h;
            let oldest = self
                .blocks
                .plane_blocks(plane)
                .filter(|&b| self.blocks.is_closed(b) && self.blocks.valid[b as usize] > 0 && a.oldest_approx_h[b as usize] <= due)
                .min_by(|&x, &y| a.oldest_approx_h[x as usize].total_cmp(&a.oldest_approx_h[y as usize]));
            if let Some(block) = oldest {
                if let Some(a) = self.approx.as_mut() {
                    a.stats.refreshed_blocks += 1;
                }
                self.start_relocation(plane, block, Relocation::Refresh);
            }
        }
        if !self.host_finished() {
            self.schedule_refresh_check();
        }
    }

    pub(super) fn note_refreshed_page(&mut self) {
        if let Some(a) = self.approx.as_mut() {
            a.stats.refreshed_pages += 1;
        }
    }

    /// Invariant: every page handed out in an ApproxFTL block holds the type its block's
    /// pattern puts there, and valid-precise counts agree with the pages.
    pub(super) fn check_approx(&self) -> Result<(), String> {
        let Some(a) = self.approx.as_ref() else { return Ok(()) };
        for b in 0..self.geo.blocks {
            let bi = b as usize;
            let first = self.geo.ppn(b, 0);
            let pages = first..first + self.geo.pages_per_block;
            let precise = pages.clone().filter(|&p| self.blocks.is_valid(p) && !a.is_approx_page(p)).count() as u32;
            if precise != a.valid_precise[bi] {
                return Err(format!("block {b}: {} valid precise pages counted, {precise} found", a.valid_precise[bi]));
            }
            if a.cfg.scheme != Scheme::Approxftl || a.kind[bi] == NO_KIND {
                continue;
            }
            let kind = BlockKind::from_index(a.kind[bi] as usize);
            for p in pages.filter(|&p| self.blocks.is_allocated(p)) {
                let want = approx::page_is_approx(&self.geo, kind, self.blocks.first_flip[bi], self.geo.page_in_block(p));
                if want != a.is_approx_page(p) {
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
