//! What the structures that grow with the device will take, computed from the
//! configuration alone, before anything is allocated. The figures per item are those of
//! docs/architecture.md ("Memory per TiB"), which a test holds equal to these constants;
//! a structure that changes its layout changes its constant here.

use crate::config::{Config, EccScheme};
use crate::physics::ModelKind;

/// Logical-to-physical map (`ftl/mapping.rs` `l2p`): one 32-bit entry per mapping unit,
/// translation pages included.
pub const L2P_BYTES_PER_UNIT: u64 = 4;
/// Physical-to-logical map (`ftl/mapping.rs` `p2l`): one per physical unit.
pub const P2L_BYTES_PER_UNIT: u64 = 4;
/// Valid bitmap (`ftl/blocks.rs` `valid_bits`): one bit per physical page, in 64-bit words.
pub const VALID_BITS_PER_PAGE: u64 = 1;
/// Block state (`ftl/blocks.rs`): state, valid count, write pointer, programmed count,
/// erase count, effective wear, close sequence, last change, stream, page order, layout
/// uses, and its place in the free list.
pub const BLOCK_STATE_BYTES: u64 = 1 + 4 + 4 + 4 + 4 + 4 + 8 + 8 + 1 + 1 + 4 + 4;
/// Page physics (`nand/state.rs` `pages`): program time, algorithm, mode and order, packed.
pub const PAGE_PHYSICS_BYTES: u64 = 8;
/// Block physics (`nand/state.rs`): wear, reads (f32 each) and programs (u16), one
/// 12-byte record.
pub const BLOCK_PHYSICS_BYTES: u64 = 4 + 4 + 4;
/// Preconditioning's slot lists (`ftl/precondition.rs`): per mapping unit of the planes in
/// flight, its slot in block order and in the order the logical pages take them (32 bits
/// each), freed after set-up.
pub const PRECONDITION_SLOT_BYTES: u64 = 4 + 4;
/// The placement handle of each logical page's data, while handles are offered.
pub const HANDLE_BYTES_PER_UNIT: u64 = 1;
/// The cache directory of `[backing]`, per slot: its map entry (key, value and the hash
/// table's slack), page, recency links, dirty flag and free-list entry.
pub const CACHE_SLOT_BYTES: u64 = 24 + 8 + 8 + 1 + 4;
/// The cached mapping table (`controller/cmt.rs`), per slot of its open-addressed table (a
/// power of two at least twice its entries) and per position of its recency queue (at most
/// twice its entries and 64).
pub const CMT_SLOT_BYTES: u64 = 8;
/// Translation reads and writes in flight (`controller/translation.rs`), per translation
/// page: its waiter list's index and a write flag, with a cached mapping table.
pub const TRANSLATION_PAGE_BYTES: u64 = 4;
/// Planes whose slot lists preconditioning holds at once (`ftl/precondition.rs`): two
/// groups, one dealt while the other is written.
pub const PRECONDITION_PLANES: u64 = crate::ftl::precondition::GROUPS_IN_FLIGHT * crate::ftl::precondition::GROUP;

/// One structure's share of the estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub name: &'static str,
    pub bytes: u64,
}

/// The estimate: every structure that grows with the device, in the order allocated.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub parts: Vec<Part>,
}

impl Estimate {
    pub fn total(&self) -> u64 {
        self.parts.iter().fold(0u64, |sum, p| sum.saturating_add(p.bytes))
    }
}

/// Whether the run keeps per-page physics state (a physics model or a decoder is on).
pub fn keeps_page_physics(cfg: &Config) -> bool {
    cfg.physics.model != ModelKind::None || cfg.ecc.scheme != EccScheme::None
}

