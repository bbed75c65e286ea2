//! Erase schemes of seed 004 (AERO, ASPLOS 2024, as the NVRAMOS 2024 talk presents it),
//! on the per-block erase-time distributions of `physics::erase_model` (the AERO authors'
//! public simulator's block models):
//!
//! - `ispe`: conventional incremental-step pulse erasure, 3.5 ms loops (pulse and verify
//!   read) at a rising voltage until the verify read finds no fail bits: the baseline.
//! - `iispe`, `dpes`: the two prior-work baselines, as the model files give them.
//! - `aero-cons`: AERO without the ECC margin. A 1 ms shallow erase first, so that the
//!   verify read's fail-bit count says how much erase is left (FELP), then the rest of the
//!   first loop and further loops cut to FELP's prediction in 0.5 ms steps.
//! - `aero`: AERO, whose last loop also stops where the fail bits left are within the ECC
//!   margin; a block whose erase was cut short of AERO_CONS's gives its next data a higher
//!   RBER (`cut_rber_factor`), which the read path sees.
//!
//! A block keeps its place (quantile) in the distribution for the whole run, and its erase
//! time is read at the table point nearest its erase count. A FELP misprediction
//! (`misprediction`) costs one more 0.5 ms loop.

pub mod config;
pub mod report;

use self::config::AeroConfig;
use self::report::AeroReport;
use super::hooks::*;
use super::{SchemeInfo, TableInfo};
use crate::error::Result;
use crate::physics::erase_model::{fail_bits, felp_remaining_ms, EraseAlgorithm, LOOP_MS, SHALLOW_MS, STEP_MS};
use crate::physics::read_retry::hash64;
use crate::sim::Time;

const TABLE_NAME: &str = "aero";

pub const TABLE: TableInfo = TableInfo { name: TABLE_NAME, report_key: report::KEY, resolve, memory };

fn resolve(raw: &serde_json::Value, prefix: &str) -> Result<serde_json::Value> {
    super::resolve_table(raw, prefix, AeroConfig::validate)
}

fn memory(_logical_pages: u64, _pages: u64, blocks: u64) -> Vec<crate::limits::estimate::Part> {
    vec![crate::limits::estimate::Part { name: "AERO cut-short erases (1 bit per block)", bytes: blocks.div_ceil(64) * 8 }]
}

pub struct AdaptiveErase {
    alg: EraseAlgorithm,
    seed: u64,
    cfg: AeroConfig,
    /// One bit per block: its last erase was cut short of AERO_CONS's.
    cut: Vec<u64>,
    report: AeroReport,
}

