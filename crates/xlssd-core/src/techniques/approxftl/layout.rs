//! ApproxFTL's decisions as pure functions (seed 000 Sec. IV): the active-block kinds of
//! Fig. 4 and their life cycle, Algorithm 1, the checkerboard pattern and which page types
//! it allows, and the GC victim choice and copy order of Sec. IV-D.

use crate::ftl::blocks::{BlockManager, BlockState};
use crate::nand::Geometry;

/// Checkerboard colour of a page of a 3D block: pages alternate along the word line (Y)
/// and across layers (Z) (Sec. III-B, Fig. 3).
pub fn colour(geo: &Geometry, page_in_block: u32) -> u32 {
    let n = geo.pages_per_layer;
    (page_in_block % n + page_in_block / n) % 2
}

/// Two-phase interleaving's page order: every page of colour `first`, then the other
/// colour, each in page order.
pub fn two_phase_order(geo: &Geometry, first: u32) -> Vec<u32> {
    let (a, b): (Vec<u32>, Vec<u32>) = (0..geo.pages_per_block).partition(|&p| colour(geo, p) == first);
    a.into_iter().chain(b).collect()
}

/// Pools of active blocks under ApproxFTL: hot host data, cold host data, GC copies.
pub const POOLS: u32 = 3;
pub const GC_POOL: u32 = 2;

/// The active block types of ApproxFTL (Fig. 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BlockKind {
    /// Checkerboard pattern, sequential interleaving: takes approximate and precise pages
    /// in turn, as the pattern wants.
    Chb = 0,
    /// Every page precise, in order (the baseline's block).
    Precise = 1,
    /// Checkerboard pattern, two-phase interleaving, first phase: approximate pages only,
    /// on one colour.
    Phase1 = 2,
    /// A phase-1 block in its second phase: precise pages on the other colour.
    Phase2 = 3,
    /// A phase-1 block that goes on taking approximate pages on the other colour.
    AllApprox = 4,
}

impl BlockKind {
    pub const ALL: [BlockKind; 5] =
        [BlockKind::Chb, BlockKind::Precise, BlockKind::Phase1, BlockKind::Phase2, BlockKind::AllApprox];

    pub fn from_index(i: usize) -> BlockKind {
        BlockKind::ALL[i]
    }

    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Chb => "chb",
            BlockKind::Precise => "precise",
            BlockKind::Phase1 => "approx_phase1",
            BlockKind::Phase2 => "approx_phase2",
            BlockKind::AllApprox => "all_approx",
        }
    }

    /// Stream of this kind in pool `pool` (0 hot, 1 cold, 2 GC).
    pub fn stream(self, pool: u32) -> u32 {
        pool * BlockKind::ALL.len() as u32 + self as u32
    }

    pub fn of_stream(stream: u32) -> (BlockKind, u32) {
        let n = BlockKind::ALL.len() as u32;
        (BlockKind::from_index((stream % n) as usize), stream / n)
    }
}

/// What Algorithm 1 looks at in one plane and pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActiveBlocks {
    /// The page type the checkerboard block wants next (true = approximate), or `None`
    /// when there is no checkerboard block.
    pub chb_wants: Option<bool>,
    pub phase2: bool,
    pub all_approx: bool,
}

/// Algorithm 1: the active block an (approximate or precise) write goes to. A write the
/// checkerboard block wants goes there; other precise writes go to the second-phase block
/// if there is one, else to the all-precise block; other approximate writes go to the
/// first-phase block, except that with all five blocks open the first phase pauses and
/// they go to the all-approximate block. (The algorithm as printed sends approximate writes
/// to the all-approximate block whenever a second-phase block exists; an all-approximate
/// block only comes out of a first phase, so without one they stay in the first phase, as
/// the text's priority rule says.)
pub fn choose_block(approx: bool, active: ActiveBlocks) -> BlockKind {
    if active.chb_wants == Some(approx) {
        BlockKind::Chb
    } else if !approx {
        if active.phase2 {
            BlockKind::Phase2
        } else {
            BlockKind::Precise
        }
    } else if active.phase2 && active.all_approx {
        BlockKind::AllApprox
    } else {
        BlockKind::Phase1
    }
}

