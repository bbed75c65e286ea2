//! Translation-page traffic in flight: the reads of translation pages whose entries work
//! is waiting for, with that work, and the translation pages being written back.
//!
//! Indexed by translation page rather than hashed: on a workload that misses the cached
//! mapping table nearly always, every host page starts or joins a translation read, and a
//! table lookup is a load where a hash map pays a hash, a probe and a compare. The table
//! costs 4 bytes per translation page (1 MiB per TiB of logical space with 4 KiB mapping
//! units and 4 KiB translation pages; 64 KiB with 16 KiB pages of both).

/// A translation page's entry: the index of its waiter list in its low 31 bits, [`NONE`]
/// (all of them set) when no read of it is in flight, and above them the [`WRITING`] bit.
const INDEX: u32 = (1 << 31) - 1;
const NONE: u32 = INDEX;
/// A write of the page is on its way.
const WRITING: u32 = 1 << 31;

/// Translation reads in flight, each with the work waiting for it, and translation writes
/// in flight.
pub struct Translations<W> {
    /// Per translation page: the index of its waiter list in `lists` ([`NONE`]) and
    /// whether it is being written ([`WRITING`]).
    pages: Vec<u32>,
    /// Waiter lists; a list not in use is empty and its index is in `spare`.
    lists: Vec<Vec<W>>,
    spare: Vec<u32>,
}

impl<W> Translations<W> {
    pub fn new(translation_pages: usize) -> Translations<W> {
        Translations { pages: vec![NONE; translation_pages], lists: Vec::new(), spare: Vec::new() }
    }

    /// The work waiting for translation page `tvpn`, when a read of it is in flight.
    #[inline]
    pub fn waiting_for(&mut self, tvpn: u32) -> Option<&mut Vec<W>> {
        match self.pages[tvpn as usize] & INDEX {
            NONE => None,
            i => Some(&mut self.lists[i as usize]),
        }
    }

    /// A read of `tvpn` starts, for `first`.
    pub fn start_read(&mut self, tvpn: u32, first: W) {
        let entry = &mut self.pages[tvpn as usize];
        assert_eq!(*entry & INDEX, NONE, "translation page {tvpn} is already being read");
        let i = match self.spare.pop() {
            Some(i) => i,
            None => {
                // At most one list per read in flight: far fewer than the index can name.
                assert!(self.lists.len() < NONE as usize, "too many translation reads in flight");
                self.lists.push(Vec::new());
                (self.lists.len() - 1) as u32
            }
        };
        *entry = (*entry & WRITING) | i;
        debug_assert!(self.lists[i as usize].is_empty());
        self.lists[i as usize].push(first);
    }

    /// The read of `tvpn` finished: its waiters, in the order they came, moved into `into`
    /// (emptied first). None waited if no read of it was in flight.
    pub fn finish_read(&mut self, tvpn: u32, into: &mut Vec<W>) {
        into.clear();
        let entry = &mut self.pages[tvpn as usize];
        let i = *entry & INDEX;
        *entry |= NONE;
        if i != NONE {
            // Swapped rather than drained, so that both lists keep their memory.
            std::mem::swap(into, &mut self.lists[i as usize]);
            self.spare.push(i);
        }
    }

    /// Marks a write of `tvpn` on its way; false if one already is.
    #[inline]
    pub fn start_write(&mut self, tvpn: u32) -> bool {
        let entry = &mut self.pages[tvpn as usize];
        let fresh = *entry & WRITING == 0;
        *entry |= WRITING;
        fresh
    }

    /// The write of `tvpn` finished.
    #[inline]
    pub fn finish_write(&mut self, tvpn: u32) {
        self.pages[tvpn as usize] &= !WRITING;
    }

    /// Bytes of the per-translation-page table.
    pub fn table_bytes(&self) -> usize {
        self.pages.len() * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_come_back_in_order_and_lists_are_reused() {
        let mut t: Translations<u32> = Translations::new(100);
        assert!(t.waiting_for(7).is_none());
        t.start_read(7, 1);
        t.waiting_for(7).expect("reading").push(2);
        t.start_read(99, 10);
        let mut out = vec![55];
        t.finish_read(7, &mut out);
        assert_eq!(out, vec![1, 2]);
        assert!(t.waiting_for(7).is_none());
        // The freed list serves the next read, empty.
        t.start_read(3, 30);
        assert_eq!(t.lists.len(), 2);
        t.finish_read(3, &mut out);
        assert_eq!(out, vec![30]);
        t.finish_read(99, &mut out);
        assert_eq!(out, vec![10]);
        // A read that was never started has no waiters.
        t.finish_read(50, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    #[should_panic(expected = "already being read")]
    fn a_second_read_of_one_page_is_refused() {
        let mut t: Translations<u32> = Translations::new(4);
        t.start_read(2, 1);
        t.start_read(2, 2);
    }

    #[test]
    fn a_page_can_be_read_and_written_at_once() {
        let mut t: Translations<u32> = Translations::new(8);
        assert!(t.start_write(5));
        t.start_read(5, 1);
        assert!(!t.start_write(5));
        let mut out = Vec::new();
        t.finish_read(5, &mut out);
        assert_eq!(out, vec![1]);
        assert!(!t.start_write(5), "the write is still on its way");
        t.finish_write(5);
        assert!(t.waiting_for(5).is_none());
        assert!(t.start_write(5));
    }

    #[test]
    fn writes_are_marked_once_until_they_finish() {
        let mut t: Translations<u32> = Translations::new(130);
        assert!(t.start_write(129));
        assert!(!t.start_write(129));
        assert!(t.start_write(64));
        t.finish_write(129);
        assert!(t.start_write(129));
        assert!(!t.start_write(64));
        assert_eq!(t.table_bytes(), 130 * 4);
    }
}
