//! The data-separation schemes (seed 003 Ch. 5-6) in whole runs: with the invariant
//! checker on random workloads with program contexts, and on a workload built so that the
//! writing context tells when data dies.

mod common;

use common::guarded::*;
use common::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use xlssd_core::config::GcPolicy;
use xlssd_core::host::{Op, Request};
use xlssd_core::techniques::separation::report;
use xlssd_core::{Config, Report, RunOptions};

const SPP: u64 = 8;
const SCHEMES: [&str; 4] = ["hash", "pds", "ids", "ora"];

fn write(lpn: u64, context: u32) -> Request {
    Request { context, ..req(0, lpn, 1, Op::Write, SPP) }
}

/// One plane of 96 blocks of 32 pages, 25% over-provisioning, cost-age-times cleaning.
fn device(scheme: &str) -> Config {
    let mut cfg = small();
    let g = &mut cfg.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (1, 1, 1, 1);
    (g.blocks_per_plane, g.pages_per_block) = (96, 32);
    cfg.ftl.overprovisioning = 0.25;
    cfg.gc.policy = GcPolicy::CostAgeTimes;
    cfg.scheme.name = scheme.to_string();
    if scheme != "baseline" {
        cfg.scheme.tables.insert(
            "separation".into(),
            serde_json::json!({ "max_groups": 4, "ora_buckets": 4, "update_threshold": 2, "window": 16, "recluster_updates": 16 })
                .as_object()
                .map(|m| {
                    let keys = xlssd_core::techniques::scheme(scheme).unwrap().keys;
                    serde_json::Value::Object(m.iter().filter(|(k, _)| keys.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect())
                })
                .unwrap(),
        );
    }
    cfg
}

/// Runs `reqs` closed-loop, showing them to the scheme first when it asks (as
/// `xlssd_core::simulate` does with a workload it can open twice).
fn run_scheme(cfg: &Config, reqs: Vec<Request>, check: bool) -> Report {
    let mut sim =
        xlssd_core::simulator(cfg, Box::new(VecSource::closed(reqs.clone(), 4)), None).unwrap_or_else(|e| panic!("{e}"));
    if sim.wants_preview() {
        sim.preview(Box::new(VecSource::open(reqs))).unwrap();
    }
    sim.run(RunOptions { check, ..Default::default() }).unwrap_or_else(|e| panic!("{}: {e}", cfg.scheme.name))
}

#[test]
fn every_scheme_keeps_the_ftl_consistent_on_random_writes_with_contexts() {
    for scheme in SCHEMES {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let reqs: Vec<Request> = (0..12_000)
            .map(|_| {
                let context = rng.gen_range(0..12u32); // 0: no context
                let lpn = if context < 6 { rng.gen_range(0..256) } else { rng.gen_range(0..2000) };
                Request { op: if rng.gen_bool(0.1) { Op::Read } else { Op::Write }, ..write(lpn, context) }
            })
            .collect();
        let cfg = device(scheme);
        let rep = run_guarded(&cfg, reqs.clone(), Some(4), true).unwrap_or_else(|e| panic!("{scheme}: {e}"));
        assert!(rep.ftl.gc.invocations > 0, "{scheme}: the run must clean");
        let sep = report::of(&rep);
        assert_eq!(sep.scheme, scheme);
        assert!(sep.updates > 0, "{scheme}: {sep:?}");
        assert_eq!(sep.host_pages.total(), rep.ftl.host_pages_written, "{scheme}: every host page lands in a kind of block");
        assert_eq!(sep.victims.total(), rep.ftl.gc.invocations, "{scheme}");
        // ORA reads the workload first; the others never ask.
        if scheme == "ora" {
            let again = run_scheme(&cfg, reqs, true);
            assert_eq!(report::of(&again).oracle_page_writes, again.ftl.host_pages_written);
        }
    }
}

/// Context 1 rewrites a 320-page file again and again, front to back; contexts 2 to 5 each
/// write 300 pages of their own once, interleaved with it; context 6 updates pages of a
/// 200-page area at random, rarely. Data of context 1 dies together, the write-once data
/// never does: a scheme that keeps them apart cleans almost nothing.
fn phases() -> Vec<Request> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut reqs = Vec::new();
    let mut once = 1000u64;
    for round in 0..30u64 {
        for i in 0..320u64 {
            reqs.push(write(i, 1));
            if i % 4 == 0 && once < 2200 {
                reqs.push(write(once, 2 + (round % 4) as u32));
                once += 1;
            }
            if i % 8 == 0 {
                reqs.push(write(400 + rng.gen_range(0..200), 6));
            }
        }
    }
    reqs
}

