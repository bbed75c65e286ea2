//! The block manager: per-block and per-page state, free-block pools and active blocks.
//!
//! State is struct-of-arrays indexed by block number (see [`crate::nand::Geometry`]) so that
//! scans over a plane's blocks, as victim selection does, stay in cache.

use crate::nand::{Geometry, Ppn};
use crate::sim::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    /// Erased, in its plane's free pool.
    Free,
    /// Open for programming by one stream.
    Active,
    /// Every page allocated; a GC candidate.
    Full,
    /// Chosen by GC or static wear levelling; its valid pages are being moved out.
    Victim,
}

/// Sentinel for "no block".
pub const NO_BLOCK: u32 = u32::MAX;

pub struct BlockManager {
    pub geo: Geometry,
    pub streams: u32,
    pub state: Vec<BlockState>,
    pub valid: Vec<u32>,
    /// Pages handed out for programming, in order.
    pub write_ptr: Vec<u32>,
    /// Pages whose program operation has finished; always `<= write_ptr`.
    pub programmed: Vec<u32>,
    pub erase_count: Vec<u32>,
    /// Wear in erases at the default erase voltage: an erase at a lowered voltage counts
    /// less (seed 000 Eq. 10).
    pub effective_wear: Vec<f32>,
    /// Order in which blocks became full (FIFO victim selection).
    pub close_seq: Vec<u64>,
    /// Time data was last written into the block (cost-benefit age).
    pub last_change: Vec<Time>,
    pub stream_of: Vec<u8>,
    valid_bits: Vec<u64>,
    free: Vec<Vec<u32>>,
    /// Active block per (plane, stream).
    active: Vec<u32>,
    /// Per (plane, stream): its active block was opened by a privileged write (cleaning,
    /// wear levelling). While the plane is down to its reserve, host writes leave that
    /// block's room to cleaning: where a scheme sends host writes and cleaning's copies to
    /// one stream, host writes would otherwise take the room cleaning opened from the
    /// reserve, and a victim could be left with pages and no block to copy them to.
    cleaning_opened: Vec<bool>,
    next_close_seq: u64,
    /// Free blocks in each plane that only GC and static WL may take, so that cleaning
    /// never deadlocks for want of a block to copy into.
    pub gc_reserve: u32,
    /// Order in which each block's pages are programmed, an index into `orders`.
    pub order: Vec<u8>,
    /// Page orders: `orders[o][i]` is the i-th page programmed; `ranks[o][page]` its place.
    /// Order 0 is sequential; a technique adds others with [`Self::add_order`].
    orders: Vec<Vec<u32>>,
    ranks: Vec<Vec<u32>>,
    /// Orders each stream opens its blocks with, taken in turn (empty: sequential).
    stream_layout: Vec<Vec<u8>>,
    /// Per block, how many times a stream with a layout has opened it: a layout of several
    /// orders takes them in turn, so that a pattern can alternate across the block's uses.
    pub layout_uses: Vec<u32>,
    /// Pages handed out at once: the mapping unit (`mapping.unit_bytes`), so that a unit's
    /// pages are consecutive in one block and start on a multiple of it.
    unit: u32,
}

/// The sequential order, which every block takes unless its stream has a layout.
const ORDER_SEQUENTIAL: u8 = 0;

/// Picks which free block of a plane to open next.
pub trait FreeBlockPicker {
    /// Index into `free` (a plane's free-block list) of the block to open.
    fn pick(&mut self, free: &[u32], blocks: &BlockManager) -> usize;
}

