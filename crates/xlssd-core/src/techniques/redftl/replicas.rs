//! redFTL (seed 003, Ch. 3): read reclaim plus one-to-many replication of read-hot pages
//! and proactive migration.
//!
//! Every sense counts against its block. When a block's count reaches the replica-creation
//! threshold, its read-hot pages (Sec. 3.4.2: read rate above `hot_alpha` times the
//! block's, on a logical clock that ticks once per host read) are copied into the open
//! host-write blocks of other planes, at most `max_replicas_per_block` per block (the good
//! block pool, filled first in, first out over the planes). The original stays valid, and
//! host reads go to the replica. A replica dies when its page is written or its block is
//! cleaned. When the original's block reaches the migration threshold, its replicas become
//! the mapped pages and the originals stale, so the reclaim that may follow moves fewer
//! pages. At the reclaim threshold the block is reclaimed as in the baseline.

use rustc_hash::FxHashMap;

use super::config::RedConfig;
use super::reclaim::{ReadCounters, READ_RECLAIM};
use super::report::{ReadDisturbReport, Replicas, KEY};
use crate::ftl::blocks::{BlockState, NO_BLOCK};
use crate::nand::{Geometry, Ppn};
use crate::seams::*;

/// A page's reads since its block's erase, on the logical read clock.
#[derive(Debug, Clone, Copy, Default)]
struct PageReads {
    count: u32,
    first: u64,
    last: u64,
}

impl PageReads {
    fn note(&mut self, clock: u64) {
        if self.count == 0 {
            self.first = clock;
        }
        self.count = self.count.saturating_add(1);
        self.last = clock;
    }

    /// Reads per tick of the logical clock since the first; one read is a rate of 1.
    fn rate(&self) -> f64 {
        self.count as f64 / (self.last - self.first).max(1) as f64
    }
}

pub struct RedFtl {
    name: String,
    geo: Geometry,
    cfg: RedConfig,
    creation_reads: u32,
    migration_reads: u32,
    /// Replicas alive or being made at once, at most.
    max_replicas: usize,
    counters: ReadCounters,
    /// Host reads so far: the logical read clock.
    clock: u64,
    /// Per block: its reads on the logical clock, and per page (allocated at the block's
    /// first read after an erase, freed at its erase).
    block_reads: Vec<PageReads>,
    page_reads: FxHashMap<u32, Box<[PageReads]>>,
    /// Per block: replicas were made of its pages, and they were migrated.
    replicated: Vec<bool>,
    migrated: Vec<bool>,
    /// Logical pages replicated out of each block, for its migration.
    replicated_lpns: FxHashMap<u32, Vec<u32>>,
    /// Each logical page's live replica, and copies asked for but not made yet.
    replica: FxHashMap<u32, Ppn>,
    pending: rustc_hash::FxHashSet<u32>,
    /// Replicas each block holds (the pool's limit).
    replicas_in: Vec<u32>,
    next_plane: u32,
    stats: Replicas,
    reclaim_requests: u64,
}

impl RedFtl {
    pub fn new(name: &str, geo: &Geometry, cfg: &RedConfig) -> Self {
        let blocks = geo.blocks as usize;
        let of_max = |f: f64| (f * cfg.max_read_count as f64).round() as u32;
        RedFtl {
            name: name.to_string(),
            geo: geo.clone(),
            creation_reads: of_max(cfg.replica_creation),
            migration_reads: of_max(cfg.migration),
            max_replicas: (cfg.max_replica_share * geo.pages as f64).floor() as usize,
            cfg: cfg.clone(),
            counters: ReadCounters::new(blocks),
            clock: 0,
            block_reads: vec![PageReads::default(); blocks],
            page_reads: FxHashMap::default(),
            replicated: vec![false; blocks],
            migrated: vec![false; blocks],
            replicated_lpns: FxHashMap::default(),
            replica: FxHashMap::default(),
            pending: Default::default(),
            replicas_in: vec![0; blocks],
            next_plane: 0,
            stats: Replicas::default(),
            reclaim_requests: 0,
        }
    }

    fn note_host_read(&mut self, ppn: Ppn) {
        self.clock += 1;
        let block = self.geo.block_of(ppn);
        self.block_reads[block as usize].note(self.clock);
        let n = self.geo.pages_per_block as usize;
        let pages = self.page_reads.entry(block).or_insert_with(|| vec![PageReads::default(); n].into_boxed_slice());
        pages[self.geo.page_in_block(ppn) as usize].note(self.clock);
    }

    /// The next plane of the good block pool: its open host-write block has room for
    /// another replica, and it is not `avoid` (the original's plane). `None` when every
    /// plane's block is at its limit.
    fn pool_plane(&mut self, ctx: &SenseCtx, avoid: u32) -> Option<u32> {
        let planes = self.geo.planes;
        for i in 0..planes {
            let plane = (self.next_plane + i) % planes;
            if plane == avoid && planes > 1 {
                continue;
            }
            let block = ctx.blocks.active(plane, 0);
            let room = block == NO_BLOCK || self.replicas_in[block as usize] < self.cfg.max_replicas_per_block;
            if room && ctx.blocks.can_allocate(plane, 0, false) {
                self.next_plane = (plane + 1) % planes;
                return Some(plane);
            }
        }
        None
    }

