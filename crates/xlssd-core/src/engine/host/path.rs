//! Host requests: arrival (open or closed loop), splitting into pages, the write buffer,
//! and completion.

use super::super::{Ev, Simulator};
use super::{HostReq, Link};
use crate::config::{AddressMode, UnmappedReads};
use crate::controller::buffer::Insert;
use crate::controller::txn::{Txn, TxnKind, NO_OWNER};
use crate::error::Error;
use crate::host::{Op, Request, RequestSource};
use crate::seams::{HostWrite, Placement};
use crate::sim::Time;

/// Requests taken from the source before their turn to be scheduled, so that their mapping
/// entries can be fetched from memory early ([`Simulator::prefetch_entries`]). Only when a
/// request is scheduled does anything of the simulation see it.
const READ_AHEAD: usize = 4;

impl Simulator<'_> {
    /// Queues the first arrivals: one for open loop, a queue depth's worth for closed loop.
    pub(in crate::engine) fn prime_arrivals(&mut self) -> crate::error::Result<()> {
        let initial = self.host.closed_loop.unwrap_or(1);
        for _ in 0..initial {
            if !self.pull_next()? {
                break;
            }
        }
        Ok(())
    }

    /// Schedules the arrival of the next request from the source, keeping [`READ_AHEAD`]
    /// more read ahead. Returns false at the end of the workload.
    fn pull_next(&mut self) -> crate::error::Result<bool> {
        while self.host.upcoming.len() - self.host.scheduled < READ_AHEAD && !self.host.source_ended {
            match self.host.source.next_request()? {
                Some(r) => {
                    self.prefetch_entries(r.lba);
                    self.host.upcoming.push_back(r);
                }
                None => self.host.source_ended = true,
            }
        }
        let Some(arrival_ns) = self.host.upcoming.get(self.host.scheduled).map(|r| r.arrival_ns) else { return Ok(false) };
        let at = match self.host.closed_loop {
            Some(_) => self.now(),
            None => {
                let first = *self.host.first_raw_arrival.get_or_insert(arrival_ns);
                let rel = arrival_ns.saturating_sub(first) as f64 * self.cfg.host.time_scale;
                // Traces are replayed in file order; an arrival earlier than its predecessor
                // arrives with it.
                crate::sim::round_u64(rel).max(self.host.last_arrival).max(self.now())
            }
        };
        self.host.last_arrival = at;
        self.host.scheduled += 1;
        self.q.schedule_ordered(at, Ev::Arrival);
        Ok(true)
    }

    /// Starts fetching the mapping entry of the unit holding sector `lba`, in the table and
    /// in the cache of it. A request's entry is read when it arrives; fetched as the request
    /// is read ahead, [`READ_AHEAD`] arrivals earlier, the memory latency passes while other
    /// events run.
    fn prefetch_entries(&self, lba: u64) {
        let lpn = lba / self.ftl.div().unit_sectors;
        self.ftl.map().prefetch(lpn);
        if let Some(cmt) = self.ctrl.cmt() {
            cmt.prefetch(lpn as u32);
        }
    }

    pub(in crate::engine) fn on_arrival(&mut self) {
        if self.host.scheduled == 0 {
            return;
        }
        let Some(req) = self.host.upcoming.pop_front() else { return };
        self.host.scheduled -= 1;
        self.submit(req);
        if self.host.closed_loop.is_none() {
            if let Err(e) = self.pull_next() {
                self.fail(e);
            }
        }
    }

    /// The first sector request `index` of `source` addresses, wrapped or refused as
    /// `host.address_mode` says.
    fn first_sector(&self, r: &Request, source: &dyn RequestSource, index: u64) -> Result<u64, Error> {
        let end = r.lba + r.sectors as u64;
        if end <= self.host.logical_sectors {
            return Ok(r.lba);
        }
        match self.cfg.host.address_mode {
            AddressMode::Error => Err(Error::Address {
                source_name: source.name().to_string(),
                index,
                first: r.lba,
                end,
                capacity: self.host.logical_sectors,
            }),
            AddressMode::Wrap => Ok(r.lba % self.host.logical_sectors),
        }
    }

    /// What a placement scheme is told of write request `r` starting at sector `lba`.
    fn host_write_of(&self, r: &Request, lba: u64) -> HostWrite {
        let first_lpn = lba / self.ftl.div().unit_sectors;
        let last_lpn = (lba + r.sectors as u64 - 1) / self.ftl.div().unit_sectors;
        self.host_write_at(r, lba, first_lpn, (last_lpn - first_lpn + 1) as u32)
    }

    /// As [`Self::host_write_of`], for a request whose logical pages are known.
    fn host_write_at(&self, r: &Request, lba: u64, first_lpn: u64, n_pages: u32) -> HostWrite {
        HostWrite {
            first_lpn,
            n_pages,
            lba,
            bytes: r.sectors as u64 * crate::host::SECTOR_BYTES,
            approximate: r.approx,
            context: r.context,
            handle: r.handle,
            tolerance: r.tolerance,
            logical_pages: self.ftl.logical_pages(),
        }
    }

    /// Shows a placement scheme that asks for it every host write of `source` (the same
    /// workload the run replays, opened again) before the first request.
    pub fn preview(&mut self, mut source: Box<dyn RequestSource + '_>) -> Result<(), Error> {
        if !self.wants_preview() {
            return Ok(());
        }
        let mut index = 0u64;
        while let Some(r) = source.next_request()? {
            if r.op == Op::Write {
                let lba = self.first_sector(&r, &*source, index)?;
                let w = self.host_write_of(&r, lba);
                self.scheme.preview(&w);
            }
            index += 1;
            if index % 4096 == 0 {
                crate::interrupt::poll()?;
            }
        }
        Ok(())
    }

    /// Whether the scheme wants to see the workload's writes before the run.
    pub fn wants_preview(&self) -> bool {
        self.scheme.wants_preview()
    }

    fn submit(&mut self, mut r: Request) {
        let now = self.now();
        if r.tolerance == 0.0 {
            r.tolerance = self.host.default_tolerance;
        }
        let lba = match self.first_sector(&r, &*self.host.source, self.host.submitted) {
            Ok(lba) => lba,
            Err(e) => {
                self.fail(e);
                return;
            }
        };
        let handle = if r.op == Op::Write && self.ftl.handles().offered() {
            match self.ftl.handles().of_request(r.handle, self.host.source.name(), self.host.submitted) {
                Ok(h) => h,
                Err(e) => {
                    self.fail(e);
                    return;
                }
            }
        } else {
            0
        };
        self.host.submitted += 1;
        self.host.first_arrival_time.get_or_insert(now);
        self.host.idle_gen += 1;
        if self.cfg.backing.enabled {
            let during = if r.op == Op::Read { self.measure.relocs.running_mask() } else { 0 };
            self.cache_request(&r, lba, during);
            return;
        }
        let id = self.new_request(&r, lba, handle, None);
        self.issue(id, &r, lba, handle);
    }

    /// A request in flight for `r` from sector `lba`; counted outstanding.
    #[inline]
    pub(in crate::engine) fn new_request(&mut self, r: &Request, lba: u64, handle: u8, tag: Option<u32>) -> u32 {
        let now = self.now();
        let first_lpn = lba / self.ftl.div().unit_sectors;
        let last_lpn = (lba + r.sectors as u64 - 1) / self.ftl.div().unit_sectors;
        let n_pages = (last_lpn - first_lpn + 1) as u32;
        // A read of a unit of several pages reads only the pages it touches, each one a page
        // of the request to finish; a write programs whole units.
        let flash_pages = (self.geo.page_of_sector(lba + r.sectors as u64 - 1) - self.geo.page_of_sector(lba) + 1) as u32;
        let hr = HostReq {
            arrival: now,
            bytes: r.sectors as u64 * crate::host::SECTOR_BYTES,
            op: r.op,
            first_lba: lba,
            first_lpn,
            n_pages,
            flash_pages,
            rmw_left: 0,
            // A read finishes page by page; a write unit by unit.
            pages_left: if r.op == Op::Read { flash_pages } else { n_pages },
            ready: now,
            next_page: 0,
            during: if r.op == Op::Read { self.measure.relocs.running_mask() } else { 0 },
            on_die: 0,
            handle,
            tag,
            failed: 0,
            tolerance: r.tolerance,
        };
        let id = self.host.reqs.insert(hr);
        self.host.admit();
        id
    }

    /// Sends request `id` (for `r`, from sector `lba`) to the flash.
    pub(in crate::engine) fn issue(&mut self, id: u32, r: &Request, lba: u64, handle: u8) {
        let first_lpn = self.host.reqs[id as usize].first_lpn;
        let n_pages = self.host.reqs[id as usize].n_pages;
        match r.op {
            Op::Read => {
                for i in 0..n_pages {
                    let lpn = self.page_of(id, i);
                    for page in self.pages_touched(lba, r.sectors as u64, first_lpn + i as u64) {
                        self.read_page(id, lpn, page as u32);
                    }
                }
            }
            Op::Write => {
                if self.ftl.handles().offered() {
                    for i in 0..n_pages {
                        let lpn = self.page_of(id, i);
                        self.ftl.handles_mut().wrote(lpn, handle);
                    }
                }
                let w = self.host_write_at(r, lba, first_lpn, n_pages);
                self.scheme.host_write(&w);
                // The data crosses the host interface before the device can place it.
                let bytes = self.host.reqs[id as usize].bytes;
                let now = self.now();
                let done = self.host_link_transfer(Link::ToDevice, bytes, now);
                if done > now {
                    self.q.schedule(done, Ev::WriteDataIn(id));
                } else {
                    self.write_data_in(id);
                }
            }
        }
    }

    /// A write request's data is in the controller: merge its partial units, then buffer
    /// or program it.
    pub(in crate::engine) fn write_data_in(&mut self, id: u32) {
        if self.ftl.unit_pages() > 1 && self.read_for_merge(id) > 0 {
            return;
        }
        self.write_merged(id);
    }

    /// Reads the pages of the request's partly covered units that it does not write and that
    /// hold data on flash (read-modify-write); returns how many reads were issued.
    fn read_for_merge(&mut self, id: u32) -> u32 {
        let r = self.host.reqs[id as usize];
        let n = self.ftl.unit_pages() as u64;
        let sectors = r.bytes / crate::host::SECTOR_BYTES;
        let mut reads = 0;
        // Only the first and the last unit can be partly covered.
        let ends = [0, r.n_pages - 1];
        for &i in &ends[..ends.len().min(r.n_pages as usize)] {
            let lpn = self.page_of(id, i);
            let covered = self.pages_touched(r.first_lba, sectors, r.first_lpn + i as u64);
            if *covered.start() == 0 && *covered.end() == n - 1 {
                continue;
            }
            // The buffer or an unfinished program holds the unit's data: merged in DRAM.
            let Some(base) = self.ftl.map().get(lpn).filter(|_| !self.ctrl.buffer().contains(lpn)) else { continue };
            let plane = self.geo.plane_of_block(self.geo.block_of(base));
            for page in (0..n).filter(|p| !covered.contains(p)) {
                let ppn = base + page;
                if !self.ftl.blocks().is_programmed(ppn) {
                    continue;
                }
                self.measure.counters.rmw_reads += 1;
                reads += 1;
                self.enqueue(Txn { kind: TxnKind::RmwRead, ppn, lpn, owner: id, plane, step: 0, reference: 0 });
            }
        }
        self.host.reqs[id as usize].rmw_left = reads;
        reads
    }

    /// The pages of logical page `unit` (numbered before wrapping, as `first_lpn + i`) that
    /// sectors `lba..lba + sectors` touch, numbered within it.
    fn pages_touched(&self, lba: u64, sectors: u64, unit: u64) -> std::ops::RangeInclusive<u64> {
        let n = self.ftl.unit_pages() as u64;
        let (first, last) = (self.geo.page_of_sector(lba), self.geo.page_of_sector(lba + sectors - 1));
        let start = unit * n;
        first.max(start) - start..=last.min(start + n - 1) - start
    }

    /// A read for a merge finished: the write goes on when its last one has.
    pub(in crate::engine) fn merge_read_done(&mut self, id: u32) {
        let r = &mut self.host.reqs[id as usize];
        r.rmw_left -= 1;
        if r.rmw_left == 0 {
            self.write_merged(id);
        }
    }

    /// The write's units are whole in the controller: buffer or program them.
    fn write_merged(&mut self, id: u32) {
        let n_pages = self.host.reqs[id as usize].n_pages;
        // In flash pages: a request of part of a unit writes fewer pages than its units hold,
        // and the difference is what the unit's program adds.
        self.measure.counters.host_pages_written += self.host.reqs[id as usize].flash_pages as u64;
        if self.ftl.handles().offered() {
            let r = &self.host.reqs[id as usize];
            self.ftl.handles_mut().count_host(r.handle, r.flash_pages as u64);
        }
        if self.ctrl.buffer().enabled() {
            if !self.buffer_pages(id) {
                self.host.blocked_writes.push_back(id);
            }
        } else {
            for i in 0..n_pages {
                let lpn = self.page_of(id, i);
                self.program_page(lpn, id, TxnKind::HostWrite, None);
            }
        }
    }

    /// Reserves the host interface in one direction for `bytes`; returns when the transfer
    /// ends. Each direction carries one transfer at a time, in the order they are asked for.
    /// Reserves the host link in one direction for `bytes` from `from` on; returns when the
    /// transfer ends.
    fn host_link_transfer(&mut self, link: Link, bytes: u64, from: Time) -> Time {
        let xfer = self.timing.host_xfer_ns(bytes);
        if xfer == 0 {
            return from;
        }
        let free = &mut self.host.host_link_free[link as usize];
        let done = (*free).max(from) + xfer;
        *free = done;
        done
    }

    /// Logical page `i` of a request (wrapping at the end of the logical space).
    fn page_of(&self, req: u32, i: u32) -> u32 {
        ((self.host.reqs[req as usize].first_lpn + i as u64) % self.ftl.div().logical_pages) as u32
    }

    /// Reads page `page` of logical page (unit) `lpn` for request `req`.
    fn read_page(&mut self, req: u32, lpn: u32, page: u32) {
        self.measure.counters.host_pages_read += 1;
        if self.ctrl.buffer().contains(lpn) {
            self.measure.counters.buffer_read_hits += 1;
            self.page_from_dram(req);
            return;
        }
        let ppn = match self.ftl.map().get(lpn) {
            Some(ppn) => ppn,
            None if self.ftl.map().is_pending(lpn) => {
                // Its newest data waits for a page: it is still in the controller.
                self.measure.counters.inflight_read_hits += 1;
                self.page_from_dram(req);
                return;
            }
            None => {
                self.measure.counters.unmapped_reads += 1;
                let materialized = match self.cfg.host.unmapped_reads {
                    UnmappedReads::Zero => None,
                    UnmappedReads::Materialize => self.materialize(lpn),
                };
                match materialized {
                    Some(ppn) => ppn,
                    None => {
                        self.measure.counters.unmapped_zero_reads += 1;
                        self.page_from_dram(req);
                        return;
                    }
                }
            }
        };
        let ppn = ppn + page as crate::nand::Ppn;
        if !self.ftl.blocks().is_programmed(ppn) {
            // The page's program is still in flight: its data is still in the controller.
            self.measure.counters.inflight_read_hits += 1;
            self.page_from_dram(req);
            return;
        }
        let ppn = self.read_copy_of(lpn, ppn);
        let plane = self.geo.plane_of_block(self.geo.block_of(ppn));
        if self.measure.relocs.running_mask() != 0 {
            self.host.reqs[req as usize].on_die |= self.relocations_on_die(plane);
        }
        let txn = Txn { kind: TxnKind::HostRead, ppn, lpn, owner: req, plane, step: 0, reference: 0 };
        self.with_mapping(lpn, super::Parked::Read(txn), false);
    }

    /// The reasons of the relocations running on the die of `plane`, as bits.
    fn relocations_on_die(&self, plane: u32) -> u16 {
        let per_die = self.geo.planes_per_die;
        let first = plane - plane % per_die;
        (first..first + per_die).map(|p| self.ftl.gc_job(p)).filter(|j| j.active()).fold(0, |mask, j| mask | 1 << j.stats)
    }

    /// Places a write request's remaining pages in the buffer; false if it filled up first
    /// (or, for the eager policy, if the flush limit is reached).
    fn buffer_pages(&mut self, req: u32) -> bool {
        let n = self.host.reqs[req as usize].n_pages;
        let mut complete = true;
        while self.host.reqs[req as usize].next_page < n {
            let i = self.host.reqs[req as usize].next_page;
            let lpn = self.page_of(req, i);
            if self.ctrl.eager() && self.flush_budget() == 0 {
                complete = false;
                break;
            }
            match self.ctrl.buffer_mut().insert(lpn) {
                Insert::Full => {
                    complete = false;
                    break;
                }
                outcome => {
                    if outcome == Insert::Overwrite {
                        self.measure.counters.buffer_write_hits += 1;
                    }
                    self.host.reqs[req as usize].next_page = i + 1;
                    if self.ctrl.eager() {
                        self.flush_buffer(u64::MAX);
                    }
                    self.page_from_dram(req);
                }
            }
        }
        if self.ctrl.buffer().is_full() {
            self.flush_buffer(u64::MAX);
        }
        complete
    }

    /// Flushes the buffer may still start under `cache.max_inflight_flush_pages`.
    fn flush_budget(&self) -> u64 {
        match self.cfg.cache.max_inflight_flush_pages {
            0 => u64::MAX,
            limit => (limit as u64).saturating_sub(self.ctrl.buffer().inflight_pages()),
        }
    }

    /// A flushed page reached flash: let waiting writes in and keep writing back.
    pub(in crate::engine) fn flush_finished(&mut self, lpn: u32) {
        self.ctrl.buffer_mut().flush_done(lpn);
        self.admit_blocked_writes();
        if self.ctrl.writes_back_more() {
            self.flush_buffer(u64::MAX);
        }
    }

    /// Slots were freed: let waiting writes in, oldest first.
    pub(in crate::engine) fn admit_blocked_writes(&mut self) {
        while let Some(&req) = self.host.blocked_writes.front() {
            if !self.buffer_pages(req) {
                break;
            }
            self.host.blocked_writes.pop_front();
        }
    }

    /// Writes back up to `max` dirty pages of the buffer, within the in-flight limit.
    pub(in crate::engine) fn flush_buffer(&mut self, max: u64) {
        let mut lpns = std::mem::take(&mut self.host.scratch);
        lpns.clear();
        let budget = max.min(self.flush_budget());
        self.ctrl.buffer_mut().take_dirty(budget, &mut lpns);
        self.measure.counters.buffer_flushes += lpns.len() as u64;
        for &lpn in &lpns {
            // Written back from the buffer: read out of DRAM once.
            self.dram_access();
            self.program_page(lpn, NO_OWNER, TxnKind::HostWrite, None);
        }
        self.host.scratch = lpns;
    }

    /// One page read from or written to the DRAM buffer: the DRAM draws `energy.dram_ma`
    /// for `timing.dram_ns`.
    fn dram_access(&mut self) {
        self.measure.energy.dram_j += self.joules(self.timing.dram_ns as f64, self.cfg.energy.dram_ma);
    }

    /// A page of a request is served from DRAM after the DRAM access time.
    fn page_from_dram(&mut self, req: u32) {
        let dram = self.timing.dram_ns;
        self.dram_access();
        if dram == 0 {
            self.page_done(req);
        } else {
            self.q.schedule_in(dram, Ev::PageDone(req));
        }
    }

    pub(in crate::engine) fn page_done(&mut self, req: u32) {
        self.page_done_at(req, self.now());
    }

    /// One page of a request will be done at `ready` (now or later).
    #[inline]
    pub(in crate::engine) fn page_done_at(&mut self, req: u32, ready: Time) {
        let r = &mut self.host.reqs[req as usize];
        r.ready = r.ready.max(ready);
        r.pages_left -= 1;
        if r.pages_left > 0 {
            return;
        }
        let (op, bytes, ready) = (r.op, r.bytes, r.ready);
        let done = match op {
            Op::Read => self.host_link_transfer(Link::ToHost, bytes, ready),
            Op::Write => ready,
        };
        if done > self.now() {
            self.q.schedule(done, Ev::ReqDone(req));
        } else {
            self.finish_request(req);
        }
    }

    pub(in crate::engine) fn finish_request(&mut self, req: u32) {
        let now = self.now();
        let r = *self.host.reqs.get(req);
        let latency = now - r.arrival;
        if r.during != 0 {
            self.measure.relocs.read_during(r.during, latency);
        }
        if r.on_die != 0 {
            self.measure.relocs.read_on_die(r.on_die, latency);
        }
        self.host.reqs.remove(req);
        self.host.retire();
        match r.tag {
            Some(tag) => self.cache_part_done(tag, r, latency),
            None => self.host_request_done(r.op, r.bytes, latency),
        }
        self.flush_when_idle();
    }

    /// A host request is done after `latency`: measured, counted, and in closed loop the
    /// next one submitted.
    pub(in crate::engine) fn host_request_done(&mut self, op: Op, bytes: u64, latency: Time) {
        let now = self.now();
        self.measure.lat[op as usize].record(latency, bytes);
        self.host.completed_at(now);
        if self.host.closed_loop.is_some() {
            if let Err(e) = self.pull_next() {
                self.fail(e);
            }
        }
    }

    /// With nothing outstanding and dirty pages buffered, the idle clock starts.
    pub(in crate::engine) fn flush_when_idle(&mut self) {
        if self.host.idle() && self.ctrl.buffer().dirty_pages() > 0 {
            let (gen, after) = self.host.start_idle_clock();
            self.q.schedule_in(after, Ev::IdleFlush(gen));
        }
    }
}
