//! Read-retry by retry-table steps (`physics.read_retry`) and seed 004's schemes on it: the
//! steps a read takes, what crosses the channel, and what a wrong prediction costs, worked
//! out by hand on pages whose state is set exactly.

mod common;

use common::*;
use xlssd_core::config::EccScheme;
use xlssd_core::host::Op;
use xlssd_core::physics::ModelKind;
use xlssd_core::techniques::rif::report;
use xlssd_core::Config;

/// Pages with RBER 1e-4 at their best reference (the exp-linear model with no growth), a
/// capability of 1e-2 (81.92 bits per KiB): a margin of 2 decades / 0.25 = 8 steps. Their
/// optimal shift is (base 2.3 + 4 per 1,000 cycles x 3) x 1 year = 14.3 steps, no spread:
/// the default reference is 14.3 steps off, entry 7 the first within the margin.
fn device(scheme: &str) -> Config {
    let mut cfg = small();
    cfg.precondition.occupancy = 0.5;
    cfg.physics.model = ModelKind::ExpLinear;
    cfg.physics.exp_linear.a = 1e-4;
    cfg.physics.exp_linear.b = 0.0;
    cfg.physics.exp_linear.c = 0.0;
    cfg.physics.read_disturb = false;
    cfg.ecc.scheme = EccScheme::Ldpc;
    cfg.ecc.ldpc.raid_us = 0.0;
    cfg.aging.initial_pe = 3_000.0;
    cfg.aging.data_age_h = 8_760.0;
    let r = &mut cfg.physics.read_retry;
    r.enabled = true;
    (r.base_shift, r.shift_per_kpe, r.spread, r.slope, r.capability_bits_per_kib) = (2.3, 4.0, 0.0, 0.25, 81.92);
    cfg.scheme.name = scheme.to_string();
    cfg
}

const T_R: u64 = 50_000;
const XFER: u64 = 10_240;
const HARD: u64 = 8_000;
const SHIFT: f64 = 14.3;

/// A successful decode at `d` steps from the optimum: 2 us plus 6 us times the share of the
/// capability its errors fill (RBER 1e-4 x 10^(0.25 d) against 1e-2).
fn decode(d: f64) -> u64 {
    (2_000.0 + 6_000.0 * 10f64.powf(0.25 * d - 2.0).min(1.0)).round() as u64
}

/// One read at a time, `n` of them, each of a different preconditioned page.
fn reads(cfg: &Config, n: u64) -> xlssd_core::Report {
    let reqs = (0..n).map(|i| req(i * 10_000_000, i * 7, 1, Op::Read, 8)).collect();
    run(cfg, VecSource::open(reqs), true)
}

#[test]
fn conventional_retry_walks_the_table_to_the_first_entry_within_the_margin() {
    let r = reads(&device("retry"), 20);
    let rr = &r.reliability.read_retries;
    // Entries 0 to 6 fail, 7 decodes: seven retries, each failure a sense, a transfer and a
    // decode of every iteration (hard_us).
    assert_eq!(rr.reads_by_steps, vec![0, 0, 0, 0, 0, 0, 0, 20]);
    assert_eq!((rr.failed_transfers, rr.in_die_senses), (7 * 20, 0));
    assert_eq!(rr.failed_transfer_us, 7.0 * 20.0 * XFER as f64 / 1e3);
    assert_eq!(r.host.read.latency_us.max, (7 * (T_R + XFER + HARD) + T_R + XFER + decode(SHIFT - 7.0)) as f64 / 1e3);
    assert_eq!((r.reliability.decode.hard, r.reliability.uncorrectable_reads), (20, 0));
}

#[test]
fn each_scheme_starts_where_it_says() {
    // ideal: entry 14, the nearest the optimum, at once.
    let r = reads(&device("ideal"), 10);
    assert_eq!(r.reliability.read_retries.reads_by_steps, vec![10]);
    assert_eq!(r.host.read.latency_us.max, (T_R + XFER + decode(SHIFT - 14.0)) as f64 / 1e3);
    // swr: the default reference fails, then straight to entry 14.
    let r = reads(&device("swr"), 10);
    assert_eq!(r.reliability.read_retries.reads_by_steps, vec![0, 10]);
    assert_eq!(r.reliability.read_retries.failed_transfers, 10);
    assert_eq!(r.host.read.latency_us.max, (2 * (T_R + XFER) + HARD + decode(SHIFT - 14.0)) as f64 / 1e3);
    // senc with an exact estimate of the optimum is swr.
    let mut cfg = device("senc");
    cfg.scheme.tables.insert("rif".into(), serde_json::json!({ "senc_error_steps": 0.0 }));
    let r = reads(&cfg, 10);
    assert_eq!(r.reliability.read_retries.reads_by_steps, vec![0, 10]);
    assert_eq!(r.host.read.latency_us.max, (2 * (T_R + XFER) + HARD + decode(SHIFT - 14.0)) as f64 / 1e3);
}

