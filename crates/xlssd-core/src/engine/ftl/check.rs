//! The invariant checker.

use super::super::Simulator;
use crate::controller::txn::TxnKind;
use crate::error::{Error, Result};
use crate::ftl::blocks::{BlockManager, BlockState};
use crate::ftl::copies::ExtraCopies;
use crate::ftl::mapping::Mapping;
use crate::nand::Ppn;
use crate::seams::Observer;

/// From this many pages on, the blocks are checked on two threads: a check reads every
/// valid page's forward entry at random, and each core keeps its own misses in flight.
/// Below it, a thread would cost more than it saves (a small device is checked often).
const TWO_THREADS_FROM_PAGES: Ppn = 1 << 22;

/// What the per-block checks read: the FTL's tables, shared by the checking threads.
struct Tables<'a> {
    blocks: &'a BlockManager,
    map: &'a Mapping,
    copies: &'a ExtraCopies,
    unit: Ppn,
}

impl Tables<'_> {
    /// Checks blocks `range` (valid counts and bitmaps, write pointers, states, and that
    /// each valid page's unit maps to it); returns their valid pages and free blocks, or
    /// the first block's fault in block order.
    fn check(&self, range: std::ops::Range<u32>) -> std::result::Result<(u64, u64), String> {
        let blocks = self.blocks;
        let n = blocks.geo.pages_per_block;
        let unit = self.unit;
        let mut valid_total = 0u64;
        let mut free_total = 0u64;
        for b in range {
            let bi = b as usize;
            let valid = blocks.count_valid_bits(b);
            if valid != blocks.valid[bi] {
                return Err(format!("block {b}: valid count {} but {valid} valid bits", blocks.valid[bi]));
            }
            valid_total += valid as u64;
            let (wp, prog) = (blocks.write_ptr[bi], blocks.programmed[bi]);
            if prog > wp || wp > n {
                return Err(format!("block {b}: programmed {prog}, write pointer {wp}, {n} pages"));
            }
            match blocks.state[bi] {
                BlockState::Free => {
                    free_total += 1;
                    if wp != 0 || valid != 0 {
                        return Err(format!("free block {b} has write pointer {wp} and {valid} valid pages"));
                    }
                }
                BlockState::Full | BlockState::Victim if wp != n => {
                    return Err(format!("block {b} is {:?} with write pointer {wp}", blocks.state[bi]));
                }
                _ => {}
            }
            // The forward entries of a block's valid pages lie at random in a table far
            // larger than the cache: asked for all at once, their misses overlap more than
            // one page's checks after another's let them (docs/benchmarks.md).
            for ppn in blocks.valid_pages(b) {
                if let Some(lpn) = self.map.owner(ppn) {
                    self.map.prefetch(lpn as u64);
                }
            }
            for ppn in blocks.valid_pages(b) {
                if !blocks.is_allocated(ppn) {
                    return Err(format!("page {ppn} is valid but was never allocated"));
                }
                // Every page of a unit is valid with it, and the unit's entry points at its
                // first page.
                let first = ppn - ppn % unit;
                if let Some(p) = (first..first + unit).find(|&p| !blocks.is_valid(p)) {
                    return Err(format!("page {ppn} is valid but page {p} of its unit is not"));
                }
                match self.map.owner(ppn) {
                    Some(lpn) if self.map.get(lpn) == Some(first) => {}
                    Some(lpn) if self.copies.contains(lpn, ppn) => {}
                    owner => return Err(format!("valid page {ppn} has owner {owner:?} that does not map to it")),
                }
            }
        }
        Ok((valid_total, free_total))
    }
}

