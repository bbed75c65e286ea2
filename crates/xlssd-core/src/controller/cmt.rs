//! The cached mapping table (CMT) of a demand-based page-mapping FTL: a bounded LRU cache
//! of logical-to-physical entries. Entries not cached live in translation pages on flash,
//! so a miss costs a flash read, and evicting a changed entry costs a translation-page
//! write.

use std::collections::VecDeque;

/// Bit of a state word that marks a changed entry; the other bits hold the entry's stamp
/// plus one (0 = not cached).
const DIRTY: u32 = 1 << 31;
const STAMP: u32 = DIRTY - 1;

pub struct Cmt {
    capacity: usize,
    len: usize,
    /// State word per logical page, indexed directly: one memory access answers whether an
    /// entry is cached. Allocated zeroed, so untouched parts of a large logical space cost
    /// no memory.
    state: Vec<u32>,
    /// Entries by last use, oldest first; a position whose stamp no longer matches the
    /// entry's is stale and skipped.
    order: VecDeque<(u32, u32)>,
}

impl Cmt {
    /// A table of `capacity_entries` entries over `logical_pages` logical pages.
    pub fn new(capacity_entries: u64, logical_pages: u64) -> Cmt {
        let capacity = capacity_entries.max(1) as usize;
        Cmt { capacity, len: 0, state: vec![0; logical_pages as usize], order: VecDeque::new() }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the entry is cached; a hit makes it the most recently used.
    pub fn touch(&mut self, lpn: u32) -> bool {
        let w = self.state[lpn as usize];
        if w == 0 {
            return false;
        }
        let stamp = ((w & STAMP) % STAMP) + 1;
        self.state[lpn as usize] = (w & DIRTY) | stamp;
        self.order.push_back((lpn, stamp));
        self.compact_if_needed();
        true
    }

    /// Marks a cached entry changed; returns false if it is not cached.
    pub fn mark_dirty(&mut self, lpn: u32) -> bool {
        let w = &mut self.state[lpn as usize];
        if *w == 0 {
            return false;
        }
        *w |= DIRTY;
        true
    }

    /// Caches an entry; returns the least recently used entry it pushed out, with whether
    /// that one had changed.
    pub fn insert(&mut self, lpn: u32, dirty: bool) -> Option<(u32, bool)> {
        let w = self.state[lpn as usize];
        if w != 0 {
            if dirty {
                self.state[lpn as usize] = w | DIRTY;
            }
            return None;
        }
        let evicted = if self.len >= self.capacity { self.evict() } else { None };
        self.state[lpn as usize] = 1 | if dirty { DIRTY } else { 0 };
        self.len += 1;
        self.order.push_back((lpn, 1));
        evicted
    }

    fn evict(&mut self) -> Option<(u32, bool)> {
        while let Some((lpn, stamp)) = self.order.pop_front() {
            let w = self.state[lpn as usize];
            if w != 0 && w & STAMP == stamp {
                self.state[lpn as usize] = 0;
                self.len -= 1;
                return Some((lpn, w & DIRTY != 0));
            }
        }
        None
    }

    /// Drops stale positions so that the order queue stays proportional to the cache.
    fn compact_if_needed(&mut self) {
        if self.order.len() > 2 * self.capacity + 64 {
            let state = &self.state;
            self.order.retain(|&(l, s)| state[l as usize] & STAMP == s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_entry_is_evicted_with_its_dirty_flag() {
        let mut c = Cmt::new(2, 16);
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
        let mut c = Cmt::new(4, 16);
        for l in 0..4 {
            c.insert(l, false);
        }
        for i in 0..100_000u32 {
            c.touch(i % 4);
        }
        assert!(c.order.len() <= 2 * 4 + 64 + 1);
        assert_eq!(c.insert(9, false).map(|(l, _)| l), Some(0));
    }
}
