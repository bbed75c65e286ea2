//! The white-box read path: latency and outcome of each read follow from its page's RBER
//! and the decoder, exactly as the stages and retries predict.

mod common;

use common::*;
use xlssd_core::config::EccScheme;
use xlssd_core::ecc::ldpc::Stage;
use xlssd_core::host::Op;
use xlssd_core::physics::{power_law::PowerLawConfig, Ispp, ModelKind, PageHistory, RberModel};

/// One read of a preconditioned page on an idle device, with the given aging.
fn idle_read(pe: f64, age_h: f64, scheme: EccScheme) -> xlssd_core::Report {
    let mut cfg = small();
    cfg.precondition.occupancy = 0.5;
    cfg.physics.model = ModelKind::PowerLaw;
    cfg.physics.read_disturb = false;
    cfg.ecc.scheme = scheme;
    cfg.aging.initial_pe = pe;
    cfg.aging.data_age_h = age_h;
    let reqs = vec![req(0, 3, 1, Op::Read, 8)];
    run(&cfg, VecSource::open(reqs), true)
}

#[test]
fn fixed_latency_mode_ignores_physics_parameters() {
    let mut a = small();
    a.precondition.occupancy = 0.5;
    a.cache.capacity_bytes = 1 << 18;
    let mut b = a.clone();
    b.physics.retention_scale = 1000.0;
    b.physics.algorithm = Ispp::Rv;
    b.aging.data_age_h = 5000.0;
    let mk = || {
        (0..3000u64)
            .map(|i| req(i * 20_000, (i * 7919) % 3000, 1 + (i % 3) as u32, if i % 3 == 0 { Op::Write } else { Op::Read }, 8))
            .collect()
    };
    let ra = run(&a, VecSource::open(mk()), false);
    let rb = run(&b, VecSource::open(mk()), false);
    assert!(!ra.reliability.enabled && !rb.reliability.enabled);
    let strip = |r: &xlssd_core::Report| {
        let mut r = r.clone();
        r.clear_wall_clock();
        r.config = serde_json::Value::Null;
        r.to_json()
    };
    assert_eq!(strip(&ra), strip(&rb));
}

#[test]
fn ldpc_read_latency_follows_the_decoding_stages() {
    let ldpc = xlssd_core::ecc::ldpc::LdpcConfig::default();
    let (t_r, xfer) = (50_000u64, 10_240u64);
    let model = PowerLawConfig::default();
    for &(pe, age) in
        &[(1.0, 0.0), (3_000.0, 8_760.0), (10_000.0, 8_760.0 * 2.0), (10_000.0, 8_760.0 * 5.0), (30_000.0, 8_760.0 * 10.0)]
    {
        let r = idle_read(pe, age, EccScheme::Ldpc);
        let rber = model.rber(&PageHistory { pe, retention_h: age, weighted_reads: 0.0, ..PageHistory::fresh(Ispp::Sv) });
        assert!((r.reliability.rber.max - rber).abs() / rber < 1e-3, "pe {pe} age {age}: {} vs {rber}", r.reliability.rber.max);
        let stage = ldpc.stage_for(rber);
        let levels = ldpc.soft_levels_tried(stage) as u64;
        let soft_decode = ((ldpc.soft_us * 1e3) as u64 - t_r - xfer).max((ldpc.hard_us * 1e3) as u64);
        let mut expected = t_r + xfer + (ldpc.hard_us * 1e3) as u64 + levels * (t_r + xfer + soft_decode);
        if stage == Stage::Raid {
            expected += (ldpc.raid_us * 1e3) as u64;
        }
        assert_eq!(r.host.read.latency_us.max, expected as f64 / 1e3, "pe {pe} age {age}: stage {stage:?}");
        assert_eq!(r.reliability.read_retries.max, levels);
        // The one read is counted once, by the stage that recovered it.
        let d = &r.reliability.decode;
        let counted = (d.hard, d.soft.iter().sum::<u64>(), d.raid, d.uncorrectable);
        let want = match stage {
            Stage::Hard => (1, 0, 0, 0),
            Stage::Soft(_) => (0, 1, 0, 0),
            Stage::Raid => (0, 0, 1, 0),
            Stage::Uncorrectable => (0, 0, 0, 1),
        };
        assert_eq!(counted, want, "pe {pe} age {age}: stage {stage:?}");
    }
}

