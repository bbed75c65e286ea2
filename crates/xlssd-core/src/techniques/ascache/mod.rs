//! Seed 002 (ASCache, DAC 2019): an SSD cache in front of a hard disk (`[backing]`) that
//! tracks every block's worst-case RBER and serves error-tolerant data without decoding.
//!
//! - **Tracking** (Sec. 3.2, Eq. 2): each block's RBER_U comes from its reference page,
//!   measured when the block is erased (the page is written and read back:
//!   RBER_U = RBER_ref + delta) and read again when the host is idle
//!   (RBER_U = max(RBER_ref, RBER_U) + delta). The engine's probes give the measurements
//!   (`Observer::probed`); the reference page's program and read are charged to the die
//!   after the erase (`reference_page_time`). Blocks sit in the group of their level
//!   ([`levels`]).
//! - **Writes** (Table 1): WRITE takes a page from the most reliable level with room.
//!   AP_WRITE (a write whose request carries an AP_BER) takes one from a level that
//!   tolerates the AP_BER (`write_preference`), or from a lower one, marking the page
//!   *mismatched*. Each level has its own stream, so a block holds one level's writes.
//! - **Reads**: `ssd-cache`, the traditional cache, decodes every read level by level; a
//!   read the flow cannot correct is a read error, which the cache layer turns into a miss.
//!   `ascache`'s AP_READ returns the page raw when it is not mismatched and its block's
//!   RBER_U is below the AP_BER; otherwise it senses straight to the soft level its block's
//!   level predicts (`direct_decode`) and decodes once.

pub mod config;
pub mod levels;
pub mod report;

use rustc_hash::FxHashSet;

use self::config::{AscacheConfig, Preference, ReferencePage};
use self::levels::{after_gc, after_idle_read, Groups, Thresholds, LEVELS, SOFT_LEVELS};
use self::report::AscacheReport;
use super::hooks::*;
use super::{SchemeInfo, TableInfo};
use crate::error::Result;
use crate::ftl::blocks::{BlockManager, FreeBlockPicker};
use crate::nand::Ppn;
use crate::sim::Time;

const TABLE_NAME: &str = "ascache";

pub const TABLE: TableInfo = TableInfo { name: TABLE_NAME, report_key: report::KEY, resolve, memory };

fn resolve(raw: &serde_json::Value, prefix: &str) -> Result<serde_json::Value> {
    super::resolve_table(raw, prefix, AscacheConfig::validate)
}

fn memory(logical_pages: u64, _pages: u64, blocks: u64) -> Vec<crate::limits::estimate::Part> {
    use crate::limits::estimate::Part;
    vec![
        Part { name: "ASCache block state", bytes: blocks * 13 },
        Part { name: "ASCache AP_BER per logical page", bytes: logical_pages },
    ]
}

/// Picks a given index of the free list.
struct At(usize);

impl FreeBlockPicker for At {
    fn pick(&mut self, _free: &[u32], _blocks: &BlockManager) -> usize {
        self.0
    }
}

/// An AP_BER in a byte: 0 for none, else steps of 10^(1/32) (7.5%) from 1e-6, rounded
/// down so that the coded value never tolerates more than the request did.
fn code_of(ap_ber: f64) -> u8 {
    if !(ap_ber >= 1e-6) {
        return 0;
    }
    ((ap_ber.log10() + 6.0) * 32.0 + 1e-9).floor().clamp(0.0, 254.0) as u8 + 1
}

fn tolerance_of(code: u8) -> f64 {
    if code == 0 {
        0.0
    } else {
        10f64.powf((code - 1) as f64 / 32.0 - 6.0)
    }
}

/// The stream holding blocks of `level`.
fn stream_of(level: u8) -> u32 {
    (level - 1) as u32
}

pub struct CacheScheme {
    /// `ascache` (AP_READ and AP_WRITE) rather than the traditional `ssd-cache`.
    approximate: bool,
    cfg: AscacheConfig,
    thresholds: Thresholds,
    rber_u: Vec<f32>,
    groups: Groups,
    /// The AP_BER of each logical page's last write, coded by [`code_of`] (0: a precise
    /// write): one byte per page.
    wanted: Vec<u8>,
    mismatched: FxHashSet<Ppn>,
    pages_per_block: u32,
    /// Where the idle scan goes on.
    scan_next: u32,
    report: AscacheReport,
}

