//! The FTL's decisions, each behind a trait so that a technique replaces a policy rather
//! than engine code. Baselines (greedy, FIFO, static CWDP striping, ...) are policies too.

use crate::ftl::blocks::{BlockManager, FreeBlockPicker};
use crate::sim::Time;

/// Which block of a plane GC cleans next.
pub trait VictimSelector {
    /// A block of `plane` in state `Full`, or `None` if none is worth cleaning.
    fn select(&mut self, plane: u32, blocks: &BlockManager, now: Time) -> Option<u32> {
        self.select_among(plane, blocks, now, &|_| true)
    }

    /// As [`Self::select`], among the blocks `eligible` accepts (a scheme that cleans some
    /// blocks only when no other is worth it asks twice).
    fn select_among(&mut self, plane: u32, blocks: &BlockManager, now: Time, eligible: &dyn Fn(u32) -> bool) -> Option<u32>;
}

/// What the plane allocator may look at.
pub struct AllocContext<'a> {
    /// Transactions queued or running at each die.
    pub die_load: &'a [u32],
    /// Page writes queued at each plane's die that have not been given a page yet (pages
    /// bound at issue): room they will take.
    pub unbound: &'a [u32],
    pub blocks: &'a BlockManager,
    pub stream: u32,
}

/// Which plane a logical page is written to.
pub trait PlaneAllocator {
    fn plane_for(&mut self, lpn: u32, ctx: &AllocContext) -> u32;
    /// Whether the plane is a function of the logical page alone (static striping): then a
    /// write that finds its plane full waits for that plane instead of going elsewhere.
    fn is_static(&self) -> bool;
}

/// Wear levelling: which free block opens next, and which cold block static wear levelling
/// empties.
pub trait WearLeveler: FreeBlockPicker {
    /// After an erase in `plane`: a full block whose data should move so that its block can
    /// take hot data, or `None`.
    fn static_candidate(&mut self, plane: u32, blocks: &BlockManager) -> Option<u32>;
}
