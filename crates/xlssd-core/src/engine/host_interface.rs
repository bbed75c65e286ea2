//! The host interface: what the host has sent and is owed. It owns the request source and
//! the requests read ahead of their turn, the table of requests in flight and its free
//! slots, the counts of submitted, outstanding and completed requests, host writes waiting
//! for the write buffer, the idle clock that triggers a write-back, and the two directions
//! of the host link. The host path (`host_path.rs`) and the cache tier (`cache_path.rs`)
//! act on it.

use super::*;

pub(super) struct HostInterface<'s> {
    pub(super) source: Box<dyn RequestSource + 's>,
    pub(super) closed_loop: Option<u32>,
    /// Requests taken from the source: first the `scheduled` ones, whose arrivals are
    /// scheduled, in order, then those read ahead (`host_path::READ_AHEAD`).
    pub(super) upcoming: VecDeque<Request>,
    pub(super) scheduled: usize,
    /// The source has no more requests (some may still wait in `upcoming`).
    pub(super) source_ended: bool,
    pub(super) first_raw_arrival: Option<u64>,
    pub(super) last_arrival: Time,
    pub(super) reqs: crate::sim::slab::Slab<HostReq>,
    pub(super) outstanding: u32,
    pub(super) submitted: u64,
    pub(super) completed: u64,
    pub(super) blocked_writes: VecDeque<u32>,
    pub(super) logical_sectors: u64,
    pub(super) idle_gen: u64,
    pub(super) idle_flush_ns: Time,
    /// When each direction of the host interface is next free.
    pub(super) host_link_free: [Time; 2],
    /// `host.ap_ber`: the tolerance of requests that give none.
    pub(super) default_tolerance: f32,
    pub(super) first_arrival_time: Option<Time>,
    pub(super) last_completion: Time,
    pub(super) scratch: Vec<u32>,
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
