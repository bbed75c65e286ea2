//! Seed 001 (Bertozzi et al., ACM TECS 2015): access modes exported as storage services.
//!
//! An access mode pairs an ISPP programming algorithm with a BCH code sized, page by page,
//! for a target UBER at the page's wear when it is programmed (Sec. 4, Table IV: the flash
//! driver looks t up from the page's P/E count at each program and again at each read).
//! Three services, `standard` (1e-13), `enhanced` (1e-15) and `reduced` (1e-11), each own a
//! partition (Sec. 4.2, Fig. 12): a share of the logical pages, in that order, whose data
//! has its own write stream, so a block holds one service's pages and is programmed in its
//! algorithm. A request asks for a service by the partition it addresses (a file system
//! puts a file's data in the partition of the service it asked for).
//!
//! - `access-modes`: t adapted to each page's wear ("ISPP-X prog. t").
//! - `fixed-t`: the non-adaptive controller the paper compares with: every page's code
//!   has `fixed_t` (70: ISPP-SV's need at end of life), whatever its wear ("ISPP-SV fixed
//!   t" with the standard service's algorithm).
//!
//! A page whose mode needs more than the decoder's `ecc.bch.t_max` is encoded with that
//! largest t and misses its target; the engine counts such programs.

pub mod config;

use rustc_hash::FxHashMap;
use serde::Serialize;

use self::config::{AccessModesConfig, SERVICES};
use super::hooks::*;
use super::{SchemeInfo, TableInfo};
use crate::error::{Error, Result};
use crate::ftl::blocks::BlockManager;
use crate::ftl::mapping::Mapping;
use crate::nand::Ppn;
use crate::physics::Ispp;

const TABLE_NAME: &str = "access_modes";
const KEY: &str = "access_modes";

pub const TABLE: TableInfo = TableInfo { name: TABLE_NAME, report_key: KEY, resolve, memory };

fn resolve(raw: &serde_json::Value, prefix: &str) -> Result<serde_json::Value> {
    super::resolve_table(raw, prefix, AccessModesConfig::validate)
}

fn memory(_logical_pages: u64, pages: u64, blocks: u64) -> Vec<crate::limits::estimate::Part> {
    use crate::limits::estimate::Part;
    vec![
        Part { name: "access modes: service per block", bytes: blocks },
        // At most: every block preconditioned with pages of several services.
        Part { name: "access modes: services of preconditioned pages", bytes: pages },
    ]
}

/// One service as the report shows it.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct ServiceReport {
    pub name: String,
    pub algorithm: String,
    pub uber: f64,
    /// Its partition: first logical page and pages.
    pub first_lpn: u64,
    pub lpns: u64,
    pub host_pages_written: u64,
    pub pages_relocated: u64,
}

#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct AccessModesReport {
    pub scheme: String,
    /// `fixed-t`'s t for every page (0: adapted to wear).
    pub fixed_t: u32,
    pub services: Vec<ServiceReport>,
}

pub struct AccessModes {
    algorithms: [Ispp; 3],
    ubers: [f64; 3],
    /// `fixed-t`'s t, or `None` to adapt t to wear.
    fixed_t: Option<u32>,
    /// First logical page of each service's partition, and the end of the last.
    bounds: [u64; 4],
    /// The service whose data each block holds (one byte a block).
    block_service: Vec<u8>,
    /// Blocks holding pages of several services (preconditioned ones: the fill deals
    /// logical pages out at random; blocks of materialised pages), with each page's
    /// service, until they are erased.
    mixed: FxHashMap<u32, Box<[u8]>>,
    pages_per_block: u32,
    report: AccessModesReport,
}

impl AccessModes {
    /// The service whose partition holds logical page `lpn`.
    fn service_of(&self, lpn: u32) -> u8 {
        let lpn = lpn as u64;
        (0..2).find(|&s| lpn < self.bounds[s as usize + 1]).unwrap_or(2)
    }

    fn block_of(&self, ppn: Ppn) -> usize {
        (ppn / self.pages_per_block as Ppn) as usize
    }

    fn service_of_page(&self, ppn: Ppn) -> usize {
        let b = self.block_of(ppn);
        if !self.mixed.is_empty() {
            if let Some(pages) = self.mixed.get(&(b as u32)) {
                return pages[(ppn % self.pages_per_block as Ppn) as usize] as usize;
            }
        }
        self.block_service[b] as usize
    }
}

/// Partition boundaries for `shares` of `logical_pages`: each partition's first page, then
/// the end; the last partition takes what rounding leaves.
fn partition(shares: [f64; 3], logical_pages: u64) -> [u64; 4] {
    let mut bounds = [0u64; 4];
    let mut acc = 0.0;
    for (i, s) in shares.iter().enumerate().take(2) {
        acc += s;
        bounds[i + 1] = ((acc * logical_pages as f64).round() as u64).min(logical_pages);
    }
    bounds[3] = logical_pages;
    debug_assert!(bounds.windows(2).all(|w| w[0] <= w[1]), "partitions out of order: {bounds:?}");
    bounds
}

