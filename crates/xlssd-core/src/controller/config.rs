//! Configuration of the controller: the flash channels, the DRAM write buffer and the
//! cached mapping table.

use serde::{Deserialize, Serialize};

use crate::config::ranges::{bad, positive_f64, MAX_DURATION_US};
use crate::error::Result;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChannelConfig {
    /// Transfer rate in mega-transfers per second.
    pub rate_mts: f64,
    /// Bus width in bits.
    pub width_bits: u32,
}

impl Default for ChannelConfig {
    fn default() -> Self {
        ChannelConfig { rate_mts: 400.0, width_bits: 8 }
    }
}

/// When the write buffer sends its pages to flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WritePolicy {
    /// Dirty pages stay in DRAM until the buffer is full or the host is idle.
    Lazy,
    /// Every page written is sent to flash at once; the buffer only hides program latency.
    Eager,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    /// DRAM write-buffer capacity in bytes; 0 disables the buffer (write-through).
    pub capacity_bytes: u64,
    pub write_policy: WritePolicy,
    /// The buffer is written back once the host has been idle this long, in microseconds.
    pub idle_flush_us: f64,
    /// Most buffer pages being programmed at once (0 = no limit). With the eager policy a
    /// host write waits for room under this limit before it enters the buffer.
    pub max_inflight_flush_pages: u32,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            capacity_bytes: 1 << 20,
            write_policy: WritePolicy::Lazy,
            idle_flush_us: 1000.0,
            max_inflight_flush_pages: 0,
        }
    }
}

/// Range of `mapping.unit_bytes`.
pub const MIN_UNIT_BYTES: u32 = 4096;
pub const MAX_UNIT_BYTES: u32 = 65536;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MappingConfig {
    /// Capacity of the demand-cached mapping table in bytes; 0 keeps the whole page-level
    /// table in DRAM.
    pub cached_table_bytes: u64,
    /// Bytes one logical-to-physical entry takes, in DRAM and in a translation page.
    pub entry_bytes: u32,
    /// Indirection unit: the bytes one mapping entry covers, a power-of-two multiple of the
    /// page (0: one page). A unit of several pages lives in consecutive pages of one block
    /// and is programmed as one; a host write covering part of it is a read-modify-write.
    pub unit_bytes: u32,
}

impl MappingConfig {
    /// Entries of the cached mapping table (0: no cache): as many as its bytes hold, and no
    /// more than there are logical pages (a larger cache holds them all and behaves the same).
    pub fn cached_entries(&self, logical_pages: u64) -> u64 {
        if self.cached_table_bytes == 0 {
            return 0;
        }
        (self.cached_table_bytes / self.entry_bytes.max(1) as u64).clamp(1, logical_pages.max(1))
    }
}

impl Default for MappingConfig {
    fn default() -> Self {
        MappingConfig { cached_table_bytes: 0, entry_bytes: 8, unit_bytes: 0 }
    }
}

impl ChannelConfig {
    pub fn validate(&self) -> Result<()> {
        positive_f64("channel.rate_mts", self.rate_mts)?;
        if ![8, 16, 32].contains(&self.width_bits) {
            return Err(bad("channel.width_bits", self.width_bits, "8, 16 or 32"));
        }
        Ok(())
    }
}

impl CacheConfig {
    pub fn validate(&self) -> Result<()> {
        if !(self.idle_flush_us.is_finite() && (0.0..=MAX_DURATION_US).contains(&self.idle_flush_us)) {
            return Err(bad("cache.idle_flush_us", self.idle_flush_us, "a number of microseconds in [0, 3.2e13]"));
        }
        Ok(())
    }
}

impl MappingConfig {
    /// Flash pages per mapping unit.
    pub fn unit_pages(&self, page_size: u32) -> u32 {
        if self.unit_bytes == 0 {
            1
        } else {
            (self.unit_bytes / page_size).max(1)
        }
    }

    /// An entry must fit in a translation page of `page_size` bytes; a unit must be whole
    /// pages that tile a block.
    pub fn validate(&self, page_size: u32, pages_per_block: u32) -> Result<()> {
        if self.unit_bytes != 0 {
            let u = self.unit_bytes;
            if !u.is_power_of_two() || !(MIN_UNIT_BYTES..=MAX_UNIT_BYTES).contains(&u) {
                return Err(bad("mapping.unit_bytes", u, "0 (one page) or a power of two from 4 KiB to 64 KiB"));
            }
            if u < page_size {
                return Err(bad(
                    "mapping.unit_bytes",
                    u,
                    &format!("at least geometry.page_size ({page_size}): units smaller than a page are not modelled"),
                ));
            }
            if pages_per_block % (u / page_size) != 0 {
                return Err(bad(
                    "mapping.unit_bytes",
                    u,
                    &format!("a number of pages ({}) that divides geometry.pages_per_block ({pages_per_block})", u / page_size),
                ));
            }
            if u > page_size && self.cached_table_bytes != 0 {
                return Err(bad(
                    "mapping.unit_bytes",
                    u,
                    "one page while mapping.cached_table_bytes is set: the cached table maps pages",
                ));
            }
        }
        if self.entry_bytes == 0 || self.entry_bytes > page_size {
            return Err(bad("mapping.entry_bytes", self.entry_bytes, "between 1 and geometry.page_size"));
        }
        if self.cached_table_bytes != 0 && self.cached_table_bytes < self.entry_bytes as u64 {
            return Err(bad(
                "mapping.cached_table_bytes",
                self.cached_table_bytes,
                "0 (whole table in DRAM) or at least one entry (mapping.entry_bytes)",
            ));
        }
        Ok(())
    }
}
