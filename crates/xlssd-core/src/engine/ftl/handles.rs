//! Placement handles (`ftl.placement_handles`): the host names a handle per write, the
//! handle's data gets blocks of its own (reclaim-unit style), and cleaning copies it to a
//! shared GC stream or to the handle's own (`ftl.handle_gc`). Each handle's write
//! amplification is measured apart, the figure a host that separates its data by handle
//! wants to see.

use crate::config::Config;
use crate::error::{Error, Result};
use crate::ftl::config::HandleGc;
use crate::report::{HandleReport, PlacementReport};

/// The handles' state: which handle wrote each logical page (one byte per mapping unit,
/// only when handles are offered), their streams and their counts.
#[derive(Debug, Default)]
pub(in crate::engine) struct Handles {
    count: u32,
    gc: Option<HandleGc>,
    /// The handle of each logical page's latest write.
    of: Vec<u8>,
    /// Each handle's GC stream.
    gc_streams: Vec<u32>,
    host_pages: Vec<u64>,
    relocated_pages: Vec<u64>,
}

impl Handles {
    /// Handles as `cfg` offers them; `shared_gc` is the GC stream every handle uses unless
    /// cleaning keeps them apart, in which case handle `h > 0` cleans to `first_extra + h - 1`.
    pub fn new(cfg: &Config, logical_pages: u64, shared_gc: u32, first_extra: u32) -> Result<Handles> {
        let count = cfg.ftl.placement_handles;
        if count == 0 {
            return Ok(Handles::default());
        }
        let gc = cfg.ftl.handle_gc;
        let gc_streams = (0..count)
            .map(|h| match gc {
                HandleGc::SameHandle if h > 0 => first_extra + h - 1,
                _ => shared_gc,
            })
            .collect();
        Ok(Handles {
            count,
            gc: Some(gc),
            of: crate::limits::alloc::zeroed(logical_pages as usize, "placement handle per logical page")?,

            gc_streams,
            host_pages: vec![0; count as usize],
            relocated_pages: vec![0; count as usize],
        })
    }

    #[inline]
    pub fn offered(&self) -> bool {
        self.count > 0
    }

    /// The handle a write request uses: its own, or handle 0 when it names none. A handle
    /// the device does not offer is an error naming the request.
    pub fn of_request(&self, handle: Option<u16>, source: &str, index: u64) -> Result<u8> {
        let h = handle.unwrap_or(0) as u32;
        if h >= self.count {
            return Err(Error::Config {
                key: "ftl.placement_handles".into(),
                message: format!(
                    "value {}: request {index} of {source} names placement handle {h}; handles are 0 to {}",
                    self.count,
                    self.count - 1
                ),
            });
        }
        Ok(h as u8)
    }

    /// Logical page `lpn` was written under `handle`.
    #[inline]
    pub fn wrote(&mut self, lpn: u32, handle: u8) {
        self.of[lpn as usize] = handle;
    }

    /// The handle of `lpn`'s data (0 for pages past the logical space: translation pages).
    #[inline]
    pub fn handle_of(&self, lpn: u32) -> u8 {
        self.of.get(lpn as usize).copied().unwrap_or(0)
    }

    /// The stream a host write of `lpn` goes to by default.
    #[inline]
    pub fn host_stream(&self, lpn: u32) -> u32 {
        self.handle_of(lpn) as u32
    }

    /// The stream a relocated copy of `lpn` goes to by default.
    #[inline]
    pub fn gc_stream(&self, lpn: u32) -> u32 {
        self.gc_streams[self.handle_of(lpn) as usize]
    }

    pub fn count_host(&mut self, handle: u8, pages: u64) {
        self.host_pages[handle as usize] += pages;
    }

    pub fn count_relocated(&mut self, lpn: u32, pages: u64) {
        let h = self.handle_of(lpn) as usize;
        self.relocated_pages[h] += pages;
    }

    pub fn report(&self) -> PlacementReport {
        let per_handle = (0..self.count as usize)
            .map(|h| {
                let (host, moved) = (self.host_pages[h], self.relocated_pages[h]);
                let waf = if host == 0 { 0.0 } else { (host + moved) as f64 / host as f64 };
                HandleReport {
                    handle: h as u32,
                    host_pages: host,
                    relocated_pages: moved,
                    waf: super::super::report_build::round6(waf),
                }
            })
            .collect();
        PlacementReport { handles: self.count, gc: self.gc.map_or("shared", HandleGc::name), per_handle }
    }
}
