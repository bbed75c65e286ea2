//! The directory of an SSD used as a cache in front of a disk: which disk pages the SSD
//! holds, in which of its slots (a slot is one SSD logical page), in least-recently-used
//! order, and which hold data the disk does not have yet (dirty).
//!
//! - A read hit makes the page the most recently used; a miss is admitted into a free slot,
//!   or into the least recently used one, whose page is evicted (a dirty one must first be
//!   read from the SSD, fully corrected, and written to the disk: the caller's part).
//! - Writes follow the write policy: `write-back` writes the SSD only and marks the page
//!   dirty; `write-through` writes both, the cached copy clean; `write-around` writes the
//!   disk only and drops a cached copy, which would be stale.
//!
//! Memory: about 40 bytes per slot (map entry, page, recency links, flag), whatever the
//! disk's size.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// How writes reach the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    WriteBack,
    WriteThrough,
    WriteAround,
}

const NONE: u32 = u32::MAX;
const NO_PAGE: u64 = u64::MAX;

/// A page leaving the cache to make room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eviction {
    pub slot: u32,
    pub page: u64,
    /// The disk lacks its latest data: it must be written back first.
    pub dirty: bool,
}

/// What a write does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteAction {
    /// Write the SSD's `slot` (and the disk too with `to_disk`); `evicted` made room.
    Cache { slot: u32, evicted: Option<Eviction>, to_disk: bool },
    /// Write the disk only; `dropped` is the slot of the cached copy given up.
    Disk { dropped: Option<u32> },
}

pub struct Directory {
    map: FxHashMap<u64, u32>,
    page: Vec<u64>,
    dirty: Vec<bool>,
    /// The recency list: `prev` towards the most recently used end.
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Most and least recently used slots.
    head: u32,
    tail: u32,
    free: Vec<u32>,
}

impl Directory {
    pub fn new(slots: u32) -> Directory {
        let n = slots as usize;
        Directory {
            map: FxHashMap::default(),
            page: vec![NO_PAGE; n],
            dirty: vec![false; n],
            prev: vec![NONE; n],
            next: vec![NONE; n],
            head: NONE,
            tail: NONE,
            // Slots are handed out from 0 up.
            free: (0..slots).rev().collect(),
        }
    }

    /// A directory of `slots`, full when `warm`: slot `i` holding page `i` (of the `pages`
    /// the disk has), clean, slot 0 the least recently used.
    pub fn new_warm(slots: u32, warm: bool, pages: u64) -> Directory {
        let mut d = Directory::new(slots);
        if warm {
            for page in 0..(slots as u64).min(pages) {
                d.admit(page);
            }
        }
        d
    }

