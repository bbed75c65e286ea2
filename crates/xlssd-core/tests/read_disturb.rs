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
    assert_eq!(
        (rd.scheme.as_str(), rd.reclaim_threshold, rd.reclaim_requests, rd.max_block_reads),
        ("read-reclaim", 500, 4, 564)
    );
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
fn reads_on_the_reclaiming_die_are_told_apart_from_the_others_during_a_reclaim() {
    // Every other read is of logical page 0 (die 0); the others go in turn to pages 1, 2,
    // 3, 5, 6 and 7, one in each plane of the other dies, too few reads each for a
    // reclaim. Only page 0's block is reclaimed, so only half the reads that arrive during
    // a reclaim reach its die, and those are the ones that wait.
    let others = [1, 2, 3, 5, 6, 7];
    let mut v: Vec<Request> = (0..512).map(|lpn| req(lpn * 2_000_000, lpn, 1, Op::Write, SPP)).collect();
    v.extend((0..3_000u64).map(|i| {
        let lpn = if i % 2 == 0 { 0 } else { others[(i / 2 % 6) as usize] };
        req(2_000_000_000 + i * 200_000, lpn, 1, Op::Read, SPP)
    }));
    let r = run(&device("read-reclaim", 500), VecSource::open(v), true);
    let rr = reclaims(&r);
    assert!(rr.finished >= 2 && rr.reads_during > 50, "{rr:?}");
    let share = rr.reads_on_die as f64 / rr.reads_during as f64;
    assert!((0.4..=0.6).contains(&share), "{} of {} reads on the die", rr.reads_on_die, rr.reads_during);
    assert!(rr.reads_on_die_us.mean > 1.8 * rr.reads_during_us.mean, "{:?} vs {:?}", rr.reads_on_die_us, rr.reads_during_us);
    assert_eq!(rr.reads_on_die_us.max, rr.reads_during_us.max);
}

#[test]
fn the_reclaim_threshold_is_validated() {
    let mut cfg = device("read-reclaim", 0);
    let err = xlssd_core::config_from_json(&cfg.to_json_value().to_string()).unwrap_err().to_string();
    assert!(err.contains("scheme.redftl.reclaim_threshold") && err.contains("at least 1"), "{err}");
    cfg.scheme.name = "baseline".into();
    let err = xlssd_core::config_from_json(&cfg.to_json_value().to_string()).unwrap_err().to_string();
    assert!(err.contains("scheme.redftl") && err.contains("read-reclaim"), "{err}");
}

/// The block of logical page 0 (plane 0 holds logical pages 0, 8, 16, ...): `hot` of its
/// pages take 80% of the reads, the other pages of the block the rest in turn.
fn skewed_reads(reads: u64, gap_ns: u64, start: u64) -> Vec<Request> {
    (0..reads)
        .map(|i| {
            let lpn = if i % 5 != 4 { 8 * (i % 2) } else { 8 * (2 + (i / 5) % 62) };
            req(start + i * gap_ns, lpn, 1, Op::Read, SPP)
        })
        .collect()
}

fn red(scheme: &str) -> Config {
    let mut cfg = device(scheme, 950);
    if scheme == "redftl" {
        let t = cfg.scheme.tables.get_mut("redftl").unwrap();
        t["max_read_count"] = 1000.into();
    }
    cfg
}

fn fill() -> Vec<Request> {
    (0..512).map(|lpn| req(lpn * 2_000_000, lpn, 1, Op::Write, SPP)).collect()
}

#[test]
fn redftl_replicates_the_hot_pages_and_reclaims_less_than_the_baseline() {
    let workload = || {
        let mut v = fill();
        v.extend(skewed_reads(4_000, 1_000_000, 2_000_000_000));
        v
    };
    let base = run(&red("read-reclaim"), VecSource::open(workload()), true);
    let redftl = run(&red("redftl"), VecSource::open(workload()), true);
    let rd = read_disturb(&redftl);
    // The two hot pages (rate 0.4 per read against 1/64 for the block's average page);
    // once migrated, their new blocks take all their reads and replicate them in turn.
    assert!(rd.replicas.asked >= 2 && rd.replicas.asked % 2 == 0 && rd.replicas.made == rd.replicas.asked, "{rd:?}");
    assert_eq!(redftl.ftl.copies.made, rd.replicas.made);
    // The first block reaches 90% of the maximum read count on its cold reads alone: the
    // replicas become the mapped pages.
    assert!(rd.replicas.migrated >= 2, "{rd:?}");
    assert_eq!(redftl.ftl.copies.promoted, rd.replicas.migrated);
    let (b, r) = (reclaims(&base), reclaims(&redftl));
    assert!(b.finished >= 3, "{b:?}");
    assert!(r.finished < b.finished, "redftl {r:?} vs read-reclaim {b:?}");
    // The baseline moves the whole block each time; redFTL's reclaim of the original
    // block leaves its two migrated pages behind.
    assert_eq!(b.pages_per_relocation, 64.0);
    assert!(redftl.ftl.relocations[0].started == 0 && base.ftl.relocations[0].started == 0, "no cleaning in this run");
}