#[test]
fn rif_retries_inside_the_die_and_moves_only_decodable_data() {
    let mut cfg = device("rif");
    cfg.scheme.tables.insert("rif".into(), serde_json::json!({ "accuracy": 1.0 }));
    let r = reads(&cfg, 20);
    let rr = &r.reliability.read_retries;
    // Seven senses again inside the die, then one transfer of data that decodes.
    assert_eq!(rr.reads_by_steps, vec![0, 0, 0, 0, 0, 0, 0, 20]);
    assert_eq!((rr.in_die_senses, rr.failed_transfers), (7 * 20, 0));
    assert_eq!(r.host.read.latency_us.max, (8 * T_R + XFER + decode(SHIFT - 7.0)) as f64 / 1e3);
    let p = report::of(&r);
    assert_eq!((p.checks, p.predicted_failures, p.false_failures, p.false_successes), (8 * 20, 7 * 20, 0, 0));
}

#[test]
fn a_read_sensed_again_inside_the_die_counts_once_in_the_rber_statistics() {
    // Every page is at RBER 1e-4 (no growth, no disturbance). RiF senses each read seven
    // times more inside the die and moves it at the eighth; the conventional walk moves
    // each sense. Either way each read counts once, at its first sensing, at 1e-4.
    let mut cfg = device("rif");
    cfg.scheme.tables.insert("rif".into(), serde_json::json!({ "accuracy": 1.0 }));
    let rif = reads(&cfg, 20).reliability.rber;
    let walk = reads(&device("retry"), 20).reliability.rber;
    assert!((rif.mean / 1e-4 - 1.0).abs() < 1e-3, "mean RBER {} against 1e-4", rif.mean);
    assert_eq!((rif.mean, rif.max), (walk.mean, walk.max));
}

#[test]
fn a_read_sensed_again_inside_the_die_counts_in_the_read_breakdown() {
    // Each read: seven senses inside the die, then its first transfer and its first decode,
    // which succeeds: the breakdown counts every read, with its first sensing, that
    // transfer and that decode, and no retry time (no decode failed).
    let mut cfg = device("rif");
    cfg.scheme.tables.insert("rif".into(), serde_json::json!({ "accuracy": 1.0 }));
    let b = reads(&cfg, 20).reliability.read_breakdown_us;
    assert_eq!(
        (b.sense, b.transfer, b.decode, b.retry),
        (T_R as f64 / 1e3, XFER as f64 / 1e3, decode(SHIFT - 7.0) as f64 / 1e3, 0.0)
    );
}

#[test]
fn retry_time_is_kept_for_each_read_among_other_commands() {
    // Reads that fail seven decodes each, among writes to the same dies: a read that goes
    // back to its die is queued anew (under another transaction id, other commands having
    // come in meanwhile), and its retry time still runs from its own first failed decode.
    // From there it takes at least seven failed attempts' decodes and six more senses and
    // transfers, then the sense, transfer and decode that succeed; at most its latency less
    // its first sense and transfer.
    let cfg = device("retry");
    let reqs: Vec<_> = (0..200u64)
        .map(|i| {
            let op = if i % 3 == 2 { Op::Write } else { Op::Read };
            req(i * 15_000, (i * 37) % 400, 1, op, 8)
        })
        .collect();
    let r = run(&cfg, VecSource::open(reqs), true);
    let retry = r.reliability.read_breakdown_us.retry * 1e3;
    let least = (7 * (T_R + XFER + HARD) + decode(SHIFT - 7.0)) as f64;
    let most = r.host.read.latency_us.mean * 1e3 - (T_R + XFER) as f64;
    assert!(retry >= least - 1.0 && retry <= most + 1.0, "retry {retry} ns per read outside [{least}, {most}]");
}

#[test]
fn rif_mispredictions_cost_a_controller_retry_or_an_extra_sense() {
    // Every prediction wrong: entries 0-6 are predicted to decode (a transfer and a failed
    // decode each); entries 7-15 are predicted to fail though they decode (a sense again
    // each); entry 16, the table's last, goes out unasked and decodes 1.7 steps from the
    // optimum. 17 senses, 8 transfers, 7 failed decodes.
    let mut cfg = device("rif");
    cfg.scheme.tables.insert("rif".into(), serde_json::json!({ "accuracy": 0.0 }));
    let r = reads(&cfg, 5);
    let rr = &r.reliability.read_retries;
    let mut by_steps = vec![0; 17];
    by_steps[16] = 5;
    assert_eq!(rr.reads_by_steps, by_steps);
    assert_eq!((rr.failed_transfers, rr.in_die_senses), (7 * 5, 9 * 5));
    let p = report::of(&r);
    assert_eq!((p.checks, p.false_successes, p.false_failures, p.predicted_failures), (16 * 5, 7 * 5, 9 * 5, 0));
    let expected = 17 * T_R + 8 * XFER + 7 * HARD + decode(16.0 - SHIFT);
    assert_eq!(r.host.read.latency_us.max, expected as f64 / 1e3);
}

