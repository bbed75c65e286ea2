//! The cached mapping table's traffic: a page access waits for its entry, a miss reads
//! the translation page (once for all who wait on it), evicted or relocated entries that
//! changed have their translation pages written back.

use super::super::Simulator;
use super::Parked;
use crate::controller::txn::{Txn, TxnKind, NO_OWNER};

impl Simulator<'_> {
    /// Goes on with `work` once the mapping entry of `lpn` is in the cached mapping table,
    /// reading its translation page first on a miss.
    #[inline]
    pub(in crate::engine) fn with_mapping(&mut self, lpn: u32, work: Parked, write: bool) {
        let Some(cmt) = self.ctrl.cmt.as_mut() else {
            self.resume(work);
            return;
        };
        if cmt.touch(lpn) {
            if write {
                cmt.mark_dirty(lpn);
            }
            self.measure.counters.cmt_hits += 1;
            self.resume(work);
            return;
        }
        self.measure.counters.cmt_misses += 1;
        let tvpn = self.ftl.translation_page(lpn);
        let tlpn = self.ftl.translation_lpn(tvpn);
        if let Some(waiters) = self.ctrl.translations.waiting_for(tvpn) {
            waiters.push((lpn, work, write));
            return;
        }
        match self.ftl.map().get(tlpn) {
            Some(tppn) if self.ftl.blocks().is_programmed(tppn) => {
                self.ctrl.translations.start_read(tvpn, (lpn, work, write));
                let plane = self.geo.plane_of_block(self.geo.block_of(tppn));
                self.enqueue(Txn { kind: TxnKind::MapRead, ppn: tppn, lpn: tvpn, owner: NO_OWNER, plane, step: 0, reference: 0 });
            }
            // Never written, or still in the controller on its way to flash: nothing to read.
            _ => self.mapping_loaded(lpn, work, write),
        }
    }

    /// A translation page arrived: cache the entries its waiters need and let them go on.
    pub(in crate::engine) fn map_read_done(&mut self, tvpn: u32) {
        let mut waiters = std::mem::take(&mut self.ctrl.arrived_waiters);
        self.ctrl.translations.finish_read(tvpn, &mut waiters);
        for &(lpn, work, write) in &waiters {
            self.mapping_loaded(lpn, work, write);
        }
        // Kept for the next read: a miss is frequent enough for its allocation to show.
        self.ctrl.arrived_waiters = waiters;
    }

    pub(in crate::engine) fn mapping_loaded(&mut self, lpn: u32, work: Parked, write: bool) {
        let evicted = self.ctrl.cmt.as_mut().and_then(|c| c.insert(lpn, write));
        if let Some((old, true)) = evicted {
            self.write_back_translation(self.ftl.translation_page(old));
        }
        self.resume(work);
    }

    pub(in crate::engine) fn resume(&mut self, work: Parked) {
        match work {
            Parked::Read(txn) => self.enqueue(txn),
            Parked::Write { lpn, owner } => self.place_program(lpn, owner, TxnKind::HostWrite, None),
        }
    }

    /// GC moved `lpn`: its entry changes. A cached entry is marked changed; otherwise its
    /// translation page must be rewritten, once per GC job however many of its entries the
    /// job moved (see [`Self::write_back_gc_translations`]).
    pub(in crate::engine) fn note_relocated_mapping(&mut self, lpn: u32, plane: u32) {
        if (lpn as u64) >= self.ftl.logical_pages() {
            return; // a translation page: its location lives in DRAM (the GTD)
        }
        let Some(cmt) = self.ctrl.cmt.as_mut() else { return };
        if !cmt.mark_dirty(lpn) {
            self.ftl.note_translation_update(plane, self.ftl.translation_page(lpn));
        }
    }

    /// Writes the translation pages a plane's GC job changed, each once.
    pub(in crate::engine) fn write_back_gc_translations(&mut self, plane: u32) {
        let mut pages = Vec::new();
        self.ftl.take_translation_updates(plane, &mut pages);
        for tvpn in pages {
            self.write_back_translation(tvpn);
        }
    }

    /// Programs translation page `tvpn` unless a write of it is already on its way.
    pub(in crate::engine) fn write_back_translation(&mut self, tvpn: u32) {
        if self.ctrl.translations.start_write(tvpn) {
            let tlpn = self.ftl.translation_lpn(tvpn);
            self.program_page(tlpn, NO_OWNER, TxnKind::MapWrite, None);
        }
    }
}