impl CacheScheme {
    fn block_of(&self, ppn: Ppn) -> u32 {
        (ppn / self.pages_per_block as Ppn) as u32
    }

    /// Whether an AP_READ of `a` may return its data raw.
    fn raw_ok(&self, a: &Attempt) -> bool {
        self.approximate
            && a.kind == ReadKind::Host
            && a.tolerance > 0.0
            && !self.mismatched.contains(&a.ppn)
            && (self.rber_u[self.block_of(a.ppn) as usize] as f64) < a.tolerance
    }

    /// The level a logical page's last write asked for: the lowest whose blocks all stay
    /// below its AP_BER (0: a precise write, or one no level tolerates, which asks for the
    /// most reliable).
    fn wanted_level(&self, lpn: u32) -> u8 {
        match self.wanted[lpn as usize] {
            0 => 0,
            code => self.thresholds.tolerating(tolerance_of(code)).unwrap_or(0),
        }
    }

    /// Levels a write wanting `wanted` (0: precise) tries, in order.
    fn levels_for(&self, wanted: u8) -> impl Iterator<Item = u8> {
        let (first, adequate_up) = match (wanted, self.cfg.write_preference) {
            (0, _) | (_, Preference::Highest) => (LEVELS, false),
            (w, Preference::LowestAdequate) => (w, true),
        };
        let wanted = wanted.max(1);
        // Adequate levels first (downwards from 8, or upwards from the one wanted), then
        // the rest downwards.
        let adequate: Vec<u8> = if adequate_up { (first..=LEVELS).collect() } else { (wanted..=LEVELS).rev().collect() };
        adequate.into_iter().chain((1..wanted).rev())
    }
}

impl Placement for CacheScheme {
    fn host_write(&mut self, w: &HostWrite) {
        if !self.approximate {
            return;
        }
        let code = code_of(w.tolerance as f64);
        for i in 0..w.n_pages as u64 {
            self.wanted[((w.first_lpn + i) % w.logical_pages) as usize] = code;
        }
    }

    fn target(&mut self, ctx: &mut PlaceCtx, lpn: u32, kind: WriteKind, plane: u32) -> Target {
        if kind != WriteKind::Host {
            return ctx.default;
        }
        let wanted = if self.approximate { self.wanted_level(lpn) } else { 0 };
        let privileged = ctx.default.privileged;
        for level in self.levels_for(wanted) {
            let stream = stream_of(level);
            if ctx.blocks.room_for(plane, stream, privileged) > 0 {
                return Target { stream, privileged };
            }
            let free = ctx.blocks.free_list(plane).iter().position(|&b| self.groups.level(b) == level);
            if let Some(i) = free {
                if ctx.blocks.open(plane, stream, privileged, &mut At(i)).is_some() {
                    return Target { stream, privileged };
                }
            }
        }
        ctx.default
    }

    fn placed(&mut self, _ctx: &mut PlaceCtx, lpn: u32, kind: WriteKind, ppn: Ppn, _stream: u32) {
        if kind != WriteKind::Host {
            return;
        }
        let level = self.groups.level(self.block_of(ppn));
        if level >= 1 {
            self.report.host_writes_by_level[level as usize - 1] += 1;
        }
        // Mismatched: the block's RBER_U may exceed what the write tolerates.
        let tolerance = if self.approximate { tolerance_of(self.wanted[lpn as usize]) } else { 0.0 };
        if tolerance > 0.0 && self.rber_u[self.block_of(ppn) as usize] as f64 >= tolerance {
            self.mismatched.insert(ppn);
            self.report.mismatched_writes += 1;
        }
    }
}

impl ReadRetry for CacheScheme {
    fn decode(&mut self, a: &Attempt) -> bool {
        let raw = self.raw_ok(a);
        if raw {
            self.report.raw_reads += 1;
            self.report.raw_above_bound += (a.rber > self.rber_u[self.block_of(a.ppn) as usize] as f64) as u64;
            self.report.raw_beyond_tolerance += (a.rber > a.tolerance) as u64;
        }
        !raw
    }

