//! Read reclaim, the baseline of seed 003 (Sec. 3.1): one read counter per block, reset
//! when the block is erased; a read that finds its block at the threshold asks for the
//! whole block to be moved (all valid pages to one free block, then the erase).

use super::config::RedConfig;
use super::report::{ReadDisturbReport, KEY};
use crate::ftl::blocks::BlockState;
use crate::nand::{Geometry, Ppn};
use crate::seams::*;

/// The relocation reason reclaims are reported under.
pub const READ_RECLAIM: &str = "read_reclaim";

/// Reads per block since its erase.
pub struct ReadCounters {
    reads: Vec<u32>,
    max_seen: u32,
}

impl ReadCounters {
    pub fn new(blocks: usize) -> Self {
        ReadCounters { reads: vec![0; blocks], max_seen: 0 }
    }

    /// Counts a read of `block`; returns its count since its erase.
    #[inline]
    pub fn read(&mut self, block: u32) -> u32 {
        let c = &mut self.reads[block as usize];
        *c = c.saturating_add(1);
        self.max_seen = self.max_seen.max(*c);
        *c
    }

    pub fn get(&self, block: u32) -> u32 {
        self.reads[block as usize]
    }

    pub fn erased(&mut self, block: u32) {
        self.reads[block as usize] = 0;
    }

    pub fn max_seen(&self) -> u32 {
        self.max_seen
    }
}

pub struct ReadReclaim {
    pub(super) name: String,
    geo: Geometry,
    threshold: u32,
    ahead_of_reads: bool,
    counters: ReadCounters,
    requests: u64,
}

impl ReadReclaim {
    pub fn new(name: &str, geo: &Geometry, cfg: &RedConfig) -> Self {
        ReadReclaim {
            name: name.to_string(),
            geo: geo.clone(),
            threshold: cfg.reclaim_threshold,
            ahead_of_reads: cfg.reclaim_ahead_of_reads,
            counters: ReadCounters::new(geo.blocks as usize),
            requests: 0,
        }
    }
}

impl Placement for ReadReclaim {}
impl ProgramModes for ReadReclaim {}
impl Cleaning for ReadReclaim {}
impl FreeBlocks for ReadReclaim {}
impl ReadRetry for ReadReclaim {}
impl RetryReference for ReadReclaim {}
impl EraseControl for ReadReclaim {}
impl Background for ReadReclaim {}
impl CacheTier for ReadReclaim {}

impl ReadPath for ReadReclaim {
    fn sensed(&mut self, ctx: &SenseCtx, ppn: Ppn, _kind: ReadKind, actions: &mut Vec<ReadAction>) {
        let block = self.geo.block_of(ppn);
        let reads = self.counters.read(block);
        // A block being emptied already is read by its own relocation: that disturbs it
        // too, but asks for nothing more.
        if reads < self.threshold || ctx.blocks.state[block as usize] == BlockState::Victim {
            return;
        }
        self.requests += 1;
        actions.push(ReadAction::Reclaim(Reclaim { reason: READ_RECLAIM, ahead_of_reads: self.ahead_of_reads }));
    }
}

impl Observer for ReadReclaim {
    fn erased(&mut self, block: u32) {
        self.counters.erased(block);
    }
}

impl Technique for ReadReclaim {
    fn report(&self, _tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        let r = ReadDisturbReport {
            scheme: self.name.clone(),
            reclaim_threshold: self.threshold,
            reclaim_requests: self.requests,
            max_block_reads: self.counters.max_seen(),
            ..Default::default()
        };
        sections.insert(KEY.to_string(), serde_json::to_value(r).expect("report serialises"));
    }
}
