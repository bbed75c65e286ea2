//! Extra copies of logical pages (see `ftl::copies`): what a read path scheme asks for after
//! a sense (relocate the block, copy a page, promote a copy), and how copies are made,
//! dropped when the host writes their page or their block is cleaned, and promoted.

use rustc_hash::FxHashMap;

use super::super::Simulator;
use super::UNBOUND;
use crate::controller::txn::{Txn, TxnKind, NO_OWNER};
use crate::nand::Ppn;
use crate::report::CopiesReport;
use crate::seams::{Observer, ReadAction, ReadPath, Reason, SenseCtx, Target, WriteKind};
use crate::sim::Time;
use crate::stats::LatencyStats;

/// The counters of [`CopiesReport`] kept during a run.
#[derive(Debug, Clone, Default)]
pub(in crate::engine) struct CopyCounts {
    asked: u64,
    made: u64,
    abandoned: u64,
    dropped_on_write: u64,
    dropped_on_cleaning: u64,
    promoted: u64,
}

/// The copies one sense asked for, in flight: each is timed from the ask to its last
/// copy's program or abandonment (seed 003's Fig. 13 takes a block's replica creation as
/// one procedure).
#[derive(Default)]
pub(in crate::engine) struct CopyBatches {
    /// Per batch: when it was asked for, and copies still in flight.
    open: Vec<(Time, u32)>,
    free: Vec<u32>,
    of_lpn: FxHashMap<u32, u32>,
    service: LatencyStats,
}

impl CopyBatches {
    fn begin(&mut self, now: Time) -> u32 {
        match self.free.pop() {
            Some(b) => {
                self.open[b as usize] = (now, 0);
                b
            }
            None => {
                self.open.push((now, 0));
                self.open.len() as u32 - 1
            }
        }
    }

    /// `lpn`'s copy, started, belongs to `batch` (unless a copy of it is in flight already,
    /// which then stands for both).
    fn join(&mut self, batch: u32, lpn: u32) {
        if let std::collections::hash_map::Entry::Vacant(e) = self.of_lpn.entry(lpn) {
            e.insert(batch);
            self.open[batch as usize].1 += 1;
        }
    }

    /// After the sense's actions: a batch none of whose copies started is forgotten.
    fn close_if_empty(&mut self, batch: u32) {
        if self.open[batch as usize].1 == 0 {
            self.free.push(batch);
        }
    }

    /// `lpn`'s copy was programmed or abandoned.
    pub(in crate::engine) fn done(&mut self, lpn: u32, now: Time) {
        let Some(batch) = self.of_lpn.remove(&lpn) else { return };
        let (start, left) = &mut self.open[batch as usize];
        debug_assert!(*left > 0, "copy batch {batch} finished more copies than it started");
        *left -= 1;
        if *left == 0 {
            self.service.record(now.saturating_sub(*start), 0);
            self.free.push(batch);
        }
    }
}

