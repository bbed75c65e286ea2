//! The SSD as a cache in front of a disk (`[backing]`): host requests address the disk;
//! the cache layer looks each of their pages up in the directory and sends the SSD the
//! requests a cache manager would (reads of cached pages, writes of new data, fills after a
//! miss, reads of dirty pages to write them back), and the disk the rest.
//!
//! - A **read** of a cached page is an SSD read of its slot. A page that is not cached is
//!   read from the disk (consecutive missing pages of a request in one disk access); it is
//!   admitted when its data is in, and written to the SSD then (a fill). A read that meets a
//!   fill under way waits for the disk's data. An SSD read that comes back uncorrectable is a
//!   miss too (a *read error*): the page is read from the disk and written to the SSD again.
//! - A **write** follows `backing.write_policy`; a cache page is one SSD logical page, and a
//!   write of part of one caches it as if whole.
//! - An **eviction** of a dirty page reads it from the SSD through the full correction flow
//!   and writes it to the disk; a page the SSD cannot correct is not written (the disk keeps
//!   its older copy) and is counted lost.
//!
//! The SSD's report describes the SSD under the requests it was sent; the host latency is
//! the cache layer's, request by request.

use rustc_hash::FxHashMap;

use super::report_build::round6;
use super::{Ev, HostReq, Simulator};
use crate::backing::cache::{Directory, Eviction, WriteAction};
use crate::backing::hdd::Hdd;
use crate::backing::{BackingConfig, WritePolicy};
use crate::host::{Op, Request};
use crate::seams::{CacheTier, Route};
use crate::sim::Time;
use crate::stats::LatencyStats;

/// Who a request in flight belongs to (`HostReq::parent`).
pub(super) mod origin {
    /// A host request of a device without a cache tier.
    pub const HOST: u32 = u32::MAX;
    /// A host request at the cache layer: its pages are served by the parts it sends.
    pub const CACHED: u32 = u32::MAX - 1;
    /// An SSD write filling a slot with data read from the disk.
    pub const FILL: u32 = u32::MAX - 2;
    /// An SSD read of a dirty page on its way to the disk.
    pub const WRITE_BACK: u32 = u32::MAX - 3;

    /// A request the cache layer sent to the SSD (any other value is its parent's id).
    pub fn is_part(parent: u32) -> bool {
        parent != HOST && parent != CACHED
    }
}

/// The cache layer's measurements.
#[derive(Default)]
pub(super) struct CacheStats {
    pub read_pages: u64,
    pub hits: u64,
    pub misses_not_cached: u64,
    pub misses_read_error: u64,
    /// Reads of a page whose fill was under way: served when the disk's data came in.
    pub waits_for_fill: u64,
    /// Read errors of pages the disk had no current copy of (dirty): their data is lost.
    pub dirty_read_errors: u64,
    pub write_pages: u64,
    /// Written pages that went to the SSD, and to the disk only.
    pub writes_cached: u64,
    pub writes_around: u64,
    pub fills: u64,
    /// Fills given up: the slot was evicted or written before the disk's data came in.
    pub fills_dropped: u64,
    pub evictions: u64,
    pub dirty_evictions: u64,
    pub written_back: u64,
    /// Dirty pages whose write-back read was uncorrectable: not written to the disk.
    pub write_back_lost: u64,
    /// Requests a scheme sent past the cache (`CacheTier::route`).
    pub bypassed: u64,
    /// The SSD's requests from the cache layer, by op (read, write).
    pub ssd: [LatencyStats; 2],
    pub disk_reads: u64,
    pub disk_writes: u64,
    pub disk_sectors_read: u64,
    pub disk_sectors_written: u64,
    /// Disk service times (queueing excluded) and their parts, ns.
    pub disk_service: LatencyStats,
    pub disk_busy_ns: u64,
    pub disk_seek_ns: u64,
    pub disk_rotation_ns: u64,
    pub disk_transfer_ns: u64,
    /// Time from a disk request's arrival to its end, queueing included.
    pub disk_response: LatencyStats,
}

