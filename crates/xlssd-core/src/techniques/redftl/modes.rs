//! Read-resistant blocks and pages (seed 003, Ch. 4): the schemes `rrb`, `redftl-plus` and
//! `redftl-plusplus`.
//!
//! A block programmed in write mode i (finer ISPP, slower: Table 4, +0%, +8%, +19%) can be
//! read in read mode i, at a lowered read voltage that multiplies its maximum read count by
//! alpha_i (1, 2, 5). Each read adds beta(page type) / alpha(block's mode) to its block's
//! effective disturbance (Sec. 4.2.3). A reclaim picks its target's mode (Sec. 4.3.2): the
//! first reclaim of a normal block writes mode 1, a reclaim of a read-resistant block mode
//! 2; cleaning writes normal blocks. Modes are streams: host writes go to stream 0,
//! reclaims to streams of their mode; a block's mode is that of the stream it was opened
//! for.
//!
//! `rrb` is the modes alone: a block whose effective disturbance reaches the reclaim
//! threshold is reclaimed at once. `redftl-plus` adds (Sec. 4.3.3-4.3.4):
//! - read-resistant pages: a reclaim's target blocks are programmed LSB pages first, then
//!   CSB, then MSB, and the pages it copies go hottest first, so the hottest data lands on
//!   the pages whose reads disturb least;
//! - two targets per reclaim, alternating, mixed with the data of the plane's coldest
//!   block (least disturbed), relocated right after into the same targets;
//! - read hotness from two 4-bit counters per logical page (one byte): a saturating
//!   level-1 count of reads, sampled into the level-2 count each time the block passes
//!   another fifteenth of the maximum read count;
//! - background reclaim: a block past the (proactive) reclaim threshold is reclaimed in the
//!   background, host reads overtaking it (after `background_idle_us` of host idleness, if
//!   set); only one that reaches the maximum read count is reclaimed at once.
//!
//! `redftl-plusplus` is `redftl-plus` with an exact read count per logical page (four bytes)
//! in place of the two counters.

use super::config::RedConfig;
use super::reclaim::READ_RECLAIM;
use super::report::{ReadDisturbReport, KEY};
use crate::ftl::blocks::{BlockManager, BlockState, NO_BLOCK};
use crate::ftl::mapping::Mapping;
use crate::nand::{Geometry, Ppn};
use crate::physics::read_disturb::ReadDisturbConfig;
use crate::physics::ProgramMode;
use crate::seams::*;
use crate::sim::Time;

/// Read modes.
pub const MODES: usize = 3;
/// Streams: host writes (0), then per mode 1 and 2 a first and a second reclaim target.
pub const PLUS_STREAMS: u32 = 5;
/// The relocation reason of a reclaim's coldest-block partner.
pub const PARTNER: &str = "rr_partner";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Rrb,
    Plus,
    PlusPlus,
}

/// Per logical page read hotness: two 4-bit counters in a byte (level 1 low, level 2
/// high), or an exact count. Pages of the mapping table (numbered after the logical pages,
/// when a cached mapping table keeps them on flash) have none: only host reads count, and
/// they are cold to a reclaim's copy order.
enum Hotness {
    TwoLevel(Vec<u8>),
    Exact(Vec<u32>),
}

impl Hotness {
    fn read(&mut self, lpn: u32) {
        match self {
            Hotness::TwoLevel(v) => {
                if let Some(c) = v.get_mut(lpn as usize) {
                    if *c & 0x0f < 15 {
                        *c += 1;
                    }
                }
            }
            Hotness::Exact(v) => {
                if let Some(c) = v.get_mut(lpn as usize) {
                    *c = c.saturating_add(1);
                }
            }
        }
    }

    /// Level 2 gains one for a saturated level 1, and level 1 starts again.
    fn sample(&mut self, lpn: u32) {
        if let Hotness::TwoLevel(v) = self {
            if let Some(c) = v.get_mut(lpn as usize) {
                let (l1, l2) = (*c & 0x0f, *c >> 4);
                let l2 = if l1 == 15 { (l2 + 1).min(15) } else { l2 };
                *c = l2 << 4;
            }
        }
    }

    /// Orders pages hottest first: level 2, then level 1; or the exact count.
    fn key(&self, lpn: u32) -> u32 {
        match self {
            Hotness::TwoLevel(v) => v.get(lpn as usize).map_or(0, |&c| ((c >> 4) as u32) << 4 | (c & 0x0f) as u32),
            Hotness::Exact(v) => v.get(lpn as usize).copied().unwrap_or(0),
        }
    }