#[test]
fn a_block_read_evenly_has_every_other_page_replicated() {
    // All 64 pages of plane 0's block read in turn: no page reads faster than the block's
    // average page, so at 70% of the maximum read count the separator takes every other
    // valid page (Sec. 3.4.2: "a random half" when reads are even; a fixed half here).
    let mut v = fill();
    v.extend((0..750u64).map(|i| req(2_000_000_000 + i * 1_000_000, 8 * (i % 64), 1, Op::Read, SPP)));
    let r = run(&red("redftl"), VecSource::open(v.clone()), true);
    let rd = read_disturb(&r);
    assert_eq!(rd.replicas.asked, 32, "{rd:?}");
    assert_eq!(rd.replicas.made, 32, "{rd:?}");
    assert_eq!(rd.replicas.migrated, 0, "{rd:?}");
    assert_eq!(rd.replicas.capped, 0, "{rd:?}");
    // The 32 copies one sense asked for are one batch, timed to its last program: at least
    // five 500 us programs in turn on some plane of the seven other planes.
    let c = &r.ftl.copies;
    assert_eq!(c.batches, 1, "{c:?}");
    assert!(c.batch_service_us.max > 5.0 * 500.0 && c.batch_service_us.max < 100_000.0, "{c:?}");
    // Replica space is bounded device-wide: 0.01% of the 131,072 pages is 13 replicas.
    let mut cfg = red("redftl");
    cfg.scheme.tables.get_mut("redftl").unwrap()["max_replica_share"] = 0.0001.into();
    let capped = read_disturb(&run(&cfg, VecSource::open(v), true));
    assert_eq!((capped.replicas.made, capped.replicas.capped), (13, 1), "{capped:?}");
    assert_eq!(capped.replicas.alive, 13);
}

#[test]
fn an_open_block_read_to_the_threshold_is_sealed_and_reclaimed() {
    // Reads only, all of the two hot pages and a few cold ones: their replicas go to open
    // blocks that no write will fill, and once migrated those blocks take all the hot
    // reads. They are closed early (sealed) and reclaimed like any other, so no block is
    // read far past the threshold.
    let mut v = fill();
    v.extend(skewed_reads(8_000, 1_000_000, 2_000_000_000));
    let r = run(&red("redftl"), VecSource::open(v), true);
    let rd = read_disturb(&r);
    assert!(r.ftl.sealed.blocks >= 1 && r.ftl.sealed.unused_pages > 0, "{:?}", r.ftl.sealed);
    assert!(r.ftl.sealed.unused_pages < r.ftl.sealed.blocks * 64);
    assert!(rd.max_block_reads < 950 + 100, "{rd:?}");
    assert!(reclaims(&r).finished >= 2, "{:?}", reclaims(&r));
}

#[test]
fn a_replica_dies_when_its_page_is_written() {
    let mut v = fill();
    v.extend(skewed_reads(800, 1_000_000, 2_000_000_000));
    // After the 700th read of the block both hot pages have replicas; then page 0 is
    // written.
    v.push(req(2_000_000_000 + 900_000_000, 0, 1, Op::Write, SPP));
    v.extend(skewed_reads(10, 1_000_000, 3_000_000_000));
    let r = run(&red("redftl"), VecSource::open(v), true);
    let rd = read_disturb(&r);
    assert_eq!((rd.replicas.made, rd.replicas.died, rd.replicas.alive), (2, 1, 1), "{rd:?}");
    assert_eq!((r.ftl.copies.dropped_on_write, r.ftl.copies.alive, r.ftl.copies.peak), (1, 1, 2));
}

#[test]
fn replicas_keep_the_invariants_under_random_overwrites_and_cleaning() {
    // Skewed reads and uniform overwrites of a device small enough to clean all along:
    // replicas are made, written over and dropped from cleaned blocks, with the checker on.
    let mut cfg = red("redftl");
    cfg.geometry.blocks_per_plane = 32;
    cfg.ftl.overprovisioning = 0.25;
    {
        let t = cfg.scheme.tables.get_mut("redftl").unwrap();
        t["max_read_count"] = 300.into();
        t["reclaim_threshold"] = 290.into();
        t["max_replicas_per_block"] = 4.into();
    }
    let logical = 8 * 32 * 64 * 3 / 4;
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut rand = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut v: Vec<Request> = (0..logical).map(|lpn| req(lpn * 600_000, lpn, 1, Op::Write, SPP)).collect();
    let start = logical * 600_000;
    for i in 0..40_000u64 {
        let r = rand();
        let (lpn, op) = if r % 4 == 0 { (r % logical, Op::Write) } else { ((r >> 8) % 64, Op::Read) };
        v.push(req(start + i * 300_000, lpn, 1, op, SPP));
    }
    let r = run(&cfg, VecSource::open(v), true);
    let c = &r.ftl.copies;
    assert!(c.made > 20 && c.dropped_on_write > 0 && c.dropped_on_cleaning > 0, "{c:?}");
    assert_eq!(c.made, c.promoted + c.dropped_on_write + c.dropped_on_cleaning + c.alive, "{c:?}");
    assert!(r.ftl.relocations[0].finished > 0, "cleaning ran");
}

