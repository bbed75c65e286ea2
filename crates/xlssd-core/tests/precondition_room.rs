//! A preconditioned device with a cached mapping table: the translation pages are stored
//! after the data, and the configuration checks see whether both fit.

mod common;

use common::{req, run, small, VecSource};
use xlssd_core::config::Config;
use xlssd_core::error::Error;
use xlssd_core::host::Op;

/// `small()` with one mapping entry per translation page (as many translation pages as
/// logical pages) and the whole logical space preconditioned.
fn full_device_with_large_table(overprovisioning: f64, steady_state: bool, pages_per_block: u32) -> Config {
    let mut cfg = small();
    cfg.mapping.cached_table_bytes = 64 * 1024;
    cfg.mapping.entry_bytes = cfg.geometry.page_size;
    cfg.geometry.pages_per_block = pages_per_block;
    cfg.ftl.overprovisioning = overprovisioning;
    cfg.precondition.occupancy = 1.0;
    cfg.precondition.steady_state = steady_state;
    cfg
}

#[test]
fn a_full_device_keeps_room_for_its_translation_pages() {
    // 40% of the flash holds data and 40% translation pages: steady-state data spread over
    // the roomy data blocks would leave too few free blocks for the translation pages.
    for steady_state in [true, false] {
        let cfg = full_device_with_large_table(0.6, steady_state, 64);
        let logical = cfg.capacity().logical_pages;
        let spp = (cfg.geometry.page_size / 512) as u64;
        let reqs = (0..200u64)
            .map(|i| req(i * 1_000, (i * 7919) % logical, 1, if i % 3 == 0 { Op::Write } else { Op::Read }, spp))
            .collect();
        let r = run(&cfg, VecSource::open(reqs), true);
        assert_eq!(r.host.all.count, 200, "steady_state = {steady_state}");
    }
}

#[test]
fn every_accepted_layout_sets_up() {
    use xlssd_core::config::AllocationScheme;
    let mut accepted = 0;
    for allocation in [AllocationScheme::Static, AllocationScheme::Dynamic] {
        for (pages_per_block, blocks_per_plane) in [(64, 64), (24, 24), (16, 40)] {
            for entries_per_translation_page in [1, 4] {
                for steady_state in [true, false] {
                    for step in 0..100 {
                        let op = 0.3 + step as f64 * 0.004;
                        let mut cfg = full_device_with_large_table(op, steady_state, pages_per_block);
                        cfg.geometry.blocks_per_plane = blocks_per_plane;
                        cfg.mapping.entry_bytes = cfg.geometry.page_size / entries_per_translation_page;
                        cfg.ftl.allocation = allocation;
                        match xlssd_core::validated(&cfg) {
                            Ok(_) => accepted += 1,
                            Err(Error::Config { key, .. }) if key == "ftl.overprovisioning" => continue,
                            Err(e) => panic!("op {op}: unexpected error {e}"),
                        }
                        if let Err(e) = xlssd_core::simulator(&cfg, Box::new(VecSource::open(Vec::new())), None) {
                            panic!(
                                "{allocation:?}, {pages_per_block} pages per block, {blocks_per_plane} blocks, \
                                 {entries_per_translation_page} entries, steady_state {steady_state}, op {op}: \
                                 accepted but set-up failed: {e}"
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(accepted > 1000, "{accepted} accepted");
}