    fn reset(&mut self, lpn: u32) {
        match self {
            Hotness::TwoLevel(v) => {
                if let Some(c) = v.get_mut(lpn as usize) {
                    *c = 0;
                }
            }
            Hotness::Exact(v) => {
                if let Some(c) = v.get_mut(lpn as usize) {
                    *c = 0;
                }
            }
        }
    }
}

pub struct ReadResistant {
    name: String,
    variant: Variant,
    geo: Geometry,
    cfg: RedConfig,
    disturbance: ReadDisturbConfig,
    /// Per block: its mode, its effective read disturbance since its erase, the next
    /// fifteenth of the maximum read count at which its counters are sampled, and whether
    /// it is queued for a background reclaim.
    mode: Vec<u8>,
    effective: Vec<f64>,
    next_sample: Vec<u8>,
    due: Vec<bool>,
    /// Blocks past the reclaim threshold, waiting for their background reclaim.
    due_list: Vec<u32>,
    hotness: Option<Hotness>,
    /// Per block: a reclaim was asked for since its erase.
    asked: Vec<bool>,
    /// Per plane: which target its reclaim writes next, and the coldest block to relocate
    /// after its last reclaim with the mode that reclaim wrote.
    partner_mode: Vec<u8>,
    second_target: Vec<bool>,
    partner: Vec<u32>,
    max_effective: f64,
    blocks_opened: [u64; MODES],
    reads_by_type: Vec<u64>,
    reclaim_requests: u64,
}

impl ReadResistant {
    pub fn new(
        name: &str,
        variant: Variant,
        geo: &Geometry,
        cfg: &RedConfig,
        disturbance: &ReadDisturbConfig,
        logical_pages: u64,
    ) -> Self {
        let blocks = geo.blocks as usize;
        let planes = geo.planes as usize;
        let hotness = match variant {
            Variant::Rrb => None,
            Variant::Plus => Some(Hotness::TwoLevel(vec![0; logical_pages as usize])),
            Variant::PlusPlus => Some(Hotness::Exact(vec![0; logical_pages as usize])),
        };
        ReadResistant {
            name: name.to_string(),
            variant,
            geo: geo.clone(),
            cfg: cfg.clone(),
            disturbance: disturbance.clone(),
            mode: vec![0; blocks],
            effective: vec![0.0; blocks],
            next_sample: vec![1; blocks],
            due: vec![false; blocks],
            due_list: Vec::new(),
            hotness,
            asked: vec![false; blocks],
            partner_mode: vec![1; planes],
            second_target: vec![false; planes],
            partner: vec![NO_BLOCK; planes],
            max_effective: 0.0,
            blocks_opened: [0; MODES],
            reads_by_type: vec![0; geo.cell.bits_per_cell()],
            reclaim_requests: 0,
        }
    }

    fn plus(&self) -> bool {
        self.variant != Variant::Rrb
    }

    /// The mode a stream writes.
    fn stream_mode(stream: u32) -> u8 {
        match stream {
            1 | 3 => 1,
            2 | 4 => 2,
            _ => 0,
        }
    }

    /// The effective disturbance at which a block is reclaimed at once: the reclaim
    /// threshold for `rrb`; the maximum read count for the plus schemes, which reclaim
    /// from the threshold on in the background.
    fn foreground_threshold(&self) -> f64 {
        if self.plus() {
            self.cfg.max_read_count as f64
        } else {
            self.cfg.reclaim_threshold as f64
        }
    }

    /// Samples `block`'s level-1 counters into level 2 at each fifteenth of the maximum
    /// read count it passed.
    fn sample(&mut self, blocks: &BlockManager, map: &Mapping, block: u32) {
        let b = block as usize;
        let step = self.cfg.max_read_count as f64 / 15.0;
        let Some(h) = self.hotness.as_mut() else { return };
        while self.next_sample[b] <= 15 && self.effective[b] >= self.next_sample[b] as f64 * step {
            self.next_sample[b] += 1;
            for ppn in blocks.valid_pages(block) {
                if let Some(lpn) = map.owner(ppn) {
                    h.sample(lpn);
                }
            }
        }
    }

    /// The least disturbed closed block of `plane` other than `src`.
    fn coldest(&self, blocks: &BlockManager, plane: u32, src: u32) -> u32 {
        blocks
            .plane_blocks(plane)
            .filter(|&b| b != src && blocks.state[b as usize] == BlockState::Full && blocks.valid[b as usize] > 0)
            .min_by(|&a, &b| self.effective[a as usize].total_cmp(&self.effective[b as usize]).then(a.cmp(&b)))
            .unwrap_or(NO_BLOCK)
    }

