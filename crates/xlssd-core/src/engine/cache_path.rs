//! The engine's side of the cache tier (`[backing]`): the port through which the front end
//! (`crate::backing::front`) drives the SSD. A request the front end submits is an SSD
//! request with its tag; when it finishes, the front end hears of it with the tag. While the
//! front end is at work the engine holds it apart from itself, so a request that finishes
//! within its own submission waits in an inbox the front end empties before it goes on, and
//! a host request finished at once is finished when the front end returns: in both cases
//! in the order they would have been handled in place.

use std::collections::VecDeque;

use super::report_build::round6;
use super::{Ev, HostReq, Simulator};
use crate::backing::cache::Directory;
use crate::backing::front::{CacheFront, Completion, SsdPort};
use crate::host::Request;
use crate::seams::{CacheTier, Route};
use crate::sim::Time;

/// The engine as the front end sees it.
struct Port<'a, 's> {
    sim: &'a mut Simulator<'s>,
}

impl SsdPort for Port<'_, '_> {
    fn now(&self) -> Time {
        self.sim.now()
    }

    fn submit(&mut self, r: &Request, tag: u32) {
        let id = self.sim.new_request(r, r.lba, 0, Some(tag));
        self.sim.issue(id, r, r.lba, 0);
    }

    fn finished_now(&mut self) -> Option<Completion> {
        self.sim.front.inbox.pop_front()
    }

    fn timer(&mut self, at: Time, slot: u32) {
        self.sim.q.schedule(at, Ev::CacheFill(slot));
    }

    fn host_done(&mut self, id: u32, ready: Time) {
        if ready > self.sim.now() {
            self.sim.q.schedule(ready, Ev::FrontDone(id));
        } else {
            self.sim.front.finished.push_back(id);
        }
    }

    fn payload_read(&mut self, page: u64) {
        self.sim.payload_read(page, 0.0);
    }

    fn bypass(&mut self, r: &Request) -> bool {
        let now = self.sim.now();
        self.sim.scheme.route(r, now) == Route::Bypass
    }
}

/// What waits for the front end while it is at work.
#[derive(Default)]
pub(super) struct FrontWaits {
    /// Its SSD requests that finished within their submission.
    inbox: VecDeque<Completion>,
    /// Its host requests finished at once.
    finished: VecDeque<u32>,
}

impl Simulator<'_> {
    /// Runs `f` on the front end with the engine as its port; then finishes the host
    /// requests it finished at once.
    fn with_front(&mut self, f: impl FnOnce(&mut CacheFront, &mut dyn SsdPort)) {
        let mut front = self.backing.take().expect("the cache tier is on and not at work");
        f(&mut front, &mut Port { sim: self });
        self.backing = Some(front);
        while let Some(id) = self.front.finished.pop_front() {
            self.finish_front_request(id);
        }
    }

    /// A host request arrives at the cache tier.
    pub(super) fn cache_request(&mut self, r: &Request, lba: u64, during: u16) {
        self.host.admit();
        self.with_front(|f, port| f.request(port, r, lba, during));
    }

    /// The disk's data for a cache slot is in.
    pub(super) fn on_cache_fill(&mut self, slot: u32) {
        self.with_front(|f, port| f.on_timer(port, slot));
    }

    /// An SSD request of the front end's, tagged `tag`, finished after `latency`.
    pub(super) fn cache_part_done(&mut self, tag: u32, r: HostReq, latency: Time) {
        let c = Completion { tag, op: r.op, bytes: r.bytes, latency, failed: r.failed > 0, tolerance: r.tolerance };
        if self.backing.is_some() {
            self.with_front(|f, port| f.on_ssd_done(port, c));
        } else {
            self.front.inbox.push_back(c);
        }
    }

    /// A host request of the front end's is done.
    pub(super) fn finish_front_request(&mut self, id: u32) {
        let h = self.backing.as_mut().expect("the cache tier is on").take_host(id);
        let latency = self.now() - h.arrival;
        if h.during != 0 {
            self.measure.relocs.read_during(h.during, latency);
        }
        self.host.retire();
        self.host_request_done(h.op, h.bytes, latency);
        self.flush_when_idle();
    }

    /// The disk page a payload read or write of SSD page `lpn`, by request `owner`, is
    /// about: `lpn` itself without a cache tier; with one, the page a part the front end
    /// sent for the host carries (None for fills and write-backs, which the host does not
    /// see).
    pub(super) fn payload_page(&self, owner: u32, lpn: u32, write: bool) -> Option<u64> {
        let Some(front) = self.backing.as_deref() else { return Some(lpn as u64) };
        if owner == crate::controller::txn::NO_OWNER {
            return if write { front.dir.page_in(lpn) } else { None };
        }
        let tag = self.host.req(owner).tag?;
        front.payload_page(tag, lpn, write)
    }
}

impl Simulator<'_> {
    pub(super) fn backing_report(&self, simulated_ns: u64) -> crate::report::BackingReport {
        use crate::report::*;
        // Without a cache tier: the idle values, every count 0.
        let page_bytes = self.geo.page_size as u64 * self.ftl.unit_pages() as u64;
        let empty = CacheFront::with(&self.cfg.backing, Directory::new(0), page_bytes);
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
