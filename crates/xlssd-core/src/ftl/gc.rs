//! Victim selection policies for garbage collection.

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::config::GcPolicy;
use crate::ftl::blocks::BlockManager;
use crate::ftl::policy::VictimSelector;
use crate::sim::Time;

/// Blocks of a plane worth cleaning: closed (see [`BlockManager::is_closed`]) and holding
/// at least one invalid page, since cleaning a block of valid pages frees nothing and would
/// only repeat.
fn full_blocks<'a>(plane: u32, blocks: &'a BlockManager, eligible: &'a dyn Fn(u32) -> bool) -> impl Iterator<Item = u32> + 'a {
    let n = blocks.geo.pages_per_block;
    blocks.plane_blocks(plane).filter(move |&b| blocks.is_closed(b) && blocks.valid[b as usize] < n && eligible(b))
}

/// Fewest valid pages; ties go to the block that filled first.
pub struct Greedy;

impl VictimSelector for Greedy {
    fn select_among(&mut self, plane: u32, blocks: &BlockManager, _now: Time, eligible: &dyn Fn(u32) -> bool) -> Option<u32> {
        full_blocks(plane, blocks, eligible).min_by_key(|&b| (blocks.valid[b as usize], blocks.close_seq[b as usize]))
    }
}

/// The block that filled first, whatever it holds (log-structured cleaning).
pub struct Fifo;

impl VictimSelector for Fifo {
    fn select_among(&mut self, plane: u32, blocks: &BlockManager, _now: Time, eligible: &dyn Fn(u32) -> bool) -> Option<u32> {
        full_blocks(plane, blocks, eligible).min_by_key(|&b| blocks.close_seq[b as usize])
    }
}

/// Highest benefit/cost = (1 - u) * age / (2u) (Rosenblum and Ousterhout's LFS cleaner), with
/// u the block's valid fraction and age the time since data was last written into it.
pub struct CostBenefit;

impl VictimSelector for CostBenefit {
    fn select_among(&mut self, plane: u32, blocks: &BlockManager, now: Time, eligible: &dyn Fn(u32) -> bool) -> Option<u32> {
        let n = blocks.geo.pages_per_block as f64;
        let mut best: Option<(f64, u32)> = None;
        for b in full_blocks(plane, blocks, eligible) {
            let valid = blocks.valid[b as usize];
            let score = if valid == 0 {
                f64::INFINITY
            } else {
                let u = valid as f64 / n;
                let age = (now.saturating_sub(blocks.last_change[b as usize]) + 1) as f64;
                (1.0 - u) * age / (2.0 * u)
            };
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, b));
            }
        }
        best.map(|(_, b)| b)
    }
}

/// Lowest cleaning cost x 1/age x erases (Chiang, Lee and Chang's cost-age-times, the common
/// FTL of seed 003 Ch. 5.1.3): cost u / (1 - u) with u the block's valid fraction, age the
/// time since its valid data last changed, and erases counted from 1 so that a block never
/// erased is not free of charge. Ties go to the block that filled first.
pub struct CostAgeTimes;

impl VictimSelector for CostAgeTimes {
    fn select_among(&mut self, plane: u32, blocks: &BlockManager, now: Time, eligible: &dyn Fn(u32) -> bool) -> Option<u32> {
        let n = blocks.geo.pages_per_block as f64;
        let score = |b: u32| {
            // Candidates hold an invalid page, so u < 1.
            let u = blocks.valid[b as usize] as f64 / n;
            let age = (now.saturating_sub(blocks.last_change[b as usize]) + 1) as f64;
            let erases = blocks.erase_count[b as usize] as f64 + 1.0;
            u / (1.0 - u) / age * erases
        };
        full_blocks(plane, blocks, eligible)
            .map(|b| (score(b), blocks.close_seq[b as usize], b))
            .min_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)))
            .map(|(_, _, b)| b)
    }
}

/// Randomised greedy (MQSim's RGA): the fewest-valid of `candidates` blocks drawn at random.
pub struct RandomGreedy {
    pub candidates: u32,
    pub rng: Xoshiro256PlusPlus,
    scratch: Vec<u32>,
}

impl VictimSelector for RandomGreedy {
    fn select_among(&mut self, plane: u32, blocks: &BlockManager, _now: Time, eligible: &dyn Fn(u32) -> bool) -> Option<u32> {
        self.scratch.clear();
        self.scratch.extend(full_blocks(plane, blocks, eligible));
        if self.scratch.is_empty() {
            return None;
        }
        let mut best = None;
        for _ in 0..self.candidates {
            let b = self.scratch[self.rng.gen_range(0..self.scratch.len())];
            if best.is_none_or(|x: u32| blocks.valid[b as usize] < blocks.valid[x as usize]) {
                best = Some(b);
            }
        }
        best
    }
}

pub fn selector(policy: GcPolicy, candidates: u32, rng: Xoshiro256PlusPlus) -> Box<dyn VictimSelector> {
    match policy {
        GcPolicy::Greedy => Box::new(Greedy),
        GcPolicy::Fifo => Box::new(Fifo),
        GcPolicy::CostBenefit => Box::new(CostBenefit),
        GcPolicy::RandomGreedy => Box::new(RandomGreedy { candidates, rng, scratch: Vec::new() }),
        GcPolicy::CostAgeTimes => Box::new(CostAgeTimes),
    }
}

/// Planes built page by page for the victim policies' tests (and the schemes' that choose
/// among blocks).
#[cfg(test)]
pub(crate) mod test_plane {
    use super::*;
    use crate::config::GeometryConfig;
    use crate::ftl::blocks::FreeBlockPicker;
    use crate::nand::Geometry;

