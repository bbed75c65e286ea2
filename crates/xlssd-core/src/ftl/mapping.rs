//! Page-level mapping: logical page to physical page and back. A logical page is one
//! mapping unit (`mapping.unit_bytes`) of `unit` flash pages, stored in consecutive pages of
//! one block starting at a multiple of `unit`; the tables hold one entry per unit.
//!
//! Both tables store `address + 1` with 0 meaning "none", so that they can be allocated
//! zeroed: the operating system then commits memory only for the parts a run touches, and a
//! large device with a small footprint stays small in memory. Entries are 32 bits, as in
//! a drive's own table: the configuration keeps both address spaces below 2^32 entries.
//! A logical entry may also be [`PENDING`]: newer data is on its way to flash (queued, its
//! physical page not chosen yet), so the page it was on holds stale data.

use crate::nand::Ppn;

/// A logical entry whose newest data waits for its physical page.
const PENDING: u32 = u32::MAX;

pub struct Mapping {
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    /// Flash pages per unit.
    unit: Ppn,
    /// `unit` as a divisor: the reverse map is indexed by unit on every page's placement.
    unit_div: strength_reduce::StrengthReducedU64,
    mapped: u64,
    /// Entries that are [`PENDING`].
    pending: u64,
}

impl Mapping {
    /// `logical` entries (user pages plus translation pages) over `physical` pages, in
    /// units of `unit_pages`.
    pub fn new(logical: u64, physical: Ppn, unit_pages: u32) -> crate::error::Result<Mapping> {
        use crate::limits::alloc::zeroed;
        let unit = unit_pages.max(1) as Ppn;
        let mut l2p = zeroed(logical as usize, "logical-to-physical map")?;
        crate::limits::alloc::advise_huge_pages(&mut l2p);
        Ok(Mapping {
            l2p,
            p2l: zeroed((physical / unit) as usize, "physical-to-logical map")?,
            unit,
            unit_div: strength_reduce::StrengthReducedU64::new(unit),
            mapped: 0,
            pending: 0,
        })
    }

    pub fn logical_len(&self) -> u64 {
        self.l2p.len() as u64
    }

    #[inline]
    /// The first physical page of `lpn`'s unit (None when it has none: never written, or
    /// its newest data still waiting for a page, see [`Self::is_pending`]).
    pub fn get(&self, lpn: u32) -> Option<Ppn> {
        match self.l2p[lpn as usize] {
            0 | PENDING => None,
            p => Some((p as Ppn - 1) * self.unit),
        }
    }

    /// Whether `lpn`'s newest data waits for its physical page.
    #[inline]
    pub fn is_pending(&self, lpn: u32) -> bool {
        self.l2p[lpn as usize] == PENDING
    }

    /// Newer data of `lpn` is on its way: its entry points nowhere until [`Self::set`];
    /// returns the first page of the unit it pointed at before.
    #[inline]
    pub fn set_pending(&mut self, lpn: u32) -> Option<Ppn> {
        let old = self.get(lpn);
        if old.is_some() {
            self.mapped -= 1;
        }
        if !self.is_pending(lpn) {
            self.pending += 1;
        }
        self.l2p[lpn as usize] = PENDING;
        old
    }

    /// Entries whose newest data waits for its page.
    pub fn pending(&self) -> u64 {
        self.pending
    }

    /// Hints the CPU to fetch `lpn`'s entry into cache: a request's mapping lookup is a
    /// random access into a table far larger than the cache, and the request is looked up
    /// only when its arrival event comes, so fetching early hides the memory latency.
    #[inline]
    pub fn prefetch(&self, lpn: u64) {
        if let Some(entry) = self.l2p.get(lpn as usize) {
            crate::sim::prefetch(entry);
        }
    }

    /// The logical page whose data a physical page holds (valid or not yet overwritten).
    #[inline]
    pub fn owner(&self, ppn: Ppn) -> Option<u32> {
        match self.p2l[(ppn / self.unit_div) as usize] {
            0 => None,
            l => Some(l - 1),
        }
    }

    /// Points `lpn` at the unit starting at `ppn`; returns the first page of the unit it
    /// pointed at before.
    #[inline]
    pub fn set(&mut self, lpn: u32, ppn: Ppn) -> Option<Ppn> {
        let old = self.get(lpn);
        if old.is_none() {
            self.mapped += 1;
            self.pending -= self.is_pending(lpn) as u64;
        }
        self.point(lpn, ppn);
        old
    }

    /// Points a logical page that has never been mapped at the unit starting at `ppn`
    /// (preconditioning). Unlike [`Self::set`] it does not read the old entry: on a large
    /// drive the entries are scattered over gigabytes, and stores alone let the processor
    /// keep many misses in flight.
    #[inline]
    pub fn set_unmapped(&mut self, lpn: u32, ppn: Ppn) {
        debug_assert!(self.l2p[lpn as usize] == 0, "logical page {lpn} is already mapped");
        self.mapped += 1;
        self.point(lpn, ppn);
    }

    /// Writes both entries of `lpn` at the unit starting at `ppn`.
    #[inline]
    fn point(&mut self, lpn: u32, ppn: Ppn) {
        debug_assert!(ppn % self.unit == 0, "unit of logical page {lpn} placed at page {ppn}, not a unit boundary");
        let u = ppn / self.unit_div;
        debug_assert!(u < PENDING as Ppn - 1, "physical unit {u} beyond the 32-bit mapping entry");
        self.l2p[lpn as usize] = u as u32 + 1;
        self.p2l[u as usize] = lpn + 1;
    }

    /// Records `lpn` as the owner of an extra copy at `ppn`, leaving `lpn`'s entry alone.
    #[inline]
    pub fn set_copy_owner(&mut self, ppn: Ppn, lpn: u32) {
        debug_assert!(self.unit == 1, "extra copies need units of one page");
        self.p2l[ppn as usize] = lpn + 1;
    }

    /// Points `lpn` at its extra copy at `ppn` (whose owner it is already); returns the
    /// page it pointed at before.
    #[inline]
    pub fn promote(&mut self, lpn: u32, ppn: Ppn) -> Option<Ppn> {
        debug_assert!(self.owner(ppn) == Some(lpn), "page {ppn} is not a copy of logical page {lpn}");
        self.set(lpn, ppn)
    }

    /// Forgets the owner of an erased physical page.
    #[inline]
    pub fn clear_physical(&mut self, ppn: Ppn) {
        self.p2l[(ppn / self.unit_div) as usize] = 0;
    }

    /// Logical pages whose data is on a physical page.
    pub fn mapped(&self) -> u64 {
        self.mapped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pending_entry_points_nowhere_until_its_page_is_set() {
        let mut m = Mapping::new(8, 64, 1).unwrap();
        assert_eq!(m.set(3, 10), None);
        assert_eq!((m.mapped(), m.pending()), (1, 0));
        assert_eq!(m.set_pending(3), Some(10), "the page it pointed at");
        assert_eq!((m.get(3), m.is_pending(3), m.mapped(), m.pending()), (None, true, 0, 1));
        assert_eq!(m.set_pending(3), None, "already waiting");
        assert_eq!(m.pending(), 1);
        assert_eq!(m.owner(10), Some(3), "the stale page keeps its owner until erased");
        assert_eq!(m.set(3, 20), None);
        assert_eq!((m.get(3), m.is_pending(3), m.mapped(), m.pending()), (Some(20), false, 1, 0));
        // A never-written page may wait too.
        assert_eq!(m.set_pending(5), None);
        assert_eq!((m.mapped(), m.pending()), (1, 1));
    }
}
