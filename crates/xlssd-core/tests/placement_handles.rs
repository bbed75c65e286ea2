//! Placement handles without any scheme: a write goes to its handle's blocks, cleaning
//! copies to the GC stream `ftl.handle_gc` names, and the report measures each handle's
//! write amplification.

mod common;

use common::guarded::*;
use common::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use xlssd_core::config::HandleGc;
use xlssd_core::host::{Op, Request};
use xlssd_core::{Config, Report, RunOptions};

const SPP: u64 = 8;

fn write(t: u64, lpn: u64, handle: Option<u16>) -> Request {
    Request { handle, ..req(t, lpn, 1, Op::Write, SPP) }
}

/// One plane of 40 blocks of 16 pages (480 logical pages at 25% over-provisioning).
fn device(handles: u32, gc: HandleGc) -> Config {
    let mut cfg = small();
    let g = &mut cfg.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (1, 1, 1, 1);
    (g.blocks_per_plane, g.pages_per_block) = (40, 16);
    cfg.ftl.overprovisioning = 0.25;
    cfg.ftl.placement_handles = handles;
    cfg.ftl.handle_gc = gc;
    cfg
}

const COLD: u64 = 256;
const HOT: u64 = 160;
const HOT_ONLY: u64 = 3000;

/// 256 cold pages written once under handle 0, each followed by four random rewrites of 160
/// hot pages under handle 1, then 3,000 more hot rewrites: without separation the cold pages
/// share blocks with hot ones and cleaning moves them again and again.
fn workload(tag: bool) -> Vec<Request> {
    let h = |x: u16| tag.then_some(x);
    let mut reqs = Vec::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut hot = || COLD + rng.gen_range(0..HOT);
    for i in 0..COLD {
        reqs.push(write(0, i, h(0)));
        for _ in 0..4 {
            reqs.push(write(0, hot(), h(1)));
        }
    }
    for _ in 0..HOT_ONLY {
        reqs.push(write(0, hot(), h(1)));
    }
    reqs
}

fn run_checked(cfg: &Config, reqs: Vec<Request>) -> Report {
    run_guarded(cfg, reqs, Some(4), true).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn each_handle_gets_its_own_blocks_and_its_own_waf() {
    let hot_pages = COLD * 4 + HOT_ONLY;
    for gc in [HandleGc::Shared, HandleGc::SameHandle] {
        let sep = run_checked(&device(2, gc), workload(true));
        let p = &sep.ftl.placement;
        assert_eq!(p.handles, 2);
        assert_eq!(p.gc, gc.name());
        assert_eq!(p.per_handle.len(), 2);
        assert_eq!((p.per_handle[0].host_pages, p.per_handle[1].host_pages), (COLD, hot_pages));
        // Cold data fills blocks of its own that stay fully valid: never a victim.
        assert_eq!(p.per_handle[0].relocated_pages, 0, "{gc:?}: {p:?}");
        assert_eq!(p.per_handle[0].waf, 1.0);
        assert!(p.per_handle[1].relocated_pages > 0, "the hot handle is cleaned: {p:?}");
        let moved: u64 = p.per_handle.iter().map(|h| h.relocated_pages).sum();
        assert_eq!(moved, sep.ftl.gc.pages_moved, "every relocated page is some handle's");

        // The same writes without handles mix cold and hot pages in blocks.
        let mixed = run_checked(&device(0, HandleGc::Shared), workload(false));
        assert!(mixed.ftl.placement.per_handle.is_empty());
        assert!(
            mixed.ftl.waf > sep.ftl.waf * 1.05,
            "{gc:?}: separating by handle should cut WAF: mixed {} vs separated {}",
            mixed.ftl.waf,
            sep.ftl.waf
        );
    }
}

#[test]
fn handles_are_ignored_when_the_device_offers_none() {
    let tagged = run_checked(&device(0, HandleGc::Shared), workload(true));
    let plain = run_checked(&device(0, HandleGc::Shared), workload(false));
    assert_eq!(tagged.ftl.waf, plain.ftl.waf);
    assert_eq!(tagged.ftl.gc.pages_moved, plain.ftl.gc.pages_moved);
}

#[test]
fn a_write_without_a_handle_is_handle_zeros() {
    let reqs: Vec<Request> = (0..40).map(|i| write(0, i, if i % 2 == 0 { None } else { Some(1) })).collect();
    let rep = run_checked(&device(3, HandleGc::Shared), reqs);
    let hosts: Vec<u64> = rep.ftl.placement.per_handle.iter().map(|h| h.host_pages).collect();
    assert_eq!(hosts, vec![20, 20, 0]);
}

#[test]
fn a_handle_the_device_does_not_offer_is_an_error_naming_the_request() {
    let reqs = vec![write(0, 0, Some(0)), write(10, 1, Some(1)), write(20, 2, Some(2))];
    let sim = xlssd_core::simulator(&device(2, HandleGc::Shared), Box::new(VecSource::open(reqs)), None).unwrap();
    let err = sim.run(RunOptions::default()).unwrap_err().to_string();
    assert!(err.contains("ftl.placement_handles") && err.contains("request 2") && err.contains("handle 2"), "{err}");
}

#[test]
fn too_many_handles_is_a_config_error() {
    let mut cfg = device(2, HandleGc::Shared);
    cfg.ftl.placement_handles = 33;
    let err = xlssd_core::validated(&cfg).unwrap_err().to_string();
    assert!(err.contains("ftl.placement_handles") && err.contains("at most 32"), "{err}");
}
