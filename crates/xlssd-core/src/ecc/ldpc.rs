//! The LDPC decoding flow of seed 002 (Sec. 2 and Fig. 2a) as a model: a hard-decision
//! decode, then up to six soft-decision levels, each an extra sensing plus a decode, then
//! chip-level RAID recovery; past the last stage a read is uncorrectable.
//!
//! The text of the seed gives the end points: hard decoding takes about 8 us and corrects up
//! to an RBER of about 1e-3; each soft level takes about 80 us, and the soft range ends
//! near 1.3e-2; RAID recovery takes about 10 ms. The thresholds of the individual soft
//! levels are only in the paper's figure, so by default they are spaced evenly in log(RBER)
//! between the two end points (an assumption, documented in docs/physics.md).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LdpcConfig {
    /// Hard-decision decode latency, us (seed 002: about 8 us).
    pub hard_us: f64,
    /// Highest RBER the hard decode corrects (seed 002: about 1e-3).
    pub hard_limit: f64,
    /// Soft-decision levels (seed 002: usually six).
    pub soft_levels: u32,
    /// Latency of each soft level, us, sensing included (seed 002: about 80 us).
    pub soft_us: f64,
    /// Highest RBER the last soft level corrects (seed 002: about 1.3e-2).
    pub soft_limit: f64,
    /// Chip-level RAID recovery latency, us (seed 002: about 10 ms); 0 disables RAID.
    pub raid_us: f64,
}

impl Default for LdpcConfig {
    fn default() -> Self {
        LdpcConfig { hard_us: 8.0, hard_limit: 1e-3, soft_levels: 6, soft_us: 80.0, soft_limit: 1.3e-2, raid_us: 10_000.0 }
    }
}

/// How a read's data was recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "stage", content = "level")]
pub enum Stage {
    Hard,
    /// Soft level 1..=soft_levels.
    Soft(u32),
    Raid,
    Uncorrectable,
}

impl LdpcConfig {
    /// The RBER limit of soft level `level` (1-based), log-spaced between the hard and
    /// the last soft limit.
    pub fn soft_level_limit(&self, level: u32) -> f64 {
        let n = self.soft_levels.max(1) as f64;
        let (a, b) = (self.hard_limit.ln(), self.soft_limit.ln());
        (a + (b - a) * level as f64 / n).exp()
    }

    /// The stage that recovers data read at `rber`.
    pub fn stage_for(&self, rber: f64) -> Stage {
        if rber <= self.hard_limit {
            return Stage::Hard;
        }
        for level in 1..=self.soft_levels {
            if rber <= self.soft_level_limit(level) {
                return Stage::Soft(level);
            }
        }
        if self.raid_us > 0.0 {
            Stage::Raid
        } else {
            Stage::Uncorrectable
        }
    }

    /// Soft levels tried before `stage` succeeds (all of them when it goes past soft).
    pub fn soft_levels_tried(&self, stage: Stage) -> u32 {
        match stage {
            Stage::Hard => 0,
            Stage::Soft(l) => l,
            Stage::Raid | Stage::Uncorrectable => self.soft_levels,
        }
    }

    /// Total decode time of a stage in ns, soft levels tried one after another.
    pub fn latency_ns(&self, stage: Stage) -> u64 {
        let us = self.hard_us
            + self.soft_us * self.soft_levels_tried(stage) as f64
            + if stage == Stage::Raid { self.raid_us } else { 0.0 };
        crate::sim::round_u64(us * 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_follow_the_published_end_points() {
        let l = LdpcConfig::default();
        assert_eq!(l.stage_for(5e-4), Stage::Hard);
        assert_eq!(l.stage_for(1e-3), Stage::Hard);
        assert_eq!(l.stage_for(1.1e-3), Stage::Soft(1));
        assert_eq!(l.stage_for(1.29e-2), Stage::Soft(6));
        assert_eq!(l.stage_for(2e-2), Stage::Raid);
        assert!((l.soft_level_limit(6) - 1.3e-2).abs() < 1e-12);
        assert_eq!(LdpcConfig { raid_us: 0.0, ..l.clone() }.stage_for(2e-2), Stage::Uncorrectable);
    }

    #[test]
    fn latency_grows_by_stage() {
        let l = LdpcConfig::default();
        assert_eq!(l.latency_ns(Stage::Hard), 8_000);
        assert_eq!(l.latency_ns(Stage::Soft(1)), 88_000);
        assert_eq!(l.latency_ns(Stage::Soft(6)), 488_000);
        assert_eq!(l.latency_ns(Stage::Raid), 10_488_000);
        let mut last = 0;
        for e in 0..40 {
            let rber = 1e-4 * 10f64.powf(e as f64 / 15.0);
            let ns = l.latency_ns(l.stage_for(rber));
            assert!(ns >= last);
            last = ns;
        }
    }
}