#[test]
fn rif_composes_with_a_retry_start() {
    let mut cfg = device("rif+swr");
    cfg.scheme.tables.insert("rif".into(), serde_json::json!({ "accuracy": 1.0 }));
    let r = reads(&cfg, 10);
    // The die finds entry 0 fails and senses again at entry 14: one retry, nothing moved
    // in vain.
    let rr = &r.reliability.read_retries;
    assert_eq!(rr.reads_by_steps, vec![0, 10]);
    assert_eq!((rr.in_die_senses, rr.failed_transfers), (10, 0));
    assert_eq!(report::of(&r).checks, 20);
    assert_eq!(r.host.read.latency_us.max, (2 * T_R + XFER + decode(SHIFT - 14.0)) as f64 / 1e3);
}

#[test]
fn a_shift_beyond_the_table_is_uncorrectable() {
    let mut cfg = device("retry");
    cfg.physics.read_retry.shift_per_kpe = 10.0; // 32.3 steps: entry 25 is the first within 8
    let r = reads(&cfg, 3);
    assert_eq!(r.reliability.uncorrectable_reads, 3);
    let mut by_steps = vec![0; 17];
    by_steps[16] = 3;
    assert_eq!(r.reliability.read_retries.reads_by_steps, by_steps);
}

#[test]
fn bad_settings_are_refused_naming_the_key() {
    let mut cfg = device("retry");
    cfg.ecc.scheme = EccScheme::Bch;
    let e = xlssd_core::simulator(&cfg, Box::new(VecSource::open(vec![])), None).err().expect("refused").to_string();
    assert!(e.contains("physics.read_retry.enabled") && e.contains("ldpc"), "{e}");
    let mut cfg = device("rif");
    cfg.physics.read_retry.enabled = false;
    let e = xlssd_core::simulator(&cfg, Box::new(VecSource::open(vec![])), None).err().expect("refused").to_string();
    assert!(e.contains("physics.read_retry.enabled"), "{e}");
}

#[test]
fn channel_time_is_split_by_what_it_carried() {
    let mut cfg = device("retry");
    cfg.timing.cmd_ns = 300;
    let n = 10;
    let r = reads(&cfg, n);
    let u = &r.nand.busy.channel_use;
    // Eight attempts per read, each a command; seven of their transfers failed to decode.
    assert_eq!(u.command_ns, 8 * 300 * n);
    assert_eq!(u.failed_data_ns, 7 * XFER * n);
    assert_eq!((u.data_ns, u.ecc_wait_ns), (XFER * n, 0));
    let channels = cfg.geometry.channels as u64;
    assert_eq!(u.command_ns + u.data_ns + u.failed_data_ns + u.ecc_wait_ns + u.idle_ns, r.sim.simulated_ns * channels);
    // RiF moves nothing in vain; its in-die senses need no command.
    let mut cfg = device("rif");
    cfg.timing.cmd_ns = 300;
    cfg.scheme.tables.insert("rif".into(), serde_json::json!({ "accuracy": 1.0 }));
    let u = reads(&cfg, n).nand.busy.channel_use;
    assert_eq!((u.command_ns, u.failed_data_ns, u.data_ns), (300 * n, 0, XFER * n));
}

#[test]
fn a_full_decode_buffer_holds_the_channel() {
    // Three reads at once on three dies of one channel; every decode takes 100 us and the
    // engine holds one page waiting. The first page decodes as it arrives, the second waits
    // in the buffer, so the third transfer holds the channel until the second page starts
    // decoding: 100 us after the first arrived, less the second's transfer.
    let mut cfg = device("ideal");
    let g = &mut cfg.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (1, 1, 3, 1);
    cfg.ecc.ldpc.hard_us = 100.0;
    cfg.physics.read_retry.decode_min_us = 100.0;
    cfg.ecc.decode_buffer_pages = 1;
    let reqs = (0..3).map(|i| req(0, i, 1, Op::Read, 8)).collect();
    let r = run(&cfg, VecSource::open(reqs), true);
    assert_eq!(r.nand.busy.channel_use.ecc_wait_ns, 100_000 - XFER);
    // Without a limit the data waits in controller memory, not on the channel.
    cfg.ecc.decode_buffer_pages = 0;
    let reqs = (0..3).map(|i| req(0, i, 1, Op::Read, 8)).collect();
    assert_eq!(run(&cfg, VecSource::open(reqs), true).nand.busy.channel_use.ecc_wait_ns, 0);
}
