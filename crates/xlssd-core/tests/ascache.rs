//! Seed 002's cache schemes on the cache tier: AP_READ's raw, decode and error paths,
//! mismatched pages, placement by level, and write-back's fully corrected reads.

mod common;

use common::{req, run, small, VecSource};
use xlssd_core::backing::WritePolicy;
use xlssd_core::host::{Op, Request};
use xlssd_core::{Config, Report};

const SPP: u64 = 8;
const GAP_NS: u64 = 100_000_000;
const R: Op = Op::Read;
const W: Op = Op::Write;

/// The small device caching a disk, every block worn to `pe` cycles under seed 002's
/// exponential RBER model (1e-6 x 1000^(pe / 3000)) and its LDPC flow, RAID off (a failed
/// flow is a read error); no write buffer, so that every read reaches the flash.
fn device(scheme: &str, pe: f64) -> Config {
    let mut c = small();
    c.backing.enabled = true;
    c.backing.cache_bytes = 16 * 4096;
    c.backing.write_policy = WritePolicy::WriteBack;
    c.backing.disk.capacity_bytes = 64 << 20;
    c.physics.model = xlssd_core::physics::ModelKind::ExpLinear;
    c.physics.read_disturb = false;
    c.ecc.scheme = xlssd_core::config::EccScheme::Ldpc;
    c.ecc.ldpc.raid_us = 0.0;
    c.aging.initial_pe = pe;
    c.ftl.overprovisioning = 0.3;
    c.scheme.name = scheme.into();
    c
}

/// 3,650 cycles: RBER 4.5e-3, level 4 (3.6e-3 to 5.5e-3), four soft levels to decode.
const LEVEL_4: f64 = 3650.0;
/// 4,500 cycles: RBER 3.2e-2, level 1, beyond the last soft level (1.3e-2).
const LEVEL_1: f64 = 4500.0;

/// One-page requests `GAP_NS` apart: (op, disk page, AP_BER).
fn go(cfg: &Config, ops: &[(Op, u64, f32)]) -> Report {
    let reqs: Vec<Request> = ops
        .iter()
        .enumerate()
        .map(|(i, &(op, page, ap_ber))| Request { tolerance: ap_ber, ..req(i as u64 * GAP_NS, page, 1, op, SPP) })
        .collect();
    run(cfg, VecSource::open(reqs), true)
}

fn section(r: &Report) -> &serde_json::Value {
    &r.techniques["ascache"]
}

fn n(r: &Report, key: &str) -> u64 {
    section(r)[key].as_u64().unwrap_or_else(|| panic!("ascache.{key} in {}", section(r)))
}

#[test]
fn blocks_are_measured_at_the_start_and_grouped_by_level() {
    let r = go(&device("ssd-cache", LEVEL_4), &[(R, 1, 0.0)]);
    let g = &device("ssd-cache", LEVEL_4).geometry;
    let blocks = (g.channels * g.chips_per_channel * g.dies_per_chip * g.planes_per_die * g.blocks_per_plane) as u64;
    assert_eq!(n(&r, "probes_start"), blocks);
    assert_eq!(section(&r)["blocks_by_level"], serde_json::json!([0, 0, 0, blocks, 0, 0, 0, 0]));
    assert_eq!(r.reliability.probes, blocks);
}

