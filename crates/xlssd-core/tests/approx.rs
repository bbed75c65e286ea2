//! Approximate writes end to end: the four schemes of seed 000 on a small 3D device, with
//! the invariant checker on.

mod common;

use common::*;
use xlssd_core::host::{Op, Request};
use xlssd_core::techniques::approxftl::report::{of as approx, ApproxReport};
use xlssd_core::Config;

/// The small device made 3D: four layers of 16 pages per block, 64 blocks per plane.
fn device(scheme: &str) -> Config {
    let mut cfg = small();
    cfg.geometry.layers = 4;
    // ApproxFTL keeps fifteen open blocks per plane (five per pool): room beside the data.
    cfg.ftl.overprovisioning = 0.25;
    cfg.scheme.name = scheme.to_string();
    if scheme == "approxftl" {
        // It levels wear its own way: `[wl]` stays at its defaults.
        cfg.wl = Default::default();
    }
    cfg
}

/// A report and its `approx` section.
struct ApproxRun {
    report: xlssd_core::Report,
    approx: ApproxReport,
}

impl std::ops::Deref for ApproxRun {
    type Target = xlssd_core::Report;
    fn deref(&self) -> &xlssd_core::Report {
        &self.report
    }
}

fn arun(cfg: &Config, source: VecSource, check: bool) -> ApproxRun {
    let report = run(cfg, source, check);
    ApproxRun { approx: approx(&report), report }
}

/// Sets a key of `[scheme.approxftl]`.
fn set(cfg: &mut Config, key: &str, value: serde_json::Value) {
    let table = cfg.scheme.tables.entry("approxftl".into()).or_insert_with(|| serde_json::json!({}));
    table[key] = value;
}

/// A page's approximate flag: a fixed half of the logical pages, chosen by a hash.
fn approx_lpn(lpn: u64) -> bool {
    (lpn.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 63) == 1
}

/// One-page writes to `lpns`, `gap_ns` apart, flagged by `flag`.
fn writes(lpns: impl Iterator<Item = u64>, gap_ns: u64, flag: impl Fn(u64) -> bool) -> Vec<Request> {
    lpns.enumerate().map(|(i, lpn)| Request { approx: flag(lpn), ..req(i as u64 * gap_ns, lpn, 1, Op::Write, 8) }).collect()
}

/// Pseudo-random logical pages over the first `span` pages.
fn scattered(n: u64, span: u64) -> impl Iterator<Item = u64> {
    (0..n).map(move |i| (i.wrapping_mul(2_654_435_761) ^ (i >> 3)) % span)
}

#[test]
fn approximate_schemes_write_faster_than_the_baseline_in_the_papers_order() {
    // Idle writes: each costs its transfer and its program, nothing else.
    let mean = |scheme| {
        let cfg = device(scheme);
        let r = arun(&cfg, VecSource::open(writes(0..2_000, 2_000_000, approx_lpn)), true);
        r.host.write.latency_us.mean
    };
    let (base, delta, vth, aftl) = (mean("baseline"), mean("delta_b"), mean("vth_b"), mean("approxftl"));
    // Half the pages approximate: Delta_b saves a third of their program, Vth_b 37.5%
    // (25 of 40 ISPP steps), ApproxFTL that and part of the precise pages' program too.
    let program = 500.0;
    assert!((base - delta - 0.5 * program / 3.0).abs() < 10.0, "baseline {base}, delta_b {delta}");
    assert!((base - vth - 0.5 * program * 0.375).abs() < 10.0, "baseline {base}, vth_b {vth}");
    assert!(aftl < vth - 20.0, "approxftl {aftl}, vth_b {vth}");
}

/// `n` random one-page overwrites over the first 80% of a device preconditioned that full.
fn overwrite_run(scheme: &str, n: u64, flag: impl Fn(u64) -> bool, tweak: impl Fn(&mut Config)) -> ApproxRun {
    let mut cfg = device(scheme);
    cfg.geometry.blocks_per_plane = 96;
    cfg.precondition.occupancy = 0.8;
    tweak(&mut cfg);
    let span = (cfg.capacity().logical_pages as f64 * 0.8) as u64;
    let reqs = writes(scattered(n, span), 20_000, flag);
    arun(&cfg, VecSource::closed(reqs, 8), true)
}

