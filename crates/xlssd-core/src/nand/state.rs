//! Per-block and per-page device state that the physics models read: effective wear, reads
//! since erase, and when and how each page was programmed.
//!
//! Per-page arrays are allocated zeroed (committed by the operating system only where a run
//! touches them) and only when a physics model is on, so the fixed-latency core pays nothing.

use crate::nand::Ppn;
use crate::physics::vth::STEP_LEVELS;
use crate::physics::{Ispp, ProgramMode};

/// The state of a block a read consults, side by side: a read of a page at random then
/// misses the cache once for its block, not once per field.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub struct BlockWear {
    /// Effective P/E cycles (a cycle can count less than one, seed 000 Eq. 10).
    pub wear: f32,
    /// Reads since the last erase, weighted by page type and read mode (seed 003).
    pub reads: f32,
    /// Pages programmed since the last erase, which orders its programs (a page's place is
    /// in its word of state).
    programs: u16,
}

// SAFETY: two `f32`s and an integer, for which all-zero bytes are 0.0 and 0.
unsafe impl crate::limits::alloc::Zeroable for BlockWear {}

pub struct DeviceState {
    /// Wear, reads and programs per block.
    pub blocks: Vec<BlockWear>,
    /// Per page, packed in one word so that a read touches one cache line of page state:
    /// the low 32 bits hold the retention clock (hours, as f32 bits) when the page was
    /// programmed, the next 8 its programming algorithm (0 = never programmed since the
    /// erase), the next 8 its program mode (2 bits) and step level (6 bits), the top 16 its
    /// place in its block's program order (which neighbours came later and disturbed it). A plain integer vector is
    /// allocated zeroed, so untouched pages cost no memory.
    pages: Vec<u64>,
    /// Pages per block, as a divisor: a page's block tells whether its word can be other
    /// than zero.
    pages_per_block: strength_reduce::StrengthReducedU64,
}

fn code(a: Ispp) -> u8 {
    match a {
        Ispp::Sv => 1,
        Ispp::Dv => 2,
        Ispp::Rv => 3,
    }
}

impl DeviceState {
    pub fn new(blocks: u32, pages: Ppn) -> crate::error::Result<DeviceState> {
        use crate::limits::alloc::zeroed;
        assert!(blocks > 0 && pages.is_multiple_of(blocks as Ppn), "{pages} pages do not fill {blocks} blocks evenly");
        Ok(DeviceState {
            blocks: zeroed(blocks as usize, "block physics")?,
            pages: zeroed(pages as usize, "page physics")?,
            pages_per_block: strength_reduce::StrengthReducedU64::new(pages / blocks as Ppn),
        })
    }

    /// The page's word of state. A block with no program recorded since its erase has only
    /// zero words (an erase clears them), so its pages are answered without reading the page
    /// table: data laid down by preconditioning or materialised by a first read is read at
    /// random places of a table far larger than the cache, its block's count beside the
    /// block's wear, which the read consults anyway.
    #[inline]
    pub fn page(&self, ppn: Ppn) -> PageWord {
        let block = (ppn / self.pages_per_block) as usize;
        if self.blocks[block].programs == 0 {
            debug_assert_eq!(self.pages[ppn as usize], 0, "page {ppn} has state in a block with no program recorded");
            return PageWord(0);
        }
        PageWord(self.pages[ppn as usize])
    }

    /// Page `ppn` of `block` was programmed at `clock_h` with `algorithm` in `mode` at step
    /// level `step_level` (below [`STEP_LEVELS`]).
    pub fn on_program(&mut self, ppn: Ppn, block: u32, clock_h: f64, algorithm: Ispp, mode: ProgramMode, step_level: u8) {
        assert!(step_level < STEP_LEVELS, "step level {step_level} of page {ppn} out of range");
        let order = &mut self.blocks[block as usize].programs;
        self.pages[ppn as usize] = (clock_h as f32).to_bits() as u64
            | (code(algorithm) as u64) << 32
            | (mode.index() as u64 | (step_level as u64) << 2) << 40
            | (*order as u64) << 48;
        *order = order.saturating_add(1);
    }

    /// Erases a block whose pages are `pages` (a range of page numbers).
    pub fn on_erase(&mut self, block: u32, pages: std::ops::Range<Ppn>, wear_increment: f32) {
        let b = &mut self.blocks[block as usize];
        b.wear += wear_increment;
        b.reads = 0.0;
        if std::mem::take(&mut b.programs) > 0 {
            self.pages[pages.start as usize..pages.end as usize].fill(0);
        }
    }

    /// Whether `neighbour` has been programmed since its erase, after `victim`; if so, in
    /// which mode.
    pub fn later_program(&self, victim: Ppn, neighbour: Ppn) -> Option<ProgramMode> {
        let n = self.page(neighbour);
        (n.algorithm().is_some() && n.order() > self.page(victim).order()).then(|| n.mode())
    }

