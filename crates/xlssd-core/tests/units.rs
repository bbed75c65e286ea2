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
                xlssd_core::host::Request { arrival_ns: i * 20_000, lba: unit * 32, sectors: 32, op: Op::Write, approx: false }
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