    /// The mode a reclaim of `block` writes: 1 for a normal block, 2 for a read-resistant
    /// one.
    fn reclaim_mode(&self, block: u32) -> u8 {
        if self.mode[block as usize] == 0 {
            1
        } else {
            2
        }
    }

    /// A reclaim of `block` was asked for: the plus schemes pick its partner, once per
    /// erase cycle of the block.
    fn note_reclaim(&mut self, blocks: &BlockManager, block: u32) {
        self.reclaim_requests += 1;
        if !self.plus() || std::mem::replace(&mut self.asked[block as usize], true) {
            return;
        }
        let plane = self.geo.plane_of_block(block);
        self.partner_mode[plane as usize] = self.reclaim_mode(block);
        self.partner[plane as usize] = self.coldest(blocks, plane, block);
    }
}

impl Placement for ReadResistant {
    fn target(&mut self, ctx: &mut PlaceCtx, _lpn: u32, kind: WriteKind, plane: u32) -> Target {
        let Some(Relocating { block, reason: Reason::Task(reason) }) = ctx.relocating else { return ctx.default };
        let p = plane as usize;
        let mode = match (kind, reason) {
            (WriteKind::Relocation, READ_RECLAIM) => self.reclaim_mode(block),
            (WriteKind::Relocation, PARTNER) => self.partner_mode[p],
            _ => return ctx.default,
        };
        let mut stream = mode as u32;
        if self.plus() {
            // Two targets in turn, so that the hottest pages spread over both.
            if self.second_target[p] {
                stream += 2;
            }
            self.second_target[p] = !self.second_target[p];
        }
        Target { stream, privileged: true }
    }

    fn placed(&mut self, ctx: &mut PlaceCtx, lpn: u32, kind: WriteKind, ppn: Ppn, stream: u32) {
        let block = self.geo.block_of(ppn) as usize;
        let mode = Self::stream_mode(stream);
        if ctx.blocks.programmed[block] == 0 && ctx.blocks.write_ptr[block] == 1 {
            self.blocks_opened[mode as usize] += 1;
        }
        self.mode[block] = mode;
        // A reclaimed page starts its hotness again (Sec. 4.3.4).
        if kind == WriteKind::Relocation && matches!(ctx.relocating, Some(Relocating { reason: Reason::Task(READ_RECLAIM), .. }))
        {
            if let Some(h) = self.hotness.as_mut() {
                h.reset(lpn);
            }
        }
    }
}

impl ProgramModes for ReadResistant {
    fn time_factor(&mut self, ppn: Ppn, _mode: ProgramMode) -> f64 {
        self.cfg.mode_program_time[self.mode[self.geo.block_of(ppn) as usize] as usize]
    }

    fn read_mode(&self, block: u32) -> usize {
        self.mode[block as usize] as usize
    }
}

impl ReadPath for ReadResistant {
    fn sensed(&mut self, ctx: &SenseCtx, ppn: Ppn, kind: ReadKind, actions: &mut Vec<ReadAction>) {
        let block = self.geo.block_of(ppn);
        let b = block as usize;
        let page_type = self.geo.page_type(self.geo.page_in_block(ppn));
        self.effective[b] += self.disturbance.weight(page_type, self.mode[b] as usize);
        if kind == ReadKind::Host {
            self.reads_by_type[page_type] += 1;
        }
        self.max_effective = self.max_effective.max(self.effective[b]);
        if ctx.blocks.state[b] == BlockState::Victim {
            return;
        }
        if self.plus() {
            if kind == ReadKind::Host {
                if let (Some(h), Some(lpn)) = (self.hotness.as_mut(), ctx.map.owner(ppn)) {
                    h.read(lpn);
                }
            }
            self.sample(ctx.blocks, ctx.map, block);
            if self.effective[b] >= self.cfg.reclaim_threshold as f64 && !self.due[b] {
                self.due[b] = true;
                self.due_list.push(block);
            }
        }
        if self.effective[b] >= self.foreground_threshold() {
            self.note_reclaim(ctx.blocks, block);
            actions.push(ReadAction::Reclaim(Reclaim { reason: READ_RECLAIM, ahead_of_reads: self.cfg.reclaim_ahead_of_reads }));
        }
    }
}

impl Cleaning for ReadResistant {
    /// Hottest pages first, to land on the LSB pages the targets are programmed first.
    fn copy_order(&mut self, map: &Mapping, pages: &mut [Ppn]) {
        let Some(h) = self.hotness.as_ref() else { return };
        pages.sort_by_key(|&p| std::cmp::Reverse(map.owner(p).map_or(0, |l| h.key(l))));
    }
}

