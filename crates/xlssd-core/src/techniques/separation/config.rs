//! The keys of `[scheme.separation]`, shared by the data-separation schemes of seed 003
//! Ch. 5-6 (each uses some of them). The seed leaves most sizes open; each default says
//! where it comes from.

use serde::{Deserialize, Serialize};

use crate::config::ranges::bad;
use crate::error::Result;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SeparationConfig {
    /// HASH: counters of the multi-hash table (a choice: the size commonly used with
    /// Hsieh et al.'s framework; seed 003 gives none).
    pub hash_counters: u32,
    /// HASH: hash functions per logical page, each incrementing one counter.
    pub hash_functions: u32,
    /// HASH: a page is hot when every one of its counters is at least this (4-bit counters,
    /// hot when one of the two upper bits is set).
    pub hash_hot_threshold: u32,
    /// HASH: every counter is halved after this many page writes (the periodic decay).
    pub hash_decay_writes: u32,
    /// PDS: Algorithm 1's update threshold: a program context whose data was updated this
    /// many times gets an update group of its own (Fig. 31: best at 1 for gcc, 16 for
    /// tpc-h; 4 is a choice between them).
    pub update_threshold: u32,
    /// PDS and IDS: update groups with a stream of their own; groups past this share
    /// streams (group `g` writes to stream `g mod max_groups`). Each stream keeps an open
    /// block per plane, the cost Ch. 6.1 holds against PDS.
    pub max_groups: u32,
    /// IDS: updates in the FIFO window the update locality is measured over (W of Eq. 6.1;
    /// not given in the seed).
    pub window: u32,
    /// IDS: a program context whose data is updated more than this many times in a row
    /// becomes an update context (Sec. 6.2.2's update threshold; not given in the seed).
    pub consecutive_updates: u32,
    /// IDS: Algorithm 2's threshold_cluster_level: a context joins its root cluster's group
    /// when its original cluster was made at most this many merges after the root (the
    /// worked example of Fig. 34(d) puts PC3 into UG1 at 2, which needs "at most").
    pub cluster_level: u32,
    /// IDS: updates between two runs of the clustering (not given in the seed: once per
    /// window by default).
    pub recluster_updates: u32,
    /// ORA: buckets of next-update time, equal shares of the workload's page writes, each
    /// with a stream of its own (the seed does not say how ORA groups times).
    pub ora_buckets: u32,
    /// PDS and IDS: when update blocks are cleaned (Sec. 5.3 gives them "the lowest
    /// priority" so that their data has time to die).
    pub update_victims: UpdateVictims,
}

/// How PDS and IDS rank update blocks when choosing a victim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UpdateVictims {
    /// A dead block (no valid page) of any kind first; then the other blocks by the GC
    /// policy; update blocks only when no other block has an invalid page. The lowest
    /// priority exists to give update blocks time to die (Sec. 5.3), and the oracle's case
    /// rests on cleaning dead blocks first (Sec. 5.1.3).
    DeadFirst,
    /// Sec. 5.3 literally: update blocks only when no other block has an invalid page,
    /// even when one of them is dead.
    Last,
    /// No priority: every block ranked by the GC policy alone.
    Equal,
}

impl Default for SeparationConfig {
    fn default() -> Self {
        SeparationConfig {
            hash_counters: 4096,
            hash_functions: 2,
            hash_hot_threshold: 4,
            hash_decay_writes: 5117,
            update_threshold: 4,
            max_groups: 16,
            window: 64,
            consecutive_updates: 2,
            cluster_level: 2,
            recluster_updates: 64,
            ora_buckets: 16,
            update_victims: UpdateVictims::DeadFirst,
        }
    }
}

/// The most streams a scheme of the family may ask for (the engine offers 64 host streams).
pub const MAX_GROUPS: u32 = 48;

impl SeparationConfig {
    /// Rejects impossible values, naming the key (under `prefix`) and the range.
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let k = |name: &str| format!("{prefix}.{name}");
        let within = |name: &str, v: u32, lo: u32, hi: u32| {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(bad(&k(name), v, &format!("{lo} to {hi}")))
            }
        };
        within("hash_counters", self.hash_counters, 1, 1 << 24)?;
        within("hash_functions", self.hash_functions, 1, 8)?;
        within("hash_hot_threshold", self.hash_hot_threshold, 1, 15)?;
        within("hash_decay_writes", self.hash_decay_writes, 1, u32::MAX)?;
        within("update_threshold", self.update_threshold, 1, 1 << 20)?;
        within("max_groups", self.max_groups, 1, MAX_GROUPS)?;
        within("window", self.window, 2, 1 << 16)?;
        within("consecutive_updates", self.consecutive_updates, 0, 1 << 20)?;
        within("cluster_level", self.cluster_level, 0, 1 << 16)?;
        within("recluster_updates", self.recluster_updates, 1, u32::MAX)?;
        within("ora_buckets", self.ora_buckets, 1, MAX_GROUPS)?;
        Ok(())
    }
}
