//! The DRAM write buffer (write-back).
//!
//! A page written by the host takes a slot until its data is on the flash. A dirty page
//! rewritten before it is flushed is overwritten in place; a page rewritten while its flush
//! is in flight takes a second slot. Reads of any page held here are served from DRAM.

use std::collections::hash_map::Entry as MapEntry;
use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    dirty: bool,
    /// Flushes of this page whose program has not finished.
    inflight: u32,
    /// Bumped on each dirtying so that stale positions in the flush order are skipped.
    version: u32,
}

pub struct WriteBuffer {
    capacity: u64,
    used: u64,
    dirty: u64,
    entries: HashMap<u32, Entry>,
    /// Dirty pages in the order they were last written (oldest first), lazily pruned.
    order: VecDeque<(u32, u32)>,
}

/// What happened to a page the host wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Insert {
    /// It took a new slot.
    NewSlot,
    /// It replaced a dirty copy of itself.
    Overwrite,
    /// The buffer is full; the write must wait for a flush to finish.
    Full,
}

impl WriteBuffer {
    pub fn new(capacity_pages: u64) -> WriteBuffer {
        WriteBuffer { capacity: capacity_pages, used: 0, dirty: 0, entries: HashMap::default(), order: VecDeque::new() }
    }

    pub fn enabled(&self) -> bool {
        self.capacity > 0
    }

    pub fn is_full(&self) -> bool {
        self.used >= self.capacity
    }

    pub fn dirty_pages(&self) -> u64 {
        self.dirty
    }

    pub fn used_slots(&self) -> u64 {
        self.used
    }

    /// Pages whose flush has started but not finished.
    pub fn inflight_pages(&self) -> u64 {
        self.used - self.dirty
    }

    /// Whether the page's latest data is held in DRAM.
    #[inline]
    pub fn contains(&self, lpn: u32) -> bool {
        self.enabled() && self.entries.contains_key(&lpn)
    }

    pub fn insert(&mut self, lpn: u32) -> Insert {
        // One lookup: the page's entry, found or where it goes.
        let full = self.is_full();
        let e = match self.entries.entry(lpn) {
            MapEntry::Occupied(o) if o.get().dirty => return Insert::Overwrite,
            _ if full => return Insert::Full,
            slot => slot.or_default(),
        };
        e.dirty = true;
        e.version = e.version.wrapping_add(1);
        self.order.push_back((lpn, e.version));
        self.used += 1;
        self.dirty += 1;
        Insert::NewSlot
    }

    /// Takes up to `max` dirty pages, oldest first, marking them in flight.
    pub fn take_dirty(&mut self, max: u64, out: &mut Vec<u32>) {
        while (out.len() as u64) < max {
            let Some((lpn, version)) = self.order.pop_front() else { break };
            let Some(e) = self.entries.get_mut(&lpn) else { continue };
            if !e.dirty || e.version != version {
                continue;
            }
            e.dirty = false;
            e.inflight += 1;
            self.dirty -= 1;
            out.push(lpn);
        }
    }

    /// A flushed page's program finished: its slot is free again.
    pub fn flush_done(&mut self, lpn: u32) {
        if let MapEntry::Occupied(mut o) = self.entries.entry(lpn) {
            let e = o.get_mut();
            debug_assert!(e.inflight > 0);
            e.inflight -= 1;
            if !e.dirty && e.inflight == 0 {
                o.remove();
            }
        }
        self.used -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overwrite_in_place_until_flushed_then_new_slot() {
        let mut b = WriteBuffer::new(2);
        assert_eq!(b.insert(7), Insert::NewSlot);
        assert_eq!(b.insert(7), Insert::Overwrite);
        assert_eq!(b.used_slots(), 1);
        let mut out = vec![];
        b.take_dirty(10, &mut out);
        assert_eq!(out, vec![7]);
        assert!(b.contains(7), "in-flight data is still served from DRAM");
        assert_eq!(b.insert(7), Insert::NewSlot);
        assert_eq!(b.used_slots(), 2);
        assert_eq!(b.insert(8), Insert::Full);
        b.flush_done(7);
        assert!(b.contains(7));
        assert_eq!(b.dirty_pages(), 1);
        out.clear();
        b.take_dirty(10, &mut out);
        b.flush_done(7);
        assert!(!b.contains(7));
        assert_eq!(b.used_slots(), 0);
    }

    #[test]
    fn flush_order_is_oldest_write_first() {
        let mut b = WriteBuffer::new(10);
        for l in [1, 2, 3] {
            b.insert(l);
        }
        let mut out = vec![];
        b.take_dirty(2, &mut out);
        assert_eq!(out, vec![1, 2]);
    }
}
