//! The cached mapping table (CMT) of a demand-based page-mapping FTL: a bounded LRU cache
//! of logical-to-physical entries. Entries not cached live in translation pages on flash,
//! so a miss costs a flash read, and evicting a changed entry costs a translation-page
//! write.

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;

#[derive(Debug, Clone, Copy)]
struct Entry {
    dirty: bool,
    stamp: u32,
}

pub struct Cmt {
    capacity: usize,
    entries: HashMap<u32, Entry>,
    /// Entries by last use, oldest first, with stale positions skipped lazily.
    order: VecDeque<(u32, u32)>,
}

impl Cmt {
    pub fn new(capacity_entries: u64) -> Cmt {
        let capacity = capacity_entries.max(1) as usize;
        Cmt { capacity, entries: HashMap::with_capacity_and_hasher(capacity.min(1 << 20), Default::default()), order: VecDeque::new() }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the entry is cached; a hit makes it the most recently used.
    pub fn touch(&mut self, lpn: u32) -> bool {
        match self.entries.get_mut(&lpn) {
            Some(e) => {
                e.stamp = e.stamp.wrapping_add(1);
                self.order.push_back((lpn, e.stamp));
                self.compact_if_needed();
                true
            }
            None => false,
        }
    }

    /// Marks a cached entry changed; returns false if it is not cached.
    pub fn mark_dirty(&mut self, lpn: u32) -> bool {
        match self.entries.get_mut(&lpn) {
            Some(e) => {
                e.dirty = true;
                true
            }
            None => false,
        }
    }

    /// Caches an entry; returns the least recently used entry it pushed out, with whether
    /// that one had changed.
    pub fn insert(&mut self, lpn: u32, dirty: bool) -> Option<(u32, bool)> {
        if let Some(e) = self.entries.get_mut(&lpn) {
            e.dirty |= dirty;
            return None;
        }
        let evicted = if self.entries.len() >= self.capacity { self.evict() } else { None };
        self.entries.insert(lpn, Entry { dirty, stamp: 0 });
        self.order.push_back((lpn, 0));
        evicted
    }

    fn evict(&mut self) -> Option<(u32, bool)> {
        while let Some((lpn, stamp)) = self.order.pop_front() {
            if let Some(e) = self.entries.get(&lpn) {
                if e.stamp == stamp {
                    let dirty = e.dirty;
                    self.entries.remove(&lpn);
                    return Some((lpn, dirty));
                }
            }
        }
        None
    }

    /// Drops stale positions so that the order queue stays proportional to the cache.
    fn compact_if_needed(&mut self) {
        if self.order.len() > 2 * self.capacity + 64 {
            let entries = &self.entries;
            self.order.retain(|(l, s)| entries.get(l).is_some_and(|e| e.stamp == *s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_entry_is_evicted_with_its_dirty_flag() {
        let mut c = Cmt::new(2);
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
        let mut c = Cmt::new(4);
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
