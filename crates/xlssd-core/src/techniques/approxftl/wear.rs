//! ApproxFTL's free-block choice by effective wear (seed 000 Sec. IV-C).

use crate::ftl::blocks::{BlockManager, FreeBlockPicker};
use crate::ftl::policy::WearLeveler;

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
        free.iter().position(|&b| blocks.effective_wear[b as usize] <= limit).unwrap_or_else(|| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GeometryConfig;
    use crate::nand::Geometry;

    fn manager(wear: &[f32]) -> BlockManager {
        let g = GeometryConfig::one_plane(wear.len() as u32, 8, 1);
        let mut m = BlockManager::new(&Geometry::new(&g), 1).unwrap();
        m.effective_wear = wear.to_vec();
        m
    }

    #[test]
    fn picks_the_first_block_not_twice_as_worn_as_the_least_worn() {
        let m = manager(&[9.0, 7.0, 3.0, 5.0, 4.0]);
        let free: Vec<u32> = (0..5).collect();
        let mut p = EffectiveWearPicker::new(100);
        // Smallest W is 3: block 0 (9) and 1 (7) are more than twice it; block 2 is the first
        // that is not.
        assert_eq!(p.pick(&free, &m), 2);
        // Not the least worn, just the first within bounds.
        assert_eq!(p.pick(&[0, 3, 2], &m), 1);
    }

    #[test]
    fn the_smallest_wear_is_found_again_only_periodically() {
        let mut m = manager(&[4.0, 2.0]);
        let mut p = EffectiveWearPicker::new(3);
        assert_eq!(p.pick(&[0], &m), 0); // 4 is not more than twice 2
        m.effective_wear[1] = 10.0; // the least worn block wore out in between
        m.effective_wear[0] = 30.0;
        // Still bounded by the old smallest (2): nothing qualifies, so the least worn.
        assert_eq!(p.pick(&[0, 1], &m), 1);
        p.pick(&[0, 1], &m);
        // After three picks the smallest is found again (10): the limit is now 20.
        m.effective_wear[0] = 15.0;
        assert_eq!(p.pick(&[0, 1], &m), 0);
    }
}
