//! The simulator: runs the event loop over components that each own their state: the host
//! interface (`host/`: requests, queues, admission, the host link), the controller
//! (`controller/`: transactions, dies, channels, the write buffer, the cached mapping
//! table), the FTL's state (`ftl/`: mapping, blocks, streams, policies, cleaning jobs,
//! erases, extra copies), the read path's physics and decoding (`reliability.rs`) and the
//! measurements (`measurements.rs`), with the scheme behind the seams
//! (`crate::seams::Joined`). A component's fields are private to its folder; the event
//! handlers there (`impl Simulator` blocks) change them, and the rest of the engine calls
//! the component's methods.

mod cache_path;
mod controller;
mod ftl;
mod host;
mod measurements;
mod payload;
mod reliability;
mod report_build;
mod tasks;

use std::collections::VecDeque;

use strength_reduce::{StrengthReducedU32, StrengthReducedU64};

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::config::{AllocationScheme, Config, ReplayMode};
use crate::controller::buffer::WriteBuffer;
use crate::controller::cmt::Cmt;
use crate::controller::die::{Channel, Die};
use crate::controller::translation::Translations;
use crate::controller::txn::TxnSlab;
use crate::error::{Error, Result};
use crate::ftl::alloc::{DynamicLeastBusy, StaticCwdp};
use crate::ftl::blocks::{BlockManager, NO_BLOCK};
use crate::ftl::gc::selector;
use crate::ftl::mapping::Mapping;
use crate::ftl::policy::{PlaneAllocator, VictimSelector, WearLeveler};
use crate::ftl::wear::EraseCountLeveler;
use crate::host::{Op, Request, RequestSource};
use crate::interrupt;
use crate::nand::{Geometry, Timing};
use crate::report::Report;
use crate::seams::{FreeBlocks, Joined, Reason, Relocating, SetupCtx, TaskCounts, Technique};
use crate::sim::{us_to_ns, EventQueue, Time};
use crate::stats::relocation::RelocationStats;
use crate::stats::{Busy, ChannelUse, Counters, Energy, LatencyStats};
use controller::{Controller, Parked};
use ftl::FtlState;
use host::{HostInterface, HostReq};
use measurements::Measurements;
pub use payload::{FinalReadStats, Payload, PayloadStats};

/// Events of the simulation. Payloads are small indices so that events stay `Copy`.
#[derive(Debug, Clone, Copy)]
enum Ev {
    /// The next queued host request arrives.
    Arrival,
    /// A channel finished its current transfer.
    ChannelDone(u32),
    /// A die's array operation (sense, program, erase) of the given generation finished.
    ArrayDone(u32, u32),
    /// A page of a host request was served from DRAM.
    PageDone(u32),
    /// A read request's data has crossed the host interface to the host.
    ReqDone(u32),
    /// A write request's data has crossed the host interface to the device.
    WriteDataIn(u32),
    /// The host has been idle since the generation given: flush the write buffer.
    IdleFlush(u64),
    /// A read's decode finished on its channel's ECC engine, with an outcome code.
    Decoded(u32, u8),
    /// Time for the scheme's periodic background task.
    Background,
    /// The disk's data for a cache slot is in (`[backing]`).
    CacheFill(u32),
    /// A host request at the cache tier is done (`[backing]`).
    FrontDone(u32),
}

/// Called every so often during a run; returning `false` stops the run.
pub trait Progress {
    fn update(&mut self, requests_done: u64, simulated_ns: Time) -> bool;

    /// The device is being set up before the first request: `done` of `total` steps of
    /// `stage` (such as "preconditioning") are finished. Returning false stops the set-up.
    fn setting_up(&mut self, _stage: &str, _done: u64, _total: u64) -> bool {
        true
    }
}

/// Options of one run that are not part of the device configuration.
#[derive(Default)]
pub struct RunOptions<'p> {
    /// Run the invariant checker during the run and at its end.
    pub check: bool,
    pub progress: Option<&'p mut dyn Progress>,
    /// Description of the workload for the report.
    pub workload_description: serde_json::Value,
    /// Real bytes to carry for a range of logical pages; after the run its `returned` holds
    /// what the host would read back (payload mode).
    pub payload: Option<&'p mut Payload>,
}