#[test]
fn an_ap_read_of_a_tolerated_block_returns_raw_data_as_fast_as_a_read_without_decoding() {
    // Miss, fill, then a hit that the AP_BER tolerates.
    let ops = [(R, 3, 0.011), (R, 3, 0.011)];
    let traditional = go(&device("ssd-cache", LEVEL_4), &ops);
    let approximate = go(&device("ascache", LEVEL_4), &ops);
    assert_eq!(n(&approximate, "raw_reads"), 1);
    assert_eq!(approximate.reliability.decode.raw, 1);
    assert_eq!(n(&traditional, "raw_reads"), 0);
    // The traditional hit decodes level by level: the hard decode and four soft levels.
    assert_eq!(traditional.reliability.decode.soft, vec![0, 0, 0, 1, 0, 0]);
    // The raw hit costs what a read costs on a device without any decoder.
    let mut plain = small();
    plain.backing.enabled = false;
    let alone = run(&plain, VecSource::open(vec![req(0, 0, 1, W, SPP), req(GAP_NS, 0, 1, R, SPP)]), true);
    assert_eq!(approximate.backing.ssd_reads.latency_us.max, alone.host.read.latency_us.max);
    assert!(traditional.backing.ssd_reads.latency_us.max > 4.0 * 80.0);
}

#[test]
fn an_ap_read_the_block_does_not_tolerate_decodes_straight_to_the_predicted_level() {
    // AP_BER 1e-3 is below the blocks' RBER_U: the read is decoded, its four soft levels
    // sensed inside the die before one transfer and one decode.
    let ops = [(R, 3, 1e-3), (R, 3, 1e-3)];
    let direct = go(&device("ascache", LEVEL_4), &ops);
    assert_eq!((n(&direct, "raw_reads"), n(&direct, "direct_decodes")), (0, 1));
    assert_eq!(direct.reliability.read_retries.in_die_senses, 4);
    assert_eq!(direct.reliability.decode.soft, vec![0, 0, 0, 1, 0, 0]);
    let level_by_level = go(&device("ssd-cache", LEVEL_4), &ops);
    // Level by level moves the page over the channel and decodes it five times; directly,
    // once: four transfers (10.24 us each) and four decodes fewer.
    let saved = level_by_level.backing.ssd_reads.latency_us.max - direct.backing.ssd_reads.latency_us.max;
    assert!(saved > 4.0 * 10.24, "saved {saved} us");
    // With direct decoding off, AP_READs decode level by level too.
    let mut off = device("ascache", LEVEL_4);
    off.scheme.tables.insert("ascache".into(), serde_json::json!({"direct_decode": false}));
    let r = go(&off, &ops);
    assert_eq!(r.reliability.read_retries.in_die_senses, 0);
    assert_eq!(r.backing.ssd_reads.latency_us.max, level_by_level.backing.ssd_reads.latency_us.max);
}

#[test]
fn a_read_error_the_reader_tolerates_is_a_hit_and_one_it_does_not_is_a_miss() {
    let ops = |ap_ber| [(R, 5, ap_ber), (R, 5, ap_ber)];
    // Level-1 blocks: every decode fails.
    let traditional = go(&device("ssd-cache", LEVEL_1), &ops(0.05));
    assert_eq!((traditional.backing.reads.hits, traditional.backing.reads.misses_read_error), (0, 1));
    let tolerated = go(&device("ascache", LEVEL_1), &ops(0.05));
    assert_eq!((tolerated.backing.reads.hits, tolerated.backing.reads.misses_read_error), (1, 0));
    assert_eq!(tolerated.backing.disk.reads, 1);
    // AP_BER 0.02 is below the blocks' 3.2e-2: decoded, failed, a miss.
    let intolerable = go(&device("ascache", LEVEL_1), &ops(0.02));
    assert_eq!((intolerable.backing.reads.hits, intolerable.backing.reads.misses_read_error), (0, 1));
    assert_eq!(intolerable.reliability.uncorrectable_reads, 1);
}

#[test]
fn a_mismatched_page_is_always_decoded() {
    // AP_BER 3e-3 asks for level 6 (RBER_U below 2.35e-3); every block is level 4 (RBER_U
    // 4.5e-3, above the AP_BER), so the write is mismatched, and a later AP_READ tolerating
    // 0.011 still decodes it.
    let mismatched = go(&device("ascache", LEVEL_4), &[(W, 2, 3e-3), (R, 2, 0.011)]);
    assert_eq!(n(&mismatched, "mismatched_writes"), 1);
    assert_eq!((n(&mismatched, "raw_reads"), mismatched.reliability.decode.soft[3]), (0, 1));
    // Written for AP_BER 0.011 (level 2 or better), the same page is read raw.
    let matched = go(&device("ascache", LEVEL_4), &[(W, 2, 0.011), (R, 2, 0.011)]);
    assert_eq!((n(&matched, "mismatched_writes"), n(&matched, "raw_reads")), (0, 1));
}

