//! When a page write takes its physical page (`ftl.page_binding`): bound as it is queued, a
//! host write waits behind a GC copy bound before it in the same block, since a block's
//! pages are programmed in order and the copy waits for its read; bound when its die is
//! about to program it, it does not.

mod common;

use common::guarded::run_guarded;
use common::{req, small};
use rand::{Rng, SeedableRng};
use xlssd_core::config::PageBinding;
use xlssd_core::host::{Op, Request};
use xlssd_core::{Config, Report};

/// ApproxFTL on a 3D device half full of data spread as random overwrites leave it (so
/// cleaning runs from the start), its GC copies going to `pool`.
fn device(pool: &str, binding: PageBinding) -> Config {
    let mut cfg = small();
    cfg.wl = Default::default();
    cfg.geometry.layers = 2;
    cfg.geometry.blocks_per_plane = 128;
    cfg.geometry.pages_per_block = 32;
    cfg.ftl.overprovisioning = 0.25;
    cfg.scheme.name = "approxftl".into();
    cfg.scheme.tables.insert("approxftl".into(), serde_json::json!({ "gc_pool": pool }));
    cfg.precondition.occupancy = 0.5;
    cfg.precondition.steady_state = true;
    cfg.ftl.page_binding = binding;
    cfg
}

/// Random 16 KiB requests (ApproxFTL's cold pool: more than 8 KiB) to the half of the
/// logical space that holds data, open loop with exponential gaps of `gap_us` on average,
/// [`WRITE_SHARE`] of them writes, all precise.
fn workload(cfg: &Config, n: usize, gap_us: f64) -> Vec<Request> {
    let logical = common::guarded::logical_pages(cfg);
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
    let mut t = 0u64;
    (0..n)
        .map(|_| {
            t += (-rng.gen::<f64>().max(1e-12).ln() * gap_us * 1e3) as u64;
            let write = rng.gen::<f64>() < WRITE_SHARE;
            let lpn = rng.gen_range(0..logical / 2 / 4) * 4;
            let mut r = req(t, lpn, 4, if write { Op::Write } else { Op::Read }, 8);
            r.approx = false;
            r
        })
        .collect()
}

/// Reads keep the dies busy, so that a GC copy waits for its read.
const WRITE_SHARE: f64 = 0.3;
const GAP_US: f64 = 300.0;

fn run(pool: &str, binding: PageBinding) -> Report {
    let cfg = device(pool, binding);
    run_guarded(&cfg, workload(&cfg, 20_000, GAP_US), None, true).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn host_writes_bound_at_issue_no_longer_wait_behind_gc_copies_in_their_block() {
    let mean = |pool, binding| run(pool, binding).host.write.latency_us.mean;
    // Copies into the pools' own blocks (Sec. IV of seed 000): the 16 KiB host writes and
    // the copies of the cold preconditioned data share the cold pool's open blocks.
    let (queued, issued) = (mean("ordinary", PageBinding::Queue), mean("ordinary", PageBinding::Issue));
    assert!(queued > 1.3 * issued, "bound at queueing {queued} us, at issue {issued} us");
    // Copies in blocks of their own: no host write is bound behind one, so when pages are
    // bound changes little.
    let (queued, issued) = (mean("separate", PageBinding::Queue), mean("separate", PageBinding::Issue));
    assert!((queued / issued - 1.0).abs() < 0.1, "bound at queueing {queued} us, at issue {issued} us");
}
