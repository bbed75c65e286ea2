//! Configuration of the flash translation layer: over-provisioning and allocation,
//! garbage collection, wear levelling and preconditioning.

use serde::{Deserialize, Serialize};

use crate::config::ranges::{bad, fraction, positive_u32};
use crate::error::Result;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AllocationScheme {
    /// Channel, way, die, plane striping of logical pages (MQSim's CWDP).
    Static,
    /// Each page goes to the least busy die.
    Dynamic,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Fraction of physical capacity hidden from the host, in (0, 1).
    pub overprovisioning: f64,
    pub allocation: AllocationScheme,
    /// Host write streams, each with its own active block per plane.
    pub streams: u32,
    /// Placement handles the device offers the host (NVMe Flexible Data Placement's reclaim
    /// unit handles, or multi-stream ids): a host write naming handle `h` goes to host
    /// stream `h`. 0 offers none (every write is handle 0's).
    pub placement_handles: u32,
    /// Where cleaning copies data written under a placement handle.
    pub handle_gc: HandleGc,
    /// When a page write gets its physical page.
    pub page_binding: PageBinding,
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            overprovisioning: 0.07,
            allocation: AllocationScheme::Static,
            streams: 1,
            placement_handles: 0,
            handle_gc: HandleGc::Shared,
            page_binding: PageBinding::Issue,
        }
    }
}

/// When a page write is given its physical page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PageBinding {
    /// When the die is about to program it: a block's pages go to writes in the order the
    /// die runs them, so a write never waits for one queued before it in another queue.
    Issue,
    /// When the write is queued, as MQSim allocates: the die then programs each block's
    /// pages in the order they were handed out.
    Queue,
}

impl PageBinding {
    pub fn name(self) -> &'static str {
        match self {
            PageBinding::Issue => "issue",
            PageBinding::Queue => "queue",
        }
    }
}

/// Where cleaning copies the valid data of a block written under a placement handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HandleGc {
    /// One GC stream for every handle (FDP's "initially isolated" reclaim unit handles).
    Shared,
    /// A GC stream per handle, so that data of different handles never share a block
    /// (FDP's "persistently isolated" handles).
    SameHandle,
}

impl HandleGc {
    pub fn name(self) -> &'static str {
        match self {
            HandleGc::Shared => "shared",
            HandleGc::SameHandle => "same-handle",
        }
    }
}

/// The most placement handles `ftl.placement_handles` may offer.
pub const MAX_PLACEMENT_HANDLES: u32 = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicy {
    Greedy,
    CostBenefit,
    Fifo,
    RandomGreedy,
    CostAgeTimes,
}

impl GcPolicy {
    pub fn name(self) -> &'static str {
        match self {
            GcPolicy::Greedy => "greedy",
            GcPolicy::CostBenefit => "cost-benefit",
            GcPolicy::Fifo => "fifo",
            GcPolicy::RandomGreedy => "random-greedy",
            GcPolicy::CostAgeTimes => "cost-age-times",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GcConfig {
    pub policy: GcPolicy,
    /// Background GC starts in a plane when its free blocks fall below this fraction.
    pub threshold: f64,
    /// Once started, background GC goes on until the plane's free blocks reach this
    /// fraction (a band, as in seed 003's set-up: below 4% until 6%); 0 stops it as soon as
    /// they are back at `threshold`.
    pub stop_threshold: f64,
    /// Below this fraction of free blocks GC runs in the foreground: it goes ahead of host
    /// writes on the die.
    pub hard_threshold: f64,
    /// Candidates drawn by `random-greedy` before the one with fewest valid pages is taken.
    pub rga_candidates: u32,
    /// Lazy erase: a cleaned block's erase runs all its loops but the last, goes back to
    /// the free blocks, and runs its last loop when its first page is about to be
    /// programmed (the programs wait for it), as the erase-model reference simulator does (docs/config.md).
    pub lazy_erase: bool,
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig {
            policy: GcPolicy::Greedy,
            threshold: 0.05,
            stop_threshold: 0.0,
            hard_threshold: 0.005,
            rga_candidates: 10,
            lazy_erase: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WlConfig {
    /// Dynamic wear levelling: a new block is the least-erased free block of its plane.
    pub dynamic: bool,
    /// Static wear levelling: cold data leaves the least-erased block of a plane when the
    /// erase-count gap in that plane exceeds `static_threshold`.
    #[serde(rename = "static")]
    pub static_enabled: bool,
    pub static_threshold: u32,
}

impl Default for WlConfig {
    fn default() -> Self {
        WlConfig { dynamic: true, static_enabled: true, static_threshold: 100 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PreconditionConfig {
    /// Fraction of the logical space holding data before the run, in [0, 1].
    pub occupancy: f64,
    /// Spread the data as long uniform random overwrites would leave it, instead of packing
    /// it into full blocks.
    pub steady_state: bool,
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        PreconditionConfig { occupancy: 0.0, steady_state: false }
    }
}

impl FtlConfig {
    pub fn validate(&self) -> Result<()> {
        fraction("ftl.overprovisioning", self.overprovisioning, true, true)?;
        positive_u32("ftl.streams", self.streams)?;
        if self.streams > 64 {
            return Err(bad("ftl.streams", self.streams, "at most 64"));
        }
        if self.placement_handles > MAX_PLACEMENT_HANDLES {
            return Err(bad("ftl.placement_handles", self.placement_handles, &format!("at most {MAX_PLACEMENT_HANDLES}")));
        }
        Ok(())
    }
}

impl GcConfig {
    pub fn validate(&self) -> Result<()> {
        fraction("gc.threshold", self.threshold, true, true)?;
        fraction("gc.hard_threshold", self.hard_threshold, false, true)?;
        if self.hard_threshold > self.threshold {
            return Err(bad("gc.hard_threshold", self.hard_threshold, &format!("at most gc.threshold ({})", self.threshold)));
        }
        if self.stop_threshold != 0.0 {
            fraction("gc.stop_threshold", self.stop_threshold, true, true)?;
            if self.stop_threshold < self.threshold {
                return Err(bad(
                    "gc.stop_threshold",
                    self.stop_threshold,
                    &format!("0, or at least gc.threshold ({})", self.threshold),
                ));
            }
        }
        positive_u32("gc.rga_candidates", self.rga_candidates)
    }
}

impl WlConfig {
    pub fn validate(&self) -> Result<()> {
        positive_u32("wl.static_threshold", self.static_threshold)
    }
}

impl PreconditionConfig {
    pub fn validate(&self) -> Result<()> {
        fraction("precondition.occupancy", self.occupancy, false, false)
    }
}