    fn retry_in_die(&mut self, a: &Attempt) -> bool {
        if !(self.cfg.direct_decode && self.approximate && a.kind == ReadKind::Host && a.tolerance > 0.0) || self.raw_ok(a) {
            return false;
        }
        let level = self.groups.level(self.block_of(a.ppn));
        let predicted = Thresholds::soft_levels(level).unwrap_or(SOFT_LEVELS);
        if a.step == 0 && predicted > 0 {
            self.report.direct_decodes += 1;
        }
        a.step < predicted
    }
}

impl EraseControl for CacheScheme {
    fn erase_plan(&mut self, ctx: &EraseCtx) -> ErasePlan {
        let mut plan = ErasePlan::single(ctx.base_ns);
        if self.cfg.reference_page_time {
            plan.push(ctx.program_ns + ctx.read_ns, 0);
        }
        plan
    }
}

impl Background for CacheScheme {
    fn period_ns(&self, _retention_scale: f64) -> Option<Time> {
        Some((self.cfg.scan_period_ms * 1e6).round() as Time)
    }

    fn probes(&mut self, ctx: &BackgroundCtx, blocks: &mut Vec<u32>) {
        if (ctx.host_idle_ns as f64) < self.cfg.scan_idle_ms * 1e6 {
            return;
        }
        let n = ctx.geo.blocks;
        for _ in 0..self.cfg.scan_blocks.min(n) {
            blocks.push(self.scan_next);
            self.scan_next = (self.scan_next + 1) % n;
        }
    }
}

impl Observer for CacheScheme {
    fn validity(&mut self, ppn: Ppn, valid: bool) {
        if !valid && !self.mismatched.is_empty() {
            self.mismatched.remove(&ppn);
        }
    }

    fn wants_probes(&self) -> bool {
        true
    }

    fn probe_page(&self) -> ProbePage {
        match self.cfg.reference_page {
            ReferencePage::Worst => ProbePage::Worst,
            ReferencePage::First => ProbePage::First,
        }
    }

    fn probed(&mut self, block: u32, rber: f64, when: Probe) {
        let b = block as usize;
        let old = self.rber_u[b] as f64;
        let new = match when {
            Probe::Start | Probe::Erased => after_gc(rber, self.cfg.delta),
            Probe::Idle => after_idle_read(rber, old, self.cfg.delta),
        };
        self.rber_u[b] = new as f32;
        let level = self.thresholds.level_of(new);
        let r = &mut self.report;
        match when {
            Probe::Start => {
                r.probes_start += 1;
                r.blocks_by_level_at_start[level as usize - 1] += 1;
            }
            Probe::Erased => r.probes_erased += 1,
            Probe::Idle => r.probes_idle += 1,
        }
        let before = self.groups.level(block);
        if before != 0 && before != level {
            r.level_moves += 1;
        }
        self.groups.place(block, level);
    }

    fn check(&self, _blocks: &BlockManager) -> Result<(), String> {
        self.groups.check()?;
        for (b, &r) in self.rber_u.iter().enumerate() {
            let level = self.groups.level(b as u32);
            if level != 0 && level != self.thresholds.level_of(r as f64) {
                return Err(format!(
                    "block {b} is in level {level} but its RBER_U {r} is of level {}",
                    self.thresholds.level_of(r as f64)
                ));
            }
        }
        Ok(())
    }
}

impl ProgramModes for CacheScheme {}
impl Cleaning for CacheScheme {}
impl FreeBlocks for CacheScheme {}
impl ReadPath for CacheScheme {}
impl RetryReference for CacheScheme {}
impl CacheTier for CacheScheme {}

impl Technique for CacheScheme {
    fn report(&self, _tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        let mut r = self.report.clone();
        r.blocks_by_level = (1..=LEVELS).map(|l| self.groups.of(l).len() as u64).collect();
        let n = self.rber_u.len().max(1) as f64;
        r.rber_u_mean = self.rber_u.iter().map(|&x| x as f64).sum::<f64>() / n;
        r.rber_u_max = self.rber_u.iter().fold(0.0f32, |m, &x| m.max(x)) as f64;
        sections.insert(report::KEY.into(), serde_json::to_value(&r).expect("report serialises"));
    }
}

