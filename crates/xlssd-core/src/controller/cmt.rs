//! The cached mapping table (CMT) of a demand-based page-mapping FTL: a bounded LRU cache
//! of logical-to-physical entries. Entries not cached live in translation pages on flash,
//! so a miss costs a flash read, and evicting a changed entry costs a translation-page
//! write.
//!
//! The entries sit in an open-addressed table whose slot for a logical page is known before
//! the page is looked up, so the engine can fetch it from memory while the request waits
//! for its arrival ([`Cmt::prefetch`]): on a workload that misses nearly always, the table
//! (megabytes, read at random) otherwise stalls the simulation on every request. The
//! recency order is a queue of (page, stamp) positions in which a page's older positions are
//! skipped, so the order costs no pointer chasing either.

use std::collections::VecDeque;

/// A slot's key when the slot is empty: slots hold a logical page plus one, so that the
/// table can be allocated zeroed (and backed by huge pages from its first touch). Logical
/// pages are numbered below 2^32 - 1 (the mapping's entries are 32 bits).
const EMPTY: u32 = 0;

/// One slot: a logical page (plus one) and its state, the stamp of its latest position in
/// the recency queue (31 bits) above a changed bit.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
struct Slot {
    key: u32,
    state: u32,
}

// SAFETY: two integers; all-zero bytes are an empty slot.
unsafe impl crate::limits::alloc::Zeroable for Slot {}

fn key(lpn: u32) -> u32 {
    debug_assert_ne!(lpn, u32::MAX, "logical page {lpn} has no key");
    lpn.wrapping_add(1)
}

impl Slot {
    fn dirty(self) -> bool {
        self.state & 1 != 0
    }

    fn stamp(self) -> u32 {
        self.state >> 1
    }
}

/// Positions further along the recency queue than this have their slots fetched ahead of
/// their eviction.
const EVICT_LOOKAHEAD: usize = 8;

pub struct Cmt {
    capacity: usize,
    len: usize,
    /// Slots, a power of two at least twice the capacity, so that probe runs stay short.
    slots: Vec<Slot>,
    mask: usize,
    shift: u32,
    /// Positions by last use, oldest first; a position whose stamp is no longer its page's
    /// is stale and skipped.
    order: VecDeque<(u32, u32)>,
}

/// Slots of the table of a cache of `capacity` entries: a power of two at least twice as
/// many, so that probe runs stay short.
pub fn slots_for(capacity: usize) -> usize {
    (2 * capacity).next_power_of_two().max(16)
}

/// Positions the recency queue may hold for a cache of `capacity` entries before it is
/// compacted.
pub fn max_queued(capacity: usize) -> usize {
    2 * capacity + 64
}