impl Placement for AccessModes {
    fn target(&mut self, ctx: &mut PlaceCtx, lpn: u32, kind: WriteKind, _plane: u32) -> Target {
        if kind == WriteKind::Mapping {
            return ctx.default;
        }
        Target { stream: self.service_of(lpn) as u32, privileged: ctx.default.privileged }
    }

    fn placed(&mut self, _ctx: &mut PlaceCtx, lpn: u32, kind: WriteKind, ppn: Ppn, stream: u32) {
        let b = self.block_of(ppn);
        // Translation pages share the standard service's stream.
        let service = if kind == WriteKind::Mapping { 0 } else { self.service_of(lpn) };
        debug_assert!(
            kind == WriteKind::Mapping || stream == service as u32,
            "lpn {lpn} of service {service} placed in stream {stream}"
        );
        self.block_service[b] = service;
        let s = &mut self.report.services[service as usize];
        match kind {
            WriteKind::Host => s.host_pages_written += 1,
            WriteKind::Relocation => s.pages_relocated += 1,
            WriteKind::Mapping => {}
        }
    }
}

impl ProgramModes for AccessModes {
    fn algorithm(&self, ppn: Ppn) -> Option<Ispp> {
        Some(self.algorithms[self.service_of_page(ppn)])
    }

    fn code(&self, ppn: Ppn) -> Option<CodeStrength> {
        Some(match self.fixed_t {
            Some(t) => CodeStrength::Fixed(t),
            None => CodeStrength::Uber(self.ubers[self.service_of_page(ppn)]),
        })
    }
}

impl Observer for AccessModes {
    /// Preconditioned data was programmed in its partition's mode, though the fill puts
    /// pages of every partition in one block: such a block keeps each page's service.
    fn preconditioned(&mut self, blocks: &BlockManager, map: &Mapping) {
        let ppb = self.pages_per_block as Ppn;
        // One scratch block of per-page services, kept only for blocks of several services.
        let mut pages = vec![0u8; ppb as usize];
        for b in 0..self.block_service.len() as u32 {
            let first = b as Ppn * ppb;
            pages.fill(0);
            let mut seen = 0u8; // bit per service
            for p in blocks.valid_pages(b) {
                if let Some(lpn) = map.owner(p) {
                    let s = self.service_of(lpn);
                    pages[(p - first) as usize] = s;
                    seen |= 1 << s;
                }
            }
            match seen.count_ones() {
                0 => {}
                1 => self.block_service[b as usize] = seen.trailing_zeros() as u8,
                _ => {
                    self.mixed.insert(b, pages.as_slice().into());
                }
            }
        }
    }

    /// A materialised page was written before the run in its partition's mode; its block
    /// (of the engine's own stream for such pages) holds pages of any partition.
    fn materialized(&mut self, lpn: u32, ppn: Ppn) {
        let b = self.block_of(ppn);
        let service = self.service_of(lpn);
        let ppb = self.pages_per_block as usize;
        let pages = self.mixed.entry(b as u32).or_insert_with(|| vec![0u8; ppb].into_boxed_slice());
        pages[(ppn % self.pages_per_block as Ppn) as usize] = service;
        self.block_service[b] = 0;
    }

    fn erased(&mut self, block: u32) {
        self.block_service[block as usize] = 0;
        if !self.mixed.is_empty() {
            self.mixed.remove(&block);
        }
    }

    fn check(&self, _blocks: &BlockManager) -> Result<(), String> {
        match self.mixed.keys().find(|&&b| self.block_service[b as usize] != 0) {
            Some(b) => Err(format!(
                "block {b} holds pages of several services but was given service {}",
                self.block_service[*b as usize]
            )),
            None => Ok(()),
        }
    }
}

impl Cleaning for AccessModes {}
impl FreeBlocks for AccessModes {}
impl ReadPath for AccessModes {}
impl ReadRetry for AccessModes {}
impl RetryReference for AccessModes {}
impl EraseControl for AccessModes {}
impl Background for AccessModes {}
impl CacheTier for AccessModes {}

impl Technique for AccessModes {
    fn report(&self, _tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        sections.insert(KEY.into(), serde_json::to_value(&self.report).expect("report serialises"));
    }
}

fn build(ctx: &super::BuildCtx, adaptive: bool) -> Result<Box<dyn Technique>> {
    let cfg: AccessModesConfig = super::table_config(ctx, TABLE_NAME)?;
    let c = ctx.cfg;
    let services = cfg.services();
    let bounds = partition(services.map(|s| s.share), ctx.logical_pages);
    let report = AccessModesReport {
        scheme: c.scheme.name.clone(),
        fixed_t: if adaptive { 0 } else { cfg.fixed_t },
        services: (0..3)
            .map(|i| ServiceReport {
                name: SERVICES[i].to_string(),
                algorithm: services[i].algorithm.name().to_string(),
                uber: services[i].uber,
                first_lpn: bounds[i],
                lpns: bounds[i + 1] - bounds[i],
                ..Default::default()
            })
            .collect(),
    };
    Ok(Box::new(AccessModes {
        algorithms: services.map(|s| s.algorithm),
        ubers: services.map(|s| s.uber),
        fixed_t: (!adaptive).then_some(cfg.fixed_t),
        bounds,
        block_service: vec![0; ctx.geo.blocks as usize],
        mixed: FxHashMap::default(),
        pages_per_block: ctx.geo.pages_per_block,
        report,
    }))
}