#[test]
fn rrb_moves_a_reclaimed_block_to_ever_more_read_resistant_modes() {
    // One LSB page read over and over: 0.25 of a slowest-page read per read on a normal
    // block (TLCbase), halved in mode 1 and a fifth in mode 2 (seed 003 Table 5).
    let mut cfg = device("rrb", 500);
    cfg.geometry.cell = xlssd_core::config::CellType::Tlc;
    let reads = 16_500;
    let r = run(&cfg, VecSource::open(fill_then_read(reads, 10_000_000)), true);
    let rd = read_disturb(&r);
    // Reclaims after 2,000 reads (normal), 4,000 more (mode 1), then every 10,000 (mode 2).
    assert_eq!(reclaims(&r).finished, 3, "{rd:?}");
    assert_eq!(&rd.blocks_opened_per_mode[1..], &[1, 2], "{rd:?}");
    // The baseline counts raw reads: a reclaim every 500.
    let mut base = device("read-reclaim", 500);
    base.geometry.cell = xlssd_core::config::CellType::Tlc;
    let b = run(&base, VecSource::open(fill_then_read(reads, 10_000_000)), true);
    assert_eq!(reclaims(&b).finished, 33);
    // Programs in modes 1 and 2 take 8% and 19% longer: the same 64 pages cost more die
    // time per reclaim than the baseline's (whose copies are normal programs).
    let per = |x: &Report| reclaims(x).busy_ms / reclaims(x).finished as f64;
    assert!(per(&r) > 1.05 * per(&b), "{} vs {}", per(&r), per(&b));
}

#[test]
fn rrb_writes_a_cleaned_read_resistant_block_back_as_a_normal_one() {
    // Logical page 0 is reclaimed after 2,000 reads into a mode-1 block. Then the other
    // logical pages of its plane are overwritten until cleaning has emptied that block:
    // page 0 goes back to a normal block (Sec. 4.3.2: a read-resistant GC victim is copied
    // back in mode 0), so its next reclaim is again a first one, into mode 1. Without the
    // overwrites every later reclaim is of a read-resistant block, into mode 2.
    // Sixteen blocks per plane and first-in-first-out cleaning, so that the mode-1 block,
    // filled before any of the overwrites, is the first victim of its plane.
    let mut cfg = device("rrb", 500);
    cfg.geometry.cell = xlssd_core::config::CellType::Tlc;
    cfg.geometry.blocks_per_plane = 16;
    cfg.ftl.overprovisioning = 0.5;
    cfg.gc.policy = xlssd_core::config::GcPolicy::Fifo;
    let workload = |overwrite: bool| {
        let mut v = fill_then_read(2_500, 1_000_000);
        let mut t = 2_000_000_000 + 2_500 * 1_000_000;
        if overwrite {
            for round in 0..24u64 {
                for lpn in (8..512).step_by(8) {
                    v.push(req(t + round, lpn, 1, Op::Write, SPP));
                    t += 2_000_000;
                }
            }
        }
        v.extend((0..6_000u64).map(|i| req(t + 100_000_000 + i * 1_000_000, 0, 1, Op::Read, SPP)));
        v
    };
    let cleaned = run(&cfg, VecSource::open(workload(true)), true);
    let kept = run(&cfg, VecSource::open(workload(false)), true);
    assert!(cleaned.ftl.relocations[0].finished > 0, "cleaning ran");
    let (c, k) = (read_disturb(&cleaned), read_disturb(&kept));
    assert_eq!(k.blocks_opened_per_mode[1], 1, "{k:?}");
    assert!(k.blocks_opened_per_mode[2] >= 1, "{k:?}");
    assert!(c.blocks_opened_per_mode[1] >= 2, "{c:?}");
}

fn tlc(scheme: &str, threshold: u32, max_read_count: u32) -> Config {
    let mut cfg = device(scheme, threshold);
    cfg.geometry.cell = xlssd_core::config::CellType::Tlc;
    if scheme.starts_with("redftl") {
        cfg.scheme.tables.get_mut("redftl").unwrap()["max_read_count"] = max_read_count.into();
    }
    cfg
}

