//! Per-die transaction queues and the state of the operation a die is running; channel
//! arbitration.

use std::collections::VecDeque;

use crate::controller::txn::OpClass;
use crate::sim::Time;

/// Most planes a multi-plane command can span.
pub const MAX_PLANES: usize = crate::nand::config::MAX_PLANES_PER_DIE as usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Idle,
    /// Waiting for the channel to send command and address (and program data).
    WaitIn,
    /// The array is sensing, programming or erasing.
    Array,
    /// Waiting for the channel to move read data out.
    WaitOut,
    /// Idle, but the controller is choosing the physical page of a program it is about to
    /// start here: work that arrives meanwhile (the choice can start cleaning or erases)
    /// waits in the queues.
    Binding,
}

/// One (possibly multi-plane) command in progress on a die.
#[derive(Debug, Clone, Copy)]
pub struct DieOp {
    pub class: OpClass,
    pub phase: Phase,
    pub start: Time,
    pub n: usize,
    pub txns: [u32; MAX_PLANES],
}

impl DieOp {
    pub fn idle() -> DieOp {
        DieOp { class: OpClass::Read, phase: Phase::Idle, start: 0, n: 0, txns: [0; MAX_PLANES] }
    }

    pub fn txns(&self) -> &[u32] {
        &self.txns[..self.n]
    }
}

/// A suspendable operation in the array (an erase loop, or a program), as suspension needs
/// to know it.
#[derive(Debug, Clone, Copy)]
pub struct ActiveArray {
    /// The block being erased or programmed (the slowest plane's, for a multi-plane command).
    pub block: u32,
    /// For an erase: the loop running (from 0) and the erase's loops.
    pub index: u32,
    pub loops: u32,
    /// Array time of the operation, and when it ends.
    pub duration: Time,
    pub end: Time,
}

/// An operation a read suspended: its command and the array time it still needs.
#[derive(Debug, Clone, Copy)]
pub struct Suspended {
    pub op: DieOp,
    pub array: ActiveArray,
    pub left: Time,
}

pub struct Die {
    /// Read, write and GC queues (see [`crate::controller::txn::QueueClass`]). They hold
    /// the transactions themselves, in order: cleaning queues thousands at once, and a
    /// transaction reached through a table of them all would be fetched from scattered
    /// memory when its turn comes; only the command a die runs is in that table.
    pub queues: [VecDeque<crate::controller::txn::Txn>; 3],
    pub op: DieOp,
    /// Generation of the array operation in flight: bumped when an erase is suspended, so
    /// that the completion event it had scheduled is recognised as stale.
    pub gen: u32,
    /// The erase loop or program in the array, recorded only when it may be suspended.
    pub active: Option<ActiveArray>,
    pub suspended: Option<Suspended>,
    /// Added to the next read's array time: the cost of the suspension it caused.
    pub suspend_penalty: Time,
}

impl Die {
    pub fn new() -> Die {
        Die {
            queues: [VecDeque::new(), VecDeque::new(), VecDeque::new()],
            op: DieOp::idle(),
            gen: 0,
            active: None,
            suspended: None,
            suspend_penalty: 0,
        }
    }

    pub fn busy(&self) -> bool {
        self.op.phase != Phase::Idle
    }

    pub fn queued(&self) -> usize {
        self.queues.iter().map(|q| q.len()).sum()
    }
}

impl Default for Die {
    fn default() -> Self {
        Self::new()
    }
}

/// A flash channel: one transfer at a time. Dies waiting to move read data out go first,
/// because their die can do nothing else until the data has left its page register.
pub struct Channel {
    pub owner: Option<u32>,
    pub waiting_out: VecDeque<(u32, Time)>,
    pub waiting_in: VecDeque<(u32, Time)>,
}

impl Channel {
    pub fn new() -> Channel {
        Channel { owner: None, waiting_out: VecDeque::new(), waiting_in: VecDeque::new() }
    }

    /// The next die to be granted the channel, with its transfer duration.
    #[inline]
    pub fn next_waiter(&mut self) -> Option<(u32, Time)> {
        self.waiting_out.pop_front().or_else(|| self.waiting_in.pop_front())
    }
}

impl Default for Channel {
    fn default() -> Self {
        Self::new()
    }
}