impl Simulator<'_> {
    fn tables(&self) -> Tables<'_> {
        Tables { blocks: &self.ftl.blocks, map: &self.ftl.map, copies: &self.ftl.copies, unit: self.ftl.unit_pages as Ppn }
    }

    /// Checks every block ([`Tables::check`]), on two threads on a large device; the fault
    /// reported is the same as on one (the first in block order).
    fn check_blocks(&self) -> std::result::Result<(u64, u64), String> {
        let tables = self.tables();
        let blocks = self.geo.blocks;
        if self.geo.pages < TWO_THREADS_FROM_PAGES {
            return tables.check(0..blocks);
        }
        let mid = blocks / 2;
        std::thread::scope(|scope| {
            let tables = &tables;
            let Ok(upper) =
                std::thread::Builder::new().name("xlssd-check".into()).spawn_scoped(scope, move || tables.check(mid..blocks))
            else {
                // No thread to be had: one does it all.
                return tables.check(0..blocks);
            };
            let lower = tables.check(0..mid);
            let upper = upper.join().map_err(|_| "the checking thread of the upper blocks stopped".to_string())?;
            let (lower, upper) = (lower?, upper?);
            Ok((lower.0 + upper.0, lower.1 + upper.1))
        })
    }

    /// Checks that the FTL's structures agree with each other: forward and reverse mapping,
    /// valid counts and bitmaps, block states and free pools, program pointers.
    pub(in crate::engine) fn check_invariants(&self) -> Result<()> {
        let fail = |message: String| Err(Error::Invariant { time_ns: self.q.now(), message });
        let (valid_total, free_total) = match self.check_blocks() {
            Ok(totals) => totals,
            Err(message) => return fail(message),
        };
        let pools: u64 = (0..self.geo.planes).map(|p| self.ftl.blocks.free_count(p) as u64).sum();
        if pools != free_total {
            return fail(format!("{free_total} blocks are free but the free pools hold {pools}"));
        }
        for p in 0..self.geo.planes {
            for &b in self.ftl.blocks.free_list(p) {
                if self.ftl.blocks.state[b as usize] != BlockState::Free || self.geo.plane_of_block(b) != p {
                    return fail(format!(
                        "free pool of plane {p} holds block {b} in state {:?}",
                        self.ftl.blocks.state[b as usize]
                    ));
                }
            }
        }
        if let Err(message) = self.scheme.check(&self.ftl.blocks) {
            return fail(message);
        }
        if let Some(Err(message)) = self.backing.as_ref().map(|b| b.check()) {
            return fail(message);
        }
        let unbound_host_writes = (self.ctrl.queued())
            .chain(self.ftl.blocked_programs.iter().flatten())
            .filter(|t| t.kind == TxnKind::HostWrite && t.ppn & super::UNBOUND != 0)
            .count() as u64;
        // A logical page waits for its page only while a write of it is queued.
        if self.ftl.map.pending() > self.ftl.versions.waiting_pages() as u64 {
            return fail(format!(
                "{} logical pages wait for their page but writes of only {} are queued",
                self.ftl.map.pending(),
                self.ftl.versions.waiting_pages()
            ));
        }
        if unbound_host_writes != self.ftl.versions.pending() {
            return fail(format!(
                "{unbound_host_writes} host writes wait for a page but {} versions are outstanding",
                self.ftl.versions.pending()
            ));
        }
        let mut queued_unbound = vec![0u32; self.geo.planes as usize];
        for t in self.ctrl.queued().filter(|t| t.ppn & super::UNBOUND != 0) {
            queued_unbound[t.plane as usize] += 1;
        }
        if let Some(p) = (0..self.geo.planes as usize).find(|&p| queued_unbound[p] != self.ftl.unbound[p]) {
            return fail(format!(
                "plane {p}'s die queues {} programs without a page but {} are counted",
                queued_unbound[p], self.ftl.unbound[p]
            ));
        }
        if valid_total != self.ftl.map.mapped() * self.ftl.unit_pages as u64 + self.ftl.copies.len() {
            return fail(format!(
                "{} logical pages of {} page(s) are mapped and {} extra copies live, but {valid_total} physical pages are valid",
                self.ftl.map.mapped(),
                self.ftl.unit_pages,
                self.ftl.copies.len()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Simulator, TWO_THREADS_FROM_PAGES};
    use crate::config::Config;
    use crate::error::Error;
    use crate::fuzz::NoRequests;

    /// A device of `blocks_per_plane` x 2 planes of 128 pages, half full of data spread as
    /// in steady state.
    fn device(blocks_per_plane: u32) -> Simulator<'static> {
        let mut cfg = Config::default();
        cfg.geometry.channels = 1;
        cfg.geometry.chips_per_channel = 1;
        cfg.geometry.dies_per_chip = 1;
        cfg.geometry.planes_per_die = 2;
        cfg.geometry.blocks_per_plane = blocks_per_plane;
        cfg.geometry.pages_per_block = 128;
        cfg.mapping.cached_table_bytes = 0;
        cfg.precondition.occupancy = 0.5;
        cfg.precondition.steady_state = true;
        crate::simulator(&cfg, Box::new(NoRequests), None).unwrap_or_else(|e| panic!("{e}"))
    }

    fn fault(sim: &Simulator) -> String {
        match sim.check_invariants() {
            Err(Error::Invariant { message, .. }) => message,
            other => panic!("expected an invariant fault, got {other:?}"),
        }
    }

    /// Two blocks' valid counts made wrong, one in each half of the device: the fault named
    /// is the first in block order, then the other once the first is mended.
    fn faults_in_block_order(sim: &mut Simulator) {
        sim.check_invariants().unwrap_or_else(|e| panic!("{e}"));
        let blocks = sim.geo.blocks;
        let (low, high) = (blocks / 2 - 3, blocks - 5);
        for b in [high, low] {
            sim.ftl.blocks.valid[b as usize] += 1;
        }
        assert!(fault(sim).starts_with(&format!("block {low}: valid count")), "{}", fault(sim));
        sim.ftl.blocks.valid[low as usize] -= 1;
        assert!(fault(sim).starts_with(&format!("block {high}: valid count")), "{}", fault(sim));
        sim.ftl.blocks.valid[high as usize] -= 1;
        sim.check_invariants().unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn a_large_device_checked_on_two_threads_names_the_first_fault_in_block_order() {
        let mut sim = device(16_384);
        assert!(sim.geo.pages >= TWO_THREADS_FROM_PAGES, "the device is checked on one thread");
        let (valid, free) = sim.check_blocks().unwrap_or_else(|e| panic!("{e}"));
        // Both halves counted: the totals of one thread over all blocks.
        assert_eq!(sim.tables().check(0..sim.geo.blocks), Ok((valid, free)));
        assert_eq!(valid, sim.ftl.map.mapped());
        faults_in_block_order(&mut sim);
    }

    #[test]
    fn a_small_device_checked_on_one_thread_names_the_first_fault_in_block_order() {
        let mut sim = device(256);
        assert!(sim.geo.pages < TWO_THREADS_FROM_PAGES);
        faults_in_block_order(&mut sim);
    }
}
