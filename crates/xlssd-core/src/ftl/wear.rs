//! Wear levelling: dynamic (a new block is the least-erased free block) and static (cold
//! data leaves the least-erased block when a plane's erase-count gap grows too wide).

use crate::ftl::blocks::{BlockManager, FreeBlockPicker};
use crate::ftl::policy::WearLeveler;

pub struct EraseCountLeveler {
    pub dynamic: bool,
    pub static_enabled: bool,
    pub static_threshold: u32,
    /// Per plane, a lower bound of its free blocks' erase counts: the least count the last
    /// full scan found. Counts only grow once the run is set up, so a bound stays a bound;
    /// a scan that meets a block at the bound can stop there.
    floors: Vec<u32>,
}

impl EraseCountLeveler {
    pub fn new(dynamic: bool, static_enabled: bool, static_threshold: u32) -> Self {
        EraseCountLeveler { dynamic, static_enabled, static_threshold, floors: Vec::new() }
    }
}

impl FreeBlockPicker for EraseCountLeveler {
    /// The first least-erased block of the list.
    fn pick(&mut self, free: &[u32], blocks: &BlockManager) -> usize {
        if !self.dynamic || free.is_empty() {
            return 0;
        }
        let plane = blocks.geo.plane_of_block(free[0]) as usize;
        if self.floors.len() <= plane {
            self.floors.resize(blocks.geo.planes as usize, 0);
        }
        let floor = self.floors[plane];
        let mut best = 0;
        let mut least = blocks.erase_count[free[0] as usize];
        for (i, &b) in free.iter().enumerate() {
            let ec = blocks.erase_count[b as usize];
            if ec <= floor {
                return i;
            }
            if ec < least {
                best = i;
                least = ec;
            }
        }
        self.floors[plane] = least;
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
            if blocks.is_closed(b) && blocks.valid[b as usize] > 0 && coldest.is_none_or(|c| ec < blocks.erase_count[c as usize])
            {
                coldest = Some(b);
            }
        }
        let c = coldest?;
        (max - blocks.erase_count[c as usize] > self.static_threshold).then_some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GeometryConfig;
    use crate::nand::Geometry;

    /// The first least-erased block of the list, by a plain scan.
    fn first_least(free: &[u32], blocks: &BlockManager) -> usize {
        let least = free.iter().map(|&b| blocks.erase_count[b as usize]).min().unwrap();
        free.iter().position(|&b| blocks.erase_count[b as usize] == least).unwrap()
    }

    #[test]
    fn pick_is_the_first_least_erased_block_as_counts_grow() {
        let geo = Geometry::new(&GeometryConfig::one_plane(64, 4, 2));
        let mut blocks = BlockManager::new(&geo, 1).unwrap();
        let mut leveler = EraseCountLeveler::new(true, false, 0);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut free: Vec<u32> = (0..64).collect();
        for round in 0..2_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Erase counts only grow: a block picked is erased once or more before it is free again.
            let i = leveler.pick(&free, &blocks);
            assert_eq!(i, first_least(&free, &blocks), "round {round}");
            let b = free.remove(i);
            blocks.erase_count[b as usize] += 1 + (state % 3) as u32;
            free.insert((state >> 8) as usize % (free.len() + 1), b);
        }
    }
}
