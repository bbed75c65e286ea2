//! The invariant checker.

use super::Simulator;
use crate::error::{Error, Result};
use crate::ftl::blocks::BlockState;
use crate::techniques::Observer;

impl Simulator<'_> {
    /// Checks that the FTL's structures agree with each other: forward and reverse mapping,
    /// valid counts and bitmaps, block states and free pools, program pointers.
    pub(super) fn check_invariants(&self) -> Result<()> {
        let fail = |message: String| Err(Error::Invariant { time_ns: self.q.now(), message });
        let n = self.geo.pages_per_block;
        let mut valid_total = 0u64;
        let mut free_total = 0u64;
        for b in 0..self.geo.blocks {
            let bi = b as usize;
            let valid = self.blocks.count_valid_bits(b);
            if valid != self.blocks.valid[bi] {
                return fail(format!("block {b}: valid count {} but {valid} valid bits", self.blocks.valid[bi]));
            }
            valid_total += valid as u64;
            let (wp, prog) = (self.blocks.write_ptr[bi], self.blocks.programmed[bi]);
            if prog > wp || wp > n {
                return fail(format!("block {b}: programmed {prog}, write pointer {wp}, {n} pages"));
            }
            match self.blocks.state[bi] {
                BlockState::Free => {
                    free_total += 1;
                    if wp != 0 || valid != 0 {
                        return fail(format!("free block {b} has write pointer {wp} and {valid} valid pages"));
                    }
                }
                BlockState::Full | BlockState::Victim if wp != n => {
                    return fail(format!("block {b} is {:?} with write pointer {wp}", self.blocks.state[bi]));
                }
                _ => {}
            }
            let unit = self.unit_pages as crate::nand::Ppn;
            // The forward entries of a block's valid pages lie at random in a table far
            // larger than the cache: asked for all at once, their misses overlap more than
            // one page's checks after another's let them (docs/benchmarks.md).
            for ppn in self.blocks.valid_pages(b) {
                if let Some(lpn) = self.map.owner(ppn) {
                    self.map.prefetch(lpn as u64);
                }
            }
            for ppn in self.blocks.valid_pages(b) {
                if !self.blocks.is_allocated(ppn) {
                    return fail(format!("page {ppn} is valid but was never allocated"));
                }
                // Every page of a unit is valid with it, and the unit's entry points at its
                // first page.
                let first = ppn - ppn % unit;
                if let Some(p) = (first..first + unit).find(|&p| !self.blocks.is_valid(p)) {
                    return fail(format!("page {ppn} is valid but page {p} of its unit is not"));
                }
                match self.map.owner(ppn) {
                    Some(lpn) if self.map.get(lpn) == Some(first) => {}
                    Some(lpn) if self.copies.contains(lpn, ppn) => {}
                    owner => return fail(format!("valid page {ppn} has owner {owner:?} that does not map to it")),
                }
            }
        }
        let pools: u64 = (0..self.geo.planes).map(|p| self.blocks.free_count(p) as u64).sum();
        if pools != free_total {
            return fail(format!("{free_total} blocks are free but the free pools hold {pools}"));
        }
        for p in 0..self.geo.planes {
            for &b in self.blocks.free_list(p) {
                if self.blocks.state[b as usize] != BlockState::Free || self.geo.plane_of_block(b) != p {
                    return fail(format!("free pool of plane {p} holds block {b} in state {:?}", self.blocks.state[b as usize]));
                }
            }
        }
        if let Err(message) = self.scheme.check(&self.blocks) {
            return fail(message);
        }
        if let Some(Err(message)) = self.backing.as_ref().map(|b| b.check()) {
            return fail(message);
        }
        if valid_total != self.map.mapped() * self.unit_pages as u64 + self.copies.len() {
            return fail(format!(
                "{} logical pages of {} page(s) are mapped and {} extra copies live, but {valid_total} physical pages are valid",
                self.map.mapped(),
                self.unit_pages,
                self.copies.len()
            ));
        }
        Ok(())
    }
}