const HOOKS: &[Hook] = &[Hook::Placement, Hook::ProgramMode];
const SERVICE_KEYS: &[&str] = &["standard", "enhanced", "reduced"];

/// A stream per service.
const STREAMS: u32 = SERVICES.len() as u32;

/// Cleaning copies each page into its service's stream, so a victim holding pages of every
/// service may need a block for each before its erase gives one back: the free blocks kept
/// for cleaning are one per service.
const GC_RESERVE: fn(&serde_json::Value) -> u32 = |_| SERVICES.len() as u32;

/// A BCH decoder sizes the codes and a physics model gives the errors they correct; a
/// fixed t must be one the decoder implements.
fn needs(c: &crate::config::Config, table: &serde_json::Value) -> Result<()> {
    if c.ecc.scheme != crate::config::EccScheme::Bch {
        return Err(super::need(c, "ecc.scheme", "sizes each page's BCH code: set ecc.scheme = \"bch\""));
    }
    if c.physics.model == crate::physics::ModelKind::None {
        return Err(super::need(
            c,
            "physics.model",
            "programs pages with ISPP algorithms whose errors a physics model gives: choose one (physics.model)",
        ));
    }
    let fixed_t = table.get("fixed_t").and_then(serde_json::Value::as_u64);
    if let Some(t) = fixed_t.filter(|&t| t > c.ecc.bch.t_max as u64) {
        return Err(Error::Config {
            key: format!("scheme.{TABLE_NAME}.fixed_t"),
            message: format!("value {t} is above ecc.bch.t_max ({}), the largest t the decoder implements", c.ecc.bch.t_max),
        });
    }
    Ok(())
}

pub const ACCESS_MODES: SchemeInfo = SchemeInfo {
    streams: STREAMS,
    gc_reserve: GC_RESERVE,
    needs,
    ..super::table_scheme(
        "access-modes",
        "seed 001's access modes as storage services: standard/enhanced/reduced partitions, each an ISPP algorithm with a BCH t adapted to every page's wear for its UBER",
        HOOKS,
        TABLE_NAME,
        SERVICE_KEYS,
        |ctx| build(ctx, true),
    )
};

pub const FIXED_T: SchemeInfo = SchemeInfo {
    streams: STREAMS,
    gc_reserve: GC_RESERVE,
    needs,
    ..super::table_scheme(
        "fixed-t",
        "seed 001's non-adaptive baseline: the services' partitions and algorithms with one BCH t (fixed_t) for every page",
        HOOKS,
        TABLE_NAME,
        &["standard", "enhanced", "reduced", "fixed_t"],
        |ctx| build(ctx, false),
    )
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_follow_the_shares_in_order() {
        assert_eq!(partition([1.0, 0.0, 0.0], 1000), [0, 1000, 1000, 1000]);
        assert_eq!(partition([0.5, 0.25, 0.25], 1000), [0, 500, 750, 1000]);
        assert_eq!(partition([0.0, 0.0, 1.0], 7), [0, 0, 0, 7]);
        // Rounding: 1/3 of 10 is 3.33, 2/3 is 6.67.
        assert_eq!(partition([1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0], 10), [0, 3, 7, 10]);
    }

    fn scheme(shares: [f64; 3], fixed: Option<u32>) -> AccessModes {
        AccessModes {
            algorithms: [Ispp::Sv, Ispp::Dv, Ispp::Rv],
            ubers: [1e-13, 1e-15, 1e-11],
            fixed_t: fixed,
            bounds: partition(shares, 100),
            block_service: vec![0; 8],
            mixed: FxHashMap::default(),
            pages_per_block: 4,
            report: AccessModesReport { services: vec![ServiceReport::default(); 3], ..Default::default() },
        }
    }

    #[test]
    fn a_page_takes_its_blocks_service_algorithm_and_code() {
        let mut s = scheme([0.5, 0.25, 0.25], None);
        assert_eq!(
            [s.service_of(0), s.service_of(49), s.service_of(50), s.service_of(74), s.service_of(75), s.service_of(99)],
            [0, 0, 1, 1, 2, 2]
        );
        s.block_service[1] = 1;
        s.block_service[2] = 2;
        // Pages 4-7 are block 1 (enhanced), 8-11 block 2 (reduced).
        assert_eq!(s.algorithm(5), Some(Ispp::Dv));
        assert_eq!(s.code(5), Some(CodeStrength::Uber(1e-15)));
        assert_eq!(s.algorithm(9), Some(Ispp::Rv));
        assert_eq!(s.code(9), Some(CodeStrength::Uber(1e-11)));
        assert_eq!(s.algorithm(0), Some(Ispp::Sv));
        assert_eq!(s.code(0), Some(CodeStrength::Uber(1e-13)));
        let fixed = scheme([1.0, 0.0, 0.0], Some(70));
        assert_eq!(fixed.code(9), Some(CodeStrength::Fixed(70)));
    }
}
