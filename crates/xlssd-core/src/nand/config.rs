//! Configuration of the flash array: geometry, cell type and operation latencies.

use serde::{Deserialize, Serialize};

use crate::config::ranges::{bad, positive_f64, positive_u32, MAX_DURATION_US};
use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn bits_per_cell(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GeometryConfig {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    /// Bytes of user data per page.
    pub page_size: u32,
    /// Word-line layers of a 3D part (1 for planar NAND); a block spans all layers.
    pub layers: u32,
    pub cell: CellType,
}

impl GeometryConfig {
    /// One plane of `blocks` blocks of `pages` pages over `layers` layers, for unit tests.
    #[cfg(test)]
    pub fn one_plane(blocks: u32, pages: u32, layers: u32) -> GeometryConfig {
        GeometryConfig {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: blocks,
            pages_per_block: pages,
            layers,
            ..Default::default()
        }
    }
}

impl Default for GeometryConfig {
    fn default() -> Self {
        GeometryConfig {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 256,
            pages_per_block: 64,
            page_size: 4096,
            layers: 1,
            cell: CellType::Mlc,
        }
    }
}

/// A latency given once for every page type, or once per page type (LSB, CSB, MSB, TSB).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PerPageType {
    Same(f64),
    PerType(Vec<f64>),
}

impl PerPageType {
    pub fn get(&self, page_type: usize) -> f64 {
        match self {
            PerPageType::Same(v) => *v,
            PerPageType::PerType(v) => v[page_type.min(v.len() - 1)],
        }
    }
    fn values(&self) -> Vec<f64> {
        match self {
            PerPageType::Same(v) => vec![*v],
            PerPageType::PerType(v) => v.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimingConfig {
    /// Array read (sense) time tR in microseconds, per page type.
    pub read_us: PerPageType,
    /// Array program time tPROG in microseconds, per page type.
    pub program_us: PerPageType,
    /// Block erase time tBERS in microseconds.
    pub erase_us: f64,
    /// Command and address cycles on the channel before each flash operation, in ns.
    pub cmd_ns: u64,
    /// Latency of one page access in the controller's DRAM, in ns.
    pub dram_ns: u64,
    /// A read that reaches a die while it erases may suspend the erase, run, and let the
    /// erase resume where it stopped once no read is queued (one suspended erase per die;
    /// the scheme's erase control says in which erase loops a suspension may happen).
    pub erase_suspend: bool,
    /// Time to suspend an erase (tESPD), added to the read that suspends it, in us.
    pub erase_suspend_us: f64,
    /// An erase loop with less than this left is not suspended, in us.
    pub erase_suspend_min_left_us: f64,
    /// What a suspended erase loop does on resuming: `resume` where its pulse stopped, or
    /// `restart` its pulse from the beginning (the progress made is lost), as the
    /// erase-model reference simulator models it (docs/config.md).
    pub erase_resume: EraseResume,
    /// No erase is suspended while a plane of its die is short of free blocks (below
    /// `gc.hard_threshold`, or writes waiting for a block): the erase is what those writes
    /// wait for, and suspending it again and again could starve them.
    pub erase_suspend_guard: bool,
    /// A read that reaches a die while it programs may suspend the program the same way
    /// (one suspended operation per die); the program resumes where it stopped.
    pub program_suspend: bool,
    /// Time to suspend a program, added to the read that suspends it, in us.
    pub program_suspend_us: f64,
    /// A program with less than this left is not suspended, in us.
    pub program_suspend_min_left_us: f64,
}

/// What a suspended erase loop does when it resumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EraseResume {
    Resume,
    Restart,
}

impl Default for TimingConfig {
    fn default() -> Self {
        TimingConfig {
            read_us: PerPageType::Same(50.0),
            program_us: PerPageType::Same(600.0),
            erase_us: 3000.0,
            cmd_ns: 0,
            dram_ns: 0,
            erase_suspend: false,
            // MQSim's default device: suspend time and "preferred suspend erase time for read".
            erase_suspend_us: 700.0,
            erase_suspend_min_left_us: 700.0,
            erase_resume: EraseResume::Resume,
            erase_suspend_guard: true,
            program_suspend: false,
            // The erase-model reference simulator's suspend_program_time and
            // write-suspend-for-read threshold, 100 us each (docs/config.md).
            program_suspend_us: 100.0,
            program_suspend_min_left_us: 100.0,
        }
    }
}

/// Most planes one multi-plane command can span.
pub const MAX_PLANES_PER_DIE: u32 = 16;

impl GeometryConfig {
    pub fn validate(&self) -> Result<()> {
        let g = self;
        positive_u32("geometry.channels", g.channels)?;
        positive_u32("geometry.chips_per_channel", g.chips_per_channel)?;
        positive_u32("geometry.dies_per_chip", g.dies_per_chip)?;
        positive_u32("geometry.planes_per_die", g.planes_per_die)?;
        positive_u32("geometry.blocks_per_plane", g.blocks_per_plane)?;
        positive_u32("geometry.pages_per_block", g.pages_per_block)?;
        positive_u32("geometry.layers", g.layers)?;
        if g.page_size < 512 || g.page_size % 512 != 0 {
            return Err(bad("geometry.page_size", g.page_size, "a multiple of 512 bytes"));
        }
        if g.pages_per_block % g.layers != 0 {
            return Err(bad(
                "geometry.layers",
                g.layers,
                &format!("a divisor of geometry.pages_per_block ({})", g.pages_per_block),
            ));
        }
        if g.blocks_per_plane < 4 {
            return Err(bad("geometry.blocks_per_plane", g.blocks_per_plane, "at least 4"));
        }
        if g.pages_per_block > u16::MAX as u32 {
            return Err(bad("geometry.pages_per_block", g.pages_per_block, "at most 65535"));
        }
        if g.planes_per_die > MAX_PLANES_PER_DIE {
            return Err(bad("geometry.planes_per_die", g.planes_per_die, &format!("at most {MAX_PLANES_PER_DIE}")));
        }
        Ok(())
    }
}

impl TimingConfig {
    /// `types` is the number of page types of the cell type.
    pub fn validate(&self, types: usize) -> Result<()> {
        per_page_type("timing.read_us", &self.read_us, types)?;
        per_page_type("timing.program_us", &self.program_us, types)?;
        positive_f64("timing.erase_us", self.erase_us)?;
        for (key, ns) in [("timing.cmd_ns", self.cmd_ns), ("timing.dram_ns", self.dram_ns)] {
            if ns as f64 > MAX_DURATION_US * 1e3 {
                return Err(bad(key, ns, "at most one year in ns"));
            }
        }
        for (key, us) in [
            ("timing.erase_suspend_us", self.erase_suspend_us),
            ("timing.erase_suspend_min_left_us", self.erase_suspend_min_left_us),
            ("timing.program_suspend_us", self.program_suspend_us),
            ("timing.program_suspend_min_left_us", self.program_suspend_min_left_us),
        ] {
            if !(us.is_finite() && (0.0..=MAX_DURATION_US).contains(&us)) {
                return Err(bad(key, us, "a number of microseconds in [0, 3.2e13]"));
            }
        }
        Ok(())
    }
}

fn per_page_type(key: &str, v: &PerPageType, types: usize) -> Result<()> {
    if let PerPageType::PerType(list) = v {
        if list.len() != types {
            return Err(Error::Config {
                key: key.to_string(),
                message: format!("has {} values; the cell type has {types} page types (give one number or {types})", list.len()),
            });
        }
    }
    for x in v.values() {
        positive_f64(key, x)?;
    }
    Ok(())
}
