//! The SSD as a cache in front of a disk (`[backing]`): what reaches the SSD and the disk,
//! page by page, under each write policy, and how read errors are handled.

mod common;

use common::{req, run, small, VecSource};
use xlssd_core::backing::WritePolicy;
use xlssd_core::host::Op;
use xlssd_core::{Config, Report};

const SPP: u64 = 8; // 4 KiB pages of 512-byte sectors
/// Far enough apart that every request, its fills and its write-backs are done before the
/// next arrives.
const GAP_NS: u64 = 100_000_000;

/// The small device caching a 64 MiB disk in `slots` pages.
fn cached(slots: u64, policy: WritePolicy) -> Config {
    let mut c = small();
    c.backing.enabled = true;
    c.backing.cache_bytes = slots * 4096;
    c.backing.write_policy = policy;
    c.backing.disk.capacity_bytes = 64 << 20;
    c
}

/// One-page requests, `GAP_NS` apart: (op, disk page).
fn spaced(ops: &[(Op, u64)]) -> VecSource {
    VecSource::open(ops.iter().enumerate().map(|(i, &(op, page))| req(i as u64 * GAP_NS, page, 1, op, SPP)).collect())
}

fn go(cfg: &Config, ops: &[(Op, u64)]) -> Report {
    run(cfg, spaced(ops), true)
}

const R: Op = Op::Read;
const W: Op = Op::Write;

#[test]
fn a_page_read_twice_misses_then_hits_and_the_hit_costs_what_an_ssd_read_costs() {
    let r = go(&cached(4, WritePolicy::WriteBack), &[(R, 100), (R, 100)]);
    let b = &r.backing;
    assert!(b.enabled);
    assert_eq!((b.reads.pages, b.reads.hits, b.reads.misses_not_cached), (2, 1, 1));
    assert_eq!((b.disk.reads, b.fills, b.ssd_writes.count, b.ssd_reads.count), (1, 1, 1, 1));
    assert_eq!(b.reads.hit_ratio, 0.5);
    // The miss waited for the disk alone (nothing else queued): its latency is the disk's.
    assert_eq!(r.host.read.latency_us.max, b.disk.response_us.max);
    assert!(b.disk.response_us.max > 1000.0, "a disk read takes milliseconds");
    // The hit is a read of one written page of the SSD, as on the plain device, and the
    // request waits for nothing else.
    let mut plain = small();
    plain.backing.enabled = false;
    let alone = run(&plain, VecSource::open(vec![req(0, 0, 1, W, SPP), req(GAP_NS, 0, 1, R, SPP)]), true);
    assert_eq!(b.ssd_reads.latency_us.max, alone.host.read.latency_us.max);
    let mean = (b.disk.response_us.max + b.ssd_reads.latency_us.max) / 2.0;
    assert!((r.host.read.latency_us.mean - mean).abs() < 1e-3, "{} vs {mean}", r.host.read.latency_us.mean);
}

#[test]
fn the_least_recently_used_page_is_evicted() {
    // Four slots: 0-3 fill them; reading 0 makes 1 the oldest, so 4 evicts 1 and 1 then
    // evicts 2, while 0 stays.
    let ops = [(R, 0), (R, 1), (R, 2), (R, 3), (R, 0), (R, 4), (R, 1), (R, 0), (R, 2)];
    let b = go(&cached(4, WritePolicy::WriteBack), &ops).backing;
    assert_eq!((b.reads.hits, b.reads.misses_not_cached), (2, 7));
    assert_eq!((b.evictions, b.dirty_evictions, b.cached_pages), (3, 0, 4));
}

#[test]
fn write_back_keeps_writes_on_the_ssd_until_their_page_is_evicted() {
    let b = go(&cached(2, WritePolicy::WriteBack), &[(W, 7), (R, 7)]).backing;
    assert_eq!((b.reads.hits, b.disk.writes, b.dirty_pages), (1, 0, 1));
    assert_eq!((b.writes.cached, b.writes.around), (1, 0));
    // Two more pages push the dirty page out: it is read back and written to the disk.
    let b = go(&cached(2, WritePolicy::WriteBack), &[(W, 7), (R, 1), (R, 2)]).backing;
    assert_eq!((b.evictions, b.dirty_evictions, b.written_back, b.write_back_lost), (1, 1, 1, 0));
    assert_eq!((b.disk.writes, b.disk.sectors_written, b.dirty_pages), (1, SPP, 0));
    // The write, the two fills; the write-back's read.
    assert_eq!((b.ssd_writes.count, b.ssd_reads.count), (3, 1));
}

#[test]
fn write_through_writes_both_and_waits_for_the_disk() {
    let r = go(&cached(2, WritePolicy::WriteThrough), &[(W, 7), (R, 7)]);
    let b = &r.backing;
    assert_eq!((b.disk.writes, b.ssd_writes.count, b.dirty_pages, b.reads.hits), (1, 1, 0, 1));
    assert_eq!(r.host.write.latency_us.max, b.disk.response_us.max.max(b.ssd_writes.latency_us.max));
    assert!(b.disk.response_us.max > 0.0);
}

#[test]
fn write_around_writes_the_disk_and_drops_the_cached_copy() {
    let b = go(&cached(2, WritePolicy::WriteAround), &[(R, 7), (W, 7), (R, 7)]).backing;
    assert_eq!((b.writes.around, b.writes.cached, b.ssd_writes.count), (1, 0, 2));
    assert_eq!((b.reads.hits, b.reads.misses_not_cached, b.disk.writes, b.disk.reads), (0, 2, 1, 2));
}

