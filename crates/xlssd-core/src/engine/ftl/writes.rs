//! Page writes as the FTL places them: the plane and stream of each, its physical page,
//! writes parked for a free block, remapping and validity, and a program's pages counted
//! programmed.

use super::super::controller::Parked;
use super::super::Simulator;
use crate::controller::txn::{Txn, TxnKind, NO_OWNER};
use crate::ftl::config::PageBinding;
use crate::ftl::policy::AllocContext;
use crate::nand::Ppn;
use crate::seams::{Observer, Placement, Target, WriteKind};
use crate::sim::Time;

/// A program transaction whose physical page is not chosen yet carries this bit in its
/// `ppn`; the bits below it hold a host write's version or a GC copy's source page.
pub(in crate::engine) const UNBOUND: Ppn = 1 << 63;
/// In an unbound program's `step`: its plane is fixed (a GC copy's, or the caller's).
const FIXED_PLANE: u8 = 1;
/// In an unbound program's `reference`: it has been counted among the writes that waited
/// for a free block.
const COUNTED_BLOCKED: u8 = 1;
/// In an unbound host write's `reference`: it holds a version of its logical page.
const VERSIONED: u8 = 2;

impl Simulator<'_> {
    /// The plane a logical page of `stream` is written to, as the allocation policy decides.
    pub(in crate::engine) fn alloc_plane(&mut self, lpn: u32, stream: u32) -> u32 {
        let ctx = AllocContext { die_load: self.ctrl.die_load(), unbound: &self.ftl.unbound, blocks: &self.ftl.blocks, stream };
        self.ftl.alloc.plane_for(lpn, &ctx)
    }

    /// Writes a logical page to a new physical page (host data, a buffer flush or a
    /// translation page). `plane` fixes the plane. A host write first needs its mapping
    /// entry, and is queued only once it has it.
    pub(in crate::engine) fn program_page(&mut self, lpn: u32, owner: u32, kind: TxnKind, plane: Option<u32>) {
        if kind == TxnKind::HostWrite && self.ctrl.cmt().is_some() {
            self.with_mapping(lpn, Parked::Write { lpn, owner }, true);
        } else {
            self.place_program(lpn, owner, kind, plane);
        }
    }

    /// Queues the program of a logical page, its physical page still to be chosen
    /// ([`UNBOUND`]). Bound at issue, a host write takes a version so that an older one
    /// cannot overtake it; bound at queueing it needs one only if it has to wait.
    pub(in crate::engine) fn place_program(&mut self, lpn: u32, owner: u32, kind: TxnKind, plane: Option<u32>) {
        let mut t = Txn { kind, ppn: UNBOUND, lpn, owner, plane: plane.unwrap_or(0), step: 0, reference: 0 };
        if plane.is_some() {
            t.step |= FIXED_PLANE;
        }
        if kind == TxnKind::HostWrite && self.ftl.binding == PageBinding::Issue {
            self.take_version(&mut t);
            self.supersede(lpn);
        }
        self.queue_program(t);
    }

    /// A host write of `lpn` is queued without its page: the data `lpn` had on flash is
    /// stale from now on, as it would be were the page bound now (cleaning must not copy
    /// it), and the entry waits for the write's page.
    fn supersede(&mut self, lpn: u32) {
        if let Some(old) = self.ftl.map.set_pending(lpn) {
            let now = self.now();
            for p in old..old + self.ftl.unit_pages as Ppn {
                if self.ftl.blocks.is_valid(p) {
                    self.invalidate_page(p, now);
                }
            }
        }
        if !self.ftl.copies.is_empty() {
            self.drop_copies_of(lpn);
        }
    }

    /// Gives host write `t` the next version of its logical page.
    fn take_version(&mut self, t: &mut Txn) {
        t.ppn = UNBOUND | self.ftl.versions.queued(t.lpn) as Ppn;
        t.reference |= VERSIONED;
    }

    /// Queues the copy of a victim's page `source`, which holds logical page `lpn`, within
    /// `plane`.
    pub(in crate::engine) fn relocate_page(&mut self, lpn: u32, source: Ppn, plane: u32) {
        let t =
            Txn { kind: TxnKind::GcWrite, ppn: UNBOUND | source, lpn, owner: NO_OWNER, plane, step: FIXED_PLANE, reference: 0 };
        self.queue_program(t);
    }

    /// Queues a copy of page `source`, which holds logical page `lpn`, into `plane` (a read
    /// path scheme's extra copy).
    pub(in crate::engine) fn queue_copy(&mut self, lpn: u32, source: Ppn, plane: u32) {
        let t =
            Txn { kind: TxnKind::CopyWrite, ppn: UNBOUND | source, lpn, owner: NO_OWNER, plane, step: FIXED_PLANE, reference: 0 };
        self.queue_program(t);
    }

    /// Sends unbound program `t` to its plane's die (choosing the plane unless it is
    /// fixed); with `ftl.page_binding = "queue"` its page is chosen first.
    fn queue_program(&mut self, mut t: Txn) {
        if t.step & FIXED_PLANE == 0 {
            t.plane = self.alloc_plane(t.lpn, self.default_stream(t.kind, t.lpn));
        }
        match self.ftl.binding {
            PageBinding::Issue => self.enqueue(t),
            PageBinding::Queue => {
                if let Some(bound) = self.bind_program(t) {
                    self.enqueue(bound);
                    self.maybe_start_gc(bound.plane);
                }
            }
        }
    }

    /// The stream a write of `kind` goes to unless the scheme says otherwise.
    fn default_stream(&self, kind: TxnKind, lpn: u32) -> u32 {
        match kind {
            TxnKind::GcWrite if self.ftl.handles.offered() => self.ftl.handles.gc_stream(lpn),
            TxnKind::GcWrite => self.ftl.streams.gc,
            TxnKind::MapWrite => self.ftl.streams.mapping,
            TxnKind::HostWrite if self.ftl.handles.offered() => self.ftl.handles.host_stream(lpn),
            _ => 0,
        }
    }

    /// Chooses the physical page of unbound program `t`, remaps, and returns it bound; or
    /// returns None having dropped it (a GC copy whose page the host rewrote meanwhile),
    /// parked it until its plane has a free block, or sent it to another plane's die. The
    /// caller queues or starts the bound program.
    pub(in crate::engine) fn bind_program(&mut self, mut t: Txn) -> Option<Txn> {
        debug_assert!(t.ppn & UNBOUND != 0);
        if t.kind == TxnKind::CopyWrite {
            return self.bind_copy(t);
        }
        let (lpn, kind) = (t.lpn, t.kind);
        let tag = t.ppn & !UNBOUND;
        if kind == TxnKind::GcWrite && self.copy_is_stale(lpn, tag) {
            self.measure.counters.gc_copies_dropped += 1;
            return None;
        }
        let default_stream = self.default_stream(kind, lpn);
        let fixed = t.step & FIXED_PLANE != 0;
        let mut plane = t.plane;
        let default = Target { stream: default_stream, privileged: kind == TxnKind::GcWrite };
        let write = write_kind(kind);
        let mut target = self.target_in(plane, lpn, write, default);
        // Under dynamic allocation a write whose plane has no room for the stream it goes to
        // (the scheme's, or the default one when the plane filled up while the write waited
        // at its die) goes to a plane that has room: at once when pages are bound at
        // queueing, through that plane's die when they are bound at issue.
        if !fixed && !self.ftl.alloc.is_static() && !self.ftl.blocks.can_allocate(plane, target.stream, target.privileged) {
            let other = self.alloc_plane(lpn, target.stream);
            if other != plane && self.ftl.blocks.can_allocate(other, target.stream, target.privileged) {
                if self.ftl.binding == PageBinding::Issue {
                    t.plane = other;
                    self.enqueue(t);
                    return None;
                }
                plane = other;
                target = self.target_in(plane, lpn, write, default);
            }
        }
        let Target { stream, privileged } = target;
        if !self.ftl.blocks.can_allocate(plane, stream, privileged) {
            self.park_program(t, plane);
            return None;
        }
        let Some(ppn) = self.ftl.blocks.allocate(plane, stream, privileged, &mut *self.ftl.wl) else {
            self.invariant(format!("plane {plane} had room for stream {stream} but allocation failed"));
            return None;
        };
        self.tell_placed(plane, default, lpn, write, ppn, stream);
        // A host write of a page a newer write of which was queued before it got its page
        // is programmed as the host sent it, but the page keeps pointing to the newer data.
        let mut superseded = false;
        if kind == TxnKind::HostWrite {
            if t.reference & VERSIONED != 0 {
                superseded = !self.ftl.versions.is_latest(lpn, tag as u32);
                self.ftl.versions.settled(lpn);
            } else {
                // Bound as it is queued: newer than any write of its page still waiting.
                self.ftl.versions.overtake(lpn);
            }
            if !superseded && !self.ftl.copies.is_empty() {
                self.drop_copies_of(lpn);
            }
        }
        if superseded {
            self.measure.counters.superseded_writes += 1;
        } else {
            self.remap(lpn, ppn);
        }
        if kind == TxnKind::GcWrite {
            self.count_moved(plane);
            self.note_relocated_mapping(lpn, plane);
            if self.ftl.handles.offered() {
                self.ftl.handles.count_relocated(lpn, self.ftl.unit_pages as u64);
            }
        }
        Some(Txn { kind, ppn, lpn, owner: t.owner, plane, step: 0, reference: 0 })
    }

    /// Whether page `source` (a victim's, or the page an extra copy is made of) no longer
    /// holds logical page `lpn`'s data (the host rewrote it since it was read), so a copy of
    /// it is not needed.
    pub(in crate::engine) fn copy_is_stale(&self, lpn: u32, source: Ppn) -> bool {
        let unit = self.ftl.unit_pages as Ppn;
        !self.ftl.blocks.is_valid(source) || self.ftl.map.get(lpn) != Some(source - source % unit)
    }

    /// Parks unbound program `t` until `plane` has a free block, and has cleaning begin.
    fn park_program(&mut self, mut t: Txn, plane: u32) {
        if t.kind == TxnKind::HostWrite && t.reference & VERSIONED == 0 {
            self.take_version(&mut t);
        }
        if t.reference & COUNTED_BLOCKED == 0 {
            self.measure.counters.blocked_writes += 1;
            t.reference |= COUNTED_BLOCKED;
        }
        t.plane = plane;
        let kind = t.kind;
        self.ftl.blocked_programs[plane as usize].push_back(t);
        self.ftl.parked_programs += 1;
        if self.ftl.alloc.is_static() || kind == TxnKind::GcWrite {
            self.maybe_start_gc(plane);
        } else {
            // Dynamic allocation found no plane with room: any plane may clean for it.
            for p in 0..self.geo.planes {
                self.maybe_start_gc(p);
            }
        }
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
            let Some(mut t) = self.ftl.blocked_programs[plane as usize].pop_front() else { break };
            self.ftl.parked_programs -= 1;
            // GC copies stay in their plane, as does everything under static allocation.
            if t.kind == TxnKind::GcWrite || self.ftl.alloc.is_static() {
                t.step |= FIXED_PLANE;
            } else {
                t.step &= !FIXED_PLANE;
            }
            self.queue_program(t);
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