    /// Copies the read-hot pages of `block` (Sec. 3.4.2); when its reads are even, half its
    /// valid pages. A page is hot when its read rate exceeds `hot_alpha` times the rate of
    /// the block's average valid page: the block's rate taken whole, as the seed writes it,
    /// is at least any one page's under steady reads (a page's reads are some of its
    /// block's), so no page could pass twice it.
    fn replicate(&mut self, ctx: &SenseCtx, block: u32, actions: &mut Vec<ReadAction>) {
        let valid = ctx.blocks.valid[block as usize].max(1) as f64;
        let block_rate = self.block_reads[block as usize].rate() / valid;
        let Some(pages) = self.page_reads.get(&block) else { return };
        let mut candidates: Vec<(u32, bool)> = Vec::new();
        for ppn in ctx.blocks.valid_pages(block) {
            let Some(lpn) = ctx.map.owner(ppn) else { continue };
            // Only mapped originals, not yet replicated.
            if ctx.map.get(lpn) != Some(ppn) || self.replica.contains_key(&lpn) || self.pending.contains(&lpn) {
                continue;
            }
            let p = pages[self.geo.page_in_block(ppn) as usize];
            candidates.push((lpn, p.count > 0 && p.rate() > self.cfg.hot_alpha * block_rate));
        }
        let any_hot = candidates.iter().any(|c| c.1);
        let avoid = self.geo.plane_of_block(block);
        for (i, &(lpn, hot)) in candidates.iter().enumerate() {
            // Even reads: every other valid page, a fixed half (the seed takes a random one).
            if !(hot || (!any_hot && i % 2 == 0)) {
                continue;
            }
            if self.replica.len() + self.pending.len() >= self.max_replicas {
                self.stats.capped += 1;
                break;
            }
            let Some(plane) = self.pool_plane(ctx, avoid) else {
                self.stats.pool_empty += 1;
                break;
            };
            self.pending.insert(lpn);
            self.replicated_lpns.entry(block).or_default().push(lpn);
            self.stats.asked += 1;
            actions.push(ReadAction::Copy { lpn, plane });
        }
    }

    /// The replicas of `block`'s pages become the mapped pages.
    fn migrate(&mut self, ctx: &SenseCtx, block: u32, actions: &mut Vec<ReadAction>) {
        for lpn in self.replicated_lpns.remove(&block).unwrap_or_default() {
            let original = ctx.map.get(lpn);
            let Some(&copy) = self.replica.get(&lpn) else { continue };
            if original.is_some_and(|p| self.geo.block_of(p) == block) {
                self.replica.remove(&lpn);
                self.stats.migrated += 1;
                actions.push(ReadAction::Promote { lpn, copy });
            }
        }
    }
}

impl Placement for RedFtl {}
impl ProgramModes for RedFtl {}
impl Cleaning for RedFtl {}
impl FreeBlocks for RedFtl {}
impl ReadRetry for RedFtl {}
impl RetryReference for RedFtl {}
impl EraseControl for RedFtl {}
impl Background for RedFtl {}
impl CacheTier for RedFtl {}

impl ReadPath for RedFtl {
    fn read_copy(&mut self, lpn: u32, ppn: Ppn) -> Ppn {
        self.replica.get(&lpn).copied().unwrap_or(ppn)
    }

    fn sensed(&mut self, ctx: &SenseCtx, ppn: Ppn, kind: ReadKind, actions: &mut Vec<ReadAction>) {
        let block = self.geo.block_of(ppn);
        let reads = self.counters.read(block);
        if kind == ReadKind::Host {
            self.note_host_read(ppn);
        }
        if ctx.blocks.state[block as usize] == BlockState::Victim {
            return;
        }
        if reads >= self.creation_reads && !self.replicated[block as usize] {
            self.replicated[block as usize] = true;
            self.replicate(ctx, block, actions);
        }
        if reads >= self.migration_reads && !self.migrated[block as usize] {
            self.migrated[block as usize] = true;
            self.migrate(ctx, block, actions);
        }
        if reads >= self.cfg.reclaim_threshold {
            self.reclaim_requests += 1;
            actions.push(ReadAction::Reclaim(Reclaim { reason: READ_RECLAIM, ahead_of_reads: self.cfg.reclaim_ahead_of_reads }));
        }
    }
}

impl Observer for RedFtl {
    fn erased(&mut self, block: u32) {
        let b = block as usize;
        self.counters.erased(block);
        self.block_reads[b] = PageReads::default();
        self.page_reads.remove(&block);
        self.replicated[b] = false;
        self.migrated[b] = false;
        self.replicated_lpns.remove(&block);
        self.replicas_in[b] = 0;
    }

    fn copy_made(&mut self, lpn: u32, ppn: Ppn) {
        self.pending.remove(&lpn);
        self.replica.insert(lpn, ppn);
        self.replicas_in[self.geo.block_of(ppn) as usize] += 1;
        self.stats.made += 1;
    }

    fn copy_abandoned(&mut self, lpn: u32) {
        self.pending.remove(&lpn);
    }

    fn copy_dropped(&mut self, lpn: u32, ppn: Ppn) {
        if self.replica.get(&lpn) == Some(&ppn) {
            self.replica.remove(&lpn);
            self.stats.died += 1;
        }
    }

    fn check(&self, blocks: &crate::ftl::blocks::BlockManager) -> Result<(), String> {
        for (&lpn, &ppn) in &self.replica {
            if !blocks.is_valid(ppn) {
                return Err(format!("the replica of logical page {lpn} at page {ppn} is not valid"));
            }
        }
        Ok(())
    }
}

impl Technique for RedFtl {
    fn report(&self, _tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        let r = ReadDisturbReport {
            scheme: self.name.clone(),
            reclaim_threshold: self.cfg.reclaim_threshold,
            reclaim_requests: self.reclaim_requests,
            max_block_reads: self.counters.max_seen(),
            replicas: Replicas { alive: self.replica.len() as u64, ..self.stats.clone() },
            ..Default::default()
        };
        sections.insert(KEY.to_string(), serde_json::to_value(r).expect("report serialises"));
    }
}