#[test]
fn write_back_reads_dirty_data_fully_corrected_whatever_its_ap_ber() {
    // A dirty page written with a generous AP_BER is pushed out of a two-page cache: its
    // write-back read is a normal READ, which fails on level-1 blocks, and nothing reaches
    // the disk.
    let mut cfg = device("ascache", LEVEL_1);
    cfg.backing.cache_bytes = 2 * 4096;
    let r = go(&cfg, &[(W, 7, 0.05), (R, 1, 0.05), (R, 2, 0.05)]);
    assert_eq!((r.backing.dirty_evictions, r.backing.write_back_lost, r.backing.disk.writes), (1, 1, 0));
    assert_eq!(n(&r, "raw_reads"), 0);
}

#[test]
fn writes_go_to_the_most_reliable_level_with_room() {
    // Blocks spread over levels 2 to 7 (a normal spread of P/E counts): the traditional
    // cache's writes and fills all land in the most reliable level present.
    let mut cfg = device("ssd-cache", 3400.0);
    cfg.aging.initial_pe_spread = 300.0;
    cfg.aging.initial_pe_distribution = xlssd_core::physics::config::PeDistribution::Normal;
    let ops: Vec<_> = (0..40).map(|i| (W, i, 0.0)).collect();
    let r = go(&cfg, &ops);
    let at_start: Vec<u64> = serde_json::from_value(section(&r)["blocks_by_level_at_start"].clone()).unwrap();
    let best = at_start.iter().rposition(|&b| b > 0).unwrap();
    assert!(at_start.iter().filter(|&&b| b > 0).count() >= 3, "{at_start:?}");
    let writes: Vec<u64> = serde_json::from_value(section(&r)["host_writes_by_level"].clone()).unwrap();
    assert_eq!(writes.iter().sum::<u64>(), 40);
    assert_eq!(writes[best], 40, "{writes:?} with blocks {at_start:?}");
}

#[test]
fn ap_writes_take_the_least_reliable_adequate_level_when_asked() {
    let mut cfg = device("ascache", 3400.0);
    cfg.aging.initial_pe_spread = 300.0;
    cfg.aging.initial_pe_distribution = xlssd_core::physics::config::PeDistribution::Normal;
    cfg.scheme.tables.insert("ascache".into(), serde_json::json!({"write_preference": "lowest-adequate"}));
    // AP_BER 0.011 is tolerated from level 3 up (level 3's blocks stay below 8.47e-3;
    // level 2's may reach 1.3e-2).
    let ops: Vec<_> = (0..20).map(|i| (W, i, 0.011)).collect();
    let r = go(&cfg, &ops);
    let at_start: Vec<u64> = serde_json::from_value(section(&r)["blocks_by_level_at_start"].clone()).unwrap();
    let writes: Vec<u64> = serde_json::from_value(section(&r)["host_writes_by_level"].clone()).unwrap();
    let lowest_adequate = (2..8).find(|&i| at_start[i] > 0).unwrap();
    assert_eq!(writes[lowest_adequate], 20, "{writes:?} with blocks {at_start:?}");
    assert_eq!(n(&r, "mismatched_writes"), 0);
}

