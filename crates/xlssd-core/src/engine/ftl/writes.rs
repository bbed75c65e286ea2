//! Page writes as the FTL places them: the plane and stream of each, its physical page,
//! writes parked for a free block, remapping and validity, and a program's pages counted
//! programmed.

use super::super::controller::Parked;
use super::super::Simulator;
use super::PendingProgram;
use crate::controller::txn::{Txn, TxnKind};
use crate::ftl::policy::AllocContext;
use crate::nand::Ppn;
use crate::seams::{Observer, Placement, Target, WriteKind};
use crate::sim::Time;

impl Simulator<'_> {
    /// The plane a logical page of `stream` is written to, as the allocation policy decides.
    pub(in crate::engine) fn alloc_plane(&mut self, lpn: u32, stream: u32) -> u32 {
        let ctx = AllocContext { die_load: self.ctrl.die_load(), blocks: &self.ftl.blocks, stream };
        self.ftl.alloc.plane_for(lpn, &ctx)
    }

    /// Writes a logical page to a new physical page (host data, a buffer flush, a GC copy or
    /// a translation page). `plane` fixes the plane (GC copies stay in their plane). A host
    /// write first needs its mapping entry, and takes its page only once it has it, so that
    /// pages of a block are handed out in the order they are sent to the die.
    pub(in crate::engine) fn program_page(&mut self, lpn: u32, owner: u32, kind: TxnKind, plane: Option<u32>) {
        if kind == TxnKind::HostWrite && self.ctrl.cmt().is_some() {
            self.with_mapping(lpn, Parked::Write { lpn, owner }, true);
        } else {
            self.place_program(lpn, owner, kind, plane);
        }
    }

    /// Allocates the page for a write, remaps, and sends the program to its die; or parks
    /// the write until its plane has a free block.
    pub(in crate::engine) fn place_program(&mut self, lpn: u32, owner: u32, kind: TxnKind, plane: Option<u32>) {
        self.try_place_program(lpn, owner, kind, plane, true);
    }

    /// As [`Self::place_program`]; `first_try` is false when retrying a parked write, so
    /// that each write that had to wait is counted once.
    pub(in crate::engine) fn try_place_program(
        &mut self,
        lpn: u32,
        owner: u32,
        kind: TxnKind,
        plane: Option<u32>,
        first_try: bool,
    ) {
        let default_stream = match kind {
            TxnKind::GcWrite if self.ftl.handles.offered() => self.ftl.handles.gc_stream(lpn),
            TxnKind::GcWrite => self.ftl.streams.gc,
            TxnKind::MapWrite => self.ftl.streams.mapping,
            TxnKind::HostWrite if self.ftl.handles.offered() => self.ftl.handles.host_stream(lpn),
            _ => 0,
        };
        let fixed = plane;
        let mut plane = plane.unwrap_or_else(|| self.alloc_plane(lpn, default_stream));
        let default = Target { stream: default_stream, privileged: kind == TxnKind::GcWrite };
        let write = write_kind(kind);
        let mut target = self.target_in(plane, lpn, write, default);
        // The plane was chosen for the default stream; if the scheme sends the page to
        // another stream that has no room there, a free plane is chosen for that stream
        // (otherwise dynamic allocation could pile a stream's data into a full plane).
        if fixed.is_none()
            && !self.ftl.alloc.is_static()
            && target.stream != default_stream
            && !self.ftl.blocks.can_allocate(plane, target.stream, target.privileged)
        {
            let other = self.alloc_plane(lpn, target.stream);
            if other != plane {
                plane = other;
                target = self.target_in(plane, lpn, write, default);
            }
        }
        let Target { stream, privileged } = target;
        if !self.ftl.blocks.can_allocate(plane, stream, privileged) {
            self.ftl.blocked_programs[plane as usize].push_back(PendingProgram { lpn, owner, kind });
            self.ftl.parked_programs += 1;
            if first_try {
                self.measure.counters.blocked_writes += 1;
            }
            if self.ftl.alloc.is_static() || kind == TxnKind::GcWrite {
                self.maybe_start_gc(plane);
            } else {
                // Dynamic allocation found no plane with room: any plane may clean for it.
                for p in 0..self.geo.planes {
                    self.maybe_start_gc(p);
                }
            }
            return;
        }
        let Some(ppn) = self.ftl.blocks.allocate(plane, stream, privileged, &mut *self.ftl.wl) else {
            self.invariant(format!("plane {plane} had room for stream {stream} but allocation failed"));
            return;
        };
        self.tell_placed(plane, default, lpn, write, ppn, stream);
        if kind == TxnKind::HostWrite && !self.ftl.copies.is_empty() {
            self.drop_copies_of(lpn);
        }
        self.remap(lpn, ppn);
        if kind == TxnKind::GcWrite {
            self.note_relocated_mapping(lpn, plane);
            if self.ftl.handles.offered() {
                self.ftl.handles.count_relocated(lpn, self.ftl.unit_pages as u64);
            }
        }
        self.enqueue(Txn { kind, ppn, lpn, owner, plane, step: 0, reference: 0 });
        self.maybe_start_gc(plane);
    }

    /// Tells the placement scheme where a write went.
    pub(in crate::engine) fn tell_placed(
        &mut self,
        plane: u32,
        default: Target,
        lpn: u32,
        write: WriteKind,
        ppn: Ppn,
        stream: u32,
    ) {
        let (clock, now) = (self.retention_clock(), self.now());
        let mut ctx = self.ftl.place_ctx(&self.geo, plane, default, clock, now);
        self.scheme.placed(&mut ctx, lpn, write, ppn, stream);
    }

    /// Where the scheme sends a page write in `plane` (`default` for the baseline).
    pub(in crate::engine) fn target_in(&mut self, plane: u32, lpn: u32, write: WriteKind, default: Target) -> Target {
        let (clock, now) = (self.retention_clock(), self.now());
        let mut ctx = self.ftl.place_ctx(&self.geo, plane, default, clock, now);
        self.scheme.target(&mut ctx, lpn, write, plane)
    }

    /// Retries page writes that waited for a free block in `plane`.
    pub(in crate::engine) fn retry_blocked_programs(&mut self, plane: u32) {
        let n = self.ftl.blocked_programs[plane as usize].len();
        for _ in 0..n {
            let Some(p) = self.ftl.blocked_programs[plane as usize].pop_front() else { break };
            self.ftl.parked_programs -= 1;
            let fixed = (p.kind == TxnKind::GcWrite || self.ftl.alloc.is_static()).then_some(plane);
            self.try_place_program(p.lpn, p.owner, p.kind, fixed, false);
        }
    }

    /// Points `lpn` at the unit starting at `ppn`, invalidating the pages it held before.
    pub(in crate::engine) fn remap(&mut self, lpn: u32, ppn: Ppn) {
        let now = self.now();
        let unit = self.ftl.unit_pages as Ppn;
        if let Some(old) = self.ftl.map.set(lpn, ppn) {
            for old in old..old + unit {
                if self.ftl.blocks.is_valid(old) {
                    self.invalidate_page(old, now);
                }
            }
        }
        for p in ppn..ppn + unit {
            self.set_page_valid(p, now);
        }
    }

    /// Marks a valid page's data stale, telling the scheme, and erases its block if it was
    /// a victim's last valid page.
    #[inline]
    pub(in crate::engine) fn invalidate_page(&mut self, ppn: Ppn, now: Time) {
        self.ftl.blocks.invalidate(ppn, now);
        if self.observed {
            self.scheme.validity(ppn, false);
        }
        self.after_invalidate(ppn);
    }

    /// Marks a page's data valid, telling the scheme.
    pub(in crate::engine) fn set_page_valid(&mut self, ppn: Ppn, now: Time) {
        self.ftl.blocks.set_valid(ppn, now);
        if self.observed {
            self.scheme.validity(ppn, true);
        }
    }

    /// Retries parked writes in every plane (dynamic allocation may place them anywhere).
    pub(in crate::engine) fn retry_all_blocked_programs(&mut self) {
        for plane in 0..self.geo.planes {
            if !self.ftl.blocked_programs[plane as usize].is_empty() {
                self.retry_blocked_programs(plane);
            }
        }
    }

    pub(in crate::engine) fn program_finished(&mut self, ppn: Ppn) {
        self.ctrl.counted_programmed(ppn);
        // A program writes a whole unit, its pages in order.
        for p in ppn..ppn + self.ftl.unit_pages as Ppn {
            if let Err(m) = self.ftl.blocks.program_done(p) {
                self.invariant(m);
                return;
            }
            self.note_program(p);
        }
        // A block becomes a GC candidate when its last program finishes.
        let block = self.geo.block_of(ppn);
        if self.ftl.blocks.programmed[block as usize] == self.geo.pages_per_block {
            let plane = self.geo.plane_of_block(block);
            self.maybe_start_gc(plane);
        }
    }

    /// Gives a never-written page a physical home, as if it had been written before the run.
    pub(in crate::engine) fn materialize(&mut self, lpn: u32) -> Option<crate::nand::Ppn> {
        let stream = self.ftl.streams.materialize;
        let plane = self.alloc_plane(lpn, stream);
        if !self.ftl.blocks.can_allocate(plane, stream, false) {
            return None;
        }
        let ppn = self.ftl.blocks.allocate(plane, stream, false, &mut *self.ftl.wl)?;
        self.ftl.map.set(lpn, ppn);
        self.scheme.materialized(lpn, ppn);
        // Materialised pages have their own blocks, so finishing them at once keeps every
        // block's program order.
        for p in ppn..ppn + self.ftl.unit_pages as crate::nand::Ppn {
            self.set_page_valid(p, self.now());
            if let Err(m) = self.ftl.blocks.program_done(p) {
                self.invariant(m);
            }
        }
        self.measure.counters.materialized_pages += 1;
        self.maybe_start_gc(plane);
        Some(ppn)
    }
}

/// The hooks' name for a page write.
pub(in crate::engine) fn write_kind(kind: TxnKind) -> WriteKind {
    match kind {
        TxnKind::GcWrite | TxnKind::CopyWrite => WriteKind::Relocation,
        TxnKind::MapWrite => WriteKind::Mapping,
        _ => WriteKind::Host,
    }
}
