//! The SSD as a cache in front of a disk (`[backing]`): a front end that host requests
//! reach first. They address the disk; the front end looks each of their pages up in the
//! directory and sends the SSD, through a port ([`SsdPort`]), the requests a cache manager
//! would (reads of cached pages, writes of new data, fills after a miss, reads of dirty
//! pages to write them back), and the disk the rest. The SSD knows nothing of the cache: it
//! serves requests the port hands it, each with a tag, and tells the front end when each
//! has finished and whether a page of it came back uncorrectable.
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
//! A host request holds a part for each page's SSD request or disk access (and one of its own
//! until all are sent); it is done when the last part is, and the host's latency is the
//! front end's, request by request.

use rustc_hash::FxHashMap;

use super::cache::{Directory, Eviction, WriteAction};
use super::hdd::Hdd;
use super::{BackingConfig, WritePolicy};
use crate::host::{Op, Request};
use crate::sim::slab::Slab;
use crate::sim::Time;
use crate::stats::LatencyStats;

/// What the front end asks of the SSD and the simulation around it.
pub trait SsdPort {
    fn now(&self) -> Time;
    /// Sends the SSD request `r`; its end comes back as a [`Completion`] with `tag`.
    fn submit(&mut self, r: &Request, tag: u32);
    /// A request of the front end's that finished while it was being submitted (an SSD
    /// read served from its DRAM at once), in the order they finished.
    fn finished_now(&mut self) -> Option<Completion>;
    /// Calls the front end back ([`CacheFront::on_timer`]) with `slot` at `at`.
    fn timer(&mut self, at: Time, slot: u32);
    /// Host request `id` is done, its data ready at `ready`.
    fn host_done(&mut self, id: u32, ready: Time);
    /// The payload (payload mode) of disk page `page` went to the host as written.
    fn payload_read(&mut self, page: u64);
    /// Whether a request goes past the cache (a scheme's cache-tier hook).
    fn bypass(&mut self, r: &Request) -> bool;
}

/// The end of an SSD request the front end sent.
#[derive(Debug, Clone, Copy)]
pub struct Completion {
    pub tag: u32,
    pub op: Op,
    pub bytes: u64,
    pub latency: Time,
    /// Pages of it came back uncorrectable.
    pub failed: bool,
    /// The bit error rate it tolerated (its host request's).
    pub tolerance: f32,
}

/// A host request at the front end.
#[derive(Debug, Clone, Copy)]
pub struct HostEntry {
    pub arrival: Time,
    pub op: Op,
    pub bytes: u64,
    /// A read: the relocation reasons running when it arrived, as bits.
    pub during: u16,
    /// Parts not yet done, and when the data of those done is ready.
    parts: u32,
    ready: Time,
}

/// What an SSD request of the front end's is for.
#[derive(Debug, Clone, Copy)]
enum Part {
    /// A page of host request `host`; a read knows its disk page.
    Host { host: u32, page: Option<u64> },
    /// A fill of a slot with data read from the disk.
    Fill,
    /// A read of dirty disk page `page` on its way to the disk.
    WriteBack { page: u64 },
}

/// The cache layer's measurements.
#[derive(Default)]
pub struct CacheStats {
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

pub struct CacheFront {
    pub dir: Directory,
    pub disk: Hdd,
    pub policy: WritePolicy,
    /// Sectors per cache page (one SSD logical page).
    spp: u64,
    /// Slots waiting for their data from the disk: the page, when the data is in, and the
    /// tolerance of the read that missed (the fill is written for it).
    filling: FxHashMap<u32, (u64, Time, f32)>,
    /// Host requests in flight, by id.
    hosts: Slab<HostEntry>,
    /// SSD requests in flight, by tag.
    parts: Slab<Part>,
    pub stats: CacheStats,
}

impl CacheFront {
    /// The front end of `[backing]`, over an SSD of `logical_pages` pages of `page_bytes`;
    /// `None` when the tier is off.
    pub fn new(cfg: &BackingConfig, logical_pages: u64, page_bytes: u64) -> Option<CacheFront> {
        cfg.enabled.then(|| {
            CacheFront::with(
                cfg,
                Directory::new_warm(cfg.slots(logical_pages, page_bytes), cfg.warm, cfg.disk.capacity_bytes / page_bytes),
                page_bytes,
            )
        })
    }

