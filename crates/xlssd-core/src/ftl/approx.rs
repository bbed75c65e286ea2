//! Approximate writes in the FTL (seed 000, ApproxFTL, and its baselines).
//!
//! A host request may carry an approximate flag; a scheme decides how flagged data is
//! programmed and where it goes:
//!
//! - `baseline`: every page precise, one active block per plane (seed 000 Sec. V-A).
//! - `delta_b`: approximate pages with a 1.5x ISPP step, mixed with precise pages.
//! - `vth_b`: approximate pages with V_max_th lowered to about 62%, in blocks of their own.
//! - `approxftl`: Sec. IV: pattern-guided allocation over up to five active blocks per
//!   pool (hot and cold), effective-wear levelling, and the GC enhancements.
//!
//! This module holds the decisions as pure functions (Algorithm 1, the block life cycle of
//! Fig. 4, the page types a pattern allows, victim choice); the engine applies them.

use serde::{Deserialize, Serialize};

use super::blocks::{colour, BlockManager, BlockState};
use crate::nand::Geometry;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheme {
    Baseline,
    DeltaB,
    VthB,
    Approxftl,
}

/// Parameters of approximate writing. Defaults are seed 000's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ApproxConfig {
    pub scheme: Scheme,
    /// Sector ranges `[start, end)` whose writes are approximate, for traces that carry no
    /// flag of their own (a flag in the trace also counts).
    pub lba_ranges: Vec<[u64; 2]>,
    /// A file of further ranges, one `start end` pair of sectors per line (`#` starts a
    /// comment); empty for none.
    pub lba_ranges_file: String,
    /// Requests of at most this many bytes are hot (Sec. IV-B: small requests are hot); hot
    /// and cold data go to separate pools of active blocks under `approxftl`.
    pub hot_max_bytes: u64,
    /// Program-time saving of a precise page whose later neighbours are all approximate:
    /// sequential interleaving (checkerboard blocks) and two-phase interleaving (Sec.
    /// III-B: about 24% and 33%).
    pub chb_precise_speedup: f64,
    pub phase2_precise_speedup: f64,
    /// Effective wear an erase adds to a block that held only V_max_th-reduced pages (Eq.
    /// 10: 0.62; every other erase adds 1).
    pub all_approx_wear: f64,
    /// GC promotes a block's approximate pages to precise once its data has been written
    /// approximately this many times (Sec. IV-D: 2).
    pub promote_after: u32,
    /// Approximate pages older than this (retention clock, hours) are rewritten precise
    /// (Sec. IV-D: six months); 0 turns refresh off.
    pub refresh_h: f64,
    /// Block openings between recomputations of the smallest effective wear (Sec. IV-C:
    /// the smallest W is found periodically, not on every allocation).
    pub wear_refresh_every: u32,
}

impl Default for ApproxConfig {
    fn default() -> Self {
        ApproxConfig {
            scheme: Scheme::Baseline,
            lba_ranges: Vec::new(),
            lba_ranges_file: String::new(),
            hot_max_bytes: 8192,
            chb_precise_speedup: 0.24,
            phase2_precise_speedup: 0.33,
            all_approx_wear: 0.62,
            promote_after: 2,
            refresh_h: 4_380.0,
            wear_refresh_every: 64,
        }
    }
}

impl ApproxConfig {
    /// Write streams the scheme needs. GC copies get active blocks of their own (a block
    /// takes pages from one queue, so that its programs run in the order its pages were
    /// handed out): Vth_b has precise, approximate and GC-approximate streams; ApproxFTL a
    /// pool of five active blocks each for hot data, cold data and GC copies.
    pub fn streams(&self) -> u32 {
        match self.scheme {
            Scheme::Baseline | Scheme::DeltaB => 1,
            Scheme::VthB => 3,
            Scheme::Approxftl => POOLS * BlockKind::ALL.len() as u32,
        }
    }

    /// Every approximate range: `lba_ranges` and those of `lba_ranges_file`.
    pub fn all_ranges(&self) -> crate::error::Result<Vec<[u64; 2]>> {
        let mut ranges = self.lba_ranges.clone();
        if !self.lba_ranges_file.is_empty() {
            ranges.extend(read_ranges(&self.lba_ranges_file)?);
        }
        Ok(ranges)
    }

    pub fn is_approx_lba(&self, lba: u64) -> bool {
        self.lba_ranges.iter().any(|&[a, b]| (a..b).contains(&lba))
    }
}

/// Reads a file of approximate sector ranges: `start end` per line, half-open.
fn read_ranges(path: &str) -> crate::error::Result<Vec<[u64; 2]>> {
    use crate::error::Error;
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.to_string(),
        message: format!("cannot read approx.lba_ranges_file: {e}"),
    })?;
    let mut ranges = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |message: &str| Error::Trace { file: path.to_string(), line: i as u64 + 1, text: raw.trim().to_string(), message: message.to_string() };
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [start, end] = fields[..] else { return Err(bad("expected two fields: start_sector end_sector")) };
        let (Ok(start), Ok(end)) = (start.parse::<u64>(), end.parse::<u64>()) else {
            return Err(bad("sectors must be non-negative integers"));
        };
        if start >= end {
            return Err(bad("the range is empty: start must be below end"));
        }
        ranges.push([start, end]);
    }
    Ok(ranges)
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
    pub const ALL: [BlockKind; 5] = [BlockKind::Chb, BlockKind::Precise, BlockKind::Phase1, BlockKind::Phase2, BlockKind::AllApprox];

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
pub fn copy_order(pages: &mut [u32], is_approx: impl Fn(u32) -> bool) {
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
    fn range_files_are_read_with_errors_that_name_file_and_line() {
        let dir = std::env::temp_dir().join(format!("xlssd-ranges-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.txt");
        std::fs::write(&good, "# approximate data\n0 100\n\n  500 800  # second\n").unwrap();
        let cfg = ApproxConfig { lba_ranges: vec![[900, 901]], lba_ranges_file: good.display().to_string(), ..Default::default() };
        assert_eq!(cfg.all_ranges().unwrap(), vec![[900, 901], [0, 100], [500, 800]]);
        for (text, line, what) in [("0 10\n5\n", 2, "two fields"), ("x 3\n", 1, "integers"), ("1 1\n", 1, "empty")] {
            let bad = dir.join("bad.txt");
            std::fs::write(&bad, text).unwrap();
            let err = ApproxConfig { lba_ranges_file: bad.display().to_string(), ..Default::default() }.all_ranges().unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains(&format!("bad.txt:{line}:")) && msg.contains(what), "{msg}");
        }
        let missing = ApproxConfig { lba_ranges_file: dir.join("nope").display().to_string(), ..Default::default() };
        assert!(missing.all_ranges().unwrap_err().to_string().contains("approx.lba_ranges_file"));
        std::fs::remove_dir_all(&dir).ok();
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
        let mut m = BlockManager::new(&Geometry::new(&g), 1);
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