#[test]
fn separating_by_context_or_by_the_future_cuts_cleaning() {
    let moved = |scheme: &str| {
        let rep = run_scheme(&device(scheme), phases(), false);
        (rep.ftl.gc.pages_moved, rep)
    };
    let (base, _) = moved("baseline");
    let (pds, pds_rep) = moved("pds");
    let (ids, ids_rep) = moved("ids");
    let (ora, ora_rep) = moved("ora");
    assert!(base > 1000, "the baseline must copy a lot for the comparison to mean anything: {base}");
    for (name, m) in [("pds", pds), ("ids", ids), ("ora", ora)] {
        assert!((m as f64) < 0.5 * base as f64, "{name} moved {m} pages against the baseline's {base}");
    }
    let p = report::of(&pds_rep);
    assert!(p.update_groups >= 1 && p.blocks_opened.update > 0 && p.blocks_opened.write_once > 0, "{p:?}");
    assert!(pds_rep.ftl.gc.dead_victims > 0, "whole files die together");
    let i = report::of(&ids_rep);
    assert!(i.update_contexts >= 1 && i.reclusterings > 0, "{i:?}");
    assert!(i.blocks_opened.hot_archive > 0 && i.hot_archive_share > 0.0, "{i:?}");
    let o = report::of(&ora_rep);
    assert!(o.blocks_opened.bucket > 0 && o.blocks_opened.write_once > 0, "{o:?}");
}

#[test]
fn without_contexts_pds_writes_everything_once() {
    let reqs: Vec<Request> = phases().into_iter().map(|r| Request { context: 0, ..r }).collect();
    let rep = run_scheme(&device("pds"), reqs, false);
    let p = report::of(&rep);
    assert_eq!((p.updates, p.update_groups, p.blocks_opened.update), (0, 0, 0), "{p:?}");
    assert_eq!(p.host_pages.write_once, rep.ftl.host_pages_written);
}

#[test]
fn the_gc_policy_stays_the_users_under_these_schemes() {
    let mut cfg = device("pds");
    cfg.gc.policy = GcPolicy::Fifo;
    xlssd_core::validated(&cfg).unwrap();
    // A scheme that chooses its victims itself still refuses it.
    let mut other = device("baseline");
    other.scheme.name = "redftl-plus".into();
    other.gc.policy = GcPolicy::Fifo;
    let err = xlssd_core::validated(&other).unwrap_err().to_string();
    assert!(err.contains("gc.policy"), "{err}");
}

#[test]
fn the_oracle_reads_a_trace_file_and_a_synthetic_workload_before_the_run() {
    // A trace file with a program-context column (the MQSim format's 7th field).
    let dir = std::env::temp_dir().join(format!("xlssd-ora-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ctx.trace");
    let mut text = String::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    for i in 0..6000u64 {
        let lpn = rng.gen_range(0..1500u64);
        text.push_str(&format!("{} 0 {} 8 0 0 {}\n", i * 1000, lpn * SPP, 1 + lpn % 7));
    }
    std::fs::write(&path, text).unwrap();
    let cfg = device("ora");
    let workload = xlssd_core::Workload::Trace { path: path.display().to_string(), format: None, skip_bad_lines: false };
    let rep = xlssd_core::simulate(&cfg, &workload, RunOptions { check: true, ..Default::default() }).unwrap();
    let sep = report::of(&rep);
    assert_eq!(sep.oracle_page_writes, 6000);
    assert_eq!(rep.ftl.host_pages_written, 6000);
    assert!(sep.blocks_opened.bucket > 0);
    std::fs::remove_dir_all(&dir).unwrap();

    // The synthetic generator, opened twice with the same seed, gives the same writes.
    let mut cfg = device("ora");
    cfg.workload.n = 5000;
    cfg.workload.rw = xlssd_core::config::RwMode::Randwrite;
    cfg.workload.span = 0.6;
    cfg.workload.contexts = 8;
    let rep = xlssd_core::simulate(&cfg, &xlssd_core::Workload::Synthetic(cfg.workload.clone()), RunOptions::default()).unwrap();
    assert_eq!(report::of(&rep).oracle_page_writes, rep.ftl.host_pages_written);
}

#[test]
fn pds_groups_the_synthetic_generators_contexts() {
    let mut cfg = device("pds");
    cfg.workload.n = 8000;
    cfg.workload.rw = xlssd_core::config::RwMode::Write;
    cfg.workload.span = 0.5;
    cfg.workload.contexts = 8;
    let rep = xlssd_core::simulate(
        &cfg,
        &xlssd_core::Workload::Synthetic(cfg.workload.clone()),
        RunOptions { check: true, ..Default::default() },
    )
    .unwrap();
    let sep = report::of(&rep);
    assert!(sep.update_groups >= 1 && sep.host_pages.update > 0, "{sep:?}");
}

#[test]
fn a_device_too_small_for_the_schemes_streams_is_refused_before_the_run() {
    // 33 streams, each with an open block and a block kept for cleaning, on 96 blocks:
    // refused by the space check naming over-provisioning, instead of stalling mid-run.
    let mut cfg = device("pds");
    cfg.scheme.tables.insert("separation".into(), serde_json::json!({ "max_groups": 32 }));
    let err = xlssd_core::validated(&cfg).unwrap_err().to_string();
    assert!(err.contains("ftl.overprovisioning"), "{err}");
    // With 8 groups it fits.
    cfg.scheme.tables.insert("separation".into(), serde_json::json!({ "max_groups": 8 }));
    xlssd_core::validated(&cfg).unwrap();
}
