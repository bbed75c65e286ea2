//! Wear levelling: dynamic (a new block is the least-erased free block) and static (cold
//! data leaves the least-erased block when a plane's erase-count gap grows too wide).

use crate::ftl::blocks::{BlockManager, FreeBlockPicker};
use crate::ftl::policy::WearLeveler;

pub struct EraseCountLeveler {
    pub dynamic: bool,
    pub static_enabled: bool,
    pub static_threshold: u32,
}

impl FreeBlockPicker for EraseCountLeveler {
    fn pick(&mut self, free: &[u32], blocks: &BlockManager) -> usize {
        if !self.dynamic {
            return 0;
        }
        let mut best = 0;
        for (i, &b) in free.iter().enumerate() {
            if blocks.erase_count[b as usize] < blocks.erase_count[free[best] as usize] {
                best = i;
            }
        }
        best
    }
}

impl WearLeveler for EraseCountLeveler {
    fn static_candidate(&mut self, plane: u32, blocks: &BlockManager) -> Option<u32> {
        if !self.static_enabled {
            return None;
        }
        let mut max = 0;
        let mut coldest: Option<u32> = None;
        for b in blocks.plane_blocks(plane) {
            let ec = blocks.erase_count[b as usize];
            max = max.max(ec);
            if blocks.is_closed(b)
                && blocks.valid[b as usize] > 0
                && coldest.is_none_or(|c| ec < blocks.erase_count[c as usize])
            {
                coldest = Some(b);
            }
        }
        let c = coldest?;
        (max - blocks.erase_count[c as usize] > self.static_threshold).then_some(c)
    }
}

/// ApproxFTL's free-block choice (seed 000 Sec. IV-C): the first free block whose effective
/// wear is not twice the smallest, the smallest being found again only every
/// `refresh_every` openings rather than on each.
pub struct EffectiveWearPicker {
    pub refresh_every: u32,
    smallest: Option<f32>,
    since_refresh: u32,
}

impl EffectiveWearPicker {
    pub fn new(refresh_every: u32) -> EffectiveWearPicker {
        EffectiveWearPicker { refresh_every: refresh_every.max(1), smallest: None, since_refresh: 0 }
    }
}

impl FreeBlockPicker for EffectiveWearPicker {
    fn pick(&mut self, free: &[u32], blocks: &BlockManager) -> usize {
        if self.smallest.is_none() || self.since_refresh >= self.refresh_every {
            self.smallest = blocks.effective_wear.iter().copied().reduce(f32::min);
            self.since_refresh = 0;
        }
        self.since_refresh += 1;
        let limit = 2.0 * self.smallest.unwrap_or(0.0);
        // A fresh device (smallest 0) allows only unworn blocks; failing that, the least worn.
        free.iter()
            .position(|&b| blocks.effective_wear[b as usize] <= limit)
            .unwrap_or_else(|| {
                (0..free.len())
                    .min_by(|&i, &j| blocks.effective_wear[free[i] as usize].total_cmp(&blocks.effective_wear[free[j] as usize]))
                    .unwrap_or(0)
            })
    }
}

impl WearLeveler for EffectiveWearPicker {
    fn static_candidate(&mut self, _plane: u32, _blocks: &BlockManager) -> Option<u32> {
        None
    }
}