pub struct Simulator<'s> {
    cfg: Config,
    geo: Geometry,
    timing: Timing,
    q: EventQueue<Ev>,
    /// The host interface, the controller, the FTL's state and the measurements.
    host: HostInterface<'s>,
    ctrl: Controller,
    ftl: FtlState,
    measure: Measurements,
    /// A background run is scheduled (at most one is).
    background_pending: bool,
    /// Physics and decoding of the read path; `None` in the fixed-latency mode.
    rel: Option<reliability::Reliability>,
    /// Bytes carried for a range of logical pages (payload mode).
    payload: Option<payload::PayloadStore>,
    /// The cache layer in front of a disk (`[backing]`).
    backing: Option<Box<crate::backing::front::CacheFront>>,
    /// What waits for the cache tier's front end while it is at work.
    front: cache_path::FrontWaits,
    /// The scheme (`[scheme]`): the hooks it overrides, and whether it observes changes.
    scheme: Joined,
    observed: bool,
    scratch_actions: Vec<crate::seams::ReadAction>,
    check: bool,
    error: Option<Error>,
    setup_s: f64,
}

/// Events between two questions whether to stop: asking reads the clock, so it is done a
/// few hundred microseconds apart rather than after each event.
const POLL_EVERY: u64 = 1 << 10;
/// Events between two calls of the progress display.
const PROGRESS_EVERY: u64 = 1 << 16;

/// Events between two invariant checks (`--check`) on a device of `pages` flash pages:
/// 4,096, or one per 4,096 pages on devices of more than 16 M pages. A check reads every
/// valid page, so a fixed cadence would make checking a large drive cost thousands of times
/// more per event than a small one (a few hundred requests on a 67 M-page preset took 45 s).
fn check_every(pages: crate::nand::Ppn) -> u64 {
    const EVENTS: u64 = 1 << 12;
    EVENTS.max(pages / EVENTS)
}

pub(crate) use crate::sim::seed::{stream_seed, SEED_AGING, SEED_GC, SEED_PAYLOAD, SEED_PHYSICS, SEED_PRECONDITION};

impl<'s> Simulator<'s> {
    /// Builds the device `cfg` describes, running `scheme`, and sets it up (aging,
    /// preconditioning, translation pages), telling `progress` how the set-up goes. `cfg`
    /// must be validated and its memory checked, and `scheme` built from it: the top level
    /// (`xlssd_core::simulator`) does all three.
    pub fn assemble(
        cfg: &Config,
        scheme: Joined,
        source: Box<dyn RequestSource + 's>,
        progress: Option<&mut dyn Progress>,
    ) -> Result<Simulator<'s>> {
        debug_assert!(cfg.scheme.is_resolved(), "the scheme section is resolved before the simulator is built");
        let geo = Geometry::new(&cfg.geometry);
        let timing = Timing::new(cfg.timing_sections());
        let cap = cfg.capacity();
        let logical_pages = cap.logical_pages;
        // Translation pages exist (and move) only with a cached mapping table: the
        // capacity rule counts them then, and the map and the table of them follow it.
        let translation_pages = cap.translation_pages;
        let cmt = match cfg.mapping.cached_entries(logical_pages) {
            0 => None,
            entries => Some(Cmt::new(entries)?),
        };
        assert_eq!(cmt.is_some(), translation_pages > 0, "a cached mapping table comes with translation pages");
        let translations = Translations::new(translation_pages as usize);
        let mut scheme = scheme;
        let ftl = FtlState::new(cfg, &geo, &cap, &mut scheme)?;
        let closed_loop = match source.preferred_queue_depth() {
            Some(qd) => Some(qd),
            None if cfg.host.replay == ReplayMode::Closed => Some(cfg.host.queue_depth),
            None => None,
        };
        let buffer_pages = cfg.cache.capacity_bytes / (geo.page_size as u64 * cap.unit_pages as u64);