#[test]
fn idle_scans_measure_written_blocks_again_and_move_those_that_aged() {
    let mut cfg = device("ssd-cache", LEVEL_4);
    // One second of the run is 10,000 hours of retention: the exponential-plus-linear
    // model adds 2.3e-3 to a page's RBER each second, taking level 4 to level 3 or below.
    cfg.physics.retention_scale = 3.6e7;
    cfg.scheme
        .tables
        .insert("ascache".into(), serde_json::json!({"scan_period_ms": 50.0, "scan_idle_ms": 10.0, "scan_blocks": 100000}));
    let ops: Vec<_> = (0..20).map(|i| (if i < 10 { W } else { R }, i % 10, 0.0)).collect();
    let r = go(&cfg, &ops);
    assert!(n(&r, "probes_idle") > 0);
    assert!(n(&r, "level_moves") > 0);
    let end: Vec<u64> = serde_json::from_value(section(&r)["blocks_by_level"].clone()).unwrap();
    assert!(end[..3].iter().sum::<u64>() > 0, "aged blocks below level 4: {end:?}");
    // Blocks holding nothing are not read by the scan: most stay where they were.
    assert!(end[3] > end[..3].iter().sum::<u64>(), "{end:?}");
}

#[test]
fn every_erase_measures_its_block_and_pays_for_the_reference_page() {
    let mut cfg = device("ssd-cache", LEVEL_4);
    // 256 blocks of 64 pages, 12 per plane kept open or in reserve: 30,000 overwrites of
    // 16 cached pages fill the rest and keep cleaning busy.
    cfg.geometry.blocks_per_plane = 32;
    cfg.ftl.overprovisioning = 0.5;
    let ops: Vec<_> = (0..30_000u64).map(|i| (W, i % 16, 0.0)).collect();
    let reqs: Vec<Request> =
        ops.iter().enumerate().map(|(i, &(op, page, _))| req(i as u64 * 500_000, page, 1, op, SPP)).collect();
    let r = run(&cfg, VecSource::open(reqs.clone()), true);
    assert!(r.nand.erases > 0);
    assert_eq!(n(&r, "probes_erased"), r.nand.erases);
    // The reference page's program (500 us) and read (50 us) follow each erase (3 ms).
    assert_eq!(r.nand.erase.latency_ms.max, 3.55);
    cfg.scheme.tables.insert("ascache".into(), serde_json::json!({"reference_page_time": false}));
    let free = run(&cfg, VecSource::open(reqs), true);
    assert_eq!(free.nand.erase.latency_ms.max, 3.0);
}

/// Reads disk pages 100-103 twice (a miss, then a hit) at `ap_ber`, carrying a payload of
/// zeros there; returns the report and the bytes the host got back last.
fn payload_run(scheme: &str, ap_ber: f32) -> (Report, Vec<u8>) {
    use xlssd_core::engine::Payload;
    let cfg = device(scheme, LEVEL_4);
    let mut payload = Payload::new(100 * SPP, vec![0u8; 4 * 4096]);
    let reqs = (0..2).map(|i| Request { tolerance: ap_ber, ..req(i * GAP_NS, 100, 4, R, SPP) }).collect();
    let sim = xlssd_core::simulator(&cfg, Box::new(VecSource::open(reqs)), None).unwrap();
    let r = sim.run(xlssd_core::RunOptions { check: true, payload: Some(&mut payload), ..Default::default() }).unwrap();
    (r, payload.returned)
}

#[test]
fn a_payload_read_through_the_cache_carries_the_errors_of_raw_reads_only() {
    let (r, back) = payload_run("ascache", 0.011);
    assert_eq!((r.backing.reads.hits, r.backing.reads.misses_not_cached), (4, 4));
    // Four pages from the disk (as written), then four raw from level-4 blocks: about
    // 4.5e-3 x 32,768 = 147 flipped bits each.
    assert_eq!((r.payload.pages_read, r.payload.pages_returned_with_errors), (8, 4));
    let flipped: u32 = back.iter().map(|b| b.count_ones()).sum();
    assert_eq!(flipped as u64, r.payload.bits_flipped);
    assert!((4 * 100..4 * 200).contains(&flipped), "{flipped} bits");
    // The traditional cache decodes every hit: the data comes back as written.
    let (r, back) = payload_run("ssd-cache", 0.011);
    assert_eq!((r.payload.pages_read, r.payload.pages_returned_with_errors), (8, 0));
    assert!(back.iter().all(|&b| b == 0));
}