impl Cmt {
    pub fn new(capacity_entries: u64) -> crate::error::Result<Cmt> {
        let capacity = capacity_entries.clamp(1, 1 << 31) as usize;
        let size = slots_for(capacity);
        let mut slots = crate::limits::alloc::zeroed(size, "cached mapping table")?;
        crate::limits::alloc::advise_huge_pages(&mut slots);
        Ok(Cmt { capacity, len: 0, slots, mask: size - 1, shift: 64 - size.trailing_zeros(), order: VecDeque::new() })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Slots of the table (its memory is eight bytes each).
    pub fn slots_len(&self) -> usize {
        self.slots.len()
    }

    /// The slot a page's probe starts at: Fibonacci hashing, which spreads consecutive pages
    /// over the table.
    #[inline]
    fn home(&self, lpn: u32) -> usize {
        ((lpn as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// The slot holding `lpn`, if it is cached.
    #[inline]
    fn find(&self, lpn: u32) -> Option<usize> {
        let key = key(lpn);
        let mut i = self.home(lpn);
        loop {
            let s = self.slots[i];
            if s.key == key {
                return Some(i);
            }
            if s.key == EMPTY {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Starts fetching the memory `lpn`'s lookup will read.
    #[inline]
    pub fn prefetch(&self, lpn: u32) {
        crate::sim::prefetch(&self.slots[self.home(lpn)]);
    }

    /// Whether the entry is cached; a hit makes it the most recently used.
    pub fn touch(&mut self, lpn: u32) -> bool {
        match self.find(lpn) {
            Some(i) => {
                let s = &mut self.slots[i];
                s.state = s.state.wrapping_add(2);
                let stamp = s.stamp();
                self.order.push_back((lpn, stamp));
                self.compact_if_needed();
                true
            }
            None => false,
        }
    }

    /// Marks a cached entry changed; returns false if it is not cached.
    pub fn mark_dirty(&mut self, lpn: u32) -> bool {
        match self.find(lpn) {
            Some(i) => {
                self.slots[i].state |= 1;
                true
            }
            None => false,
        }
    }

    /// Caches an entry; returns the least recently used entry it pushed out, with whether
    /// that one had changed.
    pub fn insert(&mut self, lpn: u32, dirty: bool) -> Option<(u32, bool)> {
        if let Some(i) = self.find(lpn) {
            self.slots[i].state |= dirty as u32;
            return None;
        }
        let evicted = if self.len >= self.capacity { self.evict() } else { None };
        // The probe is walked again: an eviction may have shifted slots on its path.
        let mut i = self.home(lpn);
        while self.slots[i].key != EMPTY {
            i = (i + 1) & self.mask;
        }
        self.slots[i] = Slot { key: key(lpn), state: dirty as u32 };
        self.len += 1;
        self.order.push_back((lpn, 0));
        evicted
    }

    fn evict(&mut self) -> Option<(u32, bool)> {
        while let Some((lpn, stamp)) = self.order.pop_front() {
            if let Some(&(ahead, _)) = self.order.get(EVICT_LOOKAHEAD) {
                self.prefetch(ahead);
            }
            if let Some(i) = self.find(lpn) {
                let s = self.slots[i];
                if s.stamp() == stamp {
                    self.remove_at(i);
                    return Some((lpn, s.dirty()));
                }
            }
        }
        None
    }

    /// Empties slot `i`, moving later slots of the probe run back so that every cached page
    /// stays reachable from its home slot without tombstones.
    fn remove_at(&mut self, mut hole: usize) {
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask;
            let s = self.slots[j];
            if s.key == EMPTY {
                break;
            }
            let home = self.home(s.key - 1);
            // The slot may fill the hole if its home is not cyclically inside (hole, j].
            let home_after_hole = (home.wrapping_sub(hole + 1) & self.mask) < (j.wrapping_sub(hole) & self.mask);
            if !home_after_hole {
                self.slots[hole] = s;
                hole = j;
            }
        }
        self.slots[hole] = Slot::default();
        self.len -= 1;
    }

    /// Drops stale positions so that the order queue stays proportional to the cache.
    fn compact_if_needed(&mut self) {
        if self.order.len() > max_queued(self.capacity) {
            let mut order = std::mem::take(&mut self.order);
            order.retain(|&(l, s)| self.find(l).is_some_and(|i| self.slots[i].stamp() == s));
            self.order = order;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_entry_is_evicted_with_its_dirty_flag() {
        let mut c = Cmt::new(2).unwrap();
        assert_eq!(c.insert(1, false), None);
        assert_eq!(c.insert(2, true), None);
        assert!(c.touch(1));
        assert_eq!(c.insert(3, false), Some((2, true)));
        assert!(!c.touch(2));
        assert!(c.mark_dirty(1));
        assert_eq!(c.insert(4, false), Some((1, true)));
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn order_queue_stays_bounded_under_hits() {
        let mut c = Cmt::new(4).unwrap();
        for l in 0..4 {
            c.insert(l, false);
        }
        for i in 0..100_000u32 {
            c.touch(i % 4);
        }
        assert!(c.order.len() <= 2 * 4 + 64 + 1);
        assert_eq!(c.insert(9, false).map(|(l, _)| l), Some(0));
    }

    /// The reference: a list ordered by last use, most recent last.
    struct Lru {
        capacity: usize,
        entries: Vec<(u32, bool)>,
    }

    impl Lru {
        fn touch(&mut self, lpn: u32) -> bool {
            match self.entries.iter().position(|&(l, _)| l == lpn) {
                Some(i) => {
                    let e = self.entries.remove(i);
                    self.entries.push(e);
                    true
                }
                None => false,
            }
        }

        fn mark_dirty(&mut self, lpn: u32) -> bool {
            self.entries.iter_mut().find(|(l, _)| *l == lpn).map(|e| e.1 = true).is_some()
        }

        fn insert(&mut self, lpn: u32, dirty: bool) -> Option<(u32, bool)> {
            if let Some(e) = self.entries.iter_mut().find(|(l, _)| *l == lpn) {
                e.1 |= dirty;
                return None;
            }
            let evicted = (self.entries.len() >= self.capacity).then(|| self.entries.remove(0));
            self.entries.push((lpn, dirty));
            evicted
        }
    }

    #[test]
    fn agrees_with_a_plain_lru_list_under_collisions_and_removals() {
        // Pages drawn from a small range (so probe runs collide, wrap around the table and
        // are shifted back on removal) and from a wide one, with hits, misses and changes.
        for capacity in [1usize, 3, 8, 50] {
            let mut c = Cmt::new(capacity as u64).unwrap();
            let mut r = Lru { capacity, entries: Vec::new() };
            let mut x: u64 = 0x2545_f491_4f6c_dd1d ^ capacity as u64;
            for step in 0..40_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let lpn = if step % 3 == 0 { (x >> 40) as u32 } else { (x % (3 * capacity as u64 + 5)) as u32 };
                match x % 4 {
                    0 => assert_eq!(c.touch(lpn), r.touch(lpn), "touch {lpn} at step {step}"),
                    1 => assert_eq!(c.mark_dirty(lpn), r.mark_dirty(lpn), "mark {lpn} at step {step}"),
                    _ => {
                        let dirty = x & 16 != 0;
                        assert_eq!(c.insert(lpn, dirty), r.insert(lpn, dirty), "insert {lpn} at step {step}");
                    }
                }
                assert_eq!(c.len(), r.entries.len());
            }
            for &(lpn, _) in &r.entries {
                assert!(c.find(lpn).is_some(), "cached page {lpn} unreachable from its home slot");
            }
        }
    }
}