#[test]
fn consecutive_missing_pages_of_a_request_are_one_disk_read() {
    let cfg = cached(16, WritePolicy::WriteBack);
    // Pages 3..8; page 5 cached first.
    let reqs = vec![req(0, 5, 1, R, SPP), req(GAP_NS, 3, 5, R, SPP)];
    let b = run(&cfg, VecSource::open(reqs), true).backing;
    assert_eq!((b.reads.pages, b.reads.hits), (6, 1));
    // 5 alone, then 3-4 and 6-7 around the hit.
    assert_eq!((b.disk.reads, b.disk.sectors_read), (3, 5 * SPP));
}

/// A device whose every flash read is uncorrectable: worn far past the last soft level
/// (seed 002's flow, RAID off so that a failed flow is a read error).
fn worn(slots: u64, policy: WritePolicy) -> Config {
    let mut c = cached(slots, policy);
    c.physics.model = xlssd_core::physics::ModelKind::ExpLinear;
    c.ecc.scheme = xlssd_core::config::EccScheme::Ldpc;
    c.ecc.ldpc.raid_us = 0.0;
    // exp-linear defaults: 1e-6 x 1000^(pe / 3000) = 3.2e-2 at 4,500 cycles, past 1.3e-2.
    c.aging.initial_pe = 4500.0;
    c
}

#[test]
fn an_uncorrectable_hit_is_a_miss_served_by_the_disk_and_written_again() {
    let r = go(&worn(4, WritePolicy::WriteBack), &[(R, 9), (R, 9)]);
    let b = &r.backing;
    assert_eq!((b.reads.hits, b.reads.misses_not_cached, b.reads.misses_read_error), (0, 1, 1));
    assert_eq!((b.disk.reads, b.fills, b.reads.dirty_read_errors), (2, 2, 0));
    assert_eq!(r.reliability.uncorrectable_reads, 1);
    // The second read waited for the SSD's failed flow, then for the disk.
    assert!(r.host.read.latency_us.max > b.ssd_reads.latency_us.max);
}

#[test]
fn write_back_never_sends_uncorrected_data_to_the_disk() {
    // A dirty page pushed out of a two-page cache: its read-back fails, and nothing is written.
    let b = go(&worn(2, WritePolicy::WriteBack), &[(W, 7), (R, 1), (R, 2)]).backing;
    assert_eq!((b.dirty_evictions, b.written_back, b.write_back_lost, b.disk.writes), (1, 0, 1, 0));
    // A dirty page read with an error: the disk's older copy is served and the page is clean.
    let b = go(&worn(2, WritePolicy::WriteBack), &[(W, 7), (R, 7), (R, 1), (R, 2)]).backing;
    assert_eq!((b.reads.dirty_read_errors, b.dirty_evictions, b.disk.writes), (1, 0, 0));
}

#[test]
fn every_page_is_accounted_for_under_each_policy_with_requests_overlapping() {
    use rand::{Rng, SeedableRng};
    for policy in [WritePolicy::WriteBack, WritePolicy::WriteThrough, WritePolicy::WriteAround] {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let reqs = (0..3000u64)
            .map(|i| {
                let op = if rng.gen_bool(0.3) { W } else { R };
                req(i * 10_000_000, rng.gen_range(0..200), rng.gen_range(1..4), op, SPP)
            })
            .collect();
        let r = run(&cached(64, policy), VecSource::open(reqs), true);
        let b = &r.backing;
        assert_eq!(b.reads.pages, b.reads.hits + b.reads.misses_not_cached + b.reads.misses_read_error + b.reads.waits_for_fill);
        assert_eq!(b.writes.pages, b.writes.cached + b.writes.around);
        assert!(b.cached_pages <= 64 && b.evictions > 0 && b.reads.hits > 0, "{policy:?}: {b:?}");
        assert_eq!(r.host.all.count, 3000);
        match policy {
            WritePolicy::WriteBack => assert!(b.dirty_pages > 0 && b.disk.writes == b.written_back),
            WritePolicy::WriteThrough => assert!(b.dirty_pages == 0 && b.disk.writes == b.writes.cached),
            WritePolicy::WriteAround => assert!(b.dirty_pages == 0 && b.writes.cached == 0),
        }
    }
}

#[test]
fn runs_with_a_cache_tier_are_repeatable() {
    let ops: Vec<_> = (0..200u64).map(|i| (if i % 3 == 0 { W } else { R }, (i * 7919) % 50)).collect();
    let cfg = cached(8, WritePolicy::WriteBack);
    let a = serde_json::to_value(&go(&cfg, &ops).backing).unwrap();
    let b = serde_json::to_value(&go(&cfg, &ops).backing).unwrap();
    assert_eq!(a, b);
}

/// A host request the cache tier finishes starts the idle clock as any host request does:
/// with a lazy write buffer holding the page it wrote, the buffer is written back
/// `cache.idle_flush_us` after the host went idle, not only when the run ends.
#[test]
fn the_cache_tier_s_host_going_idle_writes_the_buffer_back_after_the_idle_time() {
    let mut cfg = cached(4, WritePolicy::WriteBack);
    cfg.cache.capacity_bytes = 16 * 4096;
    cfg.cache.idle_flush_us = 2_000.0;
    let r = go(&cfg, &[(W, 5)]);
    assert_eq!((r.backing.ssd_writes.count, r.ftl.host_pages_written), (1, 1));
    // The write is done from DRAM at once; the write-back starts 2 ms later and programs
    // one page (500 us).
    assert!(r.host.write.latency_us.max < 100.0, "{}", r.host.write.latency_us.max);
    assert!(r.sim.simulated_ns >= 2_000_000 + 500_000, "{}", r.sim.simulated_ns);
    assert!(r.sim.simulated_ns < 3_000_000, "{}", r.sim.simulated_ns);
}
