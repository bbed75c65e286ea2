//! The keys of `[scheme.redftl]`, shared by the read-disturb schemes (each uses some of
//! them). Defaults are seed 003's TLC setup.

use serde::{Deserialize, Serialize};

use crate::config::ranges::{bad, fraction, positive_f64, show_f64};
use crate::error::Result;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedConfig {
    /// Reads of a block since its erase at which read reclaim moves it (seed 003 Table 2:
    /// 38,000, against a maximum read count of 40,000).
    pub reclaim_threshold: u32,
    /// A reclaim's operations go ahead of host reads on its die, so that the reads behind
    /// it wait for the whole block to move (seed 003 Sec. 3.2.2: all valid pages move at
    /// once, and the reads of the 326-332 ms peaks wait for them); `false` lets host reads
    /// overtake it as they overtake cleaning.
    pub reclaim_ahead_of_reads: bool,
    /// The maximum read count of a block (Sec. 3.1: about 40,000 for TLC); the replica
    /// thresholds are fractions of it.
    pub max_read_count: u32,
    /// Reads, as a fraction of `max_read_count`, at which a block's read-hot pages get
    /// replicas (Sec. 3.5: 70%).
    pub replica_creation: f64,
    /// Reads, as a fraction of `max_read_count`, at which a block's replicated pages move
    /// for good: the replicas become the mapped pages (Sec. 3.5: 90%).
    pub migration: f64,
    /// A page is read-hot when its read rate exceeds this multiple of its block's
    /// (Sec. 3.4.2: alpha = 2).
    pub hot_alpha: f64,
    /// Replicas a block may hold (Sec. 3.5, Fig. 11: 15; Fig. 12 varies it).
    pub max_replicas_per_block: u32,
    /// Replicas alive at once, as a share of the device's physical pages (an assumption:
    /// the seed bounds replicas only per block). Replicas take pages the host's data and
    /// cleaning would otherwise have, so their space is bounded device-wide too.
    pub max_replica_share: f64,
    /// Program time of a block in each read mode relative to a normal block (Table 4:
    /// +0%, +8%, +19%). The read modes' tolerance is `physics.read_disturbance.alpha`.
    pub mode_program_time: [f64; 3],
    /// How often the background reclaim of `redftl-plus` looks for blocks to reclaim, in
    /// microseconds (an assumption: the seed gives no period).
    pub background_period_us: f64,
    /// How long the host must have had no request outstanding before a background reclaim
    /// starts, in microseconds. 0 (the default) starts it at the next look whatever the
    /// host does, its operations yielding to host reads: seed 003 Sec. 4.3 has the reclaim
    /// copy the block "by a background thread" once the proactive threshold is reached, and
    /// Sec. 7.2.1 says reads still conflict with it, which a strict wait for idleness would
    /// not leave. The overview's "when there are enough idle times" is this key > 0.
    pub background_idle_us: f64,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            reclaim_threshold: 38_000,
            reclaim_ahead_of_reads: true,
            max_read_count: 40_000,
            replica_creation: 0.7,
            migration: 0.9,
            hot_alpha: 2.0,
            max_replicas_per_block: 15,
            max_replica_share: 0.01,
            mode_program_time: [1.0, 1.08, 1.19],
            background_period_us: 10_000.0,
            background_idle_us: 0.0,
        }
    }
}

impl RedConfig {
    /// Rejects impossible values, naming the key (under `prefix`) and the range.
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let k = |name: &str| format!("{prefix}.{name}");
        if self.reclaim_threshold == 0 {
            return Err(bad(&k("reclaim_threshold"), self.reclaim_threshold, "at least 1 read"));
        }
        if self.max_read_count == 0 {
            return Err(bad(&k("max_read_count"), self.max_read_count, "at least 1 read"));
        }
        fraction(&k("replica_creation"), self.replica_creation, true, false)?;
        fraction(&k("migration"), self.migration, true, false)?;
        if self.migration < self.replica_creation {
            return Err(bad(
                &k("migration"),
                show_f64(self.migration),
                &format!(
                    "at least replica_creation ({}): replicas are made before they are migrated",
                    show_f64(self.replica_creation)
                ),
            ));
        }
        positive_f64(&k("hot_alpha"), self.hot_alpha)?;
        fraction(&k("max_replica_share"), self.max_replica_share, false, false)?;
        if !(1.0..=1e9).contains(&self.background_period_us) {
            return Err(bad(&k("background_period_us"), show_f64(self.background_period_us), "1 us to 1e9 us"));
        }
        if !(0.0..=1e9).contains(&self.background_idle_us) {
            return Err(bad(&k("background_idle_us"), show_f64(self.background_idle_us), "0 us to 1e9 us"));
        }
        for (i, &f) in self.mode_program_time.iter().enumerate() {
            if !(1.0..=10.0).contains(&f) {
                return Err(bad(&format!("{}[{i}]", k("mode_program_time")), show_f64(f), "a factor from 1 to 10"));
            }
        }
        Ok(())
    }
}
