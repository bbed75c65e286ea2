//! Read-disturb management (seed 003, Ch. 3-4) as schemes:
//!
//! - `read-reclaim`: the baseline. One read counter per block; at the threshold the
//!   whole block moves to a free block and is erased (Sec. 3.1).
//! - `redftl`: replicas of read-hot pages, proactive migration, then read reclaim (Ch. 3).
//! - `rrb`: read-resistant blocks only (Sec. 4.2.1, 4.3.2): reclaims write their data in
//!   slower modes whose blocks tolerate more reads.
//! - `redftl-plus`, `redftl-plusplus`: Ch. 4's redFTL+ (read-resistant blocks and pages,
//!   hotness counters, coldest-block mixing, background reclaim), and with exact counts.
//!
//! Every scheme's relocations are measured by the engine under the reason `read_reclaim`
//! (`ftl.relocations`): count, pages moved, service time and the reads that arrived
//! during one.

pub mod config;
pub mod modes;
pub mod reclaim;
pub mod replicas;
pub mod report;

use self::config::RedConfig;
use self::modes::{ReadResistant, Variant};
use self::reclaim::ReadReclaim;
use self::replicas::RedFtl;
use super::hooks::*;
use super::{SchemeInfo, TableInfo};
use crate::error::Result;

const TABLE_NAME: &str = "redftl";

pub const READ_RECLAIM: SchemeInfo = SchemeInfo {
    name: "read-reclaim",
    description:
        "seed 003's baseline read-disturb management: a read counter per block, the whole block moved at the reclaim threshold",
    hooks: &[Hook::ReadPath],
    table: Some(TABLE_NAME),
    keys: &["reclaim_threshold", "reclaim_ahead_of_reads"],
    streams: 1,
    uses_gc_policy: false,
    extra_streams: super::no_extra_streams,
    gc_reserve: super::no_extra_streams,
    needs: super::no_needs,
    build: |ctx| Ok(Box::new(ReadReclaim::new(&ctx.cfg.scheme.name, ctx.geo, &super::table_config(ctx, TABLE_NAME)?))),
};

pub const REDFTL: SchemeInfo = SchemeInfo {
    name: "redftl",
    description: "seed 003's redFTL: replicas of read-hot pages in healthy blocks, proactive migration, read reclaim",
    hooks: &[Hook::ReadPath],
    table: Some(TABLE_NAME),
    keys: &[
        "reclaim_threshold",
        "reclaim_ahead_of_reads",
        "max_read_count",
        "replica_creation",
        "migration",
        "hot_alpha",
        "max_replicas_per_block",
        "max_replica_share",
    ],
    streams: 1,
    uses_gc_policy: false,
    extra_streams: super::no_extra_streams,
    gc_reserve: super::no_extra_streams,
    needs: |cfg, _| {
        if cfg.mapping.unit_pages(cfg.geometry.page_size) != 1 {
            return Err(super::need(cfg, "mapping.unit_bytes", "replicates single pages: the mapping unit must be one page"));
        }
        Ok(())
    },
    build: |ctx| Ok(Box::new(RedFtl::new(&ctx.cfg.scheme.name, ctx.geo, &super::table_config(ctx, TABLE_NAME)?))),
};

pub const RRB: SchemeInfo = SchemeInfo {
    name: "rrb",
    description: "seed 003's read-resistant blocks: reclaims write in slower modes that tolerate more reads, counted by effective disturbance",
    hooks: &[Hook::Placement, Hook::ProgramMode, Hook::ReadPath],
    table: Some(TABLE_NAME),
    keys: &["reclaim_threshold", "reclaim_ahead_of_reads", "mode_program_time"],
    streams: modes::MODES as u32,
    uses_gc_policy: false,
    extra_streams: super::no_extra_streams,
    gc_reserve: super::no_extra_streams,
    needs: super::no_needs,
    build: |ctx| read_resistant(ctx, Variant::Rrb),
};

const PLUS_HOOKS: [Hook; 5] = [Hook::Placement, Hook::ProgramMode, Hook::ReadPath, Hook::Cleaning, Hook::Background];
const PLUS_KEYS: [&str; 6] = [
    "reclaim_threshold",
    "reclaim_ahead_of_reads",
    "max_read_count",
    "mode_program_time",
    "background_period_us",
    "background_idle_us",
];

pub const REDFTL_PLUS: SchemeInfo = SchemeInfo {
    name: "redftl-plus",
    description:
        "seed 003's redFTL+: read-resistant blocks and pages, two-level read counters, coldest-block mixing, background reclaim",
    hooks: &PLUS_HOOKS,
    table: Some(TABLE_NAME),
    keys: &PLUS_KEYS,
    streams: modes::PLUS_STREAMS,
    uses_gc_policy: false,
    extra_streams: super::no_extra_streams,
    gc_reserve: super::no_extra_streams,
    needs: super::no_needs,
    build: |ctx| read_resistant(ctx, Variant::Plus),
};

pub const REDFTL_PLUSPLUS: SchemeInfo = SchemeInfo {
    name: "redftl-plusplus",
    description: "seed 003's redFTL++: redFTL+ with an exact read count per logical page",
    hooks: &PLUS_HOOKS,
    table: Some(TABLE_NAME),
    keys: &PLUS_KEYS,
    streams: modes::PLUS_STREAMS,
    uses_gc_policy: false,
    extra_streams: super::no_extra_streams,
    gc_reserve: super::no_extra_streams,
    needs: super::no_needs,
    build: |ctx| read_resistant(ctx, Variant::PlusPlus),
};

fn read_resistant(ctx: &super::BuildCtx, variant: Variant) -> crate::error::Result<Box<dyn Technique>> {
    let cfg = super::table_config(ctx, TABLE_NAME)?;
    let d = &ctx.cfg.physics.read_disturbance;
    Ok(Box::new(ReadResistant::new(&ctx.cfg.scheme.name, variant, ctx.geo, &cfg, d, ctx.logical_pages)))
}

pub const TABLE: TableInfo = TableInfo { name: TABLE_NAME, report_key: report::KEY, resolve, memory };

/// Per block, the most any scheme of the family keeps: redFTL's read count (4), read-clock
/// state (24), flags (2) and replica count (4); the read-resistant schemes' mode (1),
/// effective disturbance (8), sampling point and flags (3).
pub const BLOCK_BYTES: u64 = 4 + 24 + 2 + 4 + 1 + 8 + 3;
/// Per logical page: `redftl-plusplus`'s exact read count (`redftl-plus` keeps one byte).
pub const LOGICAL_PAGE_BYTES: u64 = 4;
/// Per physical page at most: redFTL's read statistics of the pages of blocks read since
/// their erase (all of them, in the worst case).
pub const PAGE_READ_STAT_BYTES: u64 = 24;

/// What the schemes allocate, for the estimate made before a run: the largest of the
/// family's, whichever runs.
fn memory(logical_pages: u64, pages: u64, blocks: u64) -> Vec<crate::limits::estimate::Part> {
    use crate::limits::estimate::Part;
    vec![
        Part { name: "read-disturb block state", bytes: blocks * BLOCK_BYTES },
        Part { name: "read-disturb hotness per logical page", bytes: logical_pages * LOGICAL_PAGE_BYTES },
        Part { name: "redFTL page read statistics", bytes: pages * PAGE_READ_STAT_BYTES },
    ]
}

fn resolve(raw: &serde_json::Value, prefix: &str) -> Result<serde_json::Value> {
    super::resolve_table(raw, prefix, RedConfig::validate)
}