    pub(crate) struct First;
    impl FreeBlockPicker for First {
        fn pick(&mut self, _free: &[u32], _b: &BlockManager) -> usize {
            0
        }
    }

    /// One plane of six blocks of four pages, `streams` streams, no GC reserve, and a full
    /// block per `(stream, valid pages)` of `blocks`, filled in order (block i's valid pages
    /// written at time 10 i); returns the blocks' numbers too.
    pub(crate) fn filled(streams: u32, blocks: &[(u32, u32)]) -> (BlockManager, Vec<u32>) {
        let geo = Geometry::new(&GeometryConfig {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 6,
            pages_per_block: 4,
            ..GeometryConfig::default()
        });
        let mut bm = BlockManager::new(&geo, streams).unwrap();
        bm.gc_reserve = 0;
        let mut ids = Vec::new();
        for (i, &(stream, valid)) in blocks.iter().enumerate() {
            for p in 0..4 {
                let ppn = bm.allocate(0, stream, false, &mut First).unwrap();
                bm.program_done(ppn).unwrap();
                if p < valid {
                    bm.set_valid(ppn, i as Time * 10);
                }
                if p == 3 {
                    ids.push(geo.block_of(ppn) as u32);
                }
            }
        }
        (bm, ids)
    }
}

#[cfg(test)]
mod tests {
    use super::test_plane::{filled, First};
    use super::*;
    use rand::SeedableRng;

    /// One plane with four full blocks holding 3, 1, 2 and 1 valid pages, filled in order.
    fn plane() -> BlockManager {
        filled(1, &[(0, 3), (0, 1), (0, 2), (0, 1)]).0
    }

    #[test]
    fn greedy_takes_fewest_valid_oldest_first() {
        let bm = plane();
        let mut blocks_by_fill: Vec<u32> = bm.plane_blocks(0).filter(|&b| bm.is_closed(b)).collect();
        blocks_by_fill.sort_by_key(|&b| bm.close_seq[b as usize]);
        assert_eq!(Greedy.select(0, &bm, 100), Some(blocks_by_fill[1]));
        assert_eq!(Fifo.select(0, &bm, 100), Some(blocks_by_fill[0]));
    }

    #[test]
    fn blocks_with_programs_in_flight_are_never_victims() {
        let mut bm = plane();
        // A fifth block, fully allocated but with its last program still queued.
        for p in 0..4 {
            let ppn = bm.allocate(0, 0, false, &mut First).unwrap();
            if p < 3 {
                bm.program_done(ppn).unwrap();
            }
        }
        let open = bm.plane_blocks(0).find(|&b| bm.state[b as usize] == crate::ftl::blocks::BlockState::Full && !bm.is_closed(b));
        let open = open.expect("one block is full but not closed");
        assert_eq!(bm.valid[open as usize], 0, "it has the fewest valid pages of all");
        assert_ne!(Greedy.select(0, &bm, 0), Some(open));
        assert_ne!(CostBenefit.select(0, &bm, 0), Some(open));
    }

    #[test]
    fn cost_benefit_prefers_old_sparse_blocks() {
        let bm = plane();
        let mut order: Vec<u32> = bm.plane_blocks(0).filter(|&b| bm.is_closed(b)).collect();
        order.sort_by_key(|&b| bm.close_seq[b as usize]);
        // Blocks 1 and 3 both hold one valid page; block 1 has been unchanged longer.
        assert_eq!(CostBenefit.select(0, &bm, 100), Some(order[1]));
    }

    #[test]
    fn cost_age_times_weighs_cost_age_and_erases() {
        let mut bm = plane();
        let mut order: Vec<u32> = bm.plane_blocks(0).filter(|&b| bm.is_closed(b)).collect();
        order.sort_by_key(|&b| bm.close_seq[b as usize]);
        // Valid 3, 1, 2, 1 of 4, last changed at 0, 10, 20, 30; at t=100 the scores are
        // (u/(1-u)) / (age+1) * (erases+1): 3/101, (1/3)/91, 1/81, (1/3)/71.
        assert_eq!(CostAgeTimes.select(0, &bm, 100), Some(order[1]));
        // Erased twice, block 1 scores (1/3)/91*3 = 0.0110 > (1/3)/71 = 0.0047.
        bm.erase_count[order[1] as usize] = 2;
        assert_eq!(CostAgeTimes.select(0, &bm, 100), Some(order[3]));
        // A block with no valid page costs nothing to clean, however worn.
        bm.erase_count[order[2] as usize] = 1000;
        bm.invalidate(order[2] as crate::nand::Ppn * 4, 50);
        bm.invalidate(order[2] as crate::nand::Ppn * 4 + 1, 50);
        assert_eq!(CostAgeTimes.select(0, &bm, 100), Some(order[2]));
    }

    #[test]
    fn random_greedy_with_many_candidates_finds_a_minimum() {
        let bm = plane();
        let mut rga = RandomGreedy { candidates: 64, rng: Xoshiro256PlusPlus::seed_from_u64(3), scratch: vec![] };
        let v = rga.select(0, &bm, 0).unwrap();
        assert_eq!(bm.valid[v as usize], 1);
        let mut one = RandomGreedy { candidates: 1, rng: Xoshiro256PlusPlus::seed_from_u64(3), scratch: vec![] };
        let picks: std::collections::HashSet<u32> = (0..50).map(|_| one.select(0, &bm, 0).unwrap()).collect();
        assert!(picks.len() > 2, "a single random candidate should vary: {picks:?}");
    }
}