impl Background for ReadResistant {
    fn period_ns(&self, _retention_scale: f64) -> Option<Time> {
        self.plus().then(|| (self.cfg.background_period_us * 1e3).round() as Time)
    }

    /// Once the host has been idle for `background_idle_us` (at once when 0): each plane
    /// that runs no relocation relocates the partner of its last reclaim, or else
    /// reclaims a block past the threshold.
    fn run(&mut self, ctx: &BackgroundCtx, moves: &mut Vec<Move>) {
        if ctx.host_idle_ns < (self.cfg.background_idle_us * 1e3).round() as Time {
            return;
        }
        let mut taken = vec![false; self.geo.planes as usize];
        for plane in 0..self.geo.planes {
            let p = plane as usize;
            let partner = self.partner[p];
            if ctx.busy[p] || partner == NO_BLOCK {
                continue;
            }
            self.partner[p] = NO_BLOCK;
            if ctx.blocks.is_closed(partner) && ctx.blocks.valid[partner as usize] > 0 {
                moves.push(Move { plane, block: partner, reason: PARTNER });
                taken[p] = true;
            }
        }
        let mut i = 0;
        while i < self.due_list.len() {
            let block = self.due_list[i];
            let plane = self.geo.plane_of_block(block);
            let p = plane as usize;
            if !self.due[block as usize] {
                self.due_list.swap_remove(i);
                continue;
            }
            if ctx.busy[p] || taken[p] || !(ctx.blocks.is_closed(block) || ctx.blocks.sealable(block)) {
                i += 1;
                continue;
            }
            self.due_list.swap_remove(i);
            self.due[block as usize] = false;
            self.note_reclaim(ctx.blocks, block);
            taken[p] = true;
            moves.push(Move { plane, block, reason: READ_RECLAIM });
        }
    }
}

impl FreeBlocks for ReadResistant {}
impl ReadRetry for ReadResistant {}
impl RetryReference for ReadResistant {}
impl EraseControl for ReadResistant {}
impl CacheTier for ReadResistant {}

impl Observer for ReadResistant {
    fn erased(&mut self, block: u32) {
        let b = block as usize;
        self.effective[b] = 0.0;
        self.mode[b] = 0;
        self.next_sample[b] = 1;
        self.due[b] = false;
        self.asked[b] = false;
    }
}

impl Technique for ReadResistant {
    /// The reclaim targets of the plus schemes program LSB pages first, then CSB, then MSB.
    fn set_up(&mut self, ctx: &mut SetupCtx) {
        if !self.plus() {
            return;
        }
        let n = ctx.geo.pages_per_block;
        let mut order: Vec<u32> = (0..n).collect();
        order.sort_by_key(|&p| (ctx.geo.page_type(p), p));
        let o = ctx.blocks.add_order(order);
        for stream in 1..PLUS_STREAMS {
            ctx.blocks.set_stream_layout(stream, vec![o]);
        }
    }

    fn report(&self, _tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        let r = ReadDisturbReport {
            scheme: self.name.clone(),
            reclaim_threshold: self.cfg.reclaim_threshold,
            reclaim_requests: self.reclaim_requests,
            max_block_reads: self.max_effective.round() as u32,
            blocks_opened_per_mode: self.blocks_opened.to_vec(),
            host_reads_by_page_type: self.reads_by_type.clone(),
            ..Default::default()
        };
        sections.insert(KEY.to_string(), serde_json::to_value(r).expect("report serialises"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_level_counters_saturate_and_sample_into_the_second_level() {
        let mut h = Hotness::TwoLevel(vec![0; 4]);
        for _ in 0..20 {
            h.read(1);
        }
        for _ in 0..14 {
            h.read(2);
        }
        assert_eq!((h.key(1), h.key(2)), (15, 14));
        h.sample(1);
        h.sample(2);
        // Only a saturated level 1 counts; both start again.
        assert_eq!((h.key(1), h.key(2)), (16, 0));
        for _ in 0..15 * 20 {
            h.read(1);
            if let Hotness::TwoLevel(v) = &h {
                if v[1] & 0x0f == 15 {
                    h.sample(1);
                }
            }
        }
        assert_eq!(h.key(1) >> 4, 15, "level 2 saturates at 15");
        h.reset(1);
        assert_eq!(h.key(1), 0);
        let mut exact = Hotness::Exact(vec![0; 2]);
        for _ in 0..40 {
            exact.read(0);
        }
        exact.sample(0);
        assert_eq!(exact.key(0), 40);
    }
}
