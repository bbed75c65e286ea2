//! The block manager: per-block and per-page state, free-block pools and active blocks.
//!
//! State is struct-of-arrays indexed by block number (see [`crate::nand::Geometry`]) so that
//! scans over a plane's blocks, as victim selection does, stay in cache.

use crate::nand::Geometry;
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
    /// Order in which blocks became full (FIFO victim selection).
    pub close_seq: Vec<u64>,
    /// Time data was last written into the block (cost-benefit age).
    pub last_change: Vec<Time>,
    pub stream_of: Vec<u8>,
    valid_bits: Vec<u64>,
    free: Vec<Vec<u32>>,
    /// Active block per (plane, stream).
    active: Vec<u32>,
    next_close_seq: u64,
    /// Free blocks in each plane that only GC and static WL may take, so that cleaning
    /// never deadlocks for want of a block to copy into.
    pub gc_reserve: u32,
}

/// Picks which free block of a plane to open next.
pub trait FreeBlockPicker {
    /// Index into `free` (a plane's free-block list) of the block to open.
    fn pick(&mut self, free: &[u32], blocks: &BlockManager) -> usize;
}

impl BlockManager {
    pub fn new(geo: &Geometry, streams: u32) -> BlockManager {
        let nb = geo.blocks as usize;
        let mut free = Vec::with_capacity(geo.planes as usize);
        for plane in 0..geo.planes {
            let first = geo.first_block_of_plane(plane);
            free.push((first..first + geo.blocks_per_plane).collect());
        }
        BlockManager {
            geo: geo.clone(),
            streams,
            state: vec![BlockState::Free; nb],
            valid: vec![0; nb],
            write_ptr: vec![0; nb],
            programmed: vec![0; nb],
            erase_count: vec![0; nb],
            close_seq: vec![0; nb],
            last_change: vec![0; nb],
            stream_of: vec![0; nb],
            valid_bits: vec![0; (geo.pages as usize).div_ceil(64)],
            free,
            active: vec![NO_BLOCK; (geo.planes * streams) as usize],
            next_close_seq: 1,
            gc_reserve: 1,
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
    pub fn is_valid(&self, ppn: u32) -> bool {
        self.valid_bits[(ppn / 64) as usize] >> (ppn % 64) & 1 == 1
    }

    /// Pages a plane can still take without opening a block beyond the host's share.
    pub fn room_in_active(&self, plane: u32, stream: u32) -> u32 {
        match self.active(plane, stream) {
            NO_BLOCK => 0,
            b => self.geo.pages_per_block - self.write_ptr[b as usize],
        }
    }

    /// Whether `stream` could get a page in `plane` now.
    pub fn can_allocate(&self, plane: u32, stream: u32, privileged: bool) -> bool {
        self.room_in_active(plane, stream) > 0 || self.free_count(plane) > if privileged { 0 } else { self.gc_reserve }
    }

    /// Hands out the next page of `stream`'s active block in `plane`, opening a new block
    /// when needed. `privileged` (GC, wear levelling) may take the reserved free blocks.
    pub fn allocate(
        &mut self,
        plane: u32,
        stream: u32,
        privileged: bool,
        picker: &mut dyn FreeBlockPicker,
    ) -> Option<u32> {
        let slot = (plane * self.streams + stream) as usize;
        let mut block = self.active[slot];
        if block == NO_BLOCK {
            let reserve = if privileged { 0 } else { self.gc_reserve };
            if self.free[plane as usize].len() as u32 <= reserve {
                return None;
            }
            let idx = picker.pick(&self.free[plane as usize], self);
            block = self.free[plane as usize].swap_remove(idx);
            self.state[block as usize] = BlockState::Active;
            self.stream_of[block as usize] = stream as u8;
            self.active[slot] = block;
        }
        let b = block as usize;
        let page = self.write_ptr[b];
        self.write_ptr[b] += 1;
        if self.write_ptr[b] == self.geo.pages_per_block {
            self.state[b] = BlockState::Full;
            self.close_seq[b] = self.next_close_seq;
            self.next_close_seq += 1;
            self.active[slot] = NO_BLOCK;
        }
        Some(self.geo.ppn(block, page))
    }

    #[inline]
    pub fn set_valid(&mut self, ppn: u32, now: Time) {
        debug_assert!(!self.is_valid(ppn));
        self.valid_bits[(ppn / 64) as usize] |= 1 << (ppn % 64);
        let b = self.geo.block_of(ppn) as usize;
        self.valid[b] += 1;
        self.last_change[b] = now;
    }

    /// Marks a page's data stale. The block's age (`last_change`) is left alone: like the
    /// LFS cleaner's segment age, it is the time its youngest data was written.
    #[inline]
    pub fn invalidate(&mut self, ppn: u32, _now: Time) {
        debug_assert!(self.is_valid(ppn));
        self.valid_bits[(ppn / 64) as usize] &= !(1 << (ppn % 64));
        let b = self.geo.block_of(ppn) as usize;
        self.valid[b] -= 1;
    }

    /// Records that a page's program finished; pages of a block finish in order.
    #[inline]
    pub fn program_done(&mut self, ppn: u32) -> Result<(), String> {
        let b = self.geo.block_of(ppn) as usize;
        let page = self.geo.page_in_block(ppn);
        if page != self.programmed[b] {
            return Err(format!(
                "block {b}: page {page} programmed out of order (next in order is {})",
                self.programmed[b]
            ));
        }
        self.programmed[b] += 1;
        Ok(())
    }

    /// Whether the data of `ppn` is on the flash yet (its program has finished).
    #[inline]
    pub fn is_programmed(&self, ppn: u32) -> bool {
        self.geo.page_in_block(ppn) < self.programmed[self.geo.block_of(ppn) as usize]
    }

    /// Whether a block can be cleaned: every page allocated and every program finished, so
    /// that no program to it is still queued when it is erased.
    #[inline]
    pub fn is_closed(&self, block: u32) -> bool {
        self.state[block as usize] == BlockState::Full && self.programmed[block as usize] == self.geo.pages_per_block
    }

    pub fn mark_victim(&mut self, block: u32) {
        debug_assert_eq!(self.state[block as usize], BlockState::Full);
        self.state[block as usize] = BlockState::Victim;
    }

    /// Returns an erased block to its plane's free pool.
    pub fn erase(&mut self, block: u32) {
        let b = block as usize;
        debug_assert_eq!(self.valid[b], 0);
        self.state[b] = BlockState::Free;
        self.write_ptr[b] = 0;
        self.programmed[b] = 0;
        self.erase_count[b] += 1;
        let plane = self.geo.plane_of_block(block);
        self.free[plane as usize].push(block);
    }

    /// Blocks of a plane, as a range of block numbers.
    pub fn plane_blocks(&self, plane: u32) -> std::ops::Range<u32> {
        let first = self.geo.first_block_of_plane(plane);
        first..first + self.geo.blocks_per_plane
    }

    /// Valid pages of a block, in page order.
    pub fn valid_pages(&self, block: u32) -> impl Iterator<Item = u32> + '_ {
        let first = self.geo.ppn(block, 0);
        (first..first + self.geo.pages_per_block).filter(move |&p| self.is_valid(p))
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
        for &p in valid_pages {
            self.set_valid(self.geo.ppn(block, p), 0);
        }
    }

    /// Recomputes every plane's free pool from block states, in block order.
    pub fn rebuild_free_pools(&mut self) {
        for plane in 0..self.geo.planes {
            let blocks: Vec<u32> =
                self.plane_blocks(plane).filter(|&b| self.state[b as usize] == BlockState::Free).collect();
            self.free[plane as usize] = blocks;
        }
    }

    /// Total valid pages, counted from the bitmap (for the invariant checker).
    pub fn count_valid_bits(&self, block: u32) -> u32 {
        self.valid_pages(block).count() as u32
    }
}
