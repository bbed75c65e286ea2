//! The controller: what sits between the FTL and the flash. It owns the transactions in
//! flight, each die's queues and running command, the channels, the per-die load the
//! allocator reads, the DRAM write buffer and its write-back mode, and the cached mapping
//! table with its translation reads and writes in flight. The flash path (`flash_path.rs`)
//! schedules on it.

use super::*;

pub(super) struct Controller {
    /// Transactions from the start of their command until they are settled, by the ids
    /// events and the decoder name; queued ones wait in their die's queue.
    pub(super) txns: TxnSlab,
    pub(super) dies: Vec<Die>,
    pub(super) channels: Vec<Channel>,
    pub(super) die_load: Vec<u32>,
    pub(super) buffer: WriteBuffer,
    /// Send each buffered page to flash at once (`cache.write_policy = "eager"`).
    pub(super) eager_flush: bool,
    /// Keep writing the buffer back until it holds no dirty page (idle host, end of run).
    pub(super) write_back_all: bool,
    pub(super) cmt: Option<Cmt>,
    /// Mapping entries per translation page.
    pub(super) tpage_entries: u32,
    /// Translation reads in flight with the work parked until they end (logical page, work,
    /// whether it writes the entry), and translation writes in flight.
    pub(super) translations: Translations<(u32, Parked, bool)>,
    /// The waiters of the translation read that just ended, reused between reads.
    pub(super) arrived_waiters: Vec<(u32, Parked, bool)>,
    /// Pages of the program command whose completion is being handled, not yet counted
    /// as programmed.
    pub(super) finishing: Vec<crate::nand::Ppn>,
}

/// Work waiting for a mapping entry to be loaded into the cached mapping table.
#[derive(Debug, Clone, Copy)]
pub(super) enum Parked {
    /// A read of a known physical page.
    Read(crate::controller::txn::Txn),
    /// A host page write, which takes its physical page once the entry is loaded.
    Write { lpn: u32, owner: u32 },
}
