//! Devices behind the SSD, for studies of the SSD as a cache: a hard disk model (`hdd`)
//! and the directory of the pages the SSD caches (`cache`).

pub mod cache;
pub mod hdd;
