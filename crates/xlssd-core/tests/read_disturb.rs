//! Read-disturb management end to end on the small SLC device, with the invariant
//! checker on: read reclaim moves a block when its read count reaches the threshold.

mod common;

use common::*;
use xlssd_core::host::{Op, Request};
use xlssd_core::stats::relocation::RelocationReport;
use xlssd_core::techniques::redftl::report::of as read_disturb;
use xlssd_core::{Config, Report};

const SPP: u64 = 8; // sectors per 4 KiB page

fn device(scheme: &str, threshold: u32) -> Config {
    let mut cfg = small();
    cfg.scheme.name = scheme.to_string();
    let table = cfg.scheme.tables.entry("redftl".into()).or_insert_with(|| serde_json::json!({}));
    table["reclaim_threshold"] = threshold.into();
    cfg
}

fn reclaims(r: &Report) -> &RelocationReport {
    r.ftl.relocations.iter().find(|x| x.reason == "read_reclaim").expect("a read_reclaim row")
}

/// Fills one block in each of the 8 planes (512 one-page writes), then reads logical
/// page 0 `reads` times, `gap_ns` apart.
fn fill_then_read(reads: u64, gap_ns: u64) -> Vec<Request> {
    let mut v: Vec<Request> = (0..512).map(|lpn| req(lpn * 2_000_000, lpn, 1, Op::Write, SPP)).collect();
    let start = 2_000_000_000;
    v.extend((0..reads).map(|i| req(start + i * gap_ns, 0, 1, Op::Read, SPP)));
    v
}

#[test]
fn a_block_is_reclaimed_each_time_its_reads_reach_the_threshold() {
    // Reads 100 ms apart: each reclaim ends before the next read, so every threshold-th
    // read of the page finds a fresh block behind it.
    let r = run(&device("read-reclaim", 500), VecSource::open(fill_then_read(2_000, 100_000_000)), true);
    let rr = reclaims(&r);
    assert_eq!((rr.started, rr.finished), (4, 4));
    // The block held 64 valid pages, all moved together.
    assert_eq!((rr.pages_moved, rr.pages_per_relocation), (256, 64.0));
    // 64 programs of 500 us on one plane and a 3 ms erase at the least.
    assert!(rr.service_us.p50 >= 64.0 * 500.0 + 3_000.0, "{:?}", rr.service_us);
    assert!(rr.busy_ms >= 4.0 * (64.0 * 0.55 + 3.0), "{}", rr.busy_ms);
    let rd = read_disturb(&r);
    // Each reclaim's own 64 reads of its block count too, and ask for nothing more.
    assert_eq!((rd.scheme.as_str(), rd.reclaim_threshold, rd.reclaim_requests, rd.max_block_reads), ("read-reclaim", 500, 4, 564));
    assert_eq!(rr.reads_during, 0);
    // The baseline scheme never reclaims.
    let mut base_cfg = device("baseline", 500);
    base_cfg.scheme.tables.clear();
    let base = run(&base_cfg, VecSource::open(fill_then_read(2_000, 100_000_000)), true);
    assert_eq!(reclaims_or_none(&base), None);
    assert_eq!(read_disturb(&base).reclaim_threshold, 0);
}

fn reclaims_or_none(r: &Report) -> Option<u64> {
    r.ftl.relocations.iter().find(|x| x.reason == "read_reclaim").map(|x| x.started)
}

#[test]
fn reads_arriving_during_a_reclaim_wait_for_it_unless_they_may_overtake_it() {
    // Reads 200 us apart, all of one page: a reclaim (about 38 ms of programs and an erase
    // on the page's die) holds up the reads behind it.
    let ahead = run(&device("read-reclaim", 500), VecSource::open(fill_then_read(3_000, 200_000)), true);
    let rr = reclaims(&ahead);
    assert!(rr.finished >= 2 && rr.reads_during > 50, "{rr:?}");
    let all = &ahead.host.read.latency_us;
    // The first read behind a reclaim waits for nearly all of it.
    assert!(rr.reads_during_us.max > 0.8 * rr.service_us.p50, "{:?} vs {:?}", rr.reads_during_us, rr.service_us);
    assert!(rr.reads_during_us.mean > 2.0 * all.p50, "{:?} vs {:?}", rr.reads_during_us, all);
    // Reads that may overtake the reclaim wait for one program or erase at most.
    let mut cfg = device("read-reclaim", 500);
    cfg.scheme.tables.get_mut("redftl").unwrap()["reclaim_ahead_of_reads"] = false.into();
    let behind = run(&cfg, VecSource::open(fill_then_read(3_000, 200_000)), true);
    let rr_behind = reclaims(&behind);
    assert!(rr_behind.finished >= 2 && rr_behind.reads_during > 50, "{rr_behind:?}");
    assert!(rr_behind.reads_during_us.max < 3_000.0 + 500.0, "{:?}", rr_behind.reads_during_us);
    assert!(rr_behind.reads_during_us.max < rr.reads_during_us.max / 5.0);
}

#[test]
fn the_reclaim_threshold_is_validated() {
    let mut cfg = device("read-reclaim", 0);
    let err = xlssd_core::Config::from_json_str(&cfg.to_json_value().to_string()).unwrap_err().to_string();
    assert!(err.contains("scheme.redftl.reclaim_threshold") && err.contains("at least 1"), "{err}");
    cfg.scheme.name = "baseline".into();
    let err = xlssd_core::Config::from_json_str(&cfg.to_json_value().to_string()).unwrap_err().to_string();
    assert!(err.contains("scheme.redftl") && err.contains("read-reclaim"), "{err}");
}
