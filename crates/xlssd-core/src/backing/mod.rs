//! Devices behind the SSD, for studies of the SSD as a cache: a hard disk model (`hdd`)
//! and the directory of the pages the SSD caches (`cache`). `[backing]` turns the tier on:
//! host requests then address the disk, and the SSD holds the cached copies.

pub mod cache;
pub mod front;
pub mod hdd;

use serde::{Deserialize, Serialize};

use crate::config::ranges::bad;
use crate::error::{Error, Result};

pub use cache::WritePolicy;
pub use hdd::HddConfig;

/// `[backing]`: an SSD cache in front of a disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BackingConfig {
    /// Host requests address the disk, and the SSD caches its pages.
    pub enabled: bool,
    /// Bytes of disk data the SSD caches, in whole logical pages (a cache page is one SSD
    /// logical page); 0: the SSD's whole logical capacity.
    pub cache_bytes: u64,
    /// How writes reach the disk: `write-back` (the SSD only, the page dirty until it is
    /// evicted), `write-through` (both), `write-around` (the disk only, dropping a cached
    /// copy).
    pub write_policy: WritePolicy,
    /// Start with a full cache: slot `i` holds disk page `i`, clean (least recently used
    /// first), the SSD holding whatever preconditioning wrote there. Without it the cache
    /// starts empty.
    pub warm: bool,
    pub disk: HddConfig,
}

impl Default for BackingConfig {
    fn default() -> Self {
        BackingConfig {
            enabled: false,
            cache_bytes: 0,
            write_policy: WritePolicy::WriteBack,
            warm: false,
            disk: HddConfig::default(),
        }
    }
}

impl BackingConfig {
    /// Checks the keys; `logical_bytes` is the SSD's logical capacity, `page_bytes` its
    /// logical page.
    pub fn validate(&self, logical_bytes: u64, page_bytes: u64) -> Result<()> {
        self.disk.validate("backing.disk")?;
        if !self.enabled {
            return Ok(());
        }
        if self.cache_bytes > logical_bytes {
            return Err(bad(
                "backing.cache_bytes",
                self.cache_bytes,
                &format!("at most the SSD's logical capacity, {logical_bytes} bytes (0 for all of it)"),
            ));
        }
        if self.cache_bytes != 0 && self.cache_bytes < page_bytes {
            return Err(bad(
                "backing.cache_bytes",
                self.cache_bytes,
                &format!("0 or at least one logical page ({page_bytes} bytes)"),
            ));
        }
        if self.disk.capacity_bytes < page_bytes {
            return Err(Error::Config {
                key: "backing.disk.capacity_bytes".into(),
                message: format!("value {}: smaller than one cache page ({page_bytes} bytes)", self.disk.capacity_bytes),
            });
        }
        Ok(())
    }

    /// Cache pages (SSD logical pages) the cache holds.
    pub fn slots(&self, logical_pages: u64, page_bytes: u64) -> u32 {
        let pages = if self.cache_bytes == 0 { logical_pages } else { self.cache_bytes / page_bytes };
        pages.min(logical_pages).min(u32::MAX as u64) as u32
    }
}
