//! Read-disturb management (seed 003, Ch. 3-4) as schemes:
//!
//! - `read-reclaim`: the baseline. One read counter per block; at the threshold the
//!   whole block moves to a free block and is erased (Sec. 3.1).
//! - `redftl`: replicas of read-hot pages, proactive migration, then read reclaim (Ch. 3).
//! - `rrb`: read-resistant blocks only (Sec. 4.2.1, 4.3.2): reclaims write their data in
//!   slower modes whose blocks tolerate more reads.
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
use self::reclaim::ReadReclaim;
use self::replicas::RedFtl;
use self::modes::Rrb;
use super::hooks::*;
use super::{SchemeInfo, TableInfo};
use crate::error::Result;

const TABLE_NAME: &str = "redftl";

pub const READ_RECLAIM: SchemeInfo = SchemeInfo {
    name: "read-reclaim",
    description: "seed 003's baseline read-disturb management: a read counter per block, the whole block moved at the reclaim threshold",
    hooks: &[Hook::ReadPath],
    table: Some(TABLE_NAME),
    keys: &["reclaim_threshold", "reclaim_ahead_of_reads"],
    streams: 1,
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
    ],
    streams: 1,
    build: |ctx| {
        if ctx.cfg.mapping.unit_pages(ctx.geo.page_size) != 1 {
            return Err(crate::error::Error::Config {
                key: "mapping.unit_bytes".into(),
                message: format!("scheme `{}` replicates single pages: the mapping unit must be one page", ctx.cfg.scheme.name),
            });
        }
        Ok(Box::new(RedFtl::new(&ctx.cfg.scheme.name, ctx.geo, &super::table_config(ctx, TABLE_NAME)?)))
    },
};

pub const RRB: SchemeInfo = SchemeInfo {
    name: "rrb",
    description: "seed 003's read-resistant blocks: reclaims write in slower modes that tolerate more reads, counted by effective disturbance",
    hooks: &[Hook::Placement, Hook::ProgramMode, Hook::ReadPath],
    table: Some(TABLE_NAME),
    keys: &["reclaim_threshold", "reclaim_ahead_of_reads", "mode_program_time"],
    streams: modes::MODES as u32,
    build: |ctx| {
        let cfg = super::table_config(ctx, TABLE_NAME)?;
        Ok(Box::new(Rrb::new(&ctx.cfg.scheme.name, ctx.geo, &cfg, &ctx.cfg.physics.read_disturbance)))
    },
};

pub const TABLE: TableInfo = TableInfo { name: TABLE_NAME, resolve, idle_report: report::idle };

fn resolve(raw: &serde_json::Value, prefix: &str) -> Result<serde_json::Value> {
    super::resolve_table(raw, prefix, RedConfig::validate)
}