#[test]
fn read_latency_rises_with_wear_and_retention() {
    let mut last = 0.0;
    for &(pe, age) in &[(1.0, 0.0), (1_000.0, 100.0), (3_000.0, 8_760.0), (10_000.0, 8_760.0 * 3.0), (20_000.0, 8_760.0 * 6.0)] {
        let r = idle_read(pe, age, EccScheme::Ldpc);
        assert!(r.host.read.latency_us.max >= last, "pe {pe} age {age}");
        last = r.host.read.latency_us.max;
    }
    assert!(last > 400.0, "old, worn data needs soft decoding: {last}");
}

#[test]
fn bch_retries_and_uncorrectable_reads_are_counted() {
    let mut cfg = small();
    cfg.precondition.occupancy = 0.5;
    cfg.physics.model = ModelKind::PowerLaw;
    cfg.physics.read_disturb = false;
    cfg.ecc.scheme = EccScheme::Bch;
    cfg.ecc.bch_t = 8;
    cfg.aging.initial_pe = 10_000.0;
    cfg.aging.data_age_h = 8_760.0;
    // RBER ~1.3e-3: ~43 errors per 4 KiB codeword against t = 8; retries recover a factor
    // of 0.6 each, so about four steps are needed, and with one step allowed none recover.
    let reqs: Vec<_> = (0..40).map(|i| req(i * 10_000_000, i * 5, 1, Op::Read, 8)).collect();
    let r = run(&cfg, VecSource::open(reqs.clone()), true);
    assert_eq!(r.host.read.count, 40);
    assert!(r.reliability.read_retries.mean >= 3.0, "{:?}", r.reliability.read_retries);
    assert_eq!(r.reliability.uncorrectable_reads, 0);
    assert!(r.reliability.read_breakdown_us.retry > 0.0);
    cfg.ecc.retry_steps = 1;
    let r = run(&cfg, VecSource::open(reqs), true);
    assert_eq!(r.reliability.uncorrectable_reads, 40);
    assert_eq!(r.host.read.count, 40, "uncorrectable reads still complete, and are counted");
}

#[test]
fn read_disturbance_accumulates_in_the_block() {
    let mut cfg = small();
    cfg.precondition.occupancy = 0.5;
    cfg.physics.model = ModelKind::PowerLaw;
    cfg.ecc.scheme = EccScheme::Ldpc;
    // The same page read 2,000 times: its block's RBER grows by the read-disturb slope.
    let reqs: Vec<_> = (0..2000).map(|i| req(i * 100_000, 3, 1, Op::Read, 8)).collect();
    let r = run(&cfg, VecSource::open(reqs), false);
    let rd = xlssd_core::physics::read_disturb::ReadDisturbConfig::default();
    // The page's type decides its weight; the last read saw 1,999 earlier reads.
    let page_type_weights: Vec<f64> = rd.beta.iter().map(|b| b / rd.alpha[0]).collect();
    let grew = r.reliability.rber.max - r.reliability.rber.mean;
    assert!(grew > 0.0);
    let plausible = page_type_weights.iter().any(|w| (rd.rber(1999.0 * w) / 2.0 - grew).abs() / grew < 0.05);
    assert!(plausible, "max - mean {grew} should be half the disturbance of 1,999 reads");
}

/// The small device made 3D (four layers of 16 pages per block) at 10K cycles, with the
/// threshold-voltage model and every page programmed in `mode`.
fn worn_3d(mode: xlssd_core::physics::ProgramMode) -> xlssd_core::Config {
    let mut cfg = small();
    cfg.geometry.layers = 4;
    cfg.physics.model = ModelKind::Vth;
    cfg.physics.program_mode = mode;
    cfg.physics.read_disturb = false;
    cfg.aging.initial_pe = 10_000.0;
    cfg
}

