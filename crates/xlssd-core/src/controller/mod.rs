//! The controller: transactions, per-die queues and channel arbitration, and the DRAM write
//! buffer. It turns host page accesses into flash transactions.

pub mod buffer;
pub mod cmt;
pub mod config;
pub mod die;
pub mod translation;
pub mod txn;
