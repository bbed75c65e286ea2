//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod guarded;

use xlssd_core::host::{Op, Request, RequestSource};
use xlssd_core::{Config, Report, RunOptions};

/// `cases` proptest cases drawn from the fixed `seed`, nothing persisted: a property test
/// that `make test` runs the same way every time (the `--ignored` searches draw fresh ones).
pub fn fixed_cases(cases: u32, seed: u64) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(seed),
        ..proptest::test_runner::Config::default()
    }
}

/// Requests from a vector, optionally closed-loop.
pub struct VecSource {
    reqs: std::vec::IntoIter<Request>,
    qd: Option<u32>,
}

impl VecSource {
    pub fn open(reqs: Vec<Request>) -> Self {
        VecSource { reqs: reqs.into_iter(), qd: None }
    }
    pub fn closed(reqs: Vec<Request>, qd: u32) -> Self {
        VecSource { reqs: reqs.into_iter(), qd: Some(qd) }
    }
}

impl RequestSource for VecSource {
    fn next_request(&mut self) -> xlssd_core::Result<Option<Request>> {
        Ok(self.reqs.next())
    }
    fn name(&self) -> &str {
        "test"
    }
    fn preferred_queue_depth(&self) -> Option<u32> {
        self.qd
    }
}

pub fn req(t_ns: u64, lpn: u64, pages: u32, op: Op, sectors_per_page: u64) -> Request {
    Request {
        arrival_ns: t_ns,
        lba: lpn * sectors_per_page,
        sectors: pages * sectors_per_page as u32,
        op,
        approx: false,
        context: 0,
        handle: None,
        tolerance: 0.0,
    }
}

/// A small device with round numbers: 2 channels x 2 chips x 1 die x 2 planes, 64 blocks
/// of 64 pages of 4 KiB; SLC so that every page has one latency.
pub fn small() -> Config {
    let mut c = Config::default();
    c.geometry.cell = xlssd_core::config::CellType::Slc;
    c.timing.read_us = xlssd_core::config::PerPageType::Same(50.0);
    c.timing.program_us = xlssd_core::config::PerPageType::Same(500.0);
    c.timing.erase_us = 3000.0;
    c.channel.rate_mts = 400.0;
    c.channel.width_bits = 8;
    c.cache.capacity_bytes = 0;
    c.wl.static_enabled = false;
    c
}

/// A device for random-overwrite cleaning experiments: pages of 32 per block, full of data
/// spread as long uniform random overwrites leave it, with equal GC thresholds so that GC
/// holds the free pool at a fixed reserve of 4 blocks per plane.
pub fn steady_overwrite_device(blocks_per_plane: u32, overprovisioning: f64, policy: xlssd_core::config::GcPolicy) -> Config {
    let mut cfg = small();
    cfg.geometry.blocks_per_plane = blocks_per_plane;
    cfg.geometry.pages_per_block = 32;
    cfg.ftl.overprovisioning = overprovisioning;
    cfg.gc.threshold = 4.0 / blocks_per_plane as f64;
    cfg.gc.hard_threshold = 4.0 / blocks_per_plane as f64;
    cfg.gc.policy = policy;
    cfg.precondition.occupancy = 1.0;
    cfg.precondition.steady_state = true;
    cfg
}

pub fn run(cfg: &Config, source: VecSource, check: bool) -> Report {
    let sim = xlssd_core::simulator(cfg, Box::new(source), None).expect("config is valid");
    sim.run(RunOptions { check, ..Default::default() }).expect("run succeeds")
}

/// Pages per block of [`one_die_device`].
pub const ONE_DIE_PAGES_PER_BLOCK: u32 = 16;

/// One die of one plane (so every read shares the die with every erase and program), 24
/// blocks of 16 pages of 4 KiB, no write buffer: a write is a program, and overwrites keep
/// GC erasing.
pub fn one_die_device() -> Config {
    let mut cfg = small();
    let g = &mut cfg.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (1, 1, 1, 1);
    g.blocks_per_plane = 24;
    g.pages_per_block = ONE_DIE_PAGES_PER_BLOCK;
    cfg.ftl.overprovisioning = 0.25;
    cfg.gc.threshold = 0.2;
    cfg
}

/// The logical space written once in 4 KiB pages, then random overwrites each followed by
/// a read of another random page (all arriving at time 0).
pub fn overwrites_and_reads(cfg: &Config) -> Vec<Request> {
    use rand::{Rng, SeedableRng};
    let logical = guarded::logical_pages(cfg);
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
    let page = |lpn: u64, op| req(0, lpn, 1, op, 8);
    let mut reqs: Vec<Request> = (0..logical).map(|l| page(l, Op::Write)).collect();
    for _ in 0..3000 {
        reqs.push(page(rng.gen_range(0..logical), Op::Write));
        reqs.push(page(rng.gen_range(0..logical), Op::Read));
    }
    reqs
}
