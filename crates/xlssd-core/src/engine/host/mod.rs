//! The host interface: what the host has sent and is owed. It owns the request source and
//! the requests read ahead of their turn, the table of requests in flight and its free
//! slots, the counts of submitted, outstanding and completed requests, host writes waiting
//! for the write buffer, the idle clock that triggers a write-back, and the two directions
//! of the host link. Its fields are its own: the host path (`path.rs`, a child module) acts
//! on them; the rest of the engine goes through the methods below.

mod path;

use super::*;

pub(super) struct HostInterface<'s> {
    source: Box<dyn RequestSource + 's>,
    closed_loop: Option<u32>,
    /// Requests taken from the source: first the `scheduled` ones, whose arrivals are
    /// scheduled, in order, then those read ahead (`path::READ_AHEAD`).
    upcoming: VecDeque<Request>,
    scheduled: usize,
    /// The source has no more requests (some may still wait in `upcoming`).
    source_ended: bool,
    first_raw_arrival: Option<u64>,
    last_arrival: Time,
    reqs: crate::sim::slab::Slab<HostReq>,
    outstanding: u32,
    submitted: u64,
    completed: u64,
    blocked_writes: VecDeque<u32>,
    logical_sectors: u64,
    idle_gen: u64,
    idle_flush_ns: Time,
    /// When each direction of the host interface is next free.
    host_link_free: [Time; 2],
    /// `host.ap_ber`: the tolerance of requests that give none.
    default_tolerance: f32,
    first_arrival_time: Option<Time>,
    last_completion: Time,
    scratch: Vec<u32>,
}

impl<'s> HostInterface<'s> {
    pub(super) fn new(source: Box<dyn RequestSource + 's>, closed_loop: Option<u32>, cfg: &Config) -> Self {
        HostInterface {
            source,
            closed_loop,
            upcoming: VecDeque::new(),
            scheduled: 0,
            source_ended: false,
            first_raw_arrival: None,
            last_arrival: 0,
            reqs: Default::default(),
            outstanding: 0,
            submitted: 0,
            completed: 0,
            blocked_writes: VecDeque::new(),
            // With a cache tier, host requests address the disk.
            logical_sectors: cfg.logical_sectors(),
            idle_gen: 0,
            idle_flush_ns: us_to_ns(cfg.cache.idle_flush_us),
            host_link_free: [0; 2],
            scratch: Vec::new(),
            first_arrival_time: None,
            last_completion: 0,
            default_tolerance: cfg.host.ap_ber as f32,
        }
    }

    /// Host requests in flight (the cache tier's own included).
    pub(super) fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// Whether no host request is in flight.
    pub(super) fn idle(&self) -> bool {
        self.outstanding == 0
    }

    /// A request enters flight.
    pub(super) fn admit(&mut self) {
        self.outstanding += 1;
    }

    /// A request leaves flight.
    pub(super) fn retire(&mut self) {
        debug_assert!(self.outstanding > 0, "a request retired that was not admitted");
        self.outstanding -= 1;
    }

    /// A request's completion was delivered to the host at `now`.
    pub(super) fn completed_at(&mut self, now: Time) {
        self.completed += 1;
        self.last_completion = self.last_completion.max(now);
    }

    pub(super) fn completed(&self) -> u64 {
        self.completed
    }

    /// How long the host has been idle at `now` (0 while a request is in flight).
    pub(super) fn idle_for(&self, now: Time) -> Time {
        if self.idle() {
            now.saturating_sub(self.last_completion)
        } else {
            0
        }
    }

    /// Restarts the idle clock: its generation, and how long until it runs out.
    pub(super) fn start_idle_clock(&mut self) -> (u64, Time) {
        self.idle_gen += 1;
        (self.idle_gen, self.idle_flush_ns)
    }

    /// Whether the idle clock of generation `gen` ran out with the host still idle.
    pub(super) fn idle_clock_ran_out(&self, gen: u64) -> bool {
        gen == self.idle_gen && self.idle()
    }

    /// Whether the source is exhausted and every request it gave has completed.
    pub(super) fn drained(&self) -> bool {
        self.source_ended && self.upcoming.is_empty() && self.idle()
    }

    /// Sectors the host addresses.
    pub(super) fn logical_sectors(&self) -> u64 {
        self.logical_sectors
    }

    /// From the first arrival to the last completion.
    pub(super) fn span_ns(&self) -> Time {
        self.last_completion.saturating_sub(self.first_arrival_time.unwrap_or(0))
    }

    /// Lines of the trace the source skipped.
    pub(super) fn skipped_lines(&self) -> u64 {
        self.source.skipped_lines()
    }

    /// The request in flight with id `id`.
    pub(super) fn req(&self, id: u32) -> &HostReq {
        &self.reqs[id as usize]
    }

    /// One page of read request `id` came back uncorrectable.
    pub(super) fn page_failed(&mut self, id: u32) {
        let r = &mut self.reqs[id as usize];
        r.failed = r.failed.saturating_add(1);
    }
}

/// A host request in flight.
#[derive(Debug, Clone, Copy)]
pub(super) struct HostReq {
    pub(super) arrival: Time,
    pub(super) bytes: u64,
    pub(super) op: Op,
    /// First sector, after wrapping.
    pub(super) first_lba: u64,
    pub(super) first_lpn: u64,
    /// Logical pages (mapping units) the request touches.
    pub(super) n_pages: u32,
    /// Flash pages it touches: its units' pages, or fewer when it covers part of a unit.
    pub(super) flash_pages: u32,
    /// A write: reads of the pages its partial units need that have not finished yet.
    pub(super) rmw_left: u32,
    pub(super) pages_left: u32,
    /// When the data of its pages done so far is ready (a page may be counted done when
    /// its last stage is scheduled, ahead of the stage's end).
    pub(super) ready: Time,
    /// Next page to place in the write buffer when the buffer was full.
    pub(super) next_page: u32,
    /// A read: the relocation reasons running when it arrived, as bits, and those running
    /// on the dies its pages were sent to when they were.
    pub(super) during: u16,
    pub(super) on_die: u16,
    /// A write: the placement handle it was written under.
    pub(super) handle: u8,
    /// The cache tier's tag of a request its front end sent (`None`: the host's own).
    pub(super) tag: Option<u32>,
    /// A read: pages that came back uncorrectable.
    pub(super) failed: u16,
    /// The bit error rate the request tolerates (`Request::tolerance`).
    pub(super) tolerance: f32,
}

/// The two directions of the host interface.
#[derive(Debug, Clone, Copy)]
pub(super) enum Link {
    ToDevice = 0,
    ToHost = 1,
}