pub(super) struct CacheLayer {
    pub dir: Directory,
    pub disk: Hdd,
    pub policy: WritePolicy,
    /// Slots waiting for their data from the disk: the page, when the data is in, and the
    /// tolerance of the read that missed (the fill is written for it).
    filling: FxHashMap<u32, (u64, Time, f32)>,
    /// The disk page of each SSD read the layer has in flight.
    reading: FxHashMap<u32, u64>,
    pub stats: CacheStats,
}

impl CacheLayer {
    pub fn new(cfg: &BackingConfig, logical_pages: u64, page_bytes: u64) -> Option<CacheLayer> {
        cfg.enabled.then(|| {
            CacheLayer::with(
                cfg,
                Directory::new_warm(cfg.slots(logical_pages, page_bytes), cfg.warm, cfg.disk.capacity_bytes / page_bytes),
            )
        })
    }

    fn with(cfg: &BackingConfig, dir: Directory) -> CacheLayer {
        CacheLayer {
            dir,
            disk: Hdd::new(&cfg.disk),
            policy: cfg.write_policy,
            filling: FxHashMap::default(),
            reading: FxHashMap::default(),
            stats: CacheStats::default(),
        }
    }

    /// Invariants of the directory, and that every fill under way is for its slot's page.
    pub fn check(&self) -> Result<(), String> {
        self.dir.check()?;
        for (&slot, &(page, _, _)) in &self.filling {
            if self.dir.page_in(slot) != Some(page) {
                return Err(format!("cache slot {slot} is being filled with page {page} but holds {:?}", self.dir.page_in(slot)));
            }
        }
        Ok(())
    }
}

