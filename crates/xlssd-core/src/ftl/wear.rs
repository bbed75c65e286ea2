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