/// Writes 64 pages one at a time on an idle 3D device at 10K cycles, then reads them back
/// after about 1,000 hours on the retention clock, all programmed in `mode`.
fn vth_write_then_read(mode: xlssd_core::physics::ProgramMode) -> xlssd_core::Report {
    let mut cfg = worn_3d(mode);
    cfg.physics.program_speedup_at_100k = 0.0;
    cfg.physics.retention_scale = 3.6e6; // one simulated second is 1,000 hours
    let mut reqs: Vec<_> = (0..64u64).map(|i| req(i * 2_000_000, i, 1, Op::Write, 8)).collect();
    reqs.extend((0..64u64).map(|i| req(1_000_000_000 + i * 1_000_000, i, 1, Op::Read, 8)));
    run(&cfg, VecSource::open(reqs), true)
}

#[test]
fn approximate_programming_is_faster_and_leaves_more_errors() {
    use xlssd_core::physics::ProgramMode;
    let precise = vth_write_then_read(ProgramMode::Precise);
    let approx = vth_write_then_read(ProgramMode::ApproxVmax);
    // Writes on an idle device: transfer plus program, and the program is 25/40 as long.
    let (wp, wa) = (precise.host.write.latency_us.mean, approx.host.write.latency_us.mean);
    let program_saved = 500.0 * (1.0 - 25.0 / 40.0);
    assert!((wp - wa - program_saved).abs() < 1.0, "precise {wp} us, approximate {wa} us");
    // Every page read was written 1,000 h earlier at 10K cycles: around the calibration points.
    let (rp, ra) = (precise.reliability.rber.mean, approx.reliability.rber.mean);
    assert!(rp > 1e-9 && rp < 2e-8, "precise mean RBER {rp:e}");
    assert!(ra > 3e-4 && ra < 1.5e-3, "approximate mean RBER {ra:e}");
}

#[test]
fn pages_disturbed_by_later_neighbours_show_more_errors() {
    use xlssd_core::physics::ProgramMode;
    // The last page of a block has no later neighbour; the first has one along Y and one
    // along Z. Read each alone after the block is full.
    let one_read = |lpn: u64| {
        let mut cfg = worn_3d(ProgramMode::ApproxVmax);
        cfg.geometry.channels = 1;
        cfg.geometry.chips_per_channel = 1;
        cfg.geometry.planes_per_die = 1;
        // No retention, so that the two pages differ only in their disturbers.
        cfg.physics.retention_scale = 0.0;
        let mut reqs: Vec<_> = (0..64u64).map(|i| req(i * 2_000_000, i, 1, Op::Write, 8)).collect();
        reqs.push(req(1_000_000_000, lpn, 1, Op::Read, 8));
        run(&cfg, VecSource::open(reqs), true).reliability.rber.mean
    };
    let first = one_read(0);
    let last = one_read(63);
    assert!(last > 0.0 && first > 1.2 * last, "disturbed {first:e}, undisturbed {last:e}");
}

/// Reads every page of a 64-page payload at LBA 0 once, on a preconditioned device at 10K
/// cycles with 1,000-hour-old data, programmed in `mode` and decoded by `scheme`.
fn payload_run(
    mode: xlssd_core::physics::ProgramMode,
    scheme: EccScheme,
    skip: bool,
    seed: u64,
) -> (xlssd_core::Report, xlssd_core::Payload) {
    let mut cfg = worn_3d(mode);
    cfg.seed = seed;
    cfg.precondition.occupancy = 0.5;
    cfg.aging.data_age_h = 1_000.0;
    cfg.ecc.scheme = scheme;
    cfg.ecc.skip_approximate = skip;
    let data: Vec<u8> = (0..64 * 4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let mut payload = xlssd_core::Payload::new(0, data);
    let reqs = (0..64u64).map(|i| req(i * 1_000_000, i, 1, Op::Read, 8)).collect();
    let sim = xlssd_core::simulator(&cfg, Box::new(VecSource::open(reqs)), None).unwrap();
    let report = sim.run(xlssd_core::RunOptions { check: true, payload: Some(&mut payload), ..Default::default() }).unwrap();
    (report, payload)
}

fn bit_differences(a: &[u8], b: &[u8]) -> u64 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones() as u64).sum()
}

