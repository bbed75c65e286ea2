//! Erases as loops, observed through whole runs on one die: each erase-and-verify loop is
//! a command of its own, so reads run between loops; lazy erase defers the last loop to
//! the block's first program; suspension restarts or resumes a loop at a cost; programs
//! may be suspended too; a FELP misprediction costs one 0.5 ms loop. Expected values come
//! from the timing parameters and the erase-time tables.

mod common;

use common::guarded::*;
use common::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use xlssd_core::{Config, Report};

const PAGES_PER_BLOCK: u32 = ONE_DIE_PAGES_PER_BLOCK;

/// The one-die device erasing by `scheme` at `pe` cycles.
fn one_die(scheme: &str, pe: f64) -> Config {
    let mut cfg = one_die_device();
    cfg.scheme.name = scheme.into();
    cfg.aging.initial_pe = pe;
    cfg
}

fn run(cfg: &Config) -> Report {
    run_guarded(cfg, overwrites_and_reads(cfg), Some(1), true).unwrap_or_else(|e| panic!("{e}"))
}

/// The same requests arriving open loop, with exponential gaps of 2 ms on average, so that
/// reads reach the die at any point of an operation.
fn run_open(cfg: &Config) -> Report {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut t = 0u64;
    let reqs = overwrites_and_reads(cfg)
        .into_iter()
        .map(|mut r| {
            t += (-rng.gen::<f64>().max(1e-12).ln() * 2e6) as u64;
            r.arrival_ns = t;
            r
        })
        .collect();
    run_guarded(cfg, reqs, None, true).unwrap_or_else(|e| panic!("{e}"))
}

/// Erases weighted by their loops, and array time, from the report's tables.
fn loops_and_ms(r: &Report) -> (u64, f64) {
    let loops = r.nand.erase.by_loops.iter().enumerate().map(|(n, &c)| n as u64 * c).sum();
    let ms = r.nand.erase.latency_ms.histogram.iter().map(|&(ms, c)| ms * c as f64).sum();
    (loops, ms)
}

#[test]
fn every_loop_runs_on_the_die_and_reads_go_between_loops() {
    // At 4.5K cycles ISPE erases take 10.5, 14 or 17.5 ms: 3 to 5 loops of 3.5 ms.
    let cfg = one_die("ispe", 4_500.0);
    let r = run(&cfg);
    let e = &r.nand.erase;
    assert!(e.erases > 50, "the workload keeps GC erasing: {} erases", e.erases);
    assert_eq!(e.erases, r.nand.erases);
    assert_eq!(e.by_loops[..3], [0, 0, 0], "no erase of under three loops at 4.5K: {:?}", e.by_loops);
    assert!(e.by_loops.len() <= 6);
    for &(ms, _) in &e.latency_ms.histogram {
        assert!([10.5, 14.0, 17.5].contains(&ms), "{ms} ms");
    }
    let (loops, ms) = loops_and_ms(&r);
    assert_eq!(e.loops, loops);
    assert_eq!(r.nand.busy.dies_total.erase_ns, (ms * 1e6).round() as u64);
    assert!((e.latency_ms.mean - ms / e.erases as f64).abs() < 1e-6);
    assert!(e.host_reads_meeting_erase > 0);

    // A read waits at most for the loop or program the die is in and for the GC reads
    // queued ahead of it (at most one block's pages), then for its own sense and transfer:
    // never for a whole erase.
    let xfer = us(page_xfer_ns(&cfg));
    let bound = 3_500.0 + PAGES_PER_BLOCK as f64 * (50.0 + xfer) + 50.0 + xfer;
    assert!(r.host.read.latency_us.max <= bound, "max read {} us > {bound} us", r.host.read.latency_us.max);

    // One uninterruptible command of the same length: some read waits for most of it.
    let mut whole = one_die("baseline", 4_500.0);
    whole.timing.erase_us = 17_500.0;
    let w = run(&whole);
    assert_eq!(w.nand.erase.by_loops, vec![0, w.nand.erases]);
    assert!(w.host.read.latency_us.max > 0.6 * 17_500.0, "whole erase: max read {} us", w.host.read.latency_us.max);
}

#[test]
fn erase_stress_follows_the_loops_voltages() {
    // ISPE at 0.5K: 3.5 ms (one loop at 20 V) or 7 ms (20 V, then 20.5 V).
    let r = run(&one_die("ispe", 500.0));
    let count = |ms: f64| r.nand.erase.latency_ms.histogram.iter().find(|h| h.0 == ms).map_or(0, |h| h.1);
    let (one, two) = (count(3.5), count(7.0));
    assert_eq!(one + two, r.nand.erase.erases);
    assert!(one > two, "92% of blocks take one loop: {one} against {two}");
    let want = one as f64 * 3.5 * 20.0 + two as f64 * 3.5 * (20.0 + 20.5);
    assert!((r.nand.erase.stress_v_ms - want).abs() < 1e-6 * want, "{} against {want}", r.nand.erase.stress_v_ms);
}

#[test]
fn lazy_erase_defers_the_last_loop_to_the_first_program() {
    let mut cfg = one_die("ispe", 2_500.0);
    let eager = run(&cfg);
    cfg.gc.lazy_erase = true;
    let lazy = run(&cfg);
    let e = &lazy.nand.erase;
    assert!(e.deferred_loops_run > 0 && e.deferred_loops_run <= e.erases);
    // All loops but the last run at cleaning time; the deferred ones when their block is
    // written: the loops counted are the plans' minus those still deferred at the end.
    let (planned, ms) = loops_and_ms(&lazy);
    assert_eq!(e.loops, planned - e.erases + e.deferred_loops_run);
    let still_deferred = e.erases - e.deferred_loops_run;
    // Only the free blocks can still wait for their last loop.
    assert!(still_deferred <= cfg.geometry.blocks_per_plane as u64);
    assert!(lazy.nand.busy.dies_total.erase_ns <= (ms * 1e6).round() as u64);
    assert_eq!(lazy.host.all.count, eager.host.all.count);
}