impl BlockManager {
    pub fn new(geo: &Geometry, streams: u32) -> crate::error::Result<BlockManager> {
        use crate::limits::alloc::{filled, zeroed};
        let nb = geo.blocks as usize;
        let state = "block state";
        let mut free = filled(geo.planes as usize, Vec::new(), state)?;
        for (plane, list) in free.iter_mut().enumerate() {
            let first = geo.first_block_of_plane(plane as u32);
            *list = filled(geo.blocks_per_plane as usize, 0, state)?;
            list.iter_mut().zip(first..).for_each(|(slot, block)| *slot = block);
        }
        let mut m = BlockManager {
            geo: geo.clone(),
            streams,
            state: filled(nb, BlockState::Free, state)?,
            valid: zeroed(nb, state)?,
            write_ptr: zeroed(nb, state)?,
            programmed: zeroed(nb, state)?,
            erase_count: zeroed(nb, state)?,
            effective_wear: zeroed(nb, state)?,
            close_seq: zeroed(nb, state)?,
            last_change: zeroed(nb, state)?,
            stream_of: zeroed(nb, state)?,
            valid_bits: zeroed((geo.pages as usize).div_ceil(64), "valid bitmap")?,
            free,
            active: vec![NO_BLOCK; (geo.planes * streams) as usize],
            cleaning_opened: vec![false; (geo.planes * streams) as usize],
            next_close_seq: 1,
            gc_reserve: 1,
            order: zeroed(nb, state)?,
            orders: Vec::new(),
            ranks: Vec::new(),
            stream_layout: vec![Vec::new(); streams as usize],
            layout_uses: zeroed(nb, state)?,
            unit: 1,
        };
        let sequential = (0..geo.pages_per_block).collect();
        m.add_order(sequential);
        Ok(m)
    }

    /// Hands out `pages` consecutive pages at a time (a mapping unit of several pages). Only
    /// with the sequential order: a layout permutes pages one by one.
    pub fn set_unit_pages(&mut self, pages: u32) {
        assert!(pages >= 1 && self.geo.pages_per_block % pages == 0, "a unit of {pages} pages must tile a block");
        assert!(pages == 1 || self.stream_layout.iter().all(|l| l.is_empty()), "block layouts place pages one by one");
        self.unit = pages;
    }

    /// Pages handed out at a time.
    pub fn unit_pages(&self) -> u32 {
        self.unit
    }

    /// Registers a page order (a permutation of a block's pages: the i-th entry is the page
    /// programmed i-th) and returns its index.
    pub fn add_order(&mut self, order: Vec<u32>) -> u8 {
        let n = self.geo.pages_per_block as usize;
        let mut rank = vec![u32::MAX; n];
        for (i, &p) in order.iter().enumerate() {
            assert!((p as usize) < n && rank[p as usize] == u32::MAX, "page order is not a permutation of the block's pages");
            rank[p as usize] = i as u32;
        }
        assert_eq!(order.len(), n, "page order is not a permutation of the block's pages");
        assert!(self.orders.len() < u8::MAX as usize, "too many page orders");
        self.orders.push(order);
        self.ranks.push(rank);
        (self.orders.len() - 1) as u8
    }

    /// Makes `stream` open its blocks with `orders` (indices from [`Self::add_order`]),
    /// taken in turn by each block's [`Self::layout_uses`].
    pub fn set_stream_layout(&mut self, stream: u32, orders: Vec<u8>) {
        assert!(orders.iter().all(|&o| (o as usize) < self.orders.len()), "unknown page order");
        self.stream_layout[stream as usize] = orders;
    }

    /// The page of `block` its `i`-th program goes to.
    #[inline]
    fn nth_page(&self, block: usize, i: u32) -> u32 {
        match self.order[block] {
            ORDER_SEQUENTIAL => i,
            o => self.orders[o as usize][i as usize],
        }
    }

    /// Place of `ppn` in its block's program order.
    #[inline]
    pub fn rank(&self, ppn: Ppn) -> u32 {
        let b = self.geo.block_of(ppn) as usize;
        let page = self.geo.page_in_block(ppn);
        match self.order[b] {
            ORDER_SEQUENTIAL => page,
            o => self.ranks[o as usize][page as usize],
        }
    }

    /// Pages of `block` already handed out, in order.
    pub fn is_allocated(&self, ppn: Ppn) -> bool {
        self.rank(ppn) < self.write_ptr[self.geo.block_of(ppn) as usize]
    }

    /// The next page `block` will hand out, if any.
    pub fn next_page(&self, block: u32) -> Option<u32> {
        let b = block as usize;
        (self.write_ptr[b] < self.geo.pages_per_block).then(|| self.nth_page(b, self.write_ptr[b]))
    }

    /// Opens a free block of `plane` for `stream` without handing out a page, so that a
    /// policy can see what its first page will be. `None` when the plane has no free block
    /// beyond the reserve (`privileged` may take the reserve).
    #[inline]
    pub fn open(&mut self, plane: u32, stream: u32, privileged: bool, picker: &mut dyn FreeBlockPicker) -> Option<u32> {
        let slot = (plane * self.streams + stream) as usize;
        if self.active[slot] != NO_BLOCK {
            return self.active_open_to(plane, slot, privileged).then_some(self.active[slot]);
        }
        self.open_new(plane, stream, privileged, picker)
    }