impl Simulator<'_> {
    /// The disk page a payload read or write of SSD page `lpn`, by request `owner`, is
    /// about: `lpn` itself without a cache tier; with one, the page a part the cache layer
    /// sent for the host carries (None for fills and write-backs, which the host does not
    /// see).
    pub(super) fn payload_page(&self, owner: u32, lpn: u32, write: bool) -> Option<u64> {
        let Some(layer) = self.backing.as_deref() else { return Some(lpn as u64) };
        if owner == crate::controller::txn::NO_OWNER {
            return if write { layer.dir.page_in(lpn) } else { None };
        }
        let parent = self.host.reqs[owner as usize].parent;
        if !origin::is_part(parent) || parent == origin::FILL || parent == origin::WRITE_BACK {
            return None;
        }
        if write {
            layer.dir.page_in(lpn)
        } else {
            layer.reading.get(&owner).copied()
        }
    }

    fn layer(&mut self) -> &mut CacheLayer {
        self.backing.as_mut().expect("the cache tier is on")
    }

    /// A disk access of `sectors` from `sector`, arriving now; returns when it ends.
    fn disk_access(&mut self, sector: u64, sectors: u64, write: bool) -> Time {
        let now = self.now();
        let layer = self.layer();
        let s = layer.disk.serve(now, sector, sectors as u32);
        let st = &mut layer.stats;
        let service = s.end - s.start;
        st.disk_service.record(service, sectors * crate::host::SECTOR_BYTES);
        st.disk_response.record(s.end - now, sectors * crate::host::SECTOR_BYTES);
        st.disk_busy_ns += service;
        st.disk_seek_ns += s.seek;
        st.disk_rotation_ns += s.rotation;
        st.disk_transfer_ns += s.transfer;
        if write {
            st.disk_writes += 1;
            st.disk_sectors_written += sectors;
        } else {
            st.disk_reads += 1;
            st.disk_sectors_read += sectors;
        }
        s.end
    }

    /// Sends the SSD a request of the cache layer's; a read of disk page `reading` has the
    /// page on record before it is issued, as a read the SSD serves from its DRAM at once
    /// (no DRAM latency, no host link) finishes within the issue.
    fn ssd_request(&mut self, op: Op, lba: u64, sectors: u64, parent: u32, like: &Request, reading: Option<u64>) {
        let r = Request {
            arrival_ns: 0,
            lba,
            sectors: sectors as u32,
            op,
            approx: like.approx,
            context: like.context,
            handle: None,
            tolerance: like.tolerance,
        };
        let id = self.new_request(&r, lba, 0, parent);
        if let Some(page) = reading {
            self.layer().reading.insert(id, page);
        }
        self.issue(id, &r, lba, 0);
    }

    /// One more part of request `id` to wait for.
    fn add_part(&mut self, id: u32) {
        self.host.reqs[id as usize].pages_left += 1;
    }

    /// A host request at the cache layer: its pages go to the SSD, the disk, or both. It
    /// holds one part of its own until every part is sent, so that parts done at once
    /// cannot finish it early.
    pub(super) fn cache_request(&mut self, id: u32, r: &Request, lba: u64) {
        let now = self.now();
        let bypass = self.scheme.route(r, now) == Route::Bypass;
        if bypass {
            self.layer().stats.bypassed += 1;
        }
        match r.op {
            Op::Read => self.cached_read(id, r, lba, bypass),
            Op::Write => self.cached_write(id, r, lba, bypass),
        }
        self.page_done(id);
    }

    /// Sectors of page `page` that `lba..end` touches, as (first sector, count).
    fn touched(&self, page: u64, lba: u64, end: u64) -> (u64, u64) {
        let spp = self.host.sectors_per_page;
        let lo = lba.max(page * spp);
        let hi = end.min((page + 1) * spp);
        (lo - page * spp, hi - lo)
    }

    fn cached_read(&mut self, id: u32, r: &Request, lba: u64, bypass: bool) {
        let spp = self.host.sectors_per_page;
        let end = lba + r.sectors as u64;
        let (first, last) = (lba / spp, (end - 1) / spp);
        let mut run: Option<u64> = None;
        for page in first..=last {
            self.add_part(id);
            let layer = self.layer();
            layer.stats.read_pages += 1;
            if let Some(slot) = layer.dir.read(page) {
                if let Some(&(_, ready, _)) = layer.filling.get(&slot) {
                    layer.stats.waits_for_fill += 1;
                    self.payload_read(page, 0.0);
                    self.page_done_at(id, ready);
                } else {
                    layer.stats.hits += 1;
                    let (offset, sectors) = self.touched(page, lba, end);
                    self.ssd_request(Op::Read, slot as u64 * spp + offset, sectors, id, r, Some(page));
                }
                if let Some(start) = run.take() {
                    self.read_missing(id, start, page, bypass, r.tolerance);
                }
            } else {
                layer.stats.misses_not_cached += 1;
                run.get_or_insert(page);
            }
        }
        if let Some(start) = run {
            self.read_missing(id, start, last + 1, bypass, r.tolerance);
        }
    }

    /// Pages `start..end` of request `id` are not cached: one disk read, then fills.
    fn read_missing(&mut self, id: u32, start: u64, end: u64, bypass: bool, tolerance: f32) {
        let spp = self.host.sectors_per_page;
        let ready = self.disk_access(start * spp, (end - start) * spp, false);
        for page in start..end {
            self.payload_read(page, 0.0);
            self.page_done_at(id, ready);
            if !bypass {
                self.admit(page, ready, tolerance);
            }
        }
    }

    /// Takes a slot for `page`, whose data is in from the disk at `ready`, and fills it then.
    fn admit(&mut self, page: u64, ready: Time, tolerance: f32) {
        let Some((slot, evicted)) = self.layer().dir.admit(page) else { return };
        if let Some(e) = evicted {
            self.evict(e);
        }
        self.fill(slot, page, ready, tolerance);
    }

    fn fill(&mut self, slot: u32, page: u64, ready: Time, tolerance: f32) {
        self.layer().filling.insert(slot, (page, ready, tolerance));
        self.q.schedule(ready, Ev::CacheFill(slot));
    }

    /// The disk's data for `slot` is in: write it to the SSD, unless the slot has been
    /// given another page or written since.
    pub(super) fn on_cache_fill(&mut self, slot: u32) {
        let now = self.now();
        let layer = self.layer();
        match layer.filling.get(&slot) {
            Some(&(page, ready, tolerance)) if ready == now => {
                layer.filling.remove(&slot);
                layer.stats.fills += 1;
                let spp = self.host.sectors_per_page;
                let like = Request {
                    arrival_ns: 0,
                    lba: page * spp,
                    sectors: spp as u32,
                    op: Op::Write,
                    approx: false,
                    context: 0,
                    handle: None,
                    tolerance,
                };
                self.ssd_request(Op::Write, slot as u64 * spp, spp, origin::FILL, &like, None);
            }
            // A later fill of the slot owns it now; its own event comes.
            Some(_) => {}
            None => layer.stats.fills_dropped += 1,
        }
    }

    /// Page `e.page` leaves slot `e.slot`: a dirty one is read back (fully corrected) for
    /// the disk first; that read is sent before anything is written to the slot.
    fn evict(&mut self, e: Eviction) {
        let layer = self.layer();
        layer.stats.evictions += 1;
        if layer.filling.remove(&e.slot).is_some() {
            // Its data never reached the SSD; the disk has it.
            debug_assert!(!e.dirty, "a page being filled is clean");
            return;
        }
        if !e.dirty {
            return;
        }
        layer.stats.dirty_evictions += 1;
        let spp = self.host.sectors_per_page;
        let like = Request {
            arrival_ns: 0,
            lba: e.page * spp,
            sectors: spp as u32,
            op: Op::Read,
            approx: false,
            context: 0,
            handle: None,
            tolerance: 0.0,
        };
        self.ssd_request(Op::Read, e.slot as u64 * spp, spp, origin::WRITE_BACK, &like, Some(e.page));
    }

    fn cached_write(&mut self, id: u32, r: &Request, lba: u64, bypass: bool) {
        let spp = self.host.sectors_per_page;
        let end = lba + r.sectors as u64;
        let policy = if bypass { WritePolicy::WriteAround } else { self.layer().policy };
        for page in lba / spp..=(end - 1) / spp {
            let (offset, sectors) = self.touched(page, lba, end);
            let layer = self.layer();
            layer.stats.write_pages += 1;
            match layer.dir.write(page, policy) {
                WriteAction::Cache { slot, evicted, to_disk } => {
                    layer.stats.writes_cached += 1;
                    if layer.filling.remove(&slot).is_some() {
                        // The new data supersedes the disk's.
                        layer.stats.fills_dropped += 1;
                    }
                    if let Some(e) = evicted {
                        self.evict(e);
                    }
                    self.add_part(id);
                    self.ssd_request(Op::Write, slot as u64 * spp + offset, sectors, id, r, None);
                    if to_disk {
                        self.write_disk(id, page * spp + offset, sectors);
                    }
                }
                WriteAction::Disk { dropped } => {
                    layer.stats.writes_around += 1;
                    if let Some(slot) = dropped {
                        if layer.filling.remove(&slot).is_some() {
                            layer.stats.fills_dropped += 1;
                        }
                    }
                    self.write_disk(id, page * spp + offset, sectors);
                }
            }
        }
    }

    fn write_disk(&mut self, id: u32, sector: u64, sectors: u64) {
        self.add_part(id);
        let ready = self.disk_access(sector, sectors, true);
        self.page_done_at(id, ready);
    }

    /// A request the cache layer sent to the SSD has finished.
    pub(super) fn cache_part_done(&mut self, id: u32, r: HostReq, latency: Time) {
        let layer = self.layer();
        layer.stats.ssd[r.op as usize].record(latency, r.bytes);
        let page = if r.op == Op::Read { layer.reading.remove(&id) } else { None };
        match r.parent {
            origin::FILL => {}
            origin::WRITE_BACK => {
                let page = page.expect("a write-back read knows its page");
                if r.failed > 0 {
                    self.layer().stats.write_back_lost += 1;
                } else {
                    self.layer().stats.written_back += 1;
                    let spp = self.host.sectors_per_page;
                    self.disk_access(page * spp, spp, true);
                }
            }
            parent if r.failed > 0 => {
                let page = page.expect("a cached read knows its page");
                self.read_error(parent, page, r.tolerance);
            }
            parent => self.page_done(parent),
        }
    }

    /// A cached page of request `parent` came back uncorrectable: a miss. The page is read
    /// from the disk and, if still cached, written to the SSD again.
    fn read_error(&mut self, parent: u32, page: u64, tolerance: f32) {
        let layer = self.layer();
        layer.stats.hits -= 1;
        layer.stats.misses_read_error += 1;
        let slot = layer.dir.slot_of(page);
        if slot.is_some_and(|s| layer.dir.is_dirty(s)) {
            layer.stats.dirty_read_errors += 1;
            // The disk's copy is all there is now.
            layer.dir.cleaned(slot.expect("checked"));
        }
        let spp = self.host.sectors_per_page;
        let ready = self.disk_access(page * spp, spp, false);
        self.payload_read(page, 0.0);
        self.page_done_at(parent, ready);
        if let Some(slot) = slot.filter(|s| !self.layer().filling.contains_key(s)) {
            self.fill(slot, page, ready, tolerance);
        }
    }
}