impl Simulator<'_> {
    /// A flash read sensed `ppn`: the scheme's read path may ask for work.
    pub(in crate::engine) fn after_sense(&mut self, ppn: Ppn, kind: TxnKind) {
        let mut actions = std::mem::take(&mut self.scratch_actions);
        actions.clear();
        let now = self.now();
        let ctx = SenseCtx { geo: &self.geo, blocks: &self.ftl.blocks, map: &self.ftl.map, copies: &self.ftl.copies, now };
        self.scheme.sensed(&ctx, ppn, super::super::controller::read_kind(kind), &mut actions);
        let mut batch = None;
        for &a in &actions {
            match a {
                ReadAction::Reclaim(ask) => {
                    let block = self.geo.block_of(ppn);
                    let plane = self.geo.plane_of_block(block);
                    if !self.ftl.gc_jobs[plane as usize].active() && self.closed_or_sealed(block) {
                        self.start_relocation(plane, block, Reason::Task(ask.reason));
                        self.ftl.gc_jobs[plane as usize].ahead_of_reads = ask.ahead_of_reads;
                        self.ftl.jobs_ahead_of_reads += ask.ahead_of_reads as u32;
                    }
                }
                ReadAction::Copy { lpn, plane } => {
                    let b = *batch.get_or_insert_with(|| self.measure.copy_batches.begin(now));
                    if self.start_copy(lpn, plane) {
                        self.measure.copy_batches.join(b, lpn);
                    }
                }
                ReadAction::Promote { lpn, copy } => self.promote_copy(lpn, copy),
            }
        }
        if let Some(b) = batch {
            self.measure.copy_batches.close_if_empty(b);
        }
        self.scratch_actions = actions;
    }

    fn abandon_copy(&mut self, lpn: u32) {
        self.measure.copy_counts.abandoned += 1;
        let now = self.now();
        self.measure.copy_batches.done(lpn, now);
        if self.observed {
            self.scheme.copy_abandoned(lpn);
        }
    }

    /// Reads `lpn`'s mapped page to copy it into `plane`; whether the copy is under way.
    fn start_copy(&mut self, lpn: u32, plane: u32) -> bool {
        self.measure.copy_counts.asked += 1;
        if self.ftl.unit_pages != 1 {
            self.invariant(format!("a copy of logical page {lpn} was asked for, but copies need mapping units of one page"));
            return false;
        }
        if plane >= self.geo.planes || lpn as u64 >= self.ftl.logical_pages {
            self.invariant(format!("a copy of logical page {lpn} was asked for in plane {plane}, which does not exist"));
            return false;
        }
        match self.ftl.map.get(lpn) {
            Some(from) if self.ftl.blocks.is_programmed(from) => {
                let src = self.geo.plane_of_block(self.geo.block_of(from));
                self.enqueue(Txn { kind: TxnKind::CopyRead, ppn: from, lpn, owner: plane, plane: src, step: 0, reference: 0 });
                true
            }
            // Unwritten, or still on its way to flash: nothing to copy yet.
            _ => {
                self.abandon_copy(lpn);
                false
            }
        }
    }

    /// The page a copy is made of has been read: queue the copy's program, unless the page
    /// changed meanwhile.
    pub(in crate::engine) fn copy_read_done(&mut self, t: Txn) {
        let (lpn, plane) = (t.lpn, t.owner);
        if self.copy_is_stale(lpn, t.ppn) {
            self.abandon_copy(lpn);
            return;
        }
        self.queue_copy(lpn, t.ppn, plane);
    }

    /// Gives unbound copy `t` (of the page its `ppn` names after [`UNBOUND`]) its page in
    /// its plane, unless the page changed since it was read or the plane has no room (the
    /// copy is then abandoned); the bound program, or None.
    pub(in crate::engine) fn bind_copy(&mut self, t: Txn) -> Option<Txn> {
        let (lpn, plane, source) = (t.lpn, t.plane, t.ppn & !UNBOUND);
        if self.copy_is_stale(lpn, source) {
            self.abandon_copy(lpn);
            return None;
        }
        let default = Target { stream: 0, privileged: false };
        let Target { stream, privileged } = self.target_in(plane, lpn, WriteKind::Relocation, default);
        if !self.ftl.blocks.can_allocate(plane, stream, privileged) {
            self.abandon_copy(lpn);
            return None;
        }
        let Some(ppn) = self.ftl.blocks.allocate(plane, stream, privileged, &mut *self.ftl.wl) else {
            self.invariant(format!("plane {plane} had room for a copy but allocation failed"));
            return None;
        };
        self.tell_placed(plane, default, lpn, WriteKind::Relocation, ppn, stream);
        self.ftl.map.set_copy_owner(ppn, lpn);
        let now = self.now();
        self.set_page_valid(ppn, now);
        self.ftl.copies.add(lpn, ppn);
        self.measure.copy_counts.made += 1;
        if self.observed {
            self.scheme.copy_made(lpn, ppn);
        }
        Some(Txn { kind: TxnKind::CopyWrite, ppn, lpn, owner: NO_OWNER, plane, step: 0, reference: 0 })
    }

    /// The host is writing `lpn`: its copies hold old data now.
    pub(in crate::engine) fn drop_copies_of(&mut self, lpn: u32) {
        for ppn in self.ftl.copies.take(lpn) {
            self.measure.copy_counts.dropped_on_write += 1;
            self.invalidate_copy(lpn, ppn);
        }
    }

    /// A block being cleaned holds `ppn`: if it is an extra copy, it is dropped rather than
    /// moved. Returns whether it was one.
    pub(in crate::engine) fn drop_copy_in_victim(&mut self, lpn: u32, ppn: Ppn) -> bool {
        if self.ftl.copies.is_empty() || self.ftl.map.get(lpn) == Some(ppn) || !self.ftl.copies.remove(lpn, ppn) {
            return false;
        }
        self.measure.copy_counts.dropped_on_cleaning += 1;
        self.invalidate_copy(lpn, ppn);
        true
    }

    fn invalidate_copy(&mut self, lpn: u32, ppn: Ppn) {
        if self.observed {
            self.scheme.copy_dropped(lpn, ppn);
        }
        let now = self.now();
        self.invalidate_page(ppn, now);
    }

    /// Makes the extra copy at `copy` the mapped page of `lpn`.
    fn promote_copy(&mut self, lpn: u32, copy: Ppn) {
        if !self.ftl.copies.remove(lpn, copy) {
            self.invariant(format!("promotion of page {copy}, which is not a live copy of logical page {lpn}"));
            return;
        }
        self.measure.copy_counts.promoted += 1;
        let now = self.now();
        if let Some(old) = self.ftl.map.promote(lpn, copy) {
            if self.ftl.blocks.is_valid(old) {
                self.invalidate_page(old, now);
            }
        }
        // The entry changed: a cached one is marked dirty, otherwise its translation page
        // is rewritten now.
        if let Some(cmt) = self.ctrl.cmt_mut() {
            if !cmt.mark_dirty(lpn) {
                self.write_back_translation(self.ftl.translation_page(lpn));
            }
        }
    }

    /// The page a host read of `lpn`, mapped at `ppn`, goes to: the read path's choice, if
    /// it is a live copy whose program has finished, or else the mapped page.
    pub(in crate::engine) fn read_copy_of(&mut self, lpn: u32, ppn: Ppn) -> Ppn {
        let to = self.scheme.read_copy(lpn, ppn);
        if to == ppn {
            return ppn;
        }
        if !self.ftl.copies.contains(lpn, to) {
            self.invariant(format!("a read of logical page {lpn} was sent to page {to}, which is not a live copy of it"));
            return ppn;
        }
        if self.ftl.blocks.is_programmed(to) {
            to
        } else {
            ppn
        }
    }

    pub(in crate::engine) fn copies_report(&self) -> CopiesReport {
        let c = &self.measure.copy_counts;
        CopiesReport {
            asked: c.asked,
            made: c.made,
            abandoned: c.abandoned,
            dropped_on_write: c.dropped_on_write,
            dropped_on_cleaning: c.dropped_on_cleaning,
            promoted: c.promoted,
            alive: self.ftl.copies.len(),
            peak: self.ftl.copies.peak(),
            batches: self.measure.copy_batches.service.count(),
            batch_service_us: self.measure.copy_batches.service.summary(),
        }
    }
}
