//! Extra copies: physical pages that hold a logical page's data beside the page its mapping
//! entry points at (replicas that spread the reads of read-hot data over several blocks).
//! A copy is valid data on flash like any other page, with the logical page as its owner in
//! the reverse map, but the forward map does not point at it. It dies when the host writes
//! the logical page or when its block is cleaned, and it may be promoted to be the mapped
//! page. Kept in a hash map by logical page: only the few pages that have copies cost
//! memory.

use rustc_hash::FxHashMap;

use crate::nand::Ppn;

#[derive(Default)]
pub struct ExtraCopies {
    by_lpn: FxHashMap<u32, Vec<Ppn>>,
    len: u64,
    peak: u64,
}

impl ExtraCopies {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies alive now, and the most ever alive at once.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn peak(&self) -> u64 {
        self.peak
    }

    pub fn add(&mut self, lpn: u32, ppn: Ppn) {
        let v = self.by_lpn.entry(lpn).or_default();
        debug_assert!(!v.contains(&ppn), "page {ppn} is a copy of logical page {lpn} twice");
        v.push(ppn);
        self.len += 1;
        self.peak = self.peak.max(self.len);
    }

    /// The copies of `lpn`.
    pub fn of(&self, lpn: u32) -> &[Ppn] {
        self.by_lpn.get(&lpn).map_or(&[], Vec::as_slice)
    }

    pub fn contains(&self, lpn: u32, ppn: Ppn) -> bool {
        self.of(lpn).contains(&ppn)
    }

    /// Forgets one copy; false if it was none.
    pub fn remove(&mut self, lpn: u32, ppn: Ppn) -> bool {
        let Some(v) = self.by_lpn.get_mut(&lpn) else { return false };
        let Some(i) = v.iter().position(|&p| p == ppn) else { return false };
        v.swap_remove(i);
        if v.is_empty() {
            self.by_lpn.remove(&lpn);
        }
        self.len -= 1;
        true
    }

    /// Forgets every copy of `lpn`, returning them.
    pub fn take(&mut self, lpn: u32) -> Vec<Ppn> {
        let v = self.by_lpn.remove(&lpn).unwrap_or_default();
        self.len -= v.len() as u64;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_counted_per_logical_page_with_their_peak() {
        let mut c = ExtraCopies::default();
        c.add(7, 100);
        c.add(7, 200);
        c.add(9, 300);
        assert_eq!((c.len(), c.peak(), c.of(7)), (3, 3, &[100, 200][..]));
        assert!(c.remove(7, 100) && !c.remove(7, 100) && !c.remove(8, 1));
        assert_eq!(c.take(7), vec![200]);
        assert_eq!((c.len(), c.peak(), c.of(7).len(), c.contains(9, 300)), (1, 3, 0, true));
    }
}