#[test]
fn approxftl_blocks_go_through_their_life_cycle_under_gc_with_the_invariants_holding() {
    let r = overwrite_run("approxftl", 40_000, approx_lpn, |_| {});
    assert!(r.ftl.gc.blocks_erased > 50, "{:?}", r.ftl.gc);
    let k = &r.approx.active_blocks;
    // Every type of active block was used, and first phases ended both ways (Fig. 4).
    assert!(k.chb > 0 && k.precise > 0 && k.approx_phase1 > 0, "{k:?}");
    assert!(k.approx_phase2 > 0 && k.all_approx > 0, "{k:?}");
    assert!(r.approx.fast_precise.chb > 0 && r.approx.fast_precise.approx_phase2 > 0);
    assert!(r.approx.pages.approx > 0 && r.approx.pages.precise > 0);
}

#[test]
fn all_approximate_blocks_wear_less_when_erased() {
    // Every write approximate under Vth_b: blocks holding only approximate pages are erased
    // at the lowered voltage and count 0.62 (Eq. 10); preconditioned precise blocks count 1.
    let r = overwrite_run("vth_b", 40_000, |_| true, |_| {});
    let erases = r.ftl.gc.blocks_erased as f64;
    let lowered = r.approx.erases_all_approx as f64;
    assert!(lowered > 0.0 && lowered < erases);
    let expected = erases - lowered * (1.0 - 0.62);
    assert!((r.nand.effective_wear.total - expected).abs() < 1e-3, "{} vs {expected}", r.nand.effective_wear.total);
    // Delta_b keeps the full window, so its erases all count 1.
    let d = overwrite_run("delta_b", 40_000, |_| true, |_| {});
    assert_eq!(d.approx.erases_all_approx, 0);
    assert!((d.nand.effective_wear.total - d.ftl.gc.blocks_erased as f64).abs() < 1e-6);
}

#[test]
fn gc_promotes_pages_rewritten_approximately_twice() {
    // All data approximate: cleaning copies it; a block whose data has been written
    // approximately twice has it copied as precise (Sec. IV-D).
    let r = overwrite_run("approxftl", 120_000, |_| true, |_| {});
    assert!(r.approx.promoted_pages > 0, "{:?}", r.approx);
    assert!(r.approx.pages.precise > 0);
    let never = overwrite_run("approxftl", 120_000, |_| true, |c| set(c, "promote_after", 100.into()));
    assert_eq!(never.approx.promoted_pages, 0);
}

/// Half the pages written by one-page requests over a small hot span, half by four-page
/// requests over a large cold span (every fifth request), no data beforehand.
fn hot_cold_run(scheme: &str, flag: impl Fn(u64) -> bool, tweak: impl Fn(&mut Config)) -> ApproxRun {
    let mut cfg = device(scheme);
    cfg.geometry.blocks_per_plane = 96;
    tweak(&mut cfg);
    let logical = cfg.capacity().logical_pages;
    let (hot, cold) = (logical / 16, logical * 4 / 5 / 4);
    let mut hot_pages = scattered(u64::MAX, hot);
    let mut cold_chunks = scattered(u64::MAX, cold);
    let reqs = (0..60_000u64)
        .map(|i| {
            let (lpn, pages) =
                if i % 5 == 4 { (hot + 4 * cold_chunks.next().unwrap(), 4) } else { (hot_pages.next().unwrap(), 1) };
            Request { approx: flag(lpn), ..req(i * 20_000, lpn, pages, Op::Write, 8) }
        })
        .collect();
    arun(&cfg, VecSource::closed(reqs, 8), true)
}

#[test]
fn hot_and_cold_pools_lower_write_amplification_when_small_writes_are_hot() {
    // Sec. V-F: small requests go to the hot pool, whose blocks are soon all stale, so GC
    // finds cheap victims there instead of blocks mixing both kinds.
    for flag in [(|_| false) as fn(u64) -> bool, approx_lpn] {
        let base = hot_cold_run("baseline", flag, |_| {});
        let aftl = hot_cold_run("approxftl", flag, |_| {});
        let one_pool = hot_cold_run("approxftl", flag, |c| set(c, "hot_max_bytes", 0.into()));
        assert!(base.ftl.gc.blocks_erased > 100, "{:?}", base.ftl.gc);
        let (b, a, o) = (base.ftl.waf, aftl.ftl.waf, one_pool.ftl.waf);
        assert!(a < 0.95 * b, "approxftl {a}, baseline {b}");
        // Without the hot pool the gain is gone: it is the separation, not the patterns.
        assert!(o > 0.98 * b, "approxftl with one pool {o}, baseline {b}");
    }
}