/// Fig. 4: what a first-phase block becomes when its first phase ends. It serves precise
/// writes (second phase) unless a second-phase block is already open.
pub fn end_of_phase1(phase2_open: bool) -> BlockKind {
    if phase2_open {
        BlockKind::AllApprox
    } else {
        BlockKind::Phase2
    }
}

/// Fig. 4: the used-block type a full block of `kind` becomes (a second-phase block is a
/// checkerboard block).
pub fn used_type(kind: BlockKind) -> BlockKind {
    match kind {
        BlockKind::Phase2 => BlockKind::Chb,
        k => k,
    }
}

/// Whether the page at `page_in_block` of a block of `kind` holds approximate data,
/// given the colour its pattern started with (`flip`).
pub fn page_is_approx(geo: &Geometry, kind: BlockKind, flip: bool, page_in_block: u32) -> bool {
    match kind {
        BlockKind::Precise => false,
        BlockKind::AllApprox => true,
        BlockKind::Chb | BlockKind::Phase1 | BlockKind::Phase2 => colour(geo, page_in_block) == flip as u32,
    }
}

/// Pages of the first phase of a two-phase block: those of its first colour.
pub fn phase1_pages(geo: &Geometry, flip: bool) -> u32 {
    (0..geo.pages_per_block).filter(|&p| colour(geo, p) == flip as u32).count() as u32
}

/// ApproxFTL's victim choice (Sec. IV-D): fewest valid pages; among equals, all-precise
/// used blocks go last when no second-phase block is open (their pages would land in the
/// all-precise block, the most disturbed), then fewest valid precise pages (moving them
/// disturbs most). The seed states both rules in its tie-break paragraph; applied before
/// the valid count instead, demotion would pass over the cheapest victims.
pub fn select_victim(
    plane: u32,
    blocks: &BlockManager,
    valid_precise: &[u32],
    used_kind: &[u8],
    phase2_open: bool,
) -> Option<u32> {
    let n = blocks.geo.pages_per_block;
    blocks
        .plane_blocks(plane)
        .filter(|&b| blocks.is_closed(b) && blocks.valid[b as usize] < n && blocks.state[b as usize] == BlockState::Full)
        .min_by_key(|&b| {
            let bi = b as usize;
            let demoted = !phase2_open && used_kind[bi] == BlockKind::Precise as u8;
            (blocks.valid[bi], demoted, valid_precise[bi], blocks.close_seq[bi])
        })
}

