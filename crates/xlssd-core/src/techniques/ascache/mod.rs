//! ASCache (seed 002, DAC 2019): an approximate SSD cache in front of a hard disk. Its
//! reliability levels and block groups are here; the cache schemes are not built yet.

pub mod levels;