impl Simulator<'_> {
    pub(super) fn backing_report(&self, simulated_ns: u64) -> crate::report::BackingReport {
        use crate::report::*;
        // Without a cache tier: the idle values, every count 0.
        let empty = CacheLayer::with(&self.cfg.backing, Directory::new(0));
        let l = self.backing.as_deref().unwrap_or(&empty);
        let s = &l.stats;
        let accesses = (s.disk_reads + s.disk_writes).max(1) as f64;
        let ms = |ns: u64| round6(ns as f64 / 1e6 / accesses);
        BackingReport {
            enabled: self.backing.is_some(),
            write_policy: l.policy,
            slots: l.dir.slots() as u64,
            cached_pages: l.dir.len() as u64,
            dirty_pages: l.dir.dirty_pages() as u64,
            reads: CacheReadReport {
                pages: s.read_pages,
                hits: s.hits,
                hit_ratio: round6(s.hits as f64 / s.read_pages.max(1) as f64),
                misses_not_cached: s.misses_not_cached,
                misses_read_error: s.misses_read_error,
                waits_for_fill: s.waits_for_fill,
                dirty_read_errors: s.dirty_read_errors,
            },
            writes: CacheWriteReport { pages: s.write_pages, cached: s.writes_cached, around: s.writes_around },
            fills: s.fills,
            fills_dropped: s.fills_dropped,
            evictions: s.evictions,
            dirty_evictions: s.dirty_evictions,
            written_back: s.written_back,
            write_back_lost: s.write_back_lost,
            bypassed: s.bypassed,
            ssd_reads: OpCount { count: s.ssd[0].count(), latency_us: s.ssd[0].summary() },
            ssd_writes: OpCount { count: s.ssd[1].count(), latency_us: s.ssd[1].summary() },
            disk: DiskReport {
                reads: s.disk_reads,
                writes: s.disk_writes,
                sectors_read: s.disk_sectors_read,
                sectors_written: s.disk_sectors_written,
                utilization: if simulated_ns > 0 { round6(s.disk_busy_ns as f64 / simulated_ns as f64) } else { 0.0 },
                service_us: s.disk_service.summary(),
                response_us: s.disk_response.summary(),
                seek_ms_mean: ms(s.disk_seek_ns),
                rotation_ms_mean: ms(s.disk_rotation_ns),
                transfer_ms_mean: ms(s.disk_transfer_ns),
            },
        }
    }
}
