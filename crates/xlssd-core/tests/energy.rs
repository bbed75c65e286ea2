//! Energy: every term is a current drawn from the supply for a time, as seed 000 Sec. V-A
//! prices its operations (Table I: 25 mA for flash, 125 mA for DRAM, 3.3 V).

mod common;

use common::*;
use xlssd_core::host::Op;
use xlssd_core::physics::ProgramMode;

/// `n` one-page writes to distinct pages, far apart, on `cfg`.
fn writes(cfg: &xlssd_core::Config, n: u64) -> xlssd_core::Report {
    run(cfg, VecSource::open((0..n).map(|i| req(i * 5_000_000, i, 1, Op::Write, 8)).collect()), true)
}

#[test]
fn every_page_through_the_dram_buffer_costs_one_access_at_the_dram_current() {
    let mut cfg = small();
    cfg.cache.capacity_bytes = 1 << 20; // 256 pages: nothing is written back before the end
    cfg.cache.idle_flush_us = 1e9;
    cfg.timing.dram_ns = 2_560;
    cfg.energy.dram_ma = 125.0;
    cfg.energy.voltage_v = 3.3;
    let mut reqs: Vec<_> = (0..40u64).map(|i| req(i * 5_000_000, i, 1, Op::Write, 8)).collect();
    // Ten reads of buffered pages: served from DRAM.
    reqs.extend((0..10u64).map(|i| req(400_000_000 + i * 1_000_000, i, 1, Op::Read, 8)));
    let r = run(&cfg, VecSource::open(reqs), true);
    assert_eq!(r.ftl.host_pages_written, 40);
    // 40 pages written into DRAM, 10 read out of it for the host, 40 read out of it to be
    // written back at the end: 90 accesses of 2.56 us at 125 mA and 3.3 V.
    let expected = 90.0 * 2.56e-6 * 0.125 * 3.3;
    assert!((r.energy.dram_j - expected).abs() < 1e-9, "{} J, expected {expected} J", r.energy.dram_j);
    // No buffer, no DRAM accesses.
    cfg.cache.capacity_bytes = 0;
    assert_eq!(writes(&cfg, 40).energy.dram_j, 0.0);
}

#[test]
fn an_approximate_program_draws_energy_for_fewer_and_lower_pulses() {
    let mut cfg = small();
    cfg.energy.program_ma = 25.0;
    cfg.energy.voltage_v = 3.3;
    let program_j = |mode: ProgramMode| {
        let mut c = cfg.clone();
        c.physics.program_mode = mode;
        writes(&c, 64).energy.program_j
    };
    let precise = program_j(ProgramMode::Precise);
    // 64 programs of 500 us at 25 mA and 3.3 V.
    assert!((precise - 64.0 * 500e-6 * 0.025 * 3.3).abs() < 1e-9, "{precise}");
    // V_max lowered from 8 V to 5 V: the pulses from 14 V stop at 19 V instead of 22 V, so
    // sum of V^2 over the train is (19^3 - 14^3) / (22^3 - 14^3) of the precise one, against
    // 25/40 of its time.
    let vmax = program_j(ProgramMode::ApproxVmax) / precise;
    let expected = (19f64.powi(3) - 14f64.powi(3)) / (22f64.powi(3) - 14f64.powi(3));
    assert!((vmax - expected).abs() < 1e-3, "{vmax} against {expected}");
    assert!(vmax < 0.625 - 0.1);
    // A 1.5x step reaches the same heights in 2/3 of the pulses: energy falls with time only.
    let dvpp = program_j(ProgramMode::ApproxDvpp) / precise;
    assert!((dvpp - 2.0 / 3.0).abs() < 1e-3, "{dvpp}");
}
