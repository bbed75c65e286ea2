//! The data-separation schemes' report section (`separation`), written for every scheme so
//! that sweeps over schemes have the same columns. Cleaning itself (victims, dead victims,
//! pages moved, die time) is in `ftl.gc` and `ftl.relocations`.

use serde::{Deserialize, Serialize};

/// Top-level report key of the section.
pub const KEY: &str = "separation";

/// What a block of a data-separation stream holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Data predicted never to be updated (PDS and IDS: contexts without a group; ORA:
    /// no later write in the workload).
    WriteOnce,
    /// An update group's data (PDS, IDS).
    Update,
    /// IDS: data updated since its context wrote it.
    HotArchive,
    /// HASH's hot and cold blocks.
    Hot,
    Cold,
    /// ORA: a bucket of next-update times.
    Bucket,
    /// A block of the engine's own streams (translation pages, say).
    Other,
}

/// A count per kind of block.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct ByKind {
    pub write_once: u64,
    pub update: u64,
    pub hot_archive: u64,
    pub hot: u64,
    pub cold: u64,
    pub bucket: u64,
    pub other: u64,
}

impl ByKind {
    pub fn add(&mut self, k: Kind, n: u64) {
        *match k {
            Kind::WriteOnce => &mut self.write_once,
            Kind::Update => &mut self.update,
            Kind::HotArchive => &mut self.hot_archive,
            Kind::Hot => &mut self.hot,
            Kind::Cold => &mut self.cold,
            Kind::Bucket => &mut self.bucket,
            Kind::Other => &mut self.other,
        } += n;
    }

    pub fn total(&self) -> u64 {
        self.write_once + self.update + self.hot_archive + self.hot + self.cold + self.bucket + self.other
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct SeparationReport {
    /// The running scheme's name.
    pub scheme: String,
    /// Host page writes of data some context had written before (updates, as the seed
    /// counts them: Table 7's Nupdate).
    pub updates: u64,
    /// Host pages written into each kind of block.
    pub host_pages: ByKind,
    /// Blocks opened for each kind of data (host writes and cleaning's copies).
    pub blocks_opened: ByKind,
    /// Share of those blocks that were IDS's hot archive blocks (Ch. 6.3: 28%).
    pub hot_archive_share: f64,
    /// GC victims of each kind, and the valid pages they held when chosen (the copies).
    pub victims: ByKind,
    pub pages_copied: ByKind,
    /// Valid pages copied per victim for each kind (Fig. 37: hot archive blocks against
    /// the rest); 0 for a kind never chosen.
    pub copies_per_victim: ByKindRatio,
    /// Valid share of the victims when chosen: 1 - the seed's separation quality (how
    /// much of a block's data was updated before it was cleaned).
    pub victim_valid_share: f64,
    /// PDS: program contexts in the table and those in an update group; IDS: update
    /// contexts.
    pub contexts: u64,
    pub update_contexts: u64,
    /// Update groups made (PDS, IDS).
    pub update_groups: u64,
    /// IDS: runs of the clustering.
    pub reclusterings: u64,
    /// ORA: page writes the oracle read from the workload.
    pub oracle_page_writes: u64,
}

/// A ratio per kind of block.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct ByKindRatio {
    pub write_once: f64,
    pub update: f64,
    pub hot_archive: f64,
    pub hot: f64,
    pub cold: f64,
    pub bucket: f64,
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        (a as f64 / b as f64 * 1e6).round() / 1e6
    }
}

impl SeparationReport {
    /// Fills the derived figures.
    pub fn finish(&mut self, pages_per_block: u32) {
        self.hot_archive_share = ratio(self.blocks_opened.hot_archive, self.blocks_opened.total());
        let (c, v) = (&self.pages_copied, &self.victims);
        self.copies_per_victim = ByKindRatio {
            write_once: ratio(c.write_once, v.write_once),
            update: ratio(c.update, v.update),
            hot_archive: ratio(c.hot_archive, v.hot_archive),
            hot: ratio(c.hot, v.hot),
            cold: ratio(c.cold, v.cold),
            bucket: ratio(c.bucket, v.bucket),
        };
        self.victim_valid_share = ratio(c.total(), v.total() * pages_per_block as u64);
    }
}

/// The section of a finished run's report.
pub fn of(report: &crate::report::Report) -> SeparationReport {
    report.techniques.get(KEY).and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default()
}