/// The estimate for `cfg` (which must be valid: see [`Config::validate`]), with the parts
/// the running scheme's techniques allocate (`techniques`, which the scheme registry gives).
pub fn estimate(cfg: &Config, techniques: &[Part]) -> Estimate {
    let c = cfg.capacity();
    let g = &cfg.geometry;
    let planes = g.channels as u64 * g.chips_per_channel as u64 * g.dies_per_chip as u64 * g.planes_per_die as u64;
    let blocks = planes * g.blocks_per_plane as u64;
    let pages = c.physical_pages;
    let units = pages / c.unit_pages as u64;
    let mut parts = vec![
        Part { name: "logical-to-physical map", bytes: (c.logical_pages + c.translation_pages) * L2P_BYTES_PER_UNIT },
        Part { name: "physical-to-logical map", bytes: units * P2L_BYTES_PER_UNIT },
        Part { name: "valid bitmap", bytes: pages.div_ceil(64) * 64 * VALID_BITS_PER_PAGE / 8 },
        Part { name: "block state", bytes: blocks * BLOCK_STATE_BYTES },
    ];
    if keeps_page_physics(cfg) {
        parts.push(Part { name: "page physics", bytes: pages * PAGE_PHYSICS_BYTES });
        parts.push(Part { name: "block physics", bytes: blocks * BLOCK_PHYSICS_BYTES });
    }
    parts.extend_from_slice(techniques);
    let cached = cfg.mapping.cached_entries(c.logical_pages) as usize;
    if cached > 0 {
        use crate::controller::cmt::{max_queued, slots_for};
        parts
            .push(Part { name: "cached mapping table", bytes: (slots_for(cached) + max_queued(cached)) as u64 * CMT_SLOT_BYTES });
        parts.push(Part { name: "translation pages in flight", bytes: c.translation_pages * TRANSLATION_PAGE_BYTES });
    }
    if cfg.ftl.placement_handles > 0 {
        parts.push(Part { name: "placement handle per logical page", bytes: c.logical_pages * HANDLE_BYTES_PER_UNIT });
    }
    if cfg.backing.enabled {
        let page_bytes = cfg.geometry.page_size as u64 * c.unit_pages as u64;
        let slots = cfg.backing.slots(c.logical_pages, page_bytes) as u64;
        parts.push(Part { name: "cache directory", bytes: slots * CACHE_SLOT_BYTES });
    }
    if cfg.precondition.occupancy > 0.0 {
        let units_per_plane = units / planes.max(1);
        let bytes = PRECONDITION_PLANES.min(planes) * units_per_plane * PRECONDITION_SLOT_BYTES;
        parts.push(Part { name: "preconditioning's slot lists", bytes });
    }
    Estimate { parts }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cached_mapping_table_is_estimated_as_allocated() {
        let mut cfg = Config::default();
        cfg.mapping.entry_bytes = 9;
        cfg.mapping.cached_table_bytes = 9_000;
        let part = |cfg: &Config| estimate(cfg, &[]).parts.into_iter().find(|p| p.name == "cached mapping table");
        // 1,000 entries: 2,048 slots and at most 2,064 queued positions, 8 bytes each.
        assert_eq!(part(&cfg).map(|p| p.bytes), Some((2_048 + 2_064) * 8));
        assert_eq!(crate::controller::cmt::Cmt::new(1_000).unwrap().slots_len(), 2_048);
        // Its translation pages in flight, one entry per translation page (4,096 bytes of
        // 9-byte entries hold 455).
        let tpages = cfg.capacity().logical_pages.div_ceil(455);
        let table = estimate(&cfg, &[]).parts.into_iter().find(|p| p.name == "translation pages in flight");
        assert_eq!(table.map(|p| p.bytes), Some(tpages * 4));
        let allocated = crate::controller::translation::Translations::<()>::new(tpages as usize).table_bytes();
        assert_eq!(allocated as u64, tpages * 4);
        // A cache larger than the logical space is sized to it.
        cfg.mapping.cached_table_bytes = 1 << 40;
        let logical = cfg.capacity().logical_pages;
        let slots = (2 * logical).next_power_of_two();
        assert_eq!(part(&cfg).map(|p| p.bytes), Some((slots + 2 * logical + 64) * 8));
        cfg.mapping.cached_table_bytes = 0;
        assert_eq!(part(&cfg), None);
        assert!(estimate(&cfg, &[]).parts.iter().all(|p| p.name != "translation pages in flight"));
    }

    #[test]
    fn a_device_over_its_limit_is_refused_naming_the_geometry_and_the_estimate() {
        let mut cfg = Config::default();
        cfg.limits.max_memory_bytes = 1 << 20;
        let e = crate::limits::check_memory(&cfg, &[]).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, crate::error::Error::Config { ref key, .. } if key == "geometry"), "{text}");
        for needle in ["blocks_per_plane 256", "pages_per_block 64", "GiB", "limits.max_memory_bytes (0.0010 GiB)"] {
            assert!(text.contains(needle), "{needle}: {text}");
        }
        cfg.limits.max_memory_bytes = 1 << 30;
        assert!(crate::limits::check_memory(&cfg, &[]).is_ok());
    }
}
