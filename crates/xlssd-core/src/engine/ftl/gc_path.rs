//! Cleaning and wear levelling: choosing a victim, moving its valid pages, erasing it.

use super::super::Simulator;
use super::GcJob;
use crate::controller::txn::{Txn, TxnKind, NO_OWNER};
use crate::ftl::blocks::BlockState;
use crate::nand::Ppn;
use crate::seams::{Cleaning, EraseControl, Observer, Reason, VictimCtx};
use crate::stats::relocation;

impl Simulator<'_> {
    /// Starts cleaning `plane` if its free blocks fell below the GC threshold, or a round of
    /// cleaning begun there has not yet brought them back to the stop threshold, and it is
    /// not cleaning already.
    #[inline]
    pub(in crate::engine) fn maybe_start_gc(&mut self, plane: u32) {
        let p = plane as usize;
        let free = self.ftl.blocks.free_count(plane);
        // Asked after every page handed out: the common answer (enough free blocks, no
        // round under way) comes first, inline, and touches nothing else.
        let in_band = free >= self.ftl.gc_threshold_blocks;
        if in_band && (free >= self.ftl.gc_stop_blocks || !self.ftl.gc_round[p]) {
            if free >= self.ftl.gc_stop_blocks && self.ftl.gc_stop_blocks > self.ftl.gc_threshold_blocks {
                self.ftl.gc_round[p] = false;
            }
            return;
        }
        self.start_gc_if_due(plane, free);
    }

    /// [`Self::maybe_start_gc`] past its common answer: `plane` has `free` free blocks, below
    /// the threshold or in a round under way.
    #[inline(never)]
    fn start_gc_if_due(&mut self, plane: u32, free: u32) {
        let p = plane as usize;
        let in_band = free >= self.ftl.gc_threshold_blocks;
        if self.ftl.gc_jobs[p].active() {
            return;
        }
        // Once the host is done, only cleaning that frees blocks urgently continues, so that
        // a run always ends (cleaning can cost as many writes as it saves).
        if self.host_finished() && free >= self.ftl.gc_hard_blocks {
            return;
        }
        let now = self.now();
        let mut ctx = VictimCtx { plane, blocks: &self.ftl.blocks, now, policy: &mut *self.ftl.victim };
        let victim = self.scheme.victim(&mut ctx);
        if let Some(victim) = victim {
            // Past the threshold, a round goes on only while it frees space: a victim with
            // every page valid would be moved for nothing, and again.
            if in_band && self.ftl.blocks.valid[victim as usize] >= self.geo.pages_per_block {
                self.ftl.gc_round[p] = false;
                return;
            }
            self.ftl.gc_round[p] = self.ftl.gc_stop_blocks > self.ftl.gc_threshold_blocks;
            self.measure.counters.gc_invocations += 1;
            if self.ftl.blocks.valid[victim as usize] == 0 {
                self.measure.counters.gc_dead_victims += 1;
            }
            self.start_relocation(plane, victim, Reason::Gc);
        }
    }

    /// Whether `block` can be relocated now: closed, or open with all its programs done,
    /// in which case it is sealed (its unwritten pages left unused until its erase). A
    /// block read or worn to its limit must move whether or not it is full, and an open
    /// block that only replicas or reclaimed hot data went to may never fill.
    pub(in crate::engine) fn closed_or_sealed(&mut self, block: u32) -> bool {
        if self.ftl.blocks.is_closed(block) {
            return true;
        }
        match self.ftl.blocks.seal(block) {
            Some(unused) => {
                self.measure.counters.sealed_blocks += 1;
                self.measure.counters.sealed_unused_pages += unused as u64;
                true
            }
            None => false,
        }
    }

    /// Moves every valid page out of `block`, then erases it.
    pub(in crate::engine) fn start_relocation(&mut self, plane: u32, block: u32, reason: Reason) {
        let stats = match reason {
            Reason::Gc => relocation::GC,
            Reason::WearLevelling => relocation::WEAR_LEVELLING,
            Reason::Task(name) => {
                self.measure.tasks.entry(name).1 += 1;
                self.measure.relocs.index(name)
            }
        };
        self.measure.relocs.started(stats);
        self.ftl.blocks.mark_victim(block);
        let start = self.now();
        self.ftl.gc_jobs[plane as usize] =
            GcJob { block, reason, erase_issued: false, start, stats: stats as u8, ahead_of_reads: false };
        if self.ftl.blocks.valid[block as usize] == 0 {
            self.issue_erase(plane, block);
            return;
        }
        let mut pages = std::mem::take(&mut self.ftl.scratch_pages);
        pages.clear();
        pages.extend(self.ftl.blocks.valid_pages(block));
        self.scheme.copy_order(&self.ftl.map, &mut pages);
        for &ppn in &pages {
            let Some(lpn) = self.ftl.map.owner(ppn) else {
                self.invariant(format!("valid page {ppn} has no logical owner"));
                continue;
            };
            if self.drop_copy_in_victim(lpn, ppn) {
                continue;
            }
            self.enqueue(Txn { kind: TxnKind::GcRead, ppn, lpn, owner: NO_OWNER, plane, step: 0, reference: 0 });
        }
        self.ftl.scratch_pages = pages;
    }

    /// A page became invalid; if it was the last valid page of a victim, erase the victim.
    pub(in crate::engine) fn after_invalidate(&mut self, ppn: Ppn) {
        let block = self.geo.block_of(ppn);
        if self.ftl.blocks.state[block as usize] == BlockState::Victim && self.ftl.blocks.valid[block as usize] == 0 {
            let plane = self.geo.plane_of_block(block);
            self.issue_erase(plane, block);
        }
    }

    fn issue_erase(&mut self, plane: u32, block: u32) {
        let job = &mut self.ftl.gc_jobs[plane as usize];
        if job.erase_issued || job.block != block {
            return;
        }
        job.erase_issued = true;
        self.start_erase(plane, block);
    }

    /// A victim page has been read into the controller: write it to its new home, unless the
    /// host overwrote it in the meantime.
    pub(in crate::engine) fn gc_read_done(&mut self, t: Txn) {
        if self.copy_is_stale(t.lpn, t.ppn) {
            self.ftl.gc_unit_reads.remove(&t.lpn);
            return;
        }
        if self.ftl.unit_pages > 1 {
            // A unit moves whole: its program waits for the last of its pages to be read.
            let read = self.ftl.gc_unit_reads.entry(t.lpn).or_insert(0);
            *read += 1;
            if *read < self.ftl.unit_pages {
                return;
            }
            self.ftl.gc_unit_reads.remove(&t.lpn);
        }
        self.relocate_page(t.lpn, t.ppn, t.plane);
    }

    /// A victim's page in `plane` was given its new home: counted as moved.
    pub(in crate::engine) fn count_moved(&mut self, plane: u32) {
        let pages = self.ftl.unit_pages as u64;
        let job = self.ftl.gc_jobs[plane as usize];
        self.measure.relocs.moved(job.stats as usize, pages);
        match job.reason {
            Reason::Gc => self.measure.counters.gc_pages_moved += pages,
            Reason::WearLevelling => self.measure.counters.wl_pages_moved += pages,
            Reason::Task(name) => self.measure.tasks.entry(name).2 += pages,
        }
    }

    /// Charges a finished relocation operation's die time to the relocations of its
    /// transactions' planes, in equal shares.
    pub(in crate::engine) fn note_relocation_busy(&mut self, txns: &[u32], elapsed: u64) {
        let share = elapsed / txns.len().max(1) as u64;
        for &id in txns {
            let job = self.ftl.gc_jobs[self.ctrl.txn(id).plane as usize];
            if job.active() {
                self.measure.relocs.busy(job.stats as usize, share);
            }
        }
    }

    pub(in crate::engine) fn erase_done(&mut self, first_ppn: Ppn) {
        let block = self.geo.block_of(first_ppn);
        let plane = self.geo.plane_of_block(block);
        // The job's mapping changes go to flash now, from the top of an event rather than
        // from inside a remapping, so that no write is placed while another is half done.
        self.write_back_gc_translations(plane);
        for ppn in self.geo.block_pages(block) {
            self.ftl.map.clear_physical(ppn);
        }
        if self.ftl.blocks.valid[block as usize] != 0 {
            self.invariant(format!("block {block} erased with {} valid pages", self.ftl.blocks.valid[block as usize]));
            return;
        }
        let wear = self.scheme.erase_wear(block);
        if self.observed {
            self.scheme.erased(block);
        }
        self.ftl.blocks.erase(block, wear);
        self.note_erase(block, wear);
        if self.wants_probes() {
            self.probe(block, crate::seams::Probe::Erased);
        }
        let job = self.ftl.gc_jobs[plane as usize];
        self.measure.relocs.finished(job.stats as usize, job.start, self.now());
        self.ftl.jobs_ahead_of_reads -= job.ahead_of_reads as u32;
        let reason = job.reason;
        match reason {
            Reason::Gc => self.measure.counters.gc_blocks_erased += 1,
            Reason::WearLevelling => self.measure.counters.wl_blocks_erased += 1,
            Reason::Task(_) => {}
        }
        self.ftl.gc_jobs[plane as usize] = GcJob::NONE;
        // Static wear levelling is checked after cleaning only, not after its own erases,
        // so its moves stay bounded by the host's writes and cannot feed themselves. It goes
        // before waiting writes and further cleaning (unless free blocks are urgently
        // short), so that sustained writes cannot starve it.
        if reason == Reason::Gc && self.ftl.blocks.free_count(plane) >= self.ftl.gc_hard_blocks && !self.host_finished() {
            if let Some(cold) = self.ftl.wl.static_candidate(plane, &self.ftl.blocks) {
                self.measure.counters.wl_invocations += 1;
                self.start_relocation(plane, cold, Reason::WearLevelling);
            }
        }
        self.retry_blocked_programs(plane);
        if !self.ftl.alloc.is_static() {
            // Writes parked elsewhere may go to this plane now.
            self.retry_all_blocked_programs();
        }
        self.maybe_start_gc(plane);
    }
}