    /// Whether a write of `privileged` standing may take a page of the active block in
    /// `slot` (see `cleaning_opened`).
    #[inline(always)]
    fn active_open_to(&self, plane: u32, slot: usize, privileged: bool) -> bool {
        privileged || !self.cleaning_opened[slot] || self.free_count(plane) > self.gc_reserve
    }

    /// [`Self::open`] when `stream` has no active block in `plane`: takes a free one.
    #[inline(never)]
    fn open_new(&mut self, plane: u32, stream: u32, privileged: bool, picker: &mut dyn FreeBlockPicker) -> Option<u32> {
        let slot = (plane * self.streams + stream) as usize;
        let reserve = if privileged { 0 } else { self.gc_reserve };
        if self.free[plane as usize].len() as u32 <= reserve {
            return None;
        }
        let idx = picker.pick(&self.free[plane as usize], self);
        let block = self.free[plane as usize].swap_remove(idx);
        let b = block as usize;
        self.state[b] = BlockState::Active;
        self.stream_of[b] = stream as u8;
        self.active[slot] = block;
        self.cleaning_opened[slot] = privileged;
        let layout = &self.stream_layout[stream as usize];
        self.order[b] = if layout.is_empty() {
            ORDER_SEQUENTIAL
        } else {
            self.layout_uses[b] = self.layout_uses[b].wrapping_add(1);
            layout[self.layout_uses[b] as usize % layout.len()]
        };
        Some(block)
    }

    /// Hands `stream`'s active block in `plane` over to stream `to`, whose slot must be
    /// empty (a block that changes role half way, as two-phase blocks do).
    pub fn move_active(&mut self, plane: u32, stream: u32, to: u32) {
        let from = (plane * self.streams + stream) as usize;
        let slot = (plane * self.streams + to) as usize;
        debug_assert_eq!(self.active[slot], NO_BLOCK);
        let block = std::mem::replace(&mut self.active[from], NO_BLOCK);
        self.active[slot] = block;
        self.cleaning_opened[slot] = self.cleaning_opened[from];
        if block != NO_BLOCK {
            self.stream_of[block as usize] = to as u8;
        }
    }

    #[inline]
    pub fn free_count(&self, plane: u32) -> u32 {
        self.free[plane as usize].len() as u32
    }

    pub fn free_list(&self, plane: u32) -> &[u32] {
        &self.free[plane as usize]
    }

    #[inline]
    pub fn active(&self, plane: u32, stream: u32) -> u32 {
        self.active[(plane * self.streams + stream) as usize]
    }

    #[inline]
    pub fn is_valid(&self, ppn: Ppn) -> bool {
        self.valid_bits[(ppn / 64) as usize] >> (ppn % 64) & 1 == 1
    }

    /// Pages of `stream`'s active block in `plane` that a write of `privileged` standing may
    /// take now, without opening another block.
    #[inline(always)]
    pub fn room_for(&self, plane: u32, stream: u32, privileged: bool) -> u32 {
        let slot = (plane * self.streams + stream) as usize;
        match self.active[slot] {
            NO_BLOCK => 0,
            _ if !self.active_open_to(plane, slot, privileged) => 0,
            b => self.geo.pages_per_block - self.write_ptr[b as usize],
        }
    }

    /// Whether `stream` could get a page in `plane` now.
    #[inline(always)]
    pub fn can_allocate(&self, plane: u32, stream: u32, privileged: bool) -> bool {
        self.room_for(plane, stream, privileged) > 0 || self.free_count(plane) > if privileged { 0 } else { self.gc_reserve }
    }

    /// Hands out the next page of `stream`'s active block in `plane` (the first of the next
    /// unit's pages), opening a new block when needed. `privileged` (GC, wear levelling)
    /// may take the reserved free blocks.
    pub fn allocate(&mut self, plane: u32, stream: u32, privileged: bool, picker: &mut dyn FreeBlockPicker) -> Option<Ppn> {
        let slot = (plane * self.streams + stream) as usize;
        let block = self.open(plane, stream, privileged, picker)?;
        let b = block as usize;
        let page = self.nth_page(b, self.write_ptr[b]);
        self.write_ptr[b] += self.unit;
        if self.write_ptr[b] == self.geo.pages_per_block {
            self.state[b] = BlockState::Full;
            self.close_seq[b] = self.next_close_seq;
            self.next_close_seq += 1;
            self.active[slot] = NO_BLOCK;
        }
        Some(self.geo.ppn(block, page))
    }