#[test]
fn payload_comes_back_with_the_errors_no_decoder_corrected() {
    use xlssd_core::physics::ProgramMode;
    // Approximate pages read raw: flips at the page RBER, exactly as many as reported.
    let (r, p) = payload_run(ProgramMode::ApproxVmax, EccScheme::Ldpc, true, 7);
    assert_eq!(r.payload.pages, 64);
    assert_eq!(r.payload.pages_read, 64);
    assert_eq!(r.reliability.decode.raw, 64);
    let flipped = bit_differences(&p.data, &p.returned);
    assert_eq!(flipped, r.payload.bits_flipped);
    let expected = r.reliability.rber.mean * 64.0 * 4096.0 * 8.0;
    assert!((flipped as f64 - expected).abs() < 5.0 * expected.sqrt() + 2.0, "{flipped} flips, expected about {expected}");
    assert!(flipped > 0);
    // The same pages decoded by LDPC come back exact.
    let (r, p) = payload_run(ProgramMode::ApproxVmax, EccScheme::Ldpc, false, 7);
    assert_eq!(r.reliability.decode.raw, 0);
    assert_eq!(p.returned, p.data);
    assert_eq!(r.payload.bits_flipped, 0);
    // Same seed, same bytes; another seed, other flips.
    let (_, a) = payload_run(ProgramMode::ApproxVmax, EccScheme::Ldpc, true, 7);
    let (_, b) = payload_run(ProgramMode::ApproxVmax, EccScheme::Ldpc, true, 7);
    let (_, c) = payload_run(ProgramMode::ApproxVmax, EccScheme::Ldpc, true, 8);
    assert_eq!(a.returned, b.returned);
    assert_ne!(a.returned, c.returned);
}

#[test]
fn payload_outside_the_device_or_off_a_page_boundary_is_a_config_error() {
    let cfg = small();
    for (lba, len) in [(3u64, 4096usize), (0, 1 << 30)] {
        let sim = xlssd_core::simulator(&cfg, Box::new(VecSource::open(vec![])), None).unwrap();
        let mut payload = xlssd_core::Payload::new(lba, vec![1; len]);
        let err = sim.run(xlssd_core::RunOptions { payload: Some(&mut payload), ..Default::default() }).unwrap_err();
        assert!(err.to_string().contains("payload.lba"), "{err}");
        assert!(payload.returned.is_empty());
    }
}

/// Under `vth_b` with approximate pages read raw: one precise and one approximate page
/// written, then each read alone on the idle device. The precise read is decoded (a hard
/// LDPC decode after its transfer), the approximate one returned raw, so the two differ by
/// exactly `ecc.ldpc.hard_us` (the same sense and transfer otherwise).
#[test]
fn a_precise_read_pays_the_decode_and_an_approximate_one_does_not() {
    let mut cfg = worn_3d(xlssd_core::physics::ProgramMode::Precise);
    cfg.scheme.name = "vth_b".into();
    cfg.ecc.scheme = EccScheme::Ldpc;
    cfg.ecc.skip_approximate = true;
    let read_alone = |approx: bool| {
        let mut w = req(0, 0, 1, Op::Write, 8);
        w.approx = approx;
        let reqs = vec![w, req(50_000_000, 0, 1, Op::Read, 8)];
        run(&cfg, VecSource::open(reqs), true)
    };
    let precise = read_alone(false);
    let approx = read_alone(true);
    assert_eq!((precise.reliability.decode.hard, precise.reliability.decode.raw), (1, 0));
    assert_eq!((approx.reliability.decode.hard, approx.reliability.decode.raw), (0, 1));
    let gap = precise.host.read.latency_us.mean - approx.host.read.latency_us.mean;
    assert!(
        (gap - cfg.ecc.ldpc.hard_us).abs() < 0.002,
        "precise read {} us longer, hard decode {} us",
        gap,
        cfg.ecc.ldpc.hard_us
    );
}

