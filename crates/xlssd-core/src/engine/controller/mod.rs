//! The controller: what sits between the FTL and the flash. It owns the transactions in
//! flight, each die's queues and running command, the channels, the per-die load the
//! allocator reads, the DRAM write buffer and its write-back mode, and the cached mapping
//! table with its translation reads and writes in flight. Its fields are its own: the flash
//! path (`flash_path.rs`), the mapping table's traffic (`mapping_cache.rs`) and erase
//! suspension (`erase_suspend.rs`) act on them; the rest of the engine goes through the
//! methods below.

mod erase_suspend;
mod flash_path;
mod mapping_cache;

pub(super) use flash_path::read_kind;

use super::*;
use crate::controller::txn::Txn;

pub(super) struct Controller {
    /// Transactions from the start of their command until they are settled, by the ids
    /// events and the decoder name; queued ones wait in their die's queue.
    txns: TxnSlab,
    dies: Vec<Die>,
    channels: Vec<Channel>,
    die_load: Vec<u32>,
    buffer: WriteBuffer,
    /// Send each buffered page to flash at once (`cache.write_policy = "eager"`).
    eager_flush: bool,
    /// Keep writing the buffer back until it holds no dirty page (idle host, end of run).
    write_back_all: bool,
    cmt: Option<Cmt>,
    /// Translation reads in flight with the work parked until they end (logical page, work,
    /// whether it writes the entry), and translation writes in flight.
    translations: Translations<(u32, Parked, bool)>,
    /// The waiters of the translation read that just ended, reused between reads.
    arrived_waiters: Vec<(u32, Parked, bool)>,
    /// Pages of the program command whose completion is being handled, not yet counted
    /// as programmed.
    finishing: Vec<crate::nand::Ppn>,
}

impl Controller {
    pub(super) fn new(
        geo: &Geometry,
        cfg: &Config,
        buffer_pages: u64,
        cmt: Option<Cmt>,
        translations: Translations<(u32, Parked, bool)>,
    ) -> Controller {
        Controller {
            txns: TxnSlab::default(),
            dies: (0..geo.dies).map(|_| Die::new()).collect(),
            channels: (0..geo.channels).map(|_| Channel::new()).collect(),
            die_load: vec![0; geo.dies as usize],
            buffer: WriteBuffer::new(buffer_pages),
            eager_flush: cfg.cache.write_policy == crate::config::WritePolicy::Eager,
            write_back_all: false,
            cmt,
            translations,
            arrived_waiters: Vec::new(),
            finishing: Vec::with_capacity(crate::controller::die::MAX_PLANES),
        }
    }

    /// The transaction in flight with id `id`.
    pub(super) fn txn(&self, id: u32) -> &Txn {
        self.txns.get(id)
    }

    pub(super) fn txn_mut(&mut self, id: u32) -> &mut Txn {
        self.txns.get_mut(id)
    }

    /// Settles transaction `id`: it leaves the table and its id is free again.
    pub(super) fn take_txn(&mut self, id: u32) -> Txn {
        self.txns.remove(id)
    }

    /// Queues `t` on `die` ahead of everything waiting in its class (a read retried, an
    /// erase loop), counted in the die's load.
    pub(super) fn queue_first(&mut self, die: u32, t: Txn) {
        self.dies[die as usize].queues[t.kind.queue() as usize].push_front(t);
        self.die_load[die as usize] += 1;
    }

    /// Every transaction waiting in a die's queue.
    pub(super) fn queued(&self) -> impl Iterator<Item = &Txn> {
        self.dies.iter().flat_map(|d| d.queues.iter().flatten())
    }

    /// The DRAM write buffer.
    pub(super) fn buffer(&self) -> &WriteBuffer {
        &self.buffer
    }

    pub(super) fn buffer_mut(&mut self) -> &mut WriteBuffer {
        &mut self.buffer
    }

    /// Whether each buffered page is written back at once (`cache.write_policy = "eager"`).
    pub(super) fn eager(&self) -> bool {
        self.eager_flush
    }

    /// Writes the buffer back until it holds no dirty page (idle host, end of run).
    pub(super) fn write_back_everything(&mut self) {
        self.write_back_all = true;
    }

    /// After a write-back reached flash: whether to go on writing back now (the buffer is
    /// eager, full, or being emptied); an empty buffer ends a write-back of everything.
    pub(super) fn writes_back_more(&mut self) -> bool {
        if self.buffer.dirty_pages() == 0 {
            self.write_back_all = false;
            return false;
        }
        self.eager_flush || self.write_back_all || self.buffer.is_full()
    }

    /// Each die's queued and running transactions, as the allocator weighs them.
    pub(super) fn die_load(&self) -> &[u32] {
        &self.die_load
    }

    /// A page of the program command being completed is now counted programmed.
    pub(super) fn counted_programmed(&mut self, ppn: crate::nand::Ppn) {
        self.finishing.retain(|&q| q != ppn);
    }

    /// The cached mapping table, when the mapping is cached (`mapping.cached_entries`).
    pub(super) fn cmt(&self) -> Option<&Cmt> {
        self.cmt.as_ref()
    }

    pub(super) fn cmt_mut(&mut self) -> Option<&mut Cmt> {
        self.cmt.as_mut()
    }
}

/// Work waiting for a mapping entry to be loaded into the cached mapping table.
#[derive(Debug, Clone, Copy)]
pub(super) enum Parked {
    /// A read of a known physical page.
    Read(crate::controller::txn::Txn),
    /// A host page write, which takes its physical page once the entry is loaded.
    Write { lpn: u32, owner: u32 },
}