/// A block's place in the erase-time distribution, in [0, 1): fixed for the run.
fn block_quantile(seed: u64, block: u32) -> f64 {
    unit(hash64(seed ^ (block as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
}

fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

fn ns(ms: f64) -> Time {
    (ms * 1e6).round() as Time
}

/// The loops an erase of `total_ms` runs under `alg`, each chosen as the chip would: ISPE
/// pulses 3.5 ms until the verify read finds no fail bits; AERO starts with the shallow
/// erase, then sets each pulse to what FELP reads from the fail bits (at most the rest of
/// the first loop, then 3.5 ms). A misprediction falls one 0.5 ms step short, which one
/// more loop makes up.
pub fn plan_of(alg: EraseAlgorithm, total_ms: f64, mispredicted: bool) -> ErasePlan {
    let mut plan = ErasePlan::EMPTY;
    let mut left = total_ms;
    let mut i = 0;
    if alg.shallow_first() {
        let shallow = SHALLOW_MS.min(left);
        plan.push(ns(shallow), alg.level(0));
        left -= shallow;
        i = 1;
    }
    while fail_bits(left) > 0 {
        let pulse = if alg.shallow_first() {
            let cap = if i == 1 { LOOP_MS - SHALLOW_MS } else { LOOP_MS };
            felp_remaining_ms(fail_bits(left)).min(cap)
        } else {
            LOOP_MS
        };
        plan.push(ns(pulse), alg.level(i));
        left -= pulse;
        i += 1;
    }
    if mispredicted {
        plan.push(ns(STEP_MS), alg.level(i.saturating_sub(1)));
    }
    plan
}

impl AdaptiveErase {
    fn new(
        name: &str,
        alg: EraseAlgorithm,
        seed: u64,
        cfg: AeroConfig,
        blocks: u64,
        stress: &crate::physics::erase_model::EraseStressConfig,
    ) -> AdaptiveErase {
        let lifetime = stress.lifetime_pe(alg);
        let report = AeroReport {
            scheme: name.to_string(),
            lifetime_pe: lifetime,
            lifetime_vs_ispe: lifetime / stress.lifetime_pe(EraseAlgorithm::Ispe),
            ..Default::default()
        };
        AdaptiveErase { alg, seed, cfg, cut: vec![0; blocks.div_ceil(64) as usize], report }
    }

    fn set_cut(&mut self, block: u32, cut: bool) {
        let (w, bit) = ((block / 64) as usize, 1u64 << (block % 64));
        if cut {
            self.cut[w] |= bit;
        } else {
            self.cut[w] &= !bit;
        }
    }
}

impl EraseControl for AdaptiveErase {
    fn erase_plan(&mut self, ctx: &EraseCtx) -> ErasePlan {
        let u = block_quantile(self.seed, ctx.block);
        let pe = ctx.pe as f64;
        let total = self.alg.total_ms(pe, u);
        let draw = unit(hash64(self.seed.rotate_left(17) ^ (ctx.block as u64) << 32 ^ ctx.pe as u64));
        let mispredicted = self.alg.shallow_first() && draw < self.cfg.misprediction;
        let cut = self.alg == EraseAlgorithm::Aero && total < EraseAlgorithm::AeroCons.total_ms(pe, u);
        self.set_cut(ctx.block, cut);
        let r = &mut self.report;
        r.planned += 1;
        r.shallow += self.alg.shallow_first() as u64;
        r.mispredicted += mispredicted as u64;
        r.cut += cut as u64;
        plan_of(self.alg, total, mispredicted)
    }

    fn may_suspend(&mut self, _block: u32, index: u32, loops: u32) -> bool {
        self.cfg.suspend_last_loop || index + 1 < loops
    }

    fn erased_rber_factor(&self, block: u32) -> f64 {
        if self.cut[(block / 64) as usize] & (1u64 << (block % 64)) != 0 {
            self.cfg.cut_rber_factor
        } else {
            1.0
        }
    }
}

impl Placement for AdaptiveErase {}
impl ProgramModes for AdaptiveErase {}
impl Cleaning for AdaptiveErase {}
impl FreeBlocks for AdaptiveErase {}
impl ReadPath for AdaptiveErase {}
impl ReadRetry for AdaptiveErase {}
impl RetryReference for AdaptiveErase {}
impl Background for AdaptiveErase {}
impl CacheTier for AdaptiveErase {}
impl Observer for AdaptiveErase {}

impl Technique for AdaptiveErase {
    fn report(&self, _tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        sections.insert(report::KEY.into(), serde_json::to_value(&self.report).expect("report serialises"));
    }
}

fn build(ctx: &super::BuildCtx, alg: EraseAlgorithm) -> Result<Box<dyn Technique>> {
    let cfg: AeroConfig = super::table_config(ctx, TABLE_NAME)?;
    let s = AdaptiveErase::new(&ctx.cfg.scheme.name, alg, ctx.cfg.seed, cfg, ctx.geo.blocks as u64, &ctx.cfg.physics.erase);
    Ok(Box::new(s))
}

const fn scheme(
    name: &'static str,
    description: &'static str,
    keys: &'static [&'static str],
    build: fn(&super::BuildCtx) -> Result<Box<dyn Technique>>,
) -> SchemeInfo {
    super::table_scheme(name, description, &[Hook::Erase], TABLE_NAME, keys, build)
}

pub const ISPE: SchemeInfo = scheme(
    "ispe",
    "seed 004's baseline erase: 3.5 ms ISPE loops until erased, per-block times from the AERO authors' block models",
    &["suspend_last_loop"],
    |ctx| build(ctx, EraseAlgorithm::Ispe),
);

pub const IISPE: SchemeInfo = scheme(
    "iispe",
    "i-ISPE (prior work in AERO's evaluation): 3.5 ms loops, its block models' times",
    &["suspend_last_loop"],
    |ctx| build(ctx, EraseAlgorithm::Iispe),
);

pub const DPES: SchemeInfo = scheme(
    "dpes",
    "DPES (prior work in AERO's evaluation): 3.5 ms loops, its block models' times",
    &["suspend_last_loop"],
    |ctx| build(ctx, EraseAlgorithm::Dpes),
);

pub const AERO_CONS: SchemeInfo = scheme(
    "aero-cons",
    "seed 004's AERO_CONS: 1 ms shallow erase, then loops cut to the fail-bit-count prediction (FELP)",
    &["suspend_last_loop", "misprediction"],
    |ctx| build(ctx, EraseAlgorithm::AeroCons),
);

pub const AERO: SchemeInfo = scheme(
    "aero",
    "seed 004's AERO: AERO_CONS whose last loop also stops within the ECC margin (a higher RBER for the block's next data)",
    &["suspend_last_loop", "misprediction", "cut_rber_factor"],
    |ctx| build(ctx, EraseAlgorithm::Aero),
);

#[cfg(test)]
mod tests {
    use super::*;

    fn ms_of(plan: &ErasePlan) -> Vec<f64> {
        (0..plan.loops()).map(|i| plan.loop_ns(i) as f64 / 1e6).collect()
    }

    fn levels(plan: &ErasePlan) -> Vec<u8> {
        (0..plan.loops()).map(|i| plan.level(i)).collect()
    }

    #[test]
    fn each_algorithm_runs_its_loops() {
        // ISPE 10.5 ms: three 3.5 ms loops at rising voltage.
        let p = plan_of(EraseAlgorithm::Ispe, 10.5, false);
        assert_eq!(ms_of(&p), vec![3.5, 3.5, 3.5]);
        assert_eq!(levels(&p), vec![0, 1, 2]);
        // AERO 6.5 ms: shallow 1 ms, the first loop's other 2.5 ms, then the 3 ms FELP
        // reads from the fail bits; the shallow erase and its rest are one pulse's voltage.
        let p = plan_of(EraseAlgorithm::Aero, 6.5, false);
        assert_eq!(ms_of(&p), vec![1.0, 2.5, 3.0]);
        assert_eq!(levels(&p), vec![0, 0, 1]);
        // AERO_CONS 2 ms: shallow erase and a 1 ms remainder.
        assert_eq!(ms_of(&plan_of(EraseAlgorithm::AeroCons, 2.0, false)), vec![1.0, 1.0]);
        // A misprediction adds one 0.5 ms loop at the last loop's voltage.
        let p = plan_of(EraseAlgorithm::AeroCons, 13.5, true);
        assert_eq!(ms_of(&p), vec![1.0, 2.5, 3.5, 3.5, 3.0, 0.5]);
        assert_eq!(levels(&p), vec![0, 0, 1, 2, 3, 3]);
        assert_eq!(p.total_ns(), 14_000_000);
        // Every total of every table: the loops the chip runs are the model's sequence.
        for alg in
            [EraseAlgorithm::Ispe, EraseAlgorithm::Iispe, EraseAlgorithm::Dpes, EraseAlgorithm::AeroCons, EraseAlgorithm::Aero]
        {
            for point in alg.table() {
                for &(total, _) in point.categories {
                    assert_eq!(ms_of(&plan_of(alg, total, false)), alg.loops_ms(total), "{alg:?} {total}");
                }
            }
        }
    }

    fn scheme_of(alg: EraseAlgorithm, cfg: AeroConfig) -> AdaptiveErase {
        AdaptiveErase::new("test", alg, 7, cfg, 4096, &Default::default())
    }

    #[test]
    fn blocks_keep_their_place_and_follow_the_table() {
        // Over many blocks at 2.5K cycles, ISPE's shares are the model file's 36/49/15%.
        let mut s = scheme_of(EraseAlgorithm::Ispe, AeroConfig::default());
        let mut by_ms = std::collections::BTreeMap::new();
        for block in 0..4096 {
            let p = s.erase_plan(&EraseCtx { block, pe: 2_500, base_ns: 0, program_ns: 0, read_ns: 0 });
            *by_ms.entry(p.total_ns() / 500_000).or_insert(0u32) += 1;
        }
        let share = |ms: f64| by_ms.get(&((ms * 2.0) as u64)).copied().unwrap_or(0) as f64 / 4096.0;
        assert!((share(7.0) - 0.36).abs() < 0.03, "{by_ms:?}");
        assert!((share(10.5) - 0.49).abs() < 0.03, "{by_ms:?}");
        assert!((share(14.0) - 0.15).abs() < 0.03, "{by_ms:?}");
        // The same block erases the same way every time at one wear, and no faster later.
        let a = s.erase_plan(&EraseCtx { block: 9, pe: 2_500, base_ns: 0, program_ns: 0, read_ns: 0 });
        assert_eq!(a, s.erase_plan(&EraseCtx { block: 9, pe: 2_500, base_ns: 0, program_ns: 0, read_ns: 0 }));
        assert!(
            s.erase_plan(&EraseCtx { block: 9, pe: 4_500, base_ns: 0, program_ns: 0, read_ns: 0 }).total_ns() >= a.total_ns()
        );
    }

    #[test]
    fn mispredictions_come_at_the_configured_rate() {
        let cfg = AeroConfig { misprediction: 0.1, ..Default::default() };
        let mut s = scheme_of(EraseAlgorithm::AeroCons, cfg.clone());
        let mut exact = scheme_of(EraseAlgorithm::AeroCons, AeroConfig::default());
        let mut extra = 0;
        for block in 0..4096 {
            let ctx = EraseCtx { block, pe: 500, base_ns: 0, program_ns: 0, read_ns: 0 };
            let (p, q) = (s.erase_plan(&ctx), exact.erase_plan(&ctx));
            if p != q {
                extra += 1;
                assert_eq!(p.total_ns(), q.total_ns() + 500_000);
                assert_eq!(p.loops(), q.loops() + 1);
            }
        }
        assert_eq!(extra, s.report.mispredicted);
        assert!((extra as f64 / 4096.0 - 0.1).abs() < 0.015, "{extra}");
        // ISPE has no prediction to miss.
        let mut ispe = scheme_of(EraseAlgorithm::Ispe, cfg);
        ispe.erase_plan(&EraseCtx { block: 1, pe: 500, base_ns: 0, program_ns: 0, read_ns: 0 });
        assert_eq!(ispe.report.mispredicted, 0);
    }

    #[test]
    fn aero_marks_the_blocks_it_cut_short() {
        let cfg = AeroConfig { cut_rber_factor: 1.5, ..Default::default() };
        let mut s = scheme_of(EraseAlgorithm::Aero, cfg);
        let mut cut = 0;
        for block in 0..512 {
            s.erase_plan(&EraseCtx { block, pe: 2_500, base_ns: 0, program_ns: 0, read_ns: 0 });
            let u = block_quantile(7, block);
            let shorter = EraseAlgorithm::Aero.total_ms(2_500.0, u) < EraseAlgorithm::AeroCons.total_ms(2_500.0, u);
            assert_eq!(s.erased_rber_factor(block), if shorter { 1.5 } else { 1.0 });
            cut += shorter as u64;
        }
        assert!(cut > 0 && cut == s.report.cut);
        // AERO_CONS never cuts into the margin.
        let mut c = scheme_of(EraseAlgorithm::AeroCons, AeroConfig::default());
        c.erase_plan(&EraseCtx { block: 3, pe: 2_500, base_ns: 0, program_ns: 0, read_ns: 0 });
        assert_eq!(c.erased_rber_factor(3), 1.0);
    }

    #[test]
    fn the_last_loop_may_be_kept_from_suspension() {
        let mut s = scheme_of(EraseAlgorithm::Ispe, AeroConfig { suspend_last_loop: false, ..Default::default() });
        assert!(s.may_suspend(0, 1, 3));
        assert!(!s.may_suspend(0, 2, 3));
        let mut all = scheme_of(EraseAlgorithm::Ispe, AeroConfig::default());
        assert!(all.may_suspend(0, 2, 3));
    }
}