/// A 16-page payload at LBA 0 under `vth_b` at 10K cycles: the workload writes pages 0-7
/// approximately and pages 8-11 precisely; pages 12-15 keep the preconditioned data. Then
/// the final read, `after_h` hours after the run.
fn final_read_run(after_h: Option<f64>) -> (xlssd_core::Report, xlssd_core::Payload) {
    let mut cfg = worn_3d(xlssd_core::physics::ProgramMode::Precise);
    cfg.scheme.name = "vth_b".into();
    cfg.precondition.occupancy = 0.5;
    cfg.ecc.scheme = EccScheme::Ldpc;
    cfg.ecc.skip_approximate = true;
    let reqs = (0..12u64)
        .map(|i| {
            let mut w = req(i * 2_000_000, i, 1, Op::Write, 8);
            w.approx = i < 8;
            w
        })
        .collect();
    let data: Vec<u8> = (0..16 * 4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
    let mut payload = xlssd_core::Payload { final_read_after_h: after_h, ..xlssd_core::Payload::new(0, data) };
    let sim = xlssd_core::simulator(&cfg, Box::new(VecSource::open(reqs)), None).unwrap();
    let report = sim.run(xlssd_core::RunOptions { check: true, payload: Some(&mut payload), ..Default::default() }).unwrap();
    (report, payload)
}

#[test]
fn the_final_read_returns_each_page_with_the_errors_its_placement_and_age_leave() {
    let (r, p) = final_read_run(Some(1_000.0));
    let f = &r.payload.final_read;
    assert!(f.enabled);
    assert_eq!((f.pages, f.host_written, f.from_flash, f.approximate, f.raw), (16, 12, 16, 8, 8));
    // Errors only in the approximate pages, which are read raw; the precise ones, written by
    // the workload or before it, are decoded.
    let page = |i: usize| i * 4096..(i + 1) * 4096;
    let flips = |i: usize| bit_differences(&p.data[page(i)], &p.returned[page(i)]);
    assert!((0..8).all(|i| flips(i) > 0), "{:?}", (0..8).map(flips).collect::<Vec<_>>());
    assert!((8..16).all(|i| flips(i) == 0));
    assert_eq!((0..16).map(flips).sum::<u64>(), f.bits_flipped);
    assert_eq!(f.with_errors, 8);
    // An approximate page 1,000 h old at 10K cycles is near seed 000's 7.2e-4.
    let approx_rber = f.bits_flipped as f64 / (8.0 * 4096.0 * 8.0);
    assert!(approx_rber > 1e-4 && approx_rber < 3e-3, "{approx_rber:e}");
    // Read at the end of the run instead, the same pages have aged minutes, not 1,000 h: the
    // retention share of their errors is missing (at 10K cycles most are wear's).
    let (young, _) = final_read_run(Some(0.0));
    assert!(young.payload.final_read.rber_mean * 1.2 < f.rber_mean, "{} vs {}", young.payload.final_read.rber_mean, f.rber_mean);
    // The final read is outside simulated time: everything else in the report is as without it.
    let (plain, _) = final_read_run(None);
    assert!(!plain.payload.final_read.enabled);
    let strip = |r: &xlssd_core::Report| {
        let mut r = r.clone();
        r.clear_wall_clock();
        r.payload = Default::default();
        r.to_json()
    };
    assert_eq!(strip(&r), strip(&plain));
}

#[test]
fn a_negative_final_read_delay_is_a_config_error() {
    let cfg = small();
    let sim = xlssd_core::simulator(&cfg, Box::new(VecSource::open(vec![])), None).unwrap();
    let mut payload = xlssd_core::Payload { final_read_after_h: Some(-1.0), ..xlssd_core::Payload::new(0, vec![1; 10]) };
    let err = sim.run(xlssd_core::RunOptions { payload: Some(&mut payload), ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("payload.final_read_after_h"), "{err}");
}
