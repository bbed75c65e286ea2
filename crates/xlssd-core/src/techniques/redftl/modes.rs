//! Read-resistant blocks (seed 003, Sec. 4.2.1 and 4.3.2): the `rrb` scheme.
//!
//! A block programmed in write mode i (finer ISPP, slower: Table 4, +0%, +8%, +19%) can be
//! read in read mode i, at a lowered read voltage that multiplies its maximum read count by
//! alpha_i (1, 2, 5). Each read adds beta(page type) / alpha(block's mode) to its block's
//! effective disturbance (Sec. 4.2.3), and a block whose sum reaches the reclaim threshold
//! is reclaimed. The reclaim picks the target's mode (Sec. 4.3.2): the first reclaim of a
//! normal block moves its data to a block in mode 1, a reclaim of a read-resistant block to
//! mode 2; cleaning moves data back to normal blocks (mode 0).
//!
//! Modes are streams: host writes go to stream 0, reclaims to stream 1 or 2 (each with its
//! own open block per plane), cleaning to the engine's cleaning stream; a block's mode is
//! that of the stream it was opened for.

use super::config::RedConfig;
use super::reclaim::READ_RECLAIM;
use super::report::{ReadDisturbReport, KEY};
use crate::ftl::blocks::BlockState;
use crate::nand::{Geometry, Ppn};
use crate::physics::read_disturb::ReadDisturbConfig;
use crate::physics::ProgramMode;
use crate::techniques::hooks::*;

/// Read modes, and the streams reclaims write them with (host writes use stream 0).
pub const MODES: usize = 3;

pub struct Rrb {
    name: String,
    geo: Geometry,
    cfg: RedConfig,
    disturbance: ReadDisturbConfig,
    /// Per block: its mode, and its effective read disturbance since its erase.
    mode: Vec<u8>,
    effective: Vec<f64>,
    max_effective: f64,
    blocks_opened: [u64; MODES],
    reclaim_requests: u64,
}

impl Rrb {
    pub fn new(name: &str, geo: &Geometry, cfg: &RedConfig, disturbance: &ReadDisturbConfig) -> Self {
        let blocks = geo.blocks as usize;
        Rrb {
            name: name.to_string(),
            geo: geo.clone(),
            cfg: cfg.clone(),
            disturbance: disturbance.clone(),
            mode: vec![0; blocks],
            effective: vec![0.0; blocks],
            max_effective: 0.0,
            blocks_opened: [0; MODES],
            reclaim_requests: 0,
        }
    }

    /// The mode a stream writes: streams 1 and 2 are the read-resistant modes.
    fn stream_mode(stream: u32) -> u8 {
        if (stream as usize) < MODES {
            stream as u8
        } else {
            0
        }
    }
}

impl Placement for Rrb {
    fn target(&mut self, ctx: &mut PlaceCtx, _lpn: u32, kind: WriteKind, _plane: u32) -> Target {
        match (kind, ctx.relocating) {
            (WriteKind::Relocation, Some(Relocating { block, reason: Reason::Task(READ_RECLAIM) })) => {
                // First reclaim of a normal block: mode 1; of a read-resistant one: mode 2.
                let stream = if self.mode[block as usize] == 0 { 1 } else { 2 };
                Target { stream, privileged: true }
            }
            _ => ctx.default,
        }
    }

    fn placed(&mut self, _ctx: &mut PlaceCtx, _lpn: u32, _kind: WriteKind, ppn: Ppn, stream: u32) {
        let block = self.geo.block_of(ppn) as usize;
        let mode = Self::stream_mode(stream);
        if self.geo.page_in_block(ppn) == 0 {
            self.blocks_opened[mode as usize] += 1;
        }
        self.mode[block] = mode;
    }
}

impl ProgramModes for Rrb {
    fn time_factor(&mut self, ppn: Ppn, _mode: ProgramMode) -> f64 {
        self.cfg.mode_program_time[self.mode[self.geo.block_of(ppn) as usize] as usize]
    }

    fn read_mode(&self, block: u32) -> usize {
        self.mode[block as usize] as usize
    }
}

impl ReadPath for Rrb {
    fn sensed(&mut self, ctx: &SenseCtx, ppn: Ppn, _kind: ReadKind, actions: &mut Vec<ReadAction>) {
        let block = self.geo.block_of(ppn);
        let b = block as usize;
        let page_type = self.geo.page_type(self.geo.page_in_block(ppn));
        self.effective[b] += self.disturbance.weight(page_type, self.mode[b] as usize);
        self.max_effective = self.max_effective.max(self.effective[b]);
        if self.effective[b] < self.cfg.reclaim_threshold as f64 || ctx.blocks.state[b] == BlockState::Victim {
            return;
        }
        self.reclaim_requests += 1;
        actions.push(ReadAction::Reclaim(Reclaim { reason: READ_RECLAIM, ahead_of_reads: self.cfg.reclaim_ahead_of_reads }));
    }
}

impl Cleaning for Rrb {}
impl FreeBlocks for Rrb {}
impl ReadRetry for Rrb {}
impl EraseControl for Rrb {}
impl Background for Rrb {}
impl CacheTier for Rrb {}

impl Observer for Rrb {
    fn erased(&mut self, block: u32) {
        self.effective[block as usize] = 0.0;
        self.mode[block as usize] = 0;
    }
}

impl Technique for Rrb {
    fn report(&self, _tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        let r = ReadDisturbReport {
            scheme: self.name.clone(),
            reclaim_threshold: self.cfg.reclaim_threshold,
            reclaim_requests: self.reclaim_requests,
            max_block_reads: self.max_effective.round() as u32,
            blocks_opened_per_mode: self.blocks_opened.to_vec(),
            ..Default::default()
        };
        sections.insert(KEY.to_string(), serde_json::to_value(r).expect("report serialises"));
    }
}
