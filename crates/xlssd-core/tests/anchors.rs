//! Analytic anchors: results the simulator must reproduce exactly or within a stated
//! tolerance, derived from the device parameters alone.

mod common;

use common::*;
use xlssd_core::config::{GcPolicy, PerPageType};
use xlssd_core::ftl::precondition::fifo_waf;
use xlssd_core::host::Op;

#[test]
fn idle_read_costs_command_sense_and_transfer() {
    let mut cfg = small();
    cfg.timing.cmd_ns = 150;
    cfg.precondition.occupancy = 0.5;
    let spp = 8;
    // Reads far apart in time, so each finds the device idle.
    let reqs = (0..20).map(|i| req(i * 1_000_000, i * 7, 1, Op::Read, spp)).collect();
    let r = run(&cfg, VecSource::open(reqs), true);
    // 4096 B at 400 MT/s x 8 bit = 10.24 us, rounded up to whole ns.
    let expected_us = 0.150 + 50.0 + 10.240;
    assert_eq!(r.host.read.count, 20);
    assert_eq!(r.host.read.latency_us.max, expected_us);
    assert_eq!(r.host.read.latency_us.mean, expected_us);
}

#[test]
fn idle_write_without_buffer_costs_transfer_and_program() {
    let cfg = small();
    let reqs = (0..10).map(|i| req(i * 5_000_000, i * 3, 1, Op::Write, 8)).collect();
    let r = run(&cfg, VecSource::open(reqs), true);
    assert_eq!(r.host.write.latency_us.max, 10.24 + 500.0);
    assert_eq!(r.host.write.latency_us.p50, 10.24 + 500.0);
}

#[test]
fn idle_write_into_buffer_costs_dram_access_only() {
    let mut cfg = small();
    cfg.cache.capacity_bytes = 1 << 20;
    cfg.timing.dram_ns = 700;
    let reqs = (0..10).map(|i| req(i * 5_000_000, i * 3, 1, Op::Write, 8)).collect();
    let r = run(&cfg, VecSource::open(reqs), true);
    assert_eq!(r.host.write.latency_us.max, 0.7);
    // Idle flushes still put every page on flash.
    assert_eq!(r.ftl.flash_pages_programmed, 10);
}

/// Saturated sequential writes: bandwidth approaches min(channel bandwidth, dies x page
/// size / tPROG). A die's program data-in is not overlapped with its previous program (no
/// cache programming), so the die-bound case is page size / (transfer + tPROG) per die.
#[test]
fn saturated_sequential_write_bandwidth() {
    // Die-bound (a page's transfer is 2% of its program time) and channel-bound (two dies
    // share a channel that needs longer to move a page than a die needs to program it).
    for (program_us, rate) in [(500.0, 400.0), (100.0, 25.0)] {
        let mut cfg = small();
        cfg.timing.program_us = PerPageType::Same(program_us);
        cfg.channel.rate_mts = rate;
        cfg.geometry.planes_per_die = 1;
        let g = &cfg.geometry;
        let dies = (g.channels * g.chips_per_channel * g.dies_per_chip) as f64;
        let page = g.page_size as f64;
        let flash_bw = dies * page / (program_us * 1e-6);
        let channel_bw = g.channels as f64 * rate * 1e6;
        let expected = flash_bw.min(channel_bw) / 1e6;
        let pages = 4000u64;
        let reqs = (0..pages).map(|i| req(0, i, 1, Op::Write, 8)).collect();
        let r = run(&cfg, VecSource::closed(reqs, 64), false);
        let got = r.host.write.bandwidth_mbps;
        assert!((got - expected).abs() / expected < 0.05, "program {program_us} us, {rate} MT/s: {got} MB/s vs {expected}");
    }
}

/// Uniform random overwrites at steady state with FIFO cleaning: WAF = 1 / (1 - u), with
/// u = exp(-(1 - u) / rho).
#[test]
fn fifo_cleaning_matches_the_analytic_write_amplification() {
    let cfg = steady_overwrite_device(256, 0.25, GcPolicy::Fifo);
    let (waf, rho) = random_overwrite_waf(&cfg, 300_000);
    let expected = fifo_waf(rho);
    assert!((waf - expected).abs() / expected < 0.03, "FIFO WAF {waf} vs analytic {expected} (rho {rho})");
}

#[test]
fn greedy_cleaning_amplifies_no_more_than_fifo() {
    let mut cfg = steady_overwrite_device(128, 0.2, GcPolicy::Fifo);
    let (fifo, _) = random_overwrite_waf(&cfg, 100_000);
    cfg.gc.policy = GcPolicy::Greedy;
    let (greedy, _) = random_overwrite_waf(&cfg, 100_000);
    assert!(greedy <= fifo, "greedy {greedy} > fifo {fifo}");
    assert!(greedy > 1.0);
}

/// WAF measured over random single-page overwrites, and rho = logical pages over physical
/// pages outside the free-block reserve.
fn random_overwrite_waf(cfg: &xlssd_core::Config, writes: u64) -> (f64, f64) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
    let sim = xlssd_core::simulator(cfg, Box::new(VecSource::open(vec![])), None).unwrap();
    let logical = sim.logical_pages();
    drop(sim);
    let reqs = (0..writes).map(|_| req(0, rng.gen_range(0..logical), 1, Op::Write, 8)).collect();
    let r = run(cfg, VecSource::closed(reqs, 32), false);
    let g = &cfg.geometry;
    let planes = (g.channels * g.chips_per_channel * g.dies_per_chip * g.planes_per_die) as u64;
    let reserve = ((cfg.gc.threshold * g.blocks_per_plane as f64).round() as u64).max(2);
    let outside = planes * (g.blocks_per_plane as u64 - reserve) * g.pages_per_block as u64;
    (r.ftl.waf, logical as f64 / outside as f64)
}
