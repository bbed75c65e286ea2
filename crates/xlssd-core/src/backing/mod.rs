//! Devices behind the SSD, for studies of the SSD as a cache: a hard disk model.

pub mod hdd;