    /// Starts fetching the state a read of `ppn` in `block` will consult when its sense
    /// ends: random accesses into tables larger than the cache, while the read waits in its
    /// die's queue and senses for tens of microseconds. (The page's word is fetched even
    /// where its block's count will say it need not be read: a fetch does not wait, the
    /// count would.)
    #[inline]
    pub fn prefetch_read(&self, ppn: Ppn, block: u32) {
        if let (Some(page), Some(wear)) = (self.pages.get(ppn as usize), self.blocks.get(block as usize)) {
            crate::sim::prefetch(page);
            crate::sim::prefetch(wear);
        }
    }

    /// A key that changes whenever the page is written again (its word of state and its
    /// block's wear), for per-write variation drawn by hashing.
    pub fn write_key(&self, ppn: Ppn, block: u32) -> u64 {
        self.page(ppn).0 ^ (self.blocks[block as usize].wear.to_bits() as u64).rotate_left(17) ^ ppn.rotate_left(40)
    }
}

/// A page's word of state (see [`DeviceState`]'s `pages`), read once for all its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageWord(u64);

impl PageWord {
    /// Hours the page's data has aged by the retention clock `clock_h`.
    pub fn age_h(self, clock_h: f64) -> f64 {
        (clock_h - f32::from_bits(self.0 as u32) as f64).max(0.0)
    }

    /// The algorithm the page was programmed with, if it was programmed since its erase.
    pub fn algorithm(self) -> Option<Ispp> {
        match (self.0 >> 32) as u8 {
            1 => Some(Ispp::Sv),
            2 => Some(Ispp::Dv),
            3 => Some(Ispp::Rv),
            _ => None,
        }
    }

    /// The mode it was programmed in (precise if it was never programmed).
    pub fn mode(self) -> ProgramMode {
        ProgramMode::from_index(((self.0 >> 40) & 3) as usize)
    }

    /// The step level it was programmed at (0 if it was never programmed).
    pub fn step_level(self) -> u8 {
        ((self.0 >> 42) & 0x3f) as u8
    }

    /// Its place in its block's program order.
    fn order(self) -> u16 {
        (self.0 >> 48) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGES_PER_BLOCK: Ppn = 4;

    #[test]
    fn a_block_record_is_the_size_the_memory_estimate_counts() {
        assert_eq!(std::mem::size_of::<BlockWear>() as u64, crate::limits::estimate::BLOCK_PHYSICS_BYTES);
    }

    #[test]
    fn a_page_reads_back_its_program_and_nothing_after_its_erase() {
        let mut s = DeviceState::new(3, 3 * PAGES_PER_BLOCK).unwrap();
        // Block 1 (pages 4..8): two programs in order.
        s.on_program(5, 1, 10.0, Ispp::Dv, ProgramMode::from_index(1), 0);
        s.on_program(6, 1, 12.0, Ispp::Rv, ProgramMode::from_index(0), STEP_LEVELS - 1);
        assert_eq!(s.page(5).algorithm(), Some(Ispp::Dv));
        assert_eq!(s.page(6).algorithm(), Some(Ispp::Rv));
        assert_eq!(s.page(5).mode().index(), 1);
        assert_eq!(s.page(5).step_level(), 0);
        // The mode and the step level share a byte without touching each other.
        assert_eq!(s.page(6).mode().index(), 0);
        assert_eq!(s.page(6).step_level(), STEP_LEVELS - 1);
        assert_eq!(s.page(6).age_h(12.0), 0.0);
        assert_eq!(s.page(5).age_h(15.0), 5.0);
        assert_eq!(s.page(6).age_h(15.0), 3.0);
        // Page 6 came after page 5 in the block's program order, not the other way.
        assert!(s.later_program(5, 6).is_some());
        assert!(s.later_program(6, 5).is_none());
        // Unprogrammed pages, in the same block and in the blocks either side of it.
        for ppn in [0, 3, 4, 7, 8, 11] {
            assert_eq!(s.page(ppn).algorithm(), None, "page {ppn}");
            assert_eq!(s.page(ppn).age_h(15.0), 15.0, "page {ppn}");
        }
        s.on_erase(1, 4..8, 1.0);
        assert_eq!(s.page(5).algorithm(), None);
        assert_eq!(s.page(5).age_h(15.0), 15.0);
        assert_eq!(s.blocks[1].wear, 1.0);
        // A program after the erase is recorded again.
        s.on_program(4, 1, 14.0, Ispp::Sv, ProgramMode::from_index(2), 17);
        assert_eq!(s.page(4).algorithm(), Some(Ispp::Sv));
        assert_eq!((s.page(4).mode().index(), s.page(4).step_level()), (2, 17));
        assert_eq!(s.page(4).age_h(15.0), 1.0);
    }
}