    #[inline]
    pub fn set_valid(&mut self, ppn: Ppn, now: Time) {
        debug_assert!(!self.is_valid(ppn));
        self.valid_bits[(ppn / 64) as usize] |= 1 << (ppn % 64);
        let b = self.geo.block_of(ppn) as usize;
        self.valid[b] += 1;
        self.last_change[b] = now;
    }

    /// Marks a page's data stale. The block's age (`last_change`) is left alone: like the
    /// LFS cleaner's segment age, it is the time its youngest data was written.
    #[inline]
    pub fn invalidate(&mut self, ppn: Ppn, _now: Time) {
        debug_assert!(self.is_valid(ppn));
        self.valid_bits[(ppn / 64) as usize] &= !(1 << (ppn % 64));
        let b = self.geo.block_of(ppn) as usize;
        self.valid[b] -= 1;
    }

    /// Records that a page's program finished; pages of a block finish in order.
    #[inline]
    pub fn program_done(&mut self, ppn: Ppn) -> Result<(), String> {
        let b = self.geo.block_of(ppn) as usize;
        let page = self.geo.page_in_block(ppn);
        let expected = self.nth_page(b, self.programmed[b]);
        if page != expected {
            return Err(format!("block {b}: page {page} programmed out of order (next in order is {expected})"));
        }
        self.programmed[b] += 1;
        Ok(())
    }

    /// Whether `ppn` is the next page of its block to program: every page before it in the
    /// block's order has finished.
    #[inline]
    pub fn is_next_to_program(&self, ppn: Ppn) -> bool {
        self.rank(ppn) == self.programmed[self.geo.block_of(ppn) as usize]
    }

    /// Whether the data of `ppn` is on the flash yet (its program has finished).
    #[inline]
    pub fn is_programmed(&self, ppn: Ppn) -> bool {
        self.rank(ppn) < self.programmed[self.geo.block_of(ppn) as usize]
    }

    /// Whether a block can be cleaned: every page allocated and every program finished, so
    /// that no program to it is still queued when it is erased.
    #[inline]
    pub fn is_closed(&self, block: u32) -> bool {
        self.state[block as usize] == BlockState::Full && self.programmed[block as usize] == self.geo.pages_per_block
    }

    /// Whether an open block could be sealed now: some pages written, and every program
    /// handed out has finished.
    pub fn sealable(&self, block: u32) -> bool {
        let b = block as usize;
        self.state[b] == BlockState::Active && self.write_ptr[b] > 0 && self.programmed[b] == self.write_ptr[b]
    }

    /// Closes an open block before it is full, so that it can be relocated (a block that
    /// must be emptied, read disturbance say, whatever its fill). Its unwritten pages stay
    /// unused until its erase; returns how many, or `None` if it is not [`Self::sealable`].
    /// The plane opens another block for the stream at its next page.
    pub fn seal(&mut self, block: u32) -> Option<u32> {
        if !self.sealable(block) {
            return None;
        }
        let b = block as usize;
        let unused = self.geo.pages_per_block - self.write_ptr[b];
        let plane = self.geo.plane_of_block(block);
        let slot = (plane * self.streams + self.stream_of[b] as u32) as usize;
        debug_assert_eq!(self.active[slot], block);
        self.active[slot] = NO_BLOCK;
        self.state[b] = BlockState::Full;
        self.write_ptr[b] = self.geo.pages_per_block;
        self.programmed[b] = self.geo.pages_per_block;
        self.close_seq[b] = self.next_close_seq;
        self.next_close_seq += 1;
        Some(unused)
    }

    pub fn mark_victim(&mut self, block: u32) {
        debug_assert_eq!(self.state[block as usize], BlockState::Full);
        self.state[block as usize] = BlockState::Victim;
    }

    /// Returns an erased block to its plane's free pool; the erase adds `wear` to its
    /// effective wear.
    pub fn erase(&mut self, block: u32, wear: f32) {
        let b = block as usize;
        debug_assert_eq!(self.valid[b], 0);
        self.state[b] = BlockState::Free;
        self.write_ptr[b] = 0;
        self.programmed[b] = 0;
        self.order[b] = ORDER_SEQUENTIAL;
        self.erase_count[b] += 1;
        self.effective_wear[b] += wear;
        let plane = self.geo.plane_of_block(block);
        self.free[plane as usize].push(block);
    }