#[test]
fn host_ap_ber_is_the_tolerance_of_requests_that_give_none() {
    let mut cfg = device("ascache", LEVEL_4);
    cfg.host.ap_ber = 0.011;
    let r = go(&cfg, &[(R, 3, 0.0), (R, 3, 0.0), (R, 3, 1e-3)]);
    // The second read tolerates the configured 0.011 (raw); the third gives its own 1e-3.
    assert_eq!((n(&r, "raw_reads"), n(&r, "direct_decodes")), (1, 1));
}

#[test]
fn a_warm_cache_starts_full_of_the_disks_first_pages() {
    let mut cfg = device("ssd-cache", LEVEL_4);
    cfg.backing.warm = true;
    cfg.precondition.occupancy = 1.0;
    // Pages 0-15 are cached from the start; 16 is not, and evicts page 0, the oldest.
    let r = go(&cfg, &[(R, 5, 0.0), (R, 15, 0.0), (R, 16, 0.0), (R, 0, 0.0), (R, 1, 0.0)]);
    let b = &r.backing;
    assert_eq!((b.reads.hits, b.reads.misses_not_cached, b.evictions), (2, 3, 3));
}

/// An MLC block's errors split 1 : 2 between its LSB and MSB pages
/// (`physics.page_spread.by_page_type`): the RBER_U of a block measured on its worst page
/// bounds every page's, as Sec. 3.2's tracking means to ("pessimistic"); measured on its
/// first page, an LSB page, it does not bound the MSB pages.
#[test]
fn a_reference_page_bounds_its_block_only_when_it_is_the_worst_page() {
    let run_with = |reference: &str| {
        let mut cfg = device("ascache", LEVEL_4);
        cfg.geometry.cell = xlssd_core::config::CellType::Mlc;
        cfg.physics.page_spread.by_page_type = true;
        cfg.scheme.tables.insert("ascache".into(), serde_json::json!({ "reference_page": reference }));
        // Twelve pages missed and filled, then read again: AP_BER 0.02 tolerates the level-4
        // blocks, so every second read is returned raw.
        let ops: Vec<(Op, u64, f32)> = (0..12).flat_map(|p| [(R, p, 0.02), (R, p, 0.02)]).collect();
        go(&cfg, &ops)
    };
    let worst = run_with("worst");
    let first = run_with("first");
    for r in [&worst, &first] {
        assert_eq!(n(r, "raw_reads"), 12, "{}", section(r));
        assert_eq!(n(r, "raw_beyond_tolerance"), 0, "0.02 is above both page types' RBER");
    }
    assert_eq!(n(&worst, "raw_above_bound"), 0, "{}", section(&worst));
    // The twelve fills are striped over the device's 8 planes, each plane's block taking
    // its pages in order: 8 first pages (LSB) and 4 second ones (MSB). The MSB pages (4/3 of
    // the block's mean RBER) are above an RBER_U measured on an LSB page (2/3 of it).
    let g = &device("ascache", LEVEL_4).geometry;
    assert_eq!(g.channels * g.chips_per_channel * g.dies_per_chip * g.planes_per_die, 8);
    assert_eq!(n(&first, "raw_above_bound"), 4, "{}", section(&first));
    // The worst page's RBER_U is twice the first page's (less the bias both add).
    let delta = 1e-5;
    let (w, f) = (section(&worst)["rber_u_mean"].as_f64().unwrap(), section(&first)["rber_u_mean"].as_f64().unwrap());
    assert!(((w - delta) / (f - delta) - 2.0).abs() < 0.01, "worst {w}, first {f}");
}
