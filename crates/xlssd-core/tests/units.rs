//! Mapping units of several pages (`mapping.unit_bytes`).

mod common;

use common::*;
use xlssd_core::host::Op;

/// The small device with 16 KiB units of four 4 KiB pages.
fn unit_device() -> xlssd_core::Config {
    let mut cfg = small();
    cfg.mapping.unit_bytes = 16384;
    cfg
}

#[test]
fn whole_unit_writes_and_reads_keep_every_invariant() {
    let mut cfg = unit_device();
    cfg.precondition.occupancy = 0.5;
    cfg.precondition.steady_state = true;
    let units = cfg.capacity().logical_pages;
    // Aligned 16 KiB writes (32 sectors) and 4 KiB reads, spread over the logical space.
    let reqs = (0..6000u64)
        .map(|i| {
            let unit = (i * 7919) % units;
            if i % 3 == 0 {
                req(i * 20_000, unit * 4 + (i % 4), 1, Op::Read, 8)
            } else {
                xlssd_core::host::Request {
                    arrival_ns: i * 20_000,
                    lba: unit * 32,
                    sectors: 32,
                    op: Op::Write,
                    approx: false,
                    context: 0,
                    handle: None,
                    tolerance: 0.0,
                }
            }
        })
        .collect();
    let r = run(&cfg, VecSource::open(reqs), true);
    assert_eq!(r.host.write.count + r.host.read.count, 6000);
    // Every unit write programs its four pages; GC moves whole units.
    assert_eq!(r.ftl.host_pages_written, 4 * 4000);
    assert_eq!(r.nand.programs, r.ftl.host_pages_written + r.ftl.gc.pages_moved);
    assert!(r.ftl.gc.pages_moved % 4 == 0 && r.ftl.gc.pages_moved > 0, "{}", r.ftl.gc.pages_moved);
    assert_eq!(r.ftl.host_pages_read, 2000);
}

/// A write of `sectors` from sector `lba`, at `t_ms`.
fn write(t_ms: u64, lba: u64, sectors: u32) -> xlssd_core::host::Request {
    xlssd_core::host::Request {
        arrival_ns: t_ms * 1_000_000,
        lba,
        sectors,
        op: Op::Write,
        approx: false,
        context: 0,
        handle: None,
        tolerance: 0.0,
    }
}

#[test]
fn a_write_covering_part_of_a_unit_reads_the_rest_of_it_first() {
    let cfg = unit_device();
    // Units of 32 sectors (four pages of 8 sectors); far apart, so each program has finished.
    let reqs = vec![
        write(0, 5 * 32, 32),       // unit 5, whole: no merge
        write(10, 6 * 32, 32),      // unit 6, whole
        write(20, 5 * 32 + 8, 8),   // page 1 of unit 5: reads pages 0, 2 and 3
        write(30, 6 * 32 + 24, 16), // page 3 of unit 6 (reads 0-2) and page 0 of unit 7 (never written: nothing to read)
        write(40, 9 * 32 + 4, 2),   // part of page 0 of unit 9, never written
        write(50, 5 * 32 + 4, 12),  // the second half of page 0 and page 1 of unit 5: reads pages 2 and 3
    ];
    let r = run(&cfg, VecSource::open(reqs), true);
    assert_eq!(r.ftl.rmw.reads, 3 + 3 + 2);
    assert_eq!(r.ftl.rmw.bytes, 8 * 4096);
    // The host wrote 4 + 4 + 1 + 2 + 1 + 2 pages; the flash programmed whole units.
    assert_eq!(r.ftl.host_pages_written, 14);
    assert_eq!(r.ftl.flash_pages_programmed, 7 * 4);
    assert_eq!(r.nand.reads, 8);
}

#[test]
fn the_unit_must_be_whole_pages_that_tile_a_block_and_fit_the_map() {
    let mut cfg = small();
    for (unit, expected) in
        [(3000, "power of two"), (2048, "power of two from 4 KiB"), (131072, "power of two from 4 KiB to 64 KiB")]
    {
        cfg.mapping.unit_bytes = unit;
        let err = xlssd_core::validated(&cfg).unwrap_err().to_string();
        assert!(err.contains("mapping.unit_bytes") && err.contains(expected), "{unit}: {err}");
    }
    cfg.geometry.page_size = 16384;
    cfg.mapping.unit_bytes = 8192;
    assert!(xlssd_core::validated(&cfg).unwrap_err().to_string().contains("units smaller than a page are not modelled"));
    let mut cfg = unit_device();
    cfg.mapping.cached_table_bytes = 1 << 16;
    assert!(xlssd_core::validated(&cfg).unwrap_err().to_string().contains("cached table maps pages"));
}

#[test]
fn pages_past_2_pow_32_are_written_and_read_back_through_units() {
    // 8 planes of 20,000 blocks of 32,768 pages: 5.2e9 pages of 4 KiB; plane 7 starts at
    // page 4.59e9, past 2^32. The tables are allocated zeroed and only touched pages cost
    // memory, so the test stays small.
    let mut cfg = small();
    cfg.geometry.channels = 1;
    cfg.geometry.chips_per_channel = 1;
    cfg.geometry.planes_per_die = 8;
    cfg.geometry.blocks_per_plane = 20_000;
    cfg.geometry.pages_per_block = 32_768;
    cfg.cache.capacity_bytes = 0;
    let pages = 8u64 * 20_000 * 32_768;
    assert!(cfg.geometry.pages_per_block as u64 * 20_000 * 7 > 1 << 32);
    // One map entry per page would not fit 32 bits.
    let err = xlssd_core::validated(&cfg).unwrap_err().to_string();
    assert!(err.contains(&format!("{pages} physical pages")) && err.contains("raise mapping.unit_bytes"), "{err}");
    cfg.mapping.unit_bytes = 65536;
    // Static allocation stripes logical pages over the planes: unit 7 lives in plane 7.
    let reqs = vec![write(0, 7 * 128, 128), req(10_000_000, 7 * 16 + 3, 2, Op::Read, 8)];
    let r = run(&cfg, VecSource::open(reqs), true);
    assert_eq!(r.ftl.physical_pages, pages);
    assert_eq!(r.ftl.flash_pages_programmed, 16);
    // The two pages read come from flash, at addresses past 2^32 (the invariant checker
    // holds the map and the pages it points at to agree).
    assert_eq!((r.ftl.host_pages_read, r.nand.reads), (2, 2));
    assert_eq!(r.ftl.unmapped_reads, 0);
}

#[test]
fn a_synthetic_workload_spans_every_unit_of_the_logical_space() {
    let mut cfg = unit_device();
    cfg.workload.rw = xlssd_core::config::RwMode::Randread;
    cfg.workload.bs = 4096;
    cfg.workload.n = 20_000;
    cfg.workload.span = 1.0;
    // Logical pages as the capacity rule says, in whole units of four pages of 8 sectors.
    let sectors = common::guarded::logical_pages(&cfg) / 4 * 4 * 8;
    assert_eq!(cfg.logical_sectors(), sectors);
    let workload = xlssd_core::host::Workload::Synthetic(cfg.workload.clone());
    let mut source = xlssd_core::open_workload(&cfg, &workload, cfg.logical_sectors()).unwrap();
    let mut last = 0;
    while let Some(r) = source.next_request().unwrap() {
        assert!(r.lba + r.sectors as u64 <= sectors, "request past the logical space: {r:?}");
        last = last.max(r.lba);
    }
    // 20,000 uniform requests over the space: one lands in its last hundredth.
    assert!(last >= sectors / 100 * 99, "last request at sector {last} of {sectors}");
}