    /// Blocks of a plane, as a range of block numbers.
    pub fn plane_blocks(&self, plane: u32) -> std::ops::Range<u32> {
        let first = self.geo.first_block_of_plane(plane);
        first..first + self.geo.blocks_per_plane
    }

    /// Valid pages of a block, in page order.
    pub fn valid_pages(&self, block: u32) -> impl Iterator<Item = Ppn> + '_ {
        // Word by word, skipping empty words: blocks of tens of thousands of pages are
        // mostly scanned for a few valid ones (the invariant checker, GC of emptied blocks).
        let pages = self.geo.block_pages(block);
        let (start, end) = (pages.start, pages.end);
        (start / 64..end.div_ceil(64)).flat_map(move |w| {
            let lo = (w * 64).max(start);
            let hi = ((w + 1) * 64).min(end);
            let mut bits = self.valid_bits[w as usize] >> (lo - w * 64);
            if hi - lo < 64 {
                bits &= (1u64 << (hi - lo)) - 1;
            }
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = bits.trailing_zeros() as Ppn;
                    bits &= bits - 1;
                    lo + i
                })
            })
        })
    }

    /// Fills a block directly (preconditioning): marks it full with the given pages valid
    /// and programmed, without going through allocation. Call [`Self::rebuild_free_pools`]
    /// after the last one.
    pub fn fill_directly(&mut self, block: u32, valid_pages: &[u32], close_seq: u64) {
        let b = block as usize;
        debug_assert_eq!(self.state[b], BlockState::Free);
        self.state[b] = BlockState::Full;
        self.write_ptr[b] = self.geo.pages_per_block;
        self.programmed[b] = self.geo.pages_per_block;
        self.close_seq[b] = close_seq;
        self.next_close_seq = self.next_close_seq.max(close_seq + 1);
        // Bits set directly and the count once: a large drive fills billions of pages here.
        let first = self.geo.first_page(block);
        for &p in valid_pages {
            let ppn = first + p as Ppn;
            debug_assert!(!self.is_valid(ppn));
            self.valid_bits[(ppn / 64) as usize] |= 1 << (ppn % 64);
        }
        self.valid[b] += valid_pages.len() as u32;
        self.last_change[b] = 0;
    }

    /// Recomputes every plane's free pool from block states, in block order.
    pub fn rebuild_free_pools(&mut self) {
        for plane in 0..self.geo.planes {
            let blocks: Vec<u32> = self.plane_blocks(plane).filter(|&b| self.state[b as usize] == BlockState::Free).collect();
            self.free[plane as usize] = blocks;
        }
    }

    /// Total valid pages, counted from the bitmap (for the invariant checker).
    pub fn count_valid_bits(&self, block: u32) -> u32 {
        self.valid_pages(block).count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GeometryConfig;

    struct First;
    impl FreeBlockPicker for First {
        fn pick(&mut self, _free: &[u32], _blocks: &BlockManager) -> usize {
            0
        }
    }

    /// One plane of four blocks of 2 layers x 4 pages.
    fn manager() -> BlockManager {
        let g = GeometryConfig::one_plane(4, 8, 2);
        BlockManager::new(&Geometry::new(&g), 2).unwrap()
    }

    #[test]
    fn valid_pages_are_found_word_by_word_in_blocks_not_aligned_to_words() {
        // Blocks of 24 pages: block 3 spans pages 72-95, across a 64-bit word boundary.
        let geo = Geometry::new(&GeometryConfig::one_plane(8, 24, 1));
        let mut m = BlockManager::new(&geo, 1).unwrap();
        let valid = [72, 73, 100, 127, 128, 143];
        for p in valid {
            m.set_valid(p, 0);
        }
        assert_eq!(m.valid_pages(3).collect::<Vec<_>>(), vec![72, 73]);
        assert_eq!(m.valid_pages(4).collect::<Vec<_>>(), vec![100]);
        assert_eq!(m.valid_pages(5).collect::<Vec<_>>(), vec![127, 128, 143]);
        assert_eq!((0..8).map(|b| m.count_valid_bits(b)).sum::<u32>(), valid.len() as u32);
        assert_eq!(m.count_valid_bits(5), 3);
    }

    #[test]
    fn a_unit_of_several_pages_is_handed_out_whole_and_aligned() {
        let geo = Geometry::new(&GeometryConfig::one_plane(4, 8, 1));
        let mut m = BlockManager::new(&geo, 1).unwrap();
        m.set_unit_pages(4);
        let a = m.allocate(0, 0, false, &mut First).unwrap();
        let b = m.allocate(0, 0, false, &mut First).unwrap();
        assert_eq!((geo.page_in_block(a), geo.page_in_block(b)), (0, 4));
        assert_eq!(geo.block_of(a), geo.block_of(b));
        // Two units fill the block; the next opens another, at its first page.
        assert_eq!(m.room_for(0, 0, true), 0);
        let c = m.allocate(0, 0, false, &mut First).unwrap();
        assert_ne!(geo.block_of(c), geo.block_of(a));
        assert_eq!(geo.page_in_block(c), 0);
    }

    #[test]
    fn a_layout_takes_its_orders_in_turn_and_blocks_finish_in_their_own_order() {
        let mut m = manager();
        let odd_first = m.add_order(vec![1, 3, 5, 7, 0, 2, 4, 6]);
        let reversed = m.add_order((0..8).rev().collect());
        m.set_stream_layout(1, vec![odd_first, reversed]);
        let pages: Vec<Ppn> = (0..8).map(|_| m.allocate(0, 1, false, &mut First).unwrap()).collect();
        let block = m.geo.block_of(pages[0]);
        // First use: layout_uses 1, so the second order of the layout.
        let in_block: Vec<u32> = pages.iter().map(|&p| m.geo.page_in_block(p)).collect();
        assert_eq!(in_block, vec![7, 6, 5, 4, 3, 2, 1, 0]);
        // Programs must finish in the block's own order, not page order.
        assert!(m.program_done(m.geo.ppn(block, 0)).is_err());
        for &p in &pages {
            assert!(!m.is_programmed(p));
            m.program_done(p).unwrap();
            assert!(m.is_programmed(p));
        }
        assert!(m.is_closed(block));
        // Reused after an erase, the block takes the layout's other order.
        m.state[block as usize] = BlockState::Victim;
        m.erase(block, 1.0);
        let idx = m.free[0].iter().position(|&b| b == block).unwrap();
        m.free[0].swap(0, idx);
        let again: Vec<u32> = (0..2)
            .map(|_| {
                let p = m.allocate(0, 1, false, &mut First).unwrap();
                m.geo.page_in_block(p)
            })
            .collect();
        assert_eq!(again, vec![1, 3]);
        // A stream without a layout stays sequential and leaves the count alone.
        let seq = m.allocate(0, 0, false, &mut First).unwrap();
        assert_eq!(m.geo.page_in_block(seq), 0);
        assert_eq!(m.layout_uses[block as usize], 2);
    }

    #[test]
    #[should_panic(expected = "not a permutation")]
    fn a_page_order_must_be_a_permutation() {
        manager().add_order(vec![0, 0, 1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn an_active_block_changes_stream_half_way() {
        let mut m = manager();
        let p = m.allocate(0, 0, false, &mut First).unwrap();
        let block = m.geo.block_of(p);
        m.move_active(0, 0, 1);
        assert_eq!(m.active(0, 0), NO_BLOCK);
        assert_eq!(m.active(0, 1), block);
        assert_eq!(m.stream_of[block as usize], 1);
        let q = m.allocate(0, 1, false, &mut First).unwrap();
        assert_eq!(q, p + 1);
    }

    #[test]
    fn an_open_block_is_sealed_only_once_its_programs_are_done() {
        let mut m = manager();
        let p = m.allocate(0, 0, false, &mut First).unwrap();
        let q = m.allocate(0, 0, false, &mut First).unwrap();
        let block = m.geo.block_of(p);
        m.program_done(p).unwrap();
        // One program still in flight.
        assert!(!m.sealable(block));
        assert_eq!(m.seal(block), None);
        m.program_done(q).unwrap();
        assert_eq!(m.seal(block), Some(6));
        assert!(m.is_closed(block));
        assert_eq!(m.active(0, 0), NO_BLOCK);
        // The next page of the stream is in another block; a closed block is not sealed again.
        let r = m.allocate(0, 0, false, &mut First).unwrap();
        assert_ne!(m.geo.block_of(r), block);
        assert_eq!(m.seal(block), None);
    }
}
