//! The flash translation layer: page-level mapping, block management, and the policies that
//! decide allocation, cleaning and wear levelling.

pub mod alloc;
pub mod blocks;
pub mod config;
pub mod copies;
pub mod gc;
pub mod mapping;
pub mod policy;
pub mod precondition;
pub mod wear;