#[test]
fn a_restarted_loop_loses_its_progress_and_a_suspension_costs_its_time() {
    let mut cfg = one_die("ispe", 2_500.0);
    cfg.timing.erase_suspend = true;
    cfg.timing.erase_suspend_us = 20.0;
    cfg.timing.erase_suspend_min_left_us = 0.0;
    cfg.timing.erase_suspend_guard = false;
    let resumed = run_open(&cfg);
    let s = &resumed.nand.suspensions;
    assert!(s.erase > 0);
    assert_eq!(s.erase, resumed.nand.erase_suspensions);
    assert_eq!(s.suspend_us, s.erase as f64 * 20.0);
    assert_eq!(s.restart_lost_us, 0.0);
    // Resumed loops keep their progress: the die erased for exactly the plans' time.
    let (_, ms) = loops_and_ms(&resumed);
    assert_eq!(resumed.nand.busy.dies_total.erase_ns, (ms * 1e6).round() as u64);

    cfg.timing.erase_resume = xlssd_core::nand::config::EraseResume::Restart;
    let restarted = run_open(&cfg);
    let s = &restarted.nand.suspensions;
    assert!(s.erase > 0 && s.restart_lost_us > 0.0, "{s:?}");
    let (_, ms) = loops_and_ms(&restarted);
    let busy_us = restarted.nand.busy.dies_total.erase_ns as f64 / 1e3;
    assert!((busy_us - (ms * 1e3 + s.restart_lost_us)).abs() < 1e-3, "{busy_us} against {} + {}", ms * 1e3, s.restart_lost_us);
}

#[test]
fn the_guard_keeps_erases_running_while_writes_wait_for_blocks() {
    let mut cfg = one_die("ispe", 2_500.0);
    cfg.timing.erase_suspend = true;
    cfg.timing.erase_suspend_min_left_us = 0.0;
    // Cleaning keeps the plane near its threshold (0.2), so it is often below 0.1 too.
    cfg.gc.hard_threshold = 0.1;
    cfg.ftl.overprovisioning = 0.3;
    let guarded = run_open(&cfg);
    cfg.timing.erase_suspend_guard = false;
    let free = run_open(&cfg);
    assert!(
        guarded.nand.suspensions.erase < free.nand.suspensions.erase,
        "{:?} against {:?}",
        guarded.nand.suspensions,
        free.nand.suspensions
    );
}

#[test]
fn reads_may_suspend_programs_which_resume_where_they_stopped() {
    let mut cfg = one_die("baseline", 0.0);
    let off = run_open(&cfg);
    cfg.timing.program_suspend = true;
    cfg.timing.program_suspend_us = 10.0;
    cfg.timing.program_suspend_min_left_us = 0.0;
    let on = run_open(&cfg);
    let s = &on.nand.suspensions;
    assert!(s.program > 0, "{s:?} {:?}", on.nand.busy.dies_total);
    assert_eq!(s.erase, 0);
    assert_eq!(s.suspend_us, s.program as f64 * 10.0);
    // Programs lose nothing: a host write's command keeps the die for its transfer and its
    // 500 us program (the only die on its channel waits for no one), however often a read
    // suspended it.
    let per_write = 500_000 + page_xfer_ns(&cfg);
    for r in [&on, &off] {
        assert_eq!(r.nand.busy.dies_total.host_write_ns, r.host.write.count * per_write);
    }
    // A read waits for the program's suspension instead of its rest: the typical read
    // gains (the slowest reads wait for erases and cleaning, which this leaves alone).
    let (on_lat, off_lat) = (&on.host.read.latency_us, &off.host.read.latency_us);
    assert!(on_lat.p50 < off_lat.p50 && on_lat.mean < off_lat.mean, "on {on_lat:?} off {off_lat:?}");
}

#[test]
fn a_misprediction_costs_one_half_millisecond_loop() {
    let cfg = one_die("aero-cons", 2_500.0);
    let exact = run(&cfg);
    let mut missed = cfg.clone();
    missed.scheme.tables.insert("aero".into(), serde_json::json!({ "misprediction": 1.0 }));
    let missed = run(&missed);
    let (e, m) = (&exact.nand.erase, &missed.nand.erase);
    assert_eq!(missed.techniques["aero"]["mispredicted"], m.erases);
    assert_eq!(exact.techniques["aero"]["mispredicted"], 0);
    // Both runs erase blocks drawn from one distribution; every erase of the second is one
    // loop and 0.5 ms longer than the same block's would have been.
    let (exact_loops, _) = loops_and_ms(&exact);
    let (missed_loops, _) = loops_and_ms(&missed);
    let per_erase = |loops: u64, n: u64| loops as f64 / n as f64;
    assert!(per_erase(missed_loops, m.erases) > per_erase(exact_loops, e.erases) + 0.9);
    assert!(m.latency_ms.mean > e.latency_ms.mean + 0.4);
    // No mispredicted erase is a whole number of 0.5 ms steps from AERO_CONS's table
    // minus the step: the shortest at 2.5K is 5 ms, so 5.5 ms here.
    assert_eq!(m.latency_ms.histogram[0].0, 5.5);
    assert_eq!(e.latency_ms.histogram[0].0, 5.0);
}
