//! Erase suspension observed through whole runs: a read that reaches a die while it erases
//! goes first when `timing.erase_suspend` is on, and nothing changes when it is off or when
//! no erase has enough left to qualify. Bounds come from the timing parameters.

mod common;

use common::guarded::*;
use common::*;
use xlssd_core::{Config, Report};

const PAGES_PER_BLOCK: u32 = ONE_DIE_PAGES_PER_BLOCK;

/// The one-die device, with suspensions that cost 20 us and may come at any point.
fn one_die() -> Config {
    let mut cfg = one_die_device();
    cfg.timing.erase_suspend_us = 20.0;
    cfg.timing.erase_suspend_min_left_us = 0.0;
    cfg
}

fn run(cfg: &Config) -> Report {
    run_guarded(cfg, overwrites_and_reads(cfg), Some(1), true).unwrap_or_else(|e| panic!("{e}"))
}

fn without_config(r: &Report) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("config");
    // Wall-clock measures of the simulator itself differ between any two runs.
    o.get_mut("sim").unwrap().as_object_mut().unwrap().retain(|k, _| !(k.ends_with("_s") || k.ends_with("_per_s")));
    v
}

#[test]
fn reads_suspend_erases_and_no_read_waits_for_a_whole_erase() {
    let cfg = one_die();
    let off = run(&cfg);
    let mut on_cfg = cfg.clone();
    on_cfg.timing.erase_suspend = true;
    let on = run(&on_cfg);

    assert_eq!(off.nand.erase_suspensions, 0);
    assert!(off.nand.erases > 50, "the workload keeps GC erasing: {} erases", off.nand.erases);
    // Without suspension some read arrived early in an erase and waited for most of it.
    let erase_us = cfg.timing.erase_us;
    assert!(off.host.read.latency_us.max > 0.6 * erase_us, "off: max read {} us", off.host.read.latency_us.max);

    assert!(on.nand.erase_suspensions > 0);
    assert_eq!(on.host.all.count, off.host.all.count);
    // A read waits at most for the operation the die is in (a program, or an erase it
    // suspends at a cost of erase_suspend_us) and for the GC reads queued ahead of it (at
    // most one block's pages), then for its own sense and transfer.
    let xfer = us(page_xfer_ns(&cfg));
    let bound = 500.0 + PAGES_PER_BLOCK as f64 * (50.0 + xfer) + 20.0 + 50.0 + xfer;
    assert!(
        on.host.read.latency_us.max <= bound,
        "on: max read {} us exceeds {bound} us ({} suspensions)",
        on.host.read.latency_us.max,
        on.nand.erase_suspensions
    );
    assert!(on.host.read.latency_us.p99 < off.host.read.latency_us.p99);
}

#[test]
fn an_erase_too_close_to_its_end_is_not_suspended() {
    let cfg = one_die();
    let off = run(&cfg);
    let mut on = cfg.clone();
    on.timing.erase_suspend = true;
    // No erase ever has more than its whole time left.
    on.timing.erase_suspend_min_left_us = cfg.timing.erase_us + 1.0;
    let on = run(&on);
    assert_eq!(on.nand.erase_suspensions, 0);
    assert_eq!(without_config(&on), without_config(&off), "a run without suspensions equals one with suspension off");
}

#[test]
fn suspension_keeps_erase_progress() {
    // Every erase ends (the erase count matches the blocks cleaning freed), and the die's
    // busy time for erases is exactly erases x tBERS however often they were suspended:
    // an erase resumes where it stopped.
    let mut cfg = one_die();
    cfg.timing.erase_suspend = true;
    let on = run(&cfg);
    assert!(on.nand.erase_suspensions > 0);
    assert_eq!(on.nand.erases, on.ftl.gc.blocks_erased + on.ftl.wl.blocks_erased);
    assert_eq!(cfg.timing.cmd_ns, 0, "the die's erase time is then its array time alone");
    assert_eq!(on.nand.busy.dies_total.erase_ns, on.nand.erases * 3_000_000);
}
