//! The flash array: geometry and addressing, cell and page types, operation latencies and
//! channel transfer times.

pub mod config;
mod geometry;
pub mod state;
mod timing;

pub use geometry::{Geometry, PageAddr, Ppn};
pub use timing::{Suspension, Timing, TimingSections};

/// Bytes per sector, the unit of host addresses.
pub const SECTOR_BYTES: u64 = 512;
