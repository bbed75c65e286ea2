//! Flash transactions: one page read or program, or one block erase, on behalf of the host,
//! GC, wear levelling or the mapping table. Held in a slab so that the hot path does not
//! allocate.

use crate::stats::Activity;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnKind {
    HostRead,
    /// A host page write, or a flush of the write buffer (then `owner` is [`NO_OWNER`]).
    HostWrite,
    GcRead,
    GcWrite,
    /// A read of the pages of a mapping unit a host write does not cover, merged into the
    /// unit before it is written (`owner` is the write request).
    RmwRead,
    MapRead,
    MapWrite,
    Erase,
    /// The read of a page an extra copy is made of (`owner` is the copy's plane).
    CopyRead,
    /// The program of an extra copy.
    CopyWrite,
}

/// The operation a transaction needs from the die; only transactions of one operation run
/// together as a multi-plane command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpClass {
    Read,
    Program,
    Erase,
}

/// Which of a die's queues a transaction waits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueClass {
    Read = 0,
    Write = 1,
    Gc = 2,
}

impl TxnKind {
    pub fn op(self) -> OpClass {
        match self {
            TxnKind::HostRead | TxnKind::GcRead | TxnKind::MapRead | TxnKind::RmwRead | TxnKind::CopyRead => OpClass::Read,
            TxnKind::HostWrite | TxnKind::GcWrite | TxnKind::MapWrite | TxnKind::CopyWrite => OpClass::Program,
            TxnKind::Erase => OpClass::Erase,
        }
    }

    pub fn queue(self) -> QueueClass {
        match self {
            TxnKind::HostRead | TxnKind::MapRead | TxnKind::RmwRead => QueueClass::Read,
            TxnKind::HostWrite | TxnKind::MapWrite => QueueClass::Write,
            TxnKind::GcRead | TxnKind::GcWrite | TxnKind::Erase | TxnKind::CopyRead | TxnKind::CopyWrite => QueueClass::Gc,
        }
    }

    pub fn activity(self) -> Activity {
        match self {
            TxnKind::HostRead => Activity::HostRead,
            TxnKind::HostWrite | TxnKind::RmwRead => Activity::HostWrite,
            TxnKind::GcRead | TxnKind::GcWrite | TxnKind::CopyRead | TxnKind::CopyWrite => Activity::Gc,
            TxnKind::MapRead | TxnKind::MapWrite => Activity::Mapping,
            TxnKind::Erase => Activity::Erase,
        }
    }
}

pub const NO_OWNER: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
pub struct Txn {
    pub kind: TxnKind,
    /// The page read or programmed; for an erase, the first page of the block.
    pub ppn: crate::nand::Ppn,
    /// The logical page (or translation page) involved.
    pub lpn: u32,
    /// The host request waiting for it, or [`NO_OWNER`].
    pub owner: u32,
    pub plane: u32,
    /// Reads: how many times this read has been sensed again after a failed decode
    /// (read-retry step or LDPC soft level).
    pub step: u8,
    /// Reads with `physics.read_retry` on: the retry-table entry of its current attempt.
    pub reference: u8,
}

/// Transactions by id, reusing freed ids.
pub type TxnSlab = crate::sim::slab::Slab<Txn>;
