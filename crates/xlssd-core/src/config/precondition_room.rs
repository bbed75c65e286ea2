//! Where preconditioning may put its data, worked out from the config alone, so that a
//! config the checks accept also sets up.

use super::Config;

/// How preconditioning fills the planes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreconditionLayout {
    /// Logical pages (mapping units) given data.
    pub used: u64,
    /// Of them, the most any one plane receives (logical pages are striped over the planes).
    pub per_plane: u64,
    /// Blocks per plane that may hold them.
    pub data_blocks: u32,
    /// Mapping units one block holds.
    pub units_per_block: u32,
}

impl Config {
    /// Data normally leaves the GC threshold's blocks free, as steady cleaning would; a
    /// device filled beyond that (GC always running) uses every block outside the reserve.
    /// The translation pages of a cached mapping table are stored after the data, in blocks
    /// still free; where the data would leave them too few, it keeps to fewer blocks.
    ///
    /// What [`Config::validate`] accepts always fits: it asks the logical space and the
    /// translation pages together to fit outside the reserve, which counts one open block of
    /// the mapping stream, and here the translation pages take that block and at most as
    /// many more as their share of a plane fills, so each plane's data keeps at least its
    /// share of the room (both are spread evenly over the planes).
    pub fn precondition_layout(&self) -> PreconditionLayout {
        let c = self.capacity();
        let g = &self.geometry;
        let planes = c.planes.max(1);
        let units_per_block = g.pages_per_block / c.unit_pages;
        let used = (self.precondition.occupancy * c.logical_pages as f64).round() as u64;
        let per_plane = used.div_ceil(planes);
        let bpp = g.blocks_per_plane;
        let max_blocks = bpp.saturating_sub(c.reserved_blocks_per_plane).max(1);
        let roomy = bpp.saturating_sub(c.gc_threshold_blocks + 1);
        let fits_roomy = per_plane * c.unit_pages as u64 * 100 <= roomy as u64 * g.pages_per_block as u64 * 95;
        let mut data_blocks = if fits_roomy { roomy } else { max_blocks };
        // Translation pages are spread over the planes like logical pages, one mapping unit
        // each; opening a block for them leaves the GC reserve alone.
        let translation_blocks = c.translation_pages.div_ceil(planes).div_ceil(units_per_block as u64) as u32;
        let taken = if self.precondition.steady_state {
            data_blocks
        } else {
            per_plane.div_ceil(units_per_block as u64).min(data_blocks as u64) as u32
        };
        if used > 0 && bpp.saturating_sub(taken) < c.gc_reserve_blocks + translation_blocks {
            // The reserve already counts one open block of the mapping stream.
            let room = max_blocks.saturating_sub(translation_blocks.saturating_sub(1)).max(1);
            data_blocks = data_blocks.min(room);
        }
        PreconditionLayout { used, per_plane, data_blocks, units_per_block }
    }
}