/// Sec. IV-D: GC copies a victim's approximate pages first, then its precise ones, each in
/// page order, so that the approximate batch can open a second phase for the precise one.
pub fn copy_order(pages: &mut [crate::nand::Ppn], is_approx: impl Fn(crate::nand::Ppn) -> bool) {
    pages.sort_by_key(|&p| (!is_approx(p), p));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GeometryConfig;

    fn active(chb_wants: Option<bool>, phase2: bool, all_approx: bool) -> ActiveBlocks {
        ActiveBlocks { chb_wants, phase2, all_approx }
    }

    #[test]
    fn algorithm_1_serves_the_checkerboard_first() {
        for phase2 in [false, true] {
            for all in [false, true] {
                assert_eq!(choose_block(true, active(Some(true), phase2, all)), BlockKind::Chb);
                assert_eq!(choose_block(false, active(Some(false), phase2, all)), BlockKind::Chb);
            }
        }
    }

    #[test]
    fn algorithm_1_sends_precise_writes_to_phase2_before_the_precise_block() {
        assert_eq!(choose_block(false, active(Some(true), true, false)), BlockKind::Phase2);
        assert_eq!(choose_block(false, active(None, true, true)), BlockKind::Phase2);
        assert_eq!(choose_block(false, active(Some(true), false, false)), BlockKind::Precise);
        assert_eq!(choose_block(false, active(None, false, true)), BlockKind::Precise);
    }

    #[test]
    fn algorithm_1_pauses_phase1_only_when_all_five_blocks_are_open() {
        // No second-phase block: approximate writes push the first phase to its end.
        assert_eq!(choose_block(true, active(Some(false), false, true)), BlockKind::Phase1);
        assert_eq!(choose_block(true, active(None, false, false)), BlockKind::Phase1);
        // A second phase is open but no all-approximate block: the first phase goes on.
        assert_eq!(choose_block(true, active(Some(false), true, false)), BlockKind::Phase1);
        // All five: the first phase pauses.
        assert_eq!(choose_block(true, active(Some(false), true, true)), BlockKind::AllApprox);
    }

    #[test]
    fn life_cycle_of_a_two_phase_block() {
        // Fig. 4: phase 1 becomes phase 2 unless one is open, else all-approximate.
        assert_eq!(end_of_phase1(false), BlockKind::Phase2);
        assert_eq!(end_of_phase1(true), BlockKind::AllApprox);
        // Full blocks become used blocks of their pattern; phase 2 is a checkerboard.
        assert_eq!(used_type(BlockKind::Phase2), BlockKind::Chb);
        for k in [BlockKind::Chb, BlockKind::Precise, BlockKind::AllApprox] {
            assert_eq!(used_type(k), k);
        }
    }

    #[test]
    fn streams_round_trip() {
        for pool in 0..POOLS {
            for k in BlockKind::ALL {
                assert_eq!(BlockKind::of_stream(k.stream(pool)), (k, pool));
            }
        }
    }

    #[test]
    fn checkerboard_colours_alternate_along_both_directions() {
        let geo = Geometry::new(&GeometryConfig::one_plane(4, 8, 2));
        let colours: Vec<u32> = (0..8).map(|p| colour(&geo, p)).collect();
        // Layer 0: pages 0-3; layer 1: pages 4-7, shifted by one.
        assert_eq!(colours, vec![0, 1, 0, 1, 1, 0, 1, 0]);
        assert_eq!(two_phase_order(&geo, 0), vec![0, 2, 5, 7, 1, 3, 4, 6]);
        assert_eq!(two_phase_order(&geo, 1), vec![1, 3, 4, 6, 0, 2, 5, 7]);
        assert_eq!((phase1_pages(&geo, false), phase1_pages(&geo, true)), (4, 4));
    }

    #[test]
    fn gc_copies_approximate_pages_first() {
        let mut pages = vec![9, 2, 7, 4, 5, 1];
        copy_order(&mut pages, |p| p % 2 == 1);
        assert_eq!(pages, vec![1, 5, 7, 9, 2, 4]);
    }

    /// One plane of six closed blocks with the given valid and valid-precise counts.
    fn plane(valid: &[u32]) -> BlockManager {
        let g = GeometryConfig::one_plane(valid.len() as u32, 8, 2);
        let mut m = BlockManager::new(&Geometry::new(&g), 1).unwrap();
        for (b, &v) in valid.iter().enumerate() {
            m.fill_directly(b as u32, &(0..v).collect::<Vec<_>>(), b as u64 + 1);
        }
        m.rebuild_free_pools();
        m
    }

    #[test]
    fn victims_tie_break_on_fewer_precise_pages_and_demote_all_precise_blocks() {
        let m = plane(&[5, 3, 3, 3, 7, 8]);
        let kinds = [BlockKind::Chb as u8, BlockKind::Precise as u8, BlockKind::Chb as u8, BlockKind::AllApprox as u8, 0, 0];
        let precise = [2, 3, 2, 0, 7, 8];
        // Fewest valid pages (3), then fewest precise (block 3 has none).
        assert_eq!(select_victim(0, &m, &precise, &kinds, true), Some(3));
        let precise = [2, 3, 1, 1, 7, 8];
        // Equal precise counts: the block that filled first.
        assert_eq!(select_victim(0, &m, &precise, &kinds, true), Some(2));
        // Without a second-phase block, an all-precise used block goes after others with as
        // few valid pages, even with fewer precise ones; never before a cheaper victim.
        let m = plane(&[5, 3, 3, 6, 7, 8]);
        let precise = [5, 1, 3, 6, 7, 8];
        assert_eq!(select_victim(0, &m, &precise, &kinds, true), Some(1));
        assert_eq!(select_victim(0, &m, &precise, &kinds, false), Some(2));
        let m = plane(&[5, 2, 3, 6, 7, 8]);
        assert_eq!(select_victim(0, &m, &precise, &kinds, false), Some(1));
        // Full blocks of valid pages are never chosen.
        assert_eq!(select_victim(0, &plane(&[8, 8]), &[8, 8], &[0, 0], true), None);
    }
}