        let mut sim = Simulator {
            timing,
            q: EventQueue::new(),
            host: HostInterface::new(source, closed_loop, cfg),
            ctrl: Controller::new(&geo, cfg, buffer_pages, cmt, translations),
            ftl,
            measure: Measurements {
                lat: Default::default(),
                counters: Counters::default(),
                die_busy: vec![Busy::default(); geo.dies as usize],
                chan_busy: vec![Busy::default(); geo.channels as usize],
                chan_use: ChannelUse::default(),
                energy: Energy::default(),
                tasks: TaskCounts::default(),
                relocs: RelocationStats::default(),
                copy_counts: Default::default(),
                copy_batches: Default::default(),
                erases: Default::default(),
            },
            background_pending: false,
            rel: reliability::Reliability::new(cfg, geo.blocks, geo.pages, geo.channels, stream_seed(cfg.seed, SEED_PHYSICS))?,
            payload: None,
            front: Default::default(),
            backing: crate::backing::front::CacheFront::new(
                &cfg.backing,
                logical_pages,
                geo.page_size as u64 * cap.unit_pages as u64,
            )
            .map(Box::new),
            observed: scheme.observed(),
            scheme,
            scratch_actions: Vec::new(),
            check: false,
            error: None,
            setup_s: 0.0,
            geo,
            cfg: cfg.clone(),
        };
        let setup = std::time::Instant::now();
        sim.scheme.set_up(&mut sim.ftl.setup_ctx(&sim.geo));
        if let Some(rel) = sim.rel.as_mut() {
            rel.choose_probe_page(crate::seams::Observer::probe_page(&sim.scheme));
        }
        sim.set_up_device(progress)?;
        sim.setup_s = setup.elapsed().as_secs_f64();
        Ok(sim)
    }

    /// Logical capacity in pages.
    pub fn logical_pages(&self) -> u64 {
        self.ftl.logical_pages()
    }

    /// Runs the workload to its end and returns the report.
    pub fn run(mut self, mut opts: RunOptions) -> Result<Report> {
        let wall = std::time::Instant::now();
        if let Some(p) = opts.payload.as_deref() {
            self.payload = Some(self.payload_store(p)?);
        }
        self.check = opts.check;
        if self.check {
            self.check_invariants()?;
        }
        self.probe_all()?;
        self.prime_arrivals()?;
        self.schedule_background();
        let check_every = check_every(self.geo.pages);
        loop {
            while !self.only_background_left() {
                let Some((_, ev)) = self.q.pop() else { break };
                self.handle(ev);
                // Looked at, not taken: taking writes the whole (large) `Option` back after
                // every event.
                if self.error.is_some() {
                    return Err(self.error.take().expect("checked"));
                }
                let n = self.q.processed();
                if self.check && n % check_every == 0 {
                    self.check_invariants()?;
                }
                if n % POLL_EVERY == 0 {
                    self.between_events(n, &mut opts.progress)?;
                }
            }
            // The host is done; write back what the buffer still holds, then stop.
            if self.ctrl.buffer().dirty_pages() > 0 {
                let before = self.ctrl.buffer().dirty_pages();
                self.ctrl.write_back_everything();
                self.flush_buffer(u64::MAX);
                if let Some(e) = self.error.take() {
                    return Err(e);
                }
                if self.ctrl.buffer().dirty_pages() < before || !self.q.is_empty() {
                    continue;
                }
                return Err(Error::Stalled(format!(
                    "{before} buffered pages could not be written back: no free block could be made in their planes"
                )));
            }
            break;
        }
        if self.ftl.parked_programs() > 0 && self.host.idle() {
            return Err(Error::Stalled(format!(
                "{} page writes still wait for a free block at the end of the run: no block could be cleaned in \
                 their planes (raise ftl.overprovisioning)",
                self.ftl.parked_programs()
            )));
        }
        if !self.host.idle() {
            return Err(Error::Stalled(format!(
                "{} host requests could not complete: no free block could be made in their plane \
                 (the device is full of valid data; raise ftl.overprovisioning)",
                self.host.outstanding()
            )));
        }
        if self.check {
            self.check_invariants()?;
        }
        self.payload_final_read()?;
        let wall_s = wall.elapsed().as_secs_f64();
        let report = self.build_report(self.setup_s, wall_s, opts.workload_description.take());
        if let (Some(p), Some(store)) = (opts.payload, self.payload.take()) {
            p.returned = store.into_returned();
        }
        Ok(report)
    }

    /// Every [`POLL_EVERY`] events: whether the run must stop, and now and then the
    /// progress display. Kept out of the event loop's line, which stays as compact as it
    /// was without it.
    #[cold]
    #[inline(never)]
    fn between_events(&self, n: u64, progress: &mut Option<&mut dyn Progress>) -> Result<()> {
        interrupt::poll()?;
        if n % PROGRESS_EVERY == 0 {
            if let Some(p) = progress.as_mut() {
                if !p.update(self.host.completed(), self.q.now()) {
                    return Err(Error::Interrupted);
                }
            }
        }
        Ok(())
    }

    /// Checks where a payload goes and makes its store.
    fn payload_store(&self, p: &Payload) -> Result<payload::PayloadStore> {
        if self.ftl.unit_pages() > 1 {
            return Err(Error::Config {
                key: "mapping.unit_bytes".into(),
                message: format!(
                    "value {}: payload mode carries bytes page by page; use a unit of one page",
                    self.cfg.mapping.unit_bytes
                ),
            });
        }
        let spp = self.geo.sectors_per_page();
        let bad = |message: String| Error::Config { key: "payload.lba".into(), message };
        if p.first_lba % spp != 0 {
            return Err(bad(format!("value {} is not on a page boundary: expected a multiple of {spp} sectors", p.first_lba)));
        }
        if p.data.is_empty() {
            return Err(Error::Config { key: "payload.data".into(), message: "is empty: expected at least one byte".into() });
        }
        let page_bytes = self.geo.page_size as usize;
        let pages = p.data.len().div_ceil(page_bytes) as u64;
        let first = p.first_lba / spp;
        // With a cache tier the payload lies on the disk.
        let capacity = if self.cfg.backing.enabled { self.host.logical_sectors() / spp } else { self.ftl.logical_pages() };
        if self.cfg.backing.enabled && p.final_read_after_h.is_some() {
            return Err(Error::Config {
                key: "payload.final_read_after_h".into(),
                message:
                    "a final read is not available with a cache tier ([backing]): the workload's own reads return the payload"
                        .into(),
            });
        }
        if first + pages > capacity {
            return Err(bad(format!(
                "value {}: {pages} pages of payload from there end beyond the logical capacity of {capacity} pages",
                p.first_lba
            )));
        }
        if let Some(h) = p.final_read_after_h.filter(|h| !(h.is_finite() && *h >= 0.0)) {
            return Err(Error::Config {
                key: "payload.final_read_after_h".into(),
                message: format!("value {h} is out of range: expected hours >= 0"),
            });
        }
        Ok(payload::PayloadStore::new(first, page_bytes, p, stream_seed(self.cfg.seed, SEED_PAYLOAD)))
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Arrival => self.on_arrival(),
            Ev::ChannelDone(ch) => self.on_channel_done(ch),
            Ev::ArrayDone(die, gen) => self.on_array_done(die, gen),
            Ev::PageDone(req) => self.page_done(req),
            Ev::ReqDone(req) => self.finish_request(req),
            Ev::WriteDataIn(req) => self.write_data_in(req),
            Ev::Decoded(id, outcome) => self.on_decoded(id, outcome),
            Ev::Background => self.background(),
            Ev::CacheFill(slot) => self.on_cache_fill(slot),
            Ev::FrontDone(id) => self.finish_front_request(id),
            Ev::IdleFlush(gen) => {
                if self.host.idle_clock_ran_out(gen) {
                    self.ctrl.write_back_everything();
                    self.flush_buffer(u64::MAX);
                }
            }
        }
    }

    fn now(&self) -> Time {
        self.q.now()
    }

    /// Whether the host has nothing more to send or wait for: the workload is exhausted,
    /// every request has completed, the buffer holds nothing to write back, and no write
    /// waits for a free block.
    fn host_finished(&self) -> bool {
        self.host.drained() && self.ctrl.buffer().used_slots() == 0 && self.ftl.parked_programs() == 0
    }

    /// Records the first error; the event loop stops after the current event.
    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check_every;

    #[test]
    fn the_check_cadence_grows_with_the_device_past_16_m_pages() {
        assert_eq!(check_every(4_096), 4_096);
        assert_eq!(check_every(16 * 1024 * 1024), 4_096);
        // aero-tlc: 8 x 2 x 1 x 4 planes x 497 blocks x 2,112 pages.
        assert_eq!(check_every(67_178_496), 16_401);
    }
}