    pub fn slots(&self) -> u32 {
        self.page.len() as u32
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn slot_of(&self, page: u64) -> Option<u32> {
        self.map.get(&page).copied()
    }

    pub fn page_in(&self, slot: u32) -> Option<u64> {
        let p = self.page[slot as usize];
        (p != NO_PAGE).then_some(p)
    }

    pub fn is_dirty(&self, slot: u32) -> bool {
        self.dirty[slot as usize]
    }

    /// Cached pages the disk lacks the latest data of.
    pub fn dirty_pages(&self) -> usize {
        self.dirty.iter().filter(|&&d| d).count()
    }

    /// Slots from the most to the least recently used.
    pub fn by_recency(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len());
        let mut s = self.head;
        while s != NONE {
            out.push(s);
            s = self.next[s as usize];
        }
        out
    }

    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NONE {
            self.head = n
        } else {
            self.next[p as usize] = n
        }
        if n == NONE {
            self.tail = p
        } else {
            self.prev[n as usize] = p
        }
        self.prev[s as usize] = NONE;
        self.next[s as usize] = NONE;
    }

    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NONE;
        self.next[s as usize] = self.head;
        if self.head != NONE {
            self.prev[self.head as usize] = s;
        }
        self.head = s;
        if self.tail == NONE {
            self.tail = s;
        }
    }

    /// A read of `page`: its slot if cached (now the most recently used).
    pub fn read(&mut self, page: u64) -> Option<u32> {
        let s = self.slot_of(page)?;
        self.unlink(s);
        self.push_front(s);
        Some(s)
    }

    /// Takes a slot for `page` (not cached): a free one, or the least recently used one,
    /// whose page is evicted. The new page is the most recently used, clean. None for a
    /// cache of no slots.
    pub fn admit(&mut self, page: u64) -> Option<(u32, Option<Eviction>)> {
        debug_assert!(!self.map.contains_key(&page), "page {page} admitted twice");
        let (slot, evicted) = match self.free.pop() {
            Some(s) => (s, None),
            None => {
                let s = self.tail;
                if s == NONE {
                    return None;
                }
                let old = self.page[s as usize];
                self.map.remove(&old);
                self.unlink(s);
                (s, Some(Eviction { slot: s, page: old, dirty: self.dirty[s as usize] }))
            }
        };
        self.page[slot as usize] = page;
        self.dirty[slot as usize] = false;
        self.map.insert(page, slot);
        self.push_front(slot);
        Some((slot, evicted))
    }

    /// Gives up the cached copy of `page` (stale, or unreadable): its slot becomes free.
    pub fn drop_page(&mut self, page: u64) -> Option<u32> {
        let s = self.map.remove(&page)?;
        self.unlink(s);
        self.page[s as usize] = NO_PAGE;
        self.dirty[s as usize] = false;
        self.free.push(s);
        Some(s)
    }

    /// The data of `slot` reached the disk.
    pub fn cleaned(&mut self, slot: u32) {
        self.dirty[slot as usize] = false;
    }

    /// A write of `page` under `policy`.
    pub fn write(&mut self, page: u64, policy: WritePolicy) -> WriteAction {
        if policy == WritePolicy::WriteAround {
            return WriteAction::Disk { dropped: self.drop_page(page) };
        }
        let (slot, evicted) = match self.read(page) {
            Some(s) => (s, None),
            None => match self.admit(page) {
                Some(taken) => taken,
                None => return WriteAction::Disk { dropped: None },
            },
        };
        let back = policy == WritePolicy::WriteBack;
        self.dirty[slot as usize] = back;
        WriteAction::Cache { slot, evicted, to_disk: !back }
    }

    /// Checks the map, the list and the free slots against each other.
    pub fn check(&self) -> Result<(), String> {
        let order = self.by_recency();
        if order.len() != self.map.len() || order.len() + self.free.len() != self.page.len() {
            return Err(format!(
                "{} slots listed, {} mapped, {} free of {}",
                order.len(),
                self.map.len(),
                self.free.len(),
                self.page.len()
            ));
        }
        for &s in &order {
            let p = self.page[s as usize];
            if self.map.get(&p) != Some(&s) {
                return Err(format!("slot {s} holds page {p}, which the map puts elsewhere"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_pages_leave_first() {
        let mut d = Directory::new(3);
        for p in [10, 11, 12] {
            assert_eq!(d.admit(p).unwrap().1, None);
        }
        assert_eq!(d.read(10), Some(0)); // 10 is now the most recent; 11 the least
        assert_eq!(d.read(99), None);
        let (slot, ev) = d.admit(13).unwrap();
        assert_eq!(ev, Some(Eviction { slot: 1, page: 11, dirty: false }));
        assert_eq!(slot, 1);
        assert_eq!(d.by_recency(), vec![1, 0, 2]); // 13, 10, 12
        assert_eq!(d.slot_of(11), None);
        assert!(d.check().is_ok());
    }

    #[test]
    fn write_back_marks_dirty_and_eviction_says_so() {
        let mut d = Directory::new(2);
        assert_eq!(d.write(1, WritePolicy::WriteBack), WriteAction::Cache { slot: 0, evicted: None, to_disk: false });
        assert!(d.is_dirty(0));
        d.write(2, WritePolicy::WriteBack);
        // A read makes 1 recent; admitting 3 evicts the dirty 2.
        d.read(1);
        let (_, ev) = d.admit(3).unwrap();
        assert_eq!(ev, Some(Eviction { slot: 1, page: 2, dirty: true }));
        // Cleaned once written back.
        d.cleaned(0);
        assert!(!d.is_dirty(0));
        // A write hit dirties it again and moves it to the front.
        assert_eq!(d.write(1, WritePolicy::WriteBack), WriteAction::Cache { slot: 0, evicted: None, to_disk: false });
        assert!(d.is_dirty(0));
        assert_eq!(d.by_recency()[0], 0);
    }

    #[test]
    fn write_through_writes_both_and_keeps_clean() {
        let mut d = Directory::new(2);
        assert_eq!(d.write(7, WritePolicy::WriteThrough), WriteAction::Cache { slot: 0, evicted: None, to_disk: true });
        assert!(!d.is_dirty(0));
        assert_eq!(d.write(7, WritePolicy::WriteThrough), WriteAction::Cache { slot: 0, evicted: None, to_disk: true });
    }

    #[test]
    fn write_around_goes_to_the_disk_and_drops_the_stale_copy() {
        let mut d = Directory::new(2);
        d.admit(5).unwrap();
        assert_eq!(d.write(5, WritePolicy::WriteAround), WriteAction::Disk { dropped: Some(0) });
        assert_eq!(d.slot_of(5), None);
        assert_eq!(d.write(6, WritePolicy::WriteAround), WriteAction::Disk { dropped: None });
        assert!(d.is_empty());
        // The freed slot is used again.
        assert_eq!(d.admit(8).unwrap(), (0, None));
        assert!(d.check().is_ok());
    }

    #[test]
    fn a_dropped_unreadable_copy_frees_its_slot() {
        let mut d = Directory::new(1);
        d.admit(1).unwrap();
        assert_eq!(d.drop_page(1), Some(0));
        assert_eq!(d.drop_page(1), None);
        assert_eq!(d.admit(2).unwrap(), (0, None));
        // No slots at all: nothing is admitted, writes go to the disk.
        let mut none = Directory::new(0);
        assert_eq!(none.admit(1), None);
        assert_eq!(none.write(1, WritePolicy::WriteBack), WriteAction::Disk { dropped: None });
    }

    #[test]
    fn random_use_keeps_the_structure_whole() {
        let mut d = Directory::new(16);
        let mut x = 7u64;
        for i in 0..5_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let page = (x >> 33) % 40;
            match i % 4 {
                0 => {
                    if d.read(page).is_none() {
                        d.admit(page);
                    }
                }
                1 => {
                    d.write(page, WritePolicy::WriteBack);
                }
                2 => {
                    d.write(page, WritePolicy::WriteAround);
                }
                _ => {
                    d.drop_page(page);
                }
            }
            assert!(d.check().is_ok(), "after step {i}");
        }
    }
}