    /// A front end over `dir` (an empty one reports the idle values).
    pub fn with(cfg: &BackingConfig, dir: Directory, page_bytes: u64) -> CacheFront {
        CacheFront {
            dir,
            disk: Hdd::new(&cfg.disk),
            policy: cfg.write_policy,
            spp: page_bytes / crate::host::SECTOR_BYTES,
            filling: FxHashMap::default(),
            hosts: Slab::default(),
            parts: Slab::default(),
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

    /// The host request `id` the front end finished (after [`SsdPort::host_done`]); its id
    /// is free again.
    pub fn take_host(&mut self, id: u32) -> HostEntry {
        self.hosts.remove(id)
    }

    /// The disk page a payload read or write of SSD logical page `lpn` by the front end's
    /// request `tag` is about: the page a host part carries; `None` for fills and
    /// write-backs, which the host does not see.
    pub fn payload_page(&self, tag: u32, lpn: u32, write: bool) -> Option<u64> {
        match *self.parts.get(tag) {
            Part::Host { page, .. } => {
                if write {
                    self.dir.page_in(lpn)
                } else {
                    page
                }
            }
            Part::Fill | Part::WriteBack { .. } => None,
        }
    }

    /// A host request arrives at the front end: its pages go to the SSD, the disk, or both.
    /// It holds one part of its own until every part is sent, so that parts done at once
    /// cannot finish it early.
    pub fn request(&mut self, port: &mut dyn SsdPort, r: &Request, lba: u64, during: u16) {
        let now = port.now();
        let entry = HostEntry {
            arrival: now,
            op: r.op,
            bytes: r.sectors as u64 * crate::host::SECTOR_BYTES,
            during,
            parts: 1,
            ready: now,
        };
        let id = self.hosts.insert(entry);
        let bypass = port.bypass(r);
        if bypass {
            self.stats.bypassed += 1;
        }
        match r.op {
            Op::Read => self.cached_read(port, id, r, lba, bypass),
            Op::Write => self.cached_write(port, id, r, lba, bypass),
        }
        self.part_done(port, id, now);
    }

    /// One part of host request `id` is done, its data ready at `ready`.
    fn part_done(&mut self, port: &mut dyn SsdPort, id: u32, ready: Time) {
        let h = &mut self.hosts[id as usize];
        h.ready = h.ready.max(ready);
        h.parts -= 1;
        if h.parts == 0 {
            // At the cache layer the data crossed the SSD's interface in the parts' reads.
            port.host_done(id, h.ready);
        }
    }

    /// Sends the SSD a request of the front end's; one that finishes within its submission
    /// (a read the SSD serves from its DRAM at once) is settled before anything else.
    fn ssd_request(&mut self, port: &mut dyn SsdPort, op: Op, lba: u64, sectors: u64, part: Part, like: &Request) {
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
        let tag = self.parts.insert(part);
        port.submit(&r, tag);
        while let Some(c) = port.finished_now() {
            self.on_ssd_done(port, c);
        }
    }

    /// One more part of host request `id` to wait for.
    fn add_part(&mut self, id: u32) {
        self.hosts[id as usize].parts += 1;
    }

    /// Sectors of page `page` that `lba..end` touches, as (first sector, count).
    fn touched(&self, page: u64, lba: u64, end: u64) -> (u64, u64) {
        let spp = self.spp;
        let lo = lba.max(page * spp);
        let hi = end.min((page + 1) * spp);
        (lo - page * spp, hi - lo)
    }

    fn cached_read(&mut self, port: &mut dyn SsdPort, id: u32, r: &Request, lba: u64, bypass: bool) {
        let spp = self.spp;
        let end = lba + r.sectors as u64;
        let (first, last) = (lba / spp, (end - 1) / spp);
        let mut run: Option<u64> = None;
        for page in first..=last {
            self.add_part(id);
            self.stats.read_pages += 1;
            if let Some(slot) = self.dir.read(page) {
                if let Some(&(_, ready, _)) = self.filling.get(&slot) {
                    self.stats.waits_for_fill += 1;
                    port.payload_read(page);
                    self.part_done(port, id, ready);
                } else {
                    self.stats.hits += 1;
                    let (offset, sectors) = self.touched(page, lba, end);
                    let part = Part::Host { host: id, page: Some(page) };
                    self.ssd_request(port, Op::Read, slot as u64 * spp + offset, sectors, part, r);
                }
                if let Some(start) = run.take() {
                    self.read_missing(port, id, start, page, bypass, r.tolerance);
                }
            } else {
                self.stats.misses_not_cached += 1;
                run.get_or_insert(page);
            }
        }
        if let Some(start) = run {
            self.read_missing(port, id, start, last + 1, bypass, r.tolerance);
        }
    }

    /// Pages `start..end` of request `id` are not cached: one disk read, then fills.
    fn read_missing(&mut self, port: &mut dyn SsdPort, id: u32, start: u64, end: u64, bypass: bool, tolerance: f32) {
        let spp = self.spp;
        let ready = self.disk_access(port.now(), start * spp, (end - start) * spp, false);
        for page in start..end {
            port.payload_read(page);
            self.part_done(port, id, ready);
            if !bypass {
                self.admit(port, page, ready, tolerance);
            }
        }
    }

    /// Takes a slot for `page`, whose data is in from the disk at `ready`, and fills it then.
    fn admit(&mut self, port: &mut dyn SsdPort, page: u64, ready: Time, tolerance: f32) {
        let Some((slot, evicted)) = self.dir.admit(page) else { return };
        if let Some(e) = evicted {
            self.evict(port, e);
        }
        self.fill(port, slot, page, ready, tolerance);
    }

    fn fill(&mut self, port: &mut dyn SsdPort, slot: u32, page: u64, ready: Time, tolerance: f32) {
        self.filling.insert(slot, (page, ready, tolerance));
        port.timer(ready, slot);
    }

    /// The disk's data for `slot` is in: write it to the SSD, unless the slot has been
    /// given another page or written since.
    pub fn on_timer(&mut self, port: &mut dyn SsdPort, slot: u32) {
        let now = port.now();
        match self.filling.get(&slot) {
            Some(&(page, ready, tolerance)) if ready == now => {
                self.filling.remove(&slot);
                self.stats.fills += 1;
                let spp = self.spp;
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
                self.ssd_request(port, Op::Write, slot as u64 * spp, spp, Part::Fill, &like);
            }
            // A later fill of the slot owns it now; its own timer comes.
            Some(_) => {}
            None => self.stats.fills_dropped += 1,
        }
    }

    /// Page `e.page` leaves slot `e.slot`: a dirty one is read back (fully corrected) for
    /// the disk first; that read is sent before anything is written to the slot.
    fn evict(&mut self, port: &mut dyn SsdPort, e: Eviction) {
        self.stats.evictions += 1;
        if self.filling.remove(&e.slot).is_some() {
            // Its data never reached the SSD; the disk has it.
            debug_assert!(!e.dirty, "a page being filled is clean");
            return;
        }
        if !e.dirty {
            return;
        }
        self.stats.dirty_evictions += 1;
        let spp = self.spp;
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
        self.ssd_request(port, Op::Read, e.slot as u64 * spp, spp, Part::WriteBack { page: e.page }, &like);
    }

    fn cached_write(&mut self, port: &mut dyn SsdPort, id: u32, r: &Request, lba: u64, bypass: bool) {
        let spp = self.spp;
        let end = lba + r.sectors as u64;
        let policy = if bypass { WritePolicy::WriteAround } else { self.policy };
        for page in lba / spp..=(end - 1) / spp {
            let (offset, sectors) = self.touched(page, lba, end);
            self.stats.write_pages += 1;
            match self.dir.write(page, policy) {
                WriteAction::Cache { slot, evicted, to_disk } => {
                    self.stats.writes_cached += 1;
                    if self.filling.remove(&slot).is_some() {
                        // The new data supersedes the disk's.
                        self.stats.fills_dropped += 1;
                    }
                    if let Some(e) = evicted {
                        self.evict(port, e);
                    }
                    self.add_part(id);
                    let part = Part::Host { host: id, page: None };
                    self.ssd_request(port, Op::Write, slot as u64 * spp + offset, sectors, part, r);
                    if to_disk {
                        self.write_disk(port, id, page * spp + offset, sectors);
                    }
                }
                WriteAction::Disk { dropped } => {
                    self.stats.writes_around += 1;
                    if let Some(slot) = dropped {
                        if self.filling.remove(&slot).is_some() {
                            self.stats.fills_dropped += 1;
                        }
                    }
                    self.write_disk(port, id, page * spp + offset, sectors);
                }
            }
        }
    }

    fn write_disk(&mut self, port: &mut dyn SsdPort, id: u32, sector: u64, sectors: u64) {
        self.add_part(id);
        let ready = self.disk_access(port.now(), sector, sectors, true);
        self.part_done(port, id, ready);
    }

    /// An SSD request the front end sent has finished.
    pub fn on_ssd_done(&mut self, port: &mut dyn SsdPort, c: Completion) {
        self.stats.ssd[c.op as usize].record(c.latency, c.bytes);
        let part = self.parts.remove(c.tag);
        match part {
            Part::Fill => {}
            Part::WriteBack { page } => {
                if c.failed {
                    self.stats.write_back_lost += 1;
                } else {
                    self.stats.written_back += 1;
                    let spp = self.spp;
                    self.disk_access(port.now(), page * spp, spp, true);
                }
            }
            Part::Host { host, page } if c.failed => {
                let page = page.expect("a cached read knows its page");
                self.read_error(port, host, page, c.tolerance);
            }
            Part::Host { host, .. } => {
                let now = port.now();
                self.part_done(port, host, now)
            }
        }
    }

    /// A cached page of host request `host` came back uncorrectable: a miss. The page is
    /// read from the disk and, if still cached, written to the SSD again.
    fn read_error(&mut self, port: &mut dyn SsdPort, host: u32, page: u64, tolerance: f32) {
        self.stats.hits -= 1;
        self.stats.misses_read_error += 1;
        let slot = self.dir.slot_of(page);
        if slot.is_some_and(|s| self.dir.is_dirty(s)) {
            self.stats.dirty_read_errors += 1;
            // The disk's copy is all there is now.
            self.dir.cleaned(slot.expect("checked"));
        }
        let spp = self.spp;
        let ready = self.disk_access(port.now(), page * spp, spp, false);
        port.payload_read(page);
        self.part_done(port, host, ready);
        if let Some(slot) = slot.filter(|s| !self.filling.contains_key(s)) {
            self.fill(port, slot, page, ready, tolerance);
        }
    }

    /// A disk access of `sectors` from `sector`, arriving at `now`; returns when it ends.
    fn disk_access(&mut self, now: Time, sector: u64, sectors: u64, write: bool) -> Time {
        let s = self.disk.serve(now, sector, sectors as u32);
        let st = &mut self.stats;
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
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;

    /// A port that records what the front end asks; SSD requests finish when the test says
    /// (or at once, into the inbox, with `serve_at_once`).
    #[derive(Default)]
    struct Recorder {
        now: Time,
        submitted: Vec<(Request, u32)>,
        timers: Vec<(Time, u32)>,
        done: Vec<(u32, Time)>,
        inbox: VecDeque<Completion>,
        payload: Vec<u64>,
        serve_at_once: bool,
    }

    impl SsdPort for Recorder {
        fn now(&self) -> Time {
            self.now
        }
        fn submit(&mut self, r: &Request, tag: u32) {
            self.submitted.push((*r, tag));
            if self.serve_at_once {
                let bytes = r.sectors as u64 * crate::host::SECTOR_BYTES;
                self.inbox.push_back(Completion { tag, op: r.op, bytes, latency: 0, failed: false, tolerance: 0.0 });
            }
        }
        fn finished_now(&mut self) -> Option<Completion> {
            self.inbox.pop_front()
        }
        fn timer(&mut self, at: Time, slot: u32) {
            self.timers.push((at, slot));
        }
        fn host_done(&mut self, id: u32, ready: Time) {
            self.done.push((id, ready));
        }
        fn payload_read(&mut self, page: u64) {
            self.payload.push(page);
        }
        fn bypass(&mut self, _r: &Request) -> bool {
            false
        }
    }

    const SPP: u64 = 8;

    fn front(slots: u32) -> CacheFront {
        let cfg = BackingConfig { enabled: true, ..Default::default() };
        CacheFront::with(&cfg, Directory::new(slots), SPP * crate::host::SECTOR_BYTES)
    }

    fn read(page: u64) -> Request {
        Request {
            arrival_ns: 0,
            lba: page * SPP,
            sectors: SPP as u32,
            op: Op::Read,
            approx: false,
            context: 0,
            handle: None,
            tolerance: 0.0,
        }
    }

    fn finish(f: &mut CacheFront, port: &mut Recorder, tag: u32, op: Op, failed: bool) {
        let c = Completion { tag, op, bytes: SPP * 512, latency: 1_000, failed, tolerance: 0.0 };
        f.on_ssd_done(port, c);
    }

    #[test]
    fn a_miss_reads_the_disk_and_fills_the_ssd_through_the_port_and_the_next_read_hits() {
        let mut f = front(4);
        let mut port = Recorder::default();
        f.request(&mut port, &read(7), 7 * SPP, 0);
        // Served by the disk: done when its data is in, and the slot filled then.
        assert!(port.submitted.is_empty());
        let [(id, ready)] = port.done[..] else { panic!("{:?}", port.done) };
        assert!(ready > 0);
        assert_eq!(port.timers, vec![(ready, 0)]);
        assert_eq!(f.take_host(id).op, Op::Read);
        port.now = ready;
        f.on_timer(&mut port, 0);
        let (fill, tag) = port.submitted[0];
        assert_eq!((fill.op, fill.lba, f.stats.fills), (Op::Write, 0, 1));
        assert_eq!(f.payload_page(tag, 0, true), None, "a fill is not the host's");
        finish(&mut f, &mut port, tag, Op::Write, false);
        // A hit is an SSD read of the slot; the host hears of it only when the SSD is done.
        port.now += 10_000;
        f.request(&mut port, &read(7), 7 * SPP, 0);
        let (hit, tag) = port.submitted[1];
        assert_eq!((hit.op, hit.lba, f.stats.hits), (Op::Read, 0, 1));
        assert_eq!(f.payload_page(tag, 0, false), Some(7));
        assert_eq!(port.done.len(), 1);
        finish(&mut f, &mut port, tag, Op::Read, false);
        assert_eq!(port.done[1], (id, port.now), "the freed id is used again");
        assert_eq!(f.stats.ssd[0].count() + f.stats.ssd[1].count(), 2);
    }

    #[test]
    fn an_uncorrectable_hit_is_read_from_the_disk_and_filled_again() {
        let mut f = front(4);
        let mut port = Recorder::default();
        f.request(&mut port, &read(3), 3 * SPP, 0);
        port.now = port.done[0].1;
        f.on_timer(&mut port, 0);
        let tag = port.submitted[0].1;
        finish(&mut f, &mut port, tag, Op::Write, false);
        f.request(&mut port, &read(3), 3 * SPP, 0);
        let tag = port.submitted[1].1;
        finish(&mut f, &mut port, tag, Op::Read, true);
        assert_eq!((f.stats.hits, f.stats.misses_read_error, f.stats.disk_reads), (0, 1, 2));
        let (_, ready) = port.done[1];
        assert!(ready > port.now, "served by the disk");
        assert_eq!(port.timers.last(), Some(&(ready, 0)), "written to its slot again");
        assert_eq!(port.payload, vec![3, 3]);
    }

    #[test]
    fn a_request_the_ssd_serves_within_its_submission_is_settled_before_the_host_part() {
        let mut f = front(4);
        let mut port = Recorder { serve_at_once: true, ..Default::default() };
        // Warm the slot with page 5, then read it: the SSD read finishes at once, and the
        // host request is done when the front end returns, at the same instant.
        f.request(&mut port, &read(5), 5 * SPP, 0);
        port.now = port.done[0].1;
        f.on_timer(&mut port, 0);
        port.done.clear();
        f.request(&mut port, &read(5), 5 * SPP, 0);
        assert!(port.inbox.is_empty());
        assert_eq!(port.done.len(), 1);
        assert_eq!(port.done[0].1, port.now);
        assert_eq!(f.stats.hits, 1);
    }
}