/// Bursts of `burst` skewed reads of logical page 0's block, 200 us apart, `idle_ns` of
/// host idleness between bursts.
fn bursts(n: u64, burst: u64, idle_ns: u64) -> Vec<Request> {
    // Two blocks of data per plane, so that a reclaimed block has a partner.
    let mut v: Vec<Request> = (0..1024).map(|lpn| req(lpn * 1_000_000, lpn, 1, Op::Write, SPP)).collect();
    let mut t = 2_000_000_000;
    for b in 0..n {
        v.extend(skewed_reads(burst, 200_000, t).into_iter().skip((b % 5) as usize));
        t += burst * 200_000 + idle_ns;
    }
    v
}

#[test]
fn redftl_plus_reclaims_while_the_host_is_idle_and_the_reads_do_not_wait() {
    // Reclaims from 95% of a maximum read count of 1,000 (effective reads), in the
    // background; the reads come in bursts of 100 with 300 ms of idleness between.
    // It waits for 10 ms of host idleness before it starts.
    let mut cfg = tlc("redftl-plus", 950, 1_000);
    cfg.scheme.tables.get_mut("redftl").unwrap()["background_idle_us"] = 10_000.0.into();
    let plus = run(&cfg, VecSource::open(bursts(100, 100, 300_000_000)), true);
    let rr = reclaims(&plus);
    assert!(rr.finished >= 1, "{rr:?}");
    assert_eq!(rr.reads_during, 0, "{rr:?}");
    // Each reclaim brings the plane's coldest block along into the same targets.
    let partner = plus.ftl.relocations.iter().find(|x| x.reason == "rr_partner").expect("partner relocations");
    assert!(partner.finished >= 1, "{partner:?}");
    // rrb reclaims at once, ahead of the reads of the burst that crossed the threshold.
    let rrb = run(&tlc("rrb", 950, 1_000), VecSource::open(bursts(100, 100, 300_000_000)), true);
    let r2 = reclaims(&rrb);
    assert!(r2.finished >= 1 && r2.reads_during > 0, "{r2:?}");
    assert!(
        plus.host.read.latency_us.max < rrb.host.read.latency_us.max,
        "{} vs {}",
        plus.host.read.latency_us.max,
        rrb.host.read.latency_us.max
    );
}

#[test]
fn redftl_plus_reclaims_in_the_background_under_unbroken_reads_and_they_overtake_it() {
    // No idle gap at all (the default waits for none): the reclaim starts at the next
    // background look after the threshold, runs while reads keep coming, and they go
    // ahead of it; rrb's reclaim at the threshold holds up the reads behind it.
    let workload = || {
        let mut v = fill();
        v.extend(skewed_reads(6_000, 200_000, 2_000_000_000));
        v
    };
    let plus = run(&tlc("redftl-plus", 950, 1_000), VecSource::open(workload()), true);
    let rr = reclaims(&plus);
    assert!(rr.finished >= 1 && rr.reads_during > 0, "{rr:?}");
    let rrb = run(&tlc("rrb", 950, 1_000), VecSource::open(workload()), true);
    assert!(reclaims(&rrb).finished >= 1);
    let (p, b) = (plus.host.read.latency_us.max, rrb.host.read.latency_us.max);
    // One block's reclaim on the test device is tens of milliseconds; an overtaking read
    // waits for at most one of its operations (a program of a few milliseconds).
    assert!(b > 10_000.0 && p < b / 4.0, "redftl-plus {p} us vs rrb {b} us");
}

#[test]
fn redftl_plus_puts_the_hottest_pages_on_lsb_pages() {
    // The hot pages of the workload sit on pages 0 and 1 of their block (LSB and CSB);
    // after a reclaim they lead the copy order and land on the LSB pages of the targets,
    // which then serve most reads. rrb copies in page order and keeps page types as they
    // were; redftl-plusplus counts exactly and places alike.
    let workload = || {
        let mut v = fill();
        v.extend(skewed_reads(6_000, 1_000_000, 2_000_000_000));
        v
    };
    let lsb_share = |scheme: &str| {
        let r = run(&tlc(scheme, 950, 1_000), VecSource::open(workload()), true);
        let by = read_disturb(&r).host_reads_by_page_type;
        assert!(reclaims(&r).finished >= 1, "{scheme}");
        by[0] as f64 / by.iter().sum::<u64>() as f64
    };
    let (rrb, plus, plusplus) = (lsb_share("rrb"), lsb_share("redftl-plus"), lsb_share("redftl-plusplus"));
    assert!(plus > rrb + 0.2, "redftl-plus {plus} vs rrb {rrb}");
    assert!(plusplus > rrb + 0.2, "redftl-plusplus {plusplus} vs rrb {rrb}");
}