fn build(ctx: &super::BuildCtx, approximate: bool) -> Result<Box<dyn Technique>> {
    let cfg: AscacheConfig = super::table_config(ctx, TABLE_NAME)?;
    let c = ctx.cfg;
    let blocks = ctx.geo.blocks;
    let report = AscacheReport {
        scheme: c.scheme.name.clone(),
        blocks_by_level_at_start: vec![0; LEVELS as usize],
        host_writes_by_level: vec![0; LEVELS as usize],
        ..Default::default()
    };
    Ok(Box::new(CacheScheme {
        approximate,
        cfg,
        thresholds: Thresholds::geometric(c.ecc.ldpc.hard_limit, c.ecc.ldpc.soft_limit),
        rber_u: vec![0.0; blocks as usize],
        groups: Groups::new(blocks),
        wanted: if approximate { vec![0; ctx.logical_pages as usize] } else { Vec::new() },
        mismatched: FxHashSet::default(),
        pages_per_block: ctx.geo.pages_per_block,
        scan_next: 0,
        report,
    }))
}

const HOOKS: &[Hook] = &[Hook::Placement, Hook::Erase, Hook::Background];
const AP_HOOKS: &[Hook] = &[Hook::Placement, Hook::ReadRetry, Hook::Erase, Hook::Background];

/// Block levels are the LDPC flow's stages, found from the RBER a physics model gives.
fn needs(c: &crate::config::Config, _table: &serde_json::Value) -> Result<()> {
    if c.physics.model == crate::physics::ModelKind::None {
        return Err(super::need(c, "physics.model", "measures blocks' RBER: choose a physics model (physics.model)"));
    }
    if c.ecc.scheme != crate::config::EccScheme::Ldpc {
        return Err(super::need(c, "ecc.scheme", "groups blocks by the stages of the LDPC flow: set ecc.scheme = \"ldpc\""));
    }
    if c.ecc.ldpc.soft_levels != SOFT_LEVELS {
        return Err(super::need(c, "ecc.ldpc.soft_levels", format!("has eight reliability levels, for an LDPC flow of {SOFT_LEVELS} soft levels (seed 002 Fig. 2a): set it to {SOFT_LEVELS}")));
    }
    Ok(())
}

pub const SSD_CACHE: SchemeInfo = SchemeInfo {
    streams: LEVELS as u32,
    needs,
    ..super::table_scheme(
        "ssd-cache",
        "seed 002's traditional SSD cache: blocks grouped by tracked RBER, writes to the most reliable level, every read decoded level by level (a failure is a read-error miss)",
        HOOKS,
        TABLE_NAME,
        &["delta", "scan_period_ms", "scan_idle_ms", "scan_blocks", "reference_page_time", "reference_page"],
        |ctx| build(ctx, false),
    )
};

pub const ASCACHE: SchemeInfo = SchemeInfo {
    streams: LEVELS as u32,
    needs,
    ..super::table_scheme(
        "ascache",
        "seed 002's ASCache: ssd-cache plus AP_WRITE by the tolerated level and AP_READ returning raw data its reader tolerates",
        AP_HOOKS,
        TABLE_NAME,
        &[
            "delta",
            "scan_period_ms",
            "scan_idle_ms",
            "scan_blocks",
            "reference_page_time",
            "reference_page",
            "write_preference",
            "direct_decode",
        ],
        |ctx| build(ctx, true),
    )
};

#[cfg(test)]
mod tests {
    use super::*;

    fn scheme(delta: f64) -> CacheScheme {
        let report =
            AscacheReport { blocks_by_level_at_start: vec![0; 8], host_writes_by_level: vec![0; 8], ..Default::default() };
        CacheScheme {
            approximate: true,
            cfg: AscacheConfig { delta, ..Default::default() },
            thresholds: Thresholds::paper(),
            rber_u: vec![0.0; 4],
            groups: Groups::new(4),
            wanted: vec![0; 32],
            mismatched: FxHashSet::default(),
            pages_per_block: 8,
            scan_next: 0,
            report,
        }
    }