#[test]
fn baseline_ignores_the_flag() {
    let flagged = arun(&device("baseline"), VecSource::open(writes(0..500, 2_000_000, |_| true)), true);
    let plain = arun(&device("baseline"), VecSource::open(writes(0..500, 2_000_000, |_| false)), true);
    assert_eq!(flagged.host.write.latency_us.mean, plain.host.write.latency_us.mean);
    assert_eq!(flagged.approx.pages.approx, 0);
}

#[test]
fn approximate_data_older_than_six_months_is_refreshed_as_precise() {
    // One simulated millisecond is 1,000 hours of retention: the first writes pass the
    // six-month refresh age long before the run ends.
    let mut cfg = device("approxftl");
    cfg.physics.retention_scale = 3.6e9;
    let reqs = writes(0..3_000, 2_000_000, |_| true);
    let r = arun(&cfg, VecSource::open(reqs), true);
    assert!(r.approx.refreshed_blocks > 0 && r.approx.refreshed_pages > 0, "{:?}", r.approx);
    // Refreshed pages come back precise.
    assert!(r.approx.promoted_pages > 0);
    assert!(r.approx.pages.precise > 0);
    // With refresh off, nothing is rewritten.
    set(&mut cfg, "refresh_h", 0.0.into());
    let off = arun(&cfg, VecSource::open(writes(0..3_000, 2_000_000, |_| true)), true);
    assert_eq!((off.approx.refreshed_blocks, off.approx.refreshed_pages), (0, 0));
}

#[test]
fn address_ranges_tag_writes_that_carry_no_flag() {
    // Sectors [0, 8 * 1000) are approximate: the first 1,000 of 2,000 pages written.
    let mut cfg = device("vth_b");
    set(&mut cfg, "lba_ranges", serde_json::json!([[0, 8 * 1_000]]));
    let r = arun(&cfg, VecSource::open(writes(0..2_000, 2_000_000, |_| false)), true);
    assert_eq!((r.approx.pages.approx, r.approx.pages.precise), (1_000, 1_000));
}

#[test]
fn an_erase_costs_what_seed_000_computes() {
    // Sec. V-A: 3.5 ms at 25 mA and 3.3 V is 288.75 uJ per erase.
    let mut cfg = device("baseline");
    cfg.timing.erase_us = 3_500.0;
    cfg.energy.erase_ma = 25.0;
    cfg.energy.voltage_v = 3.3;
    cfg.geometry.blocks_per_plane = 96;
    cfg.precondition.occupancy = 0.8;
    let span = (cfg.capacity().logical_pages as f64 * 0.8) as u64;
    let r = arun(&cfg, VecSource::closed(writes(scattered(20_000, span), 20_000, |_| false), 8), true);
    assert!(r.nand.erases > 10);
    let per_erase = r.energy.erase_j / r.nand.erases as f64;
    assert!((per_erase - 288.75e-6).abs() < 1e-9, "{per_erase}");
}

#[test]
fn reads_of_never_written_pages_keep_the_valid_precise_counts() {
    // A read of a page never written gives it a home as if written before the run; that
    // page is valid precise data, and ApproxFTL's victim choice counts it as such.
    for scheme in ["vth_b", "approxftl"] {
        let cfg = device(scheme);
        let mut reqs = writes(0..1_500, 50_000, approx_lpn);
        reqs.extend((0..1_500u64).map(|i| req(75_000_000 + i * 50_000, 3_000 + i, 1, Op::Read, 8)));
        reqs.extend(
            writes(3_000..4_500, 50_000, |_| false).into_iter().map(|r| Request { arrival_ns: r.arrival_ns + 150_000_000, ..r }),
        );
        let r = arun(&cfg, VecSource::open(reqs), true);
        assert_eq!(r.ftl.materialized_pages, 1_500, "{scheme:?}");
    }
}

/// ApproxFTL's refresh looks at the device once per period (hundreds of simulated hours),
/// far beyond the last request of a short run: the run ends with its last real work, not at
/// that check, so simulated time and busy fractions describe the run.
#[test]
fn a_pending_refresh_check_does_not_stretch_the_run() {
    let cfg = device("approxftl");
    let reqs = writes(scattered(2_000, 1_000), 100_000, approx_lpn);
    let r = arun(&cfg, VecSource::open(reqs), true);
    // The host's requests span 0.2 s; after the last one, only the write-back and cleaning
    // already under way may run (a few erases and programs at most).
    assert!(
        r.sim.simulated_ns < r.host.span_ns + 100_000_000,
        "{} ns simulated, host span {} ns",
        r.sim.simulated_ns,
        r.host.span_ns
    );
    assert!(r.nand.busy.dies_total.utilization > 0.05, "{}", r.nand.busy.dies_total.utilization);
}