    #[test]
    fn measurements_follow_eq_2_and_move_blocks_between_levels() {
        let mut s = scheme(1e-4);
        let u = |s: &CacheScheme| s.rber_u[0] as f64;
        // At the start, as at GC: the reference page's RBER plus the bias.
        s.probed(0, 2e-3, Probe::Start);
        assert!((u(&s) - 2.1e-3).abs() < 1e-9);
        assert_eq!((s.groups.level(0), s.report.level_moves), (6, 0));
        // Idle, lower: the bound only grows (max with the old bound, plus the bias).
        s.probed(0, 1e-3, Probe::Idle);
        assert!((u(&s) - 2.2e-3).abs() < 1e-9);
        assert_eq!((s.groups.level(0), s.report.level_moves), (6, 0));
        // Idle, higher: past 2.35e-3, level 5.
        s.probed(0, 3e-3, Probe::Idle);
        assert!((u(&s) - 3.1e-3).abs() < 1e-9);
        assert_eq!((s.groups.level(0), s.report.level_moves), (5, 1));
        assert_eq!(s.groups.of(5), &[0]);
        // After an erase the bound starts again from the new reference page.
        s.probed(0, 1e-4, Probe::Erased);
        assert!((u(&s) - 2e-4).abs() < 1e-9);
        assert_eq!((s.groups.level(0), s.report.level_moves), (8, 2));
        assert!(s.groups.of(5).is_empty());
        assert_eq!((s.report.probes_start, s.report.probes_idle, s.report.probes_erased), (1, 2, 1));
        s.check(&BlockManager::new(&crate::nand::Geometry::new(&crate::config::GeometryConfig::one_plane(4, 8, 1)), 8).unwrap())
            .unwrap();
    }

    fn attempt(ppn: Ppn, step: u32, tolerance: f64) -> Attempt {
        Attempt { ppn, step, rber: 0.0, kind: ReadKind::Host, reference: 0, shift: f64::NAN, decodable: true, tolerance }
    }

    #[test]
    fn an_ap_read_is_raw_below_its_tolerance_unless_mismatched_and_predicts_its_stage_otherwise() {
        let mut s = scheme(0.0);
        s.probed(1, 4e-3, Probe::Start); // level 4: four soft levels
        let ppn = 8 + 3; // page 3 of block 1
        assert!(!s.decode(&attempt(ppn, 0, 0.011)), "tolerated: raw");
        assert!(s.decode(&attempt(ppn, 0, 0.0)), "a normal READ decodes");
        assert!(s.decode(&attempt(ppn, 0, 4e-3)), "RBER_U not below the AP_BER: decoded");
        assert!(s.decode(&Attempt { kind: ReadKind::Relocation, ..attempt(ppn, 0, 0.011) }), "only host reads are approximate");
        // Decoded AP_READs sense straight to the fourth soft level inside the die.
        let steps: Vec<bool> = (0..6).map(|k| s.retry_in_die(&attempt(ppn, k, 1e-3))).collect();
        assert_eq!(steps, vec![true, true, true, true, false, false]);
        assert!(!s.retry_in_die(&attempt(ppn, 0, 0.0)), "a normal READ goes level by level");
        assert!(!s.retry_in_die(&attempt(ppn, 0, 0.011)), "a raw read is sensed once");
        s.mismatched.insert(ppn);
        assert!(s.decode(&attempt(ppn, 0, 0.011)), "mismatched: always decoded");
        s.validity(ppn, false);
        assert!(!s.decode(&attempt(ppn, 0, 0.011)), "a stale page is no longer mismatched");
    }

    #[test]
    fn an_ap_ber_is_coded_in_a_byte_never_above_itself() {
        assert_eq!((code_of(0.0), tolerance_of(0)), (0, 0.0));
        assert_eq!(code_of(1e-7), 0, "below the scale: no tolerance");
        for ap_ber in [1e-6, 1e-3, 2.35e-3, 0.011, 0.013, 0.05, 0.5] {
            let back = tolerance_of(code_of(ap_ber));
            assert!(back <= ap_ber * (1.0 + 1e-12) && back > ap_ber / 10f64.powf(1.0 / 32.0), "{ap_ber} -> {back}");
        }
        // Exact powers of ten come back as themselves.
        assert!((tolerance_of(code_of(1e-3)) - 1e-3).abs() < 1e-15);
    }
}
