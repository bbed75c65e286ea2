//! How long each block's erase takes, from the per-block erase-latency distributions that
//! the AERO authors' public simulator ships (the MQSim fork allencho1222/MQSim, its block
//! model files): for each erase algorithm and P/E point, the share of blocks whose erase
//! takes each total time. Baseline ISPE, i-ISPE and DPES erase in 3.5 ms loops (pulse and verify);
//! AERO_CONS and AERO start with a 1 ms shallow erase, finish the first loop with 2.5 ms,
//! then go on in 3.5 ms loops, the last cut to the 0.5 ms-granular remainder.
//!
//! A block keeps its place in the distribution (a quantile fixed by hashing the block), so
//! a slow block stays slow as it wears; at each erase its total time is read from the
//! table point nearest its wear (the simulator chose a file per P/E point the same way).

use serde::{Deserialize, Serialize};

use crate::config::ranges::bad;
use crate::error::Result;

/// One P/E point of an algorithm's table: total erase times (ms) and the percentage of
/// blocks that take each.
#[derive(Debug, Clone, Copy)]
pub struct Point {
    pub pe: u32,
    /// The model file's nominal mean (ms), which the categories must give.
    pub mean_ms: f64,
    pub categories: &'static [(f64, f64)],
}

/// The erase algorithms the model files give distributions for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EraseAlgorithm {
    /// Conventional incremental-step pulse erasure (the files' `base`).
    Ispe,
    /// i-ISPE (`iispe`): 0.5K, 2.5K and 4.5K only.
    Iispe,
    /// DPES (`dpes`): 0.5K, 2.5K and 4.5K only.
    Dpes,
    /// AERO_CONS (`aero`): FELP without the ECC margin.
    AeroCons,
    /// AERO (`aero2`): FELP with the ECC margin.
    Aero,
}

/// A conventional erase loop: pulse and verify (seed 004: tEP = 3.5 ms).
pub const LOOP_MS: f64 = 3.5;
/// AERO's shallow first erase.
pub const SHALLOW_MS: f64 = 1.0;

impl EraseAlgorithm {
    pub fn table(self) -> &'static [Point] {
        match self {
            EraseAlgorithm::Ispe => ISPE,
            EraseAlgorithm::Iispe => IISPE,
            EraseAlgorithm::Dpes => DPES,
            EraseAlgorithm::AeroCons => AERO_CONS,
            EraseAlgorithm::Aero => AERO,
        }
    }

    /// Whether the algorithm starts with AERO's shallow erase.
    pub fn shallow_first(self) -> bool {
        matches!(self, EraseAlgorithm::AeroCons | EraseAlgorithm::Aero)
    }

    /// Voltage step of loop `i` (from 0) of an erase: ISPE raises it every loop; AERO's
    /// shallow erase and the rest of its first loop are one loop's pulse, split.
    pub fn level(self, i: usize) -> u8 {
        let i = if self.shallow_first() { i.saturating_sub(1) } else { i };
        i.min(u8::MAX as usize) as u8
    }

    /// Its name in the model files.
    pub fn file_prefix(self) -> &'static str {
        match self {
            EraseAlgorithm::Ispe => "base",
            EraseAlgorithm::Iispe => "iispe",
            EraseAlgorithm::Dpes => "dpes",
            EraseAlgorithm::AeroCons => "aero",
            EraseAlgorithm::Aero => "aero2",
        }
    }

    /// The table point nearest `pe` (the lower one on a tie).
    pub fn point(self, pe: f64) -> &'static Point {
        let table = self.table();
        let mut best = &table[0];
        for p in table {
            if (p.pe as f64 - pe).abs() < (best.pe as f64 - pe).abs() {
                best = p;
            }
        }
        best
    }

    /// Total erase time (ms) of a block at quantile `u` in [0, 1) of the distribution at
    /// `pe` cycles.
    pub fn total_ms(self, pe: f64, u: f64) -> f64 {
        let cats = self.point(pe).categories;
        let mut below = 0.0;
        for &(ms, pct) in cats {
            below += pct / 100.0;
            if u < below {
                return ms;
            }
        }
        cats[cats.len() - 1].0
    }

    /// The loops (ms each) an erase of `total_ms` runs, in order.
    pub fn loops_ms(self, total_ms: f64) -> Vec<f64> {
        let mut left = total_ms;
        let mut out = Vec::new();
        if self.shallow_first() {
            for first in [SHALLOW_MS, LOOP_MS - SHALLOW_MS] {
                if left > 1e-9 {
                    out.push(first.min(left));
                    left -= first.min(left);
                }
            }
        }
        while left > 1e-9 {
            out.push(LOOP_MS.min(left));
            left -= LOOP_MS.min(left);
        }
        out
    }
}

/// AERO's FELP step: erase pulses are chosen in multiples of 0.5 ms (every total of the
/// model files is one).
pub const STEP_MS: f64 = 0.5;
/// Fail bits a verify read counts per 0.5 ms of erase still needed. The characterised
/// fail-bit-to-latency table (AERO's EPT) is not public; the scale is illustrative, only
/// its monotony matters to FELP.
pub const FAIL_BITS_PER_STEP: u32 = 256;

/// Fail bits the verify read after a loop reports when `remaining_ms` of erase are still
/// needed: none once the block is erased.
pub fn fail_bits(remaining_ms: f64) -> u32 {
    (remaining_ms / STEP_MS).round().max(0.0) as u32 * FAIL_BITS_PER_STEP
}

/// FELP: the erase time (ms) a fail-bit count says is still needed, in whole 0.5 ms steps.
pub fn felp_remaining_ms(fail_bits: u32) -> f64 {
    fail_bits.div_ceil(FAIL_BITS_PER_STEP) as f64 * STEP_MS
}

/// Erase stress and the lifetime it allows (`physics.erase`). A pulse stresses the cells
/// by its time times its voltage; ISPE raises the voltage by one step per loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EraseStressConfig {
    /// Voltage of the first erase pulse (V). AERO (ASPLOS '24, Sec. 1): "> 20 V".
    pub start_v: f64,
    /// Voltage added per further ISPE loop (V); an assumption (not given), shown across a
    /// range in the AERO reproduction.
    pub step_v: f64,
    /// P/E cycles a block endures under conventional ISPE: the erase stress it takes by
    /// then is the budget every algorithm's lifetime is measured against (assumed: the
    /// end of the AERO authors' characterised range).
    pub rated_pe: f64,
}

impl Default for EraseStressConfig {
    fn default() -> Self {
        EraseStressConfig { start_v: 20.0, step_v: 0.5, rated_pe: 5_000.0 }
    }
}

impl EraseStressConfig {
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let k = |name: &str| format!("{prefix}.{name}");
        for (name, v, lo, hi) in
            [("start_v", self.start_v, 1e-3, 100.0), ("step_v", self.step_v, 0.0, 10.0), ("rated_pe", self.rated_pe, 1.0, 1e6)]
        {
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return Err(bad(&k(name), v, &format!("a number in [{lo}, {hi}]")));
            }
        }
        Ok(())
    }

    /// Stress (V x ms) of a pulse of `ms` at voltage step `level`.
    pub fn pulse_stress(&self, ms: f64, level: u8) -> f64 {
        ms * (self.start_v + level as f64 * self.step_v)
    }

    /// Stress of one erase of `total_ms` under `alg`.
    pub fn erase_stress(&self, alg: EraseAlgorithm, total_ms: f64) -> f64 {
        alg.loops_ms(total_ms).iter().enumerate().map(|(i, &ms)| self.pulse_stress(ms, alg.level(i))).sum()
    }

    /// Mean stress of an erase under `alg` at `pe` cycles: the blocks' distribution at the
    /// table points around `pe`, interpolated linearly, held beyond the first and last.
    pub fn mean_stress(&self, alg: EraseAlgorithm, pe: f64) -> f64 {
        let at = |p: &Point| p.categories.iter().map(|&(ms, pct)| pct / 100.0 * self.erase_stress(alg, ms)).sum::<f64>();
        let table = alg.table();
        let first = &table[0];
        if pe <= first.pe as f64 {
            return at(first);
        }
        for w in table.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if pe <= b.pe as f64 {
                let f = (pe - a.pe as f64) / (b.pe - a.pe) as f64;
                return at(a) + f * (at(b) - at(a));
            }
        }
        at(&table[table.len() - 1])
    }

    /// Stress a block takes over its first `pe` cycles under `alg`.
    pub fn cumulative_stress(&self, alg: EraseAlgorithm, pe: f64) -> f64 {
        // Midpoint sums over 10-cycle slices: the tables move every 500 cycles.
        let slices = (pe / LIFETIME_SLICE).ceil() as u64;
        (0..slices)
            .map(|i| {
                let lo = i as f64 * LIFETIME_SLICE;
                let width = (pe - lo).min(LIFETIME_SLICE);
                width * self.mean_stress(alg, lo + width / 2.0)
            })
            .sum()
    }

    /// Lifetime (P/E cycles) of a block erased by `alg`: the cycles after which it has
    /// taken the stress ISPE gives over `rated_pe` cycles (at most 20 x `rated_pe`).
    pub fn lifetime_pe(&self, alg: EraseAlgorithm) -> f64 {
        let budget = self.cumulative_stress(EraseAlgorithm::Ispe, self.rated_pe);
        let (mut pe, mut taken) = (0.0, 0.0);
        while pe < 20.0 * self.rated_pe {
            let step = self.mean_stress(alg, pe + LIFETIME_SLICE / 2.0) * LIFETIME_SLICE;
            if taken + step >= budget {
                return pe + LIFETIME_SLICE * (budget - taken) / step;
            }
            taken += step;
            pe += LIFETIME_SLICE;
        }
        pe
    }
}

/// Width (cycles) of the slices lifetime sums are taken over.
const LIFETIME_SLICE: f64 = 10.0;

// The model files' distributions, entered as (total ms, % of blocks): `base`, `aero` and
// `aero2` at 0 to 5K cycles, `iispe` and `dpes` at 0.5K, 2.5K and 4.5K.
/// `base` of the model files, at 11 P/E points.
pub const ISPE: &[Point] = &[
    Point { pe: 0, mean_ms: 3.5, categories: &[(3.5, 100.0)] },
    Point { pe: 500, mean_ms: 3.78, categories: &[(3.5, 92.0), (7.0, 8.0)] },
    Point { pe: 1000, mean_ms: 4.497, categories: &[(3.5, 76.5), (7.0, 18.5), (10.5, 5.0)] },
    Point { pe: 1500, mean_ms: 7.175, categories: &[(3.5, 16.0), (7.0, 63.0), (10.5, 21.0)] },
    Point { pe: 2000, mean_ms: 8.75, categories: &[(7.0, 56.0), (10.5, 38.0), (14.0, 6.0)] },
    Point { pe: 2500, mean_ms: 9.765, categories: &[(7.0, 36.0), (10.5, 49.0), (14.0, 15.0)] },
    Point { pe: 3000, mean_ms: 10.955, categories: &[(7.0, 25.0), (10.5, 45.0), (14.0, 22.0), (17.5, 8.0)] },
    Point { pe: 3500, mean_ms: 12.67, categories: &[(7.0, 8.0), (10.5, 37.0), (14.0, 40.0), (17.5, 15.0)] },
    Point { pe: 4000, mean_ms: 14.245, categories: &[(10.5, 24.0), (14.0, 45.0), (17.5, 31.0)] },
    Point { pe: 4500, mean_ms: 15.61, categories: &[(10.5, 8.0), (14.0, 38.0), (17.5, 54.0)] },
    Point { pe: 5000, mean_ms: 16.765, categories: &[(14.0, 21.0), (17.5, 79.0)] },
];
/// `iispe` of the model files, at 3 P/E points.
pub const IISPE: &[Point] = &[
    Point { pe: 500, mean_ms: 3.745, categories: &[(3.5, 93.0), (7.0, 7.0)] },
    Point { pe: 2500, mean_ms: 6.895, categories: &[(3.5, 6.0), (7.0, 91.0), (10.5, 3.0)] },
    Point { pe: 4500, mean_ms: 15.61, categories: &[(10.5, 8.0), (14.0, 38.0), (17.5, 54.0)] },
];
/// `dpes` of the model files, at 3 P/E points.
pub const DPES: &[Point] = &[
    Point { pe: 500, mean_ms: 3.745, categories: &[(3.5, 93.0), (7.0, 7.0)] },
    Point { pe: 2500, mean_ms: 9.87, categories: &[(7.0, 34.0), (10.5, 50.0), (14.0, 16.0)] },
    Point { pe: 4500, mean_ms: 14.385, categories: &[(10.5, 19.0), (14.0, 51.0), (17.5, 30.0)] },
];
/// `aero` of the model files, at 11 P/E points.
pub const AERO_CONS: &[Point] = &[
    Point { pe: 0, mean_ms: 2.52, categories: &[(2.0, 32.0), (2.5, 38.0), (3.0, 24.0), (3.5, 6.0)] },
    Point { pe: 500, mean_ms: 2.66, categories: &[(2.0, 13.0), (2.5, 58.0), (3.0, 19.0), (3.5, 6.0), (4.0, 2.0), (4.5, 2.0)] },
    Point {
        pe: 1000,
        mean_ms: 3.12,
        categories: &[
            (2.0, 3.0),
            (2.5, 40.0),
            (3.0, 30.0),
            (3.5, 11.0),
            (4.0, 5.0),
            (4.5, 4.0),
            (5.0, 2.0),
            (5.5, 2.0),
            (6.0, 2.0),
            (6.5, 1.0),
        ],
    },
    Point {
        pe: 1500,
        mean_ms: 4.355,
        categories: &[
            (3.0, 8.0),
            (3.5, 30.0),
            (4.0, 22.0),
            (4.5, 16.0),
            (5.0, 7.0),
            (5.5, 5.0),
            (6.0, 3.0),
            (6.5, 2.0),
            (7.0, 2.0),
            (7.5, 2.0),
            (8.0, 3.0),
        ],
    },
    Point {
        pe: 2000,
        mean_ms: 6.125,
        categories: &[
            (4.0, 3.0),
            (4.5, 7.0),
            (5.0, 18.0),
            (5.5, 19.0),
            (6.0, 17.0),
            (6.5, 12.0),
            (7.0, 8.0),
            (7.5, 4.0),
            (8.0, 3.0),
            (8.5, 2.0),
            (9.0, 2.0),
            (9.5, 3.0),
            (10.5, 2.0),
        ],
    },
    Point {
        pe: 2500,
        mean_ms: 7.095,
        categories: &[
            (5.0, 4.0),
            (5.5, 9.0),
            (6.0, 23.0),
            (6.5, 14.0),
            (7.0, 13.0),
            (7.5, 10.0),
            (8.0, 7.0),
            (8.5, 5.0),
            (9.0, 4.0),
            (9.5, 5.0),
            (10.0, 3.0),
            (10.5, 1.0),
            (11.0, 1.0),
            (11.5, 1.0),
        ],
    },
    Point {
        pe: 3000,
        mean_ms: 8.065,
        categories: &[
            (5.5, 2.0),
            (6.0, 7.0),
            (6.5, 18.0),
            (7.0, 16.0),
            (7.5, 13.0),
            (8.0, 9.0),
            (8.5, 9.0),
            (9.0, 5.0),
            (9.5, 4.0),
            (10.0, 3.0),
            (10.5, 2.0),
            (11.0, 3.0),
            (11.5, 2.0),
            (12.0, 2.0),
            (12.5, 2.0),
            (13.0, 2.0),
            (13.5, 1.0),
        ],
    },
    Point {
        pe: 3500,
        mean_ms: 9.435,
        categories: &[
            (6.5, 5.0),
            (7.0, 12.0),
            (7.5, 8.0),
            (8.0, 5.0),
            (8.5, 6.0),
            (9.0, 15.0),
            (9.5, 11.0),
            (10.0, 8.0),
            (10.5, 6.0),
            (11.0, 6.0),
            (11.5, 5.0),
            (12.0, 3.0),
            (12.5, 3.0),
            (13.0, 2.0),
            (13.5, 2.0),
            (14.0, 1.0),
            (14.5, 1.0),
            (15.0, 1.0),
        ],
    },
    Point {
        pe: 4000,
        mean_ms: 10.675,
        categories: &[
            (7.5, 2.0),
            (8.0, 4.0),
            (8.5, 8.0),
            (9.0, 15.0),
            (9.5, 12.0),
            (10.0, 11.0),
            (10.5, 9.0),
            (11.0, 8.0),
            (11.5, 5.0),
            (12.0, 7.0),
            (12.5, 3.0),
            (13.0, 2.0),
            (13.5, 3.0),
            (14.0, 3.0),
            (14.5, 2.0),
            (15.0, 1.0),
            (15.5, 2.0),
            (16.0, 2.0),
            (16.5, 1.0),
        ],
    },
    Point {
        pe: 4500,
        mean_ms: 13.01,
        categories: &[
            (9.0, 2.0),
            (9.5, 5.0),
            (10.0, 5.0),
            (10.5, 8.0),
            (11.0, 8.0),
            (11.5, 9.0),
            (12.0, 6.0),
            (12.5, 5.0),
            (13.0, 4.0),
            (13.5, 4.0),
            (14.0, 8.0),
            (14.5, 8.0),
            (15.0, 8.0),
            (15.5, 9.0),
            (16.0, 5.0),
            (16.5, 2.0),
            (17.0, 2.0),
            (17.5, 2.0),
        ],
    },
    Point {
        pe: 5000,
        mean_ms: 14.56,
        categories: &[
            (11.0, 3.0),
            (11.5, 2.0),
            (12.0, 4.0),
            (12.5, 7.0),
            (13.0, 8.0),
            (13.5, 6.0),
            (14.0, 9.0),
            (14.5, 11.0),
            (15.0, 13.0),
            (15.5, 11.0),
            (16.0, 10.0),
            (16.5, 9.0),
            (17.0, 5.0),
            (17.5, 2.0),
        ],
    },
];
/// `aero2` of the model files, at 11 P/E points.
pub const AERO: &[Point] = &[
    Point { pe: 0, mean_ms: 2.245, categories: &[(1.5, 5.0), (2.0, 48.0), (2.5, 40.0), (3.0, 7.0)] },
    Point { pe: 500, mean_ms: 2.435, categories: &[(2.0, 42.0), (2.5, 30.0), (3.0, 27.0), (3.5, 1.0)] },
    Point {
        pe: 1000,
        mean_ms: 2.85,
        categories: &[(2.0, 9.0), (2.5, 38.0), (3.0, 38.0), (3.5, 8.0), (4.0, 4.0), (4.5, 2.0), (5.0, 1.0)],
    },
    Point {
        pe: 1500,
        mean_ms: 3.285,
        categories: &[(2.0, 2.0), (2.5, 23.0), (3.0, 28.0), (3.5, 25.0), (4.0, 13.0), (4.5, 5.0), (5.0, 2.0), (5.5, 2.0)],
    },
    Point {
        pe: 2000,
        mean_ms: 4.12,
        categories: &[
            (2.5, 8.0),
            (3.0, 16.0),
            (3.5, 20.0),
            (4.0, 21.0),
            (4.5, 13.0),
            (5.0, 7.0),
            (5.5, 4.0),
            (6.0, 3.0),
            (6.5, 3.0),
            (7.0, 2.0),
            (7.5, 2.0),
            (8.0, 1.0),
        ],
    },
    Point {
        pe: 2500,
        mean_ms: 5.235,
        categories: &[
            (3.5, 6.0),
            (4.0, 17.0),
            (4.5, 24.0),
            (5.0, 16.0),
            (5.5, 12.0),
            (6.0, 5.0),
            (6.5, 6.0),
            (7.0, 3.0),
            (7.5, 4.0),
            (8.0, 2.0),
            (8.5, 2.0),
            (9.0, 2.0),
            (9.5, 1.0),
        ],
    },
    Point {
        pe: 3000,
        mean_ms: 6.65,
        categories: &[
            (4.5, 12.0),
            (5.0, 13.0),
            (5.5, 15.0),
            (6.0, 12.0),
            (6.5, 10.0),
            (7.0, 7.0),
            (7.5, 6.0),
            (8.0, 5.0),
            (8.5, 5.0),
            (9.0, 4.0),
            (9.5, 3.0),
            (10.0, 3.0),
            (10.5, 2.0),
            (11.0, 1.0),
            (11.5, 1.0),
            (12.0, 1.0),
        ],
    },
    Point {
        pe: 3500,
        mean_ms: 8.03,
        categories: &[
            (5.5, 11.0),
            (6.0, 10.0),
            (6.5, 10.0),
            (7.0, 14.0),
            (7.5, 10.0),
            (8.0, 6.0),
            (8.5, 6.0),
            (9.0, 6.0),
            (9.5, 7.0),
            (10.0, 5.0),
            (10.5, 4.0),
            (11.0, 2.0),
            (11.5, 3.0),
            (12.0, 1.0),
            (12.5, 2.0),
            (13.0, 2.0),
            (13.5, 1.0),
        ],
    },
    Point {
        pe: 4000,
        mean_ms: 9.695,
        categories: &[
            (7.0, 8.0),
            (7.5, 10.0),
            (8.0, 10.0),
            (8.5, 10.0),
            (9.0, 11.0),
            (9.5, 10.0),
            (10.0, 8.0),
            (10.5, 7.0),
            (11.0, 5.0),
            (11.5, 5.0),
            (12.0, 3.0),
            (12.5, 3.0),
            (13.0, 2.0),
            (13.5, 3.0),
            (14.0, 1.0),
            (14.5, 2.0),
            (15.0, 1.0),
            (15.5, 1.0),
        ],
    },
    Point {
        pe: 4500,
        mean_ms: 11.62,
        categories: &[
            (8.5, 8.0),
            (9.0, 6.0),
            (9.5, 8.0),
            (10.0, 10.0),
            (10.5, 11.0),
            (11.0, 10.0),
            (11.5, 6.0),
            (12.0, 6.0),
            (12.5, 4.0),
            (13.0, 5.0),
            (13.5, 5.0),
            (14.0, 5.0),
            (14.5, 6.0),
            (15.0, 3.0),
            (15.5, 2.0),
            (16.0, 2.0),
            (16.5, 2.0),
            (17.0, 1.0),
        ],
    },
    Point {
        pe: 5000,
        mean_ms: 14.145,
        categories: &[
            (11.0, 3.0),
            (11.5, 5.0),
            (12.0, 6.0),
            (12.5, 9.0),
            (13.0, 9.0),
            (13.5, 10.0),
            (14.0, 10.0),
            (14.5, 9.0),
            (15.0, 11.0),
            (15.5, 10.0),
            (16.0, 7.0),
            (16.5, 6.0),
            (17.0, 3.0),
            (17.5, 2.0),
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [EraseAlgorithm; 5] =
        [EraseAlgorithm::Ispe, EraseAlgorithm::Iispe, EraseAlgorithm::Dpes, EraseAlgorithm::AeroCons, EraseAlgorithm::Aero];

    #[test]
    fn every_point_sums_to_all_blocks_and_gives_its_files_mean() {
        for alg in ALL {
            for p in alg.table() {
                let share: f64 = p.categories.iter().map(|c| c.1).sum();
                let mean: f64 = p.categories.iter().map(|c| c.0 * c.1 / 100.0).sum();
                assert!((share - 100.0).abs() < 1e-9, "{alg:?} at {}: {share}%", p.pe);
                // The files' means are rounded to the thousandth.
                assert!((mean - p.mean_ms).abs() <= 5e-4 + 1e-9, "{alg:?} at {}: {mean} against {}", p.pe, p.mean_ms);
            }
        }
        // Spot checks: baseline at 2.5K, 36% 7 ms, 49% 10.5, 15% 14.
        let p = EraseAlgorithm::Ispe.point(2_500.0);
        assert_eq!(p.categories, &[(7.0, 36.0), (10.5, 49.0), (14.0, 15.0)]);
        assert_eq!(EraseAlgorithm::Aero.point(4_500.0).mean_ms, 11.62);
    }

    #[test]
    fn the_nearest_point_and_the_quantile_choose_a_blocks_time() {
        assert_eq!(EraseAlgorithm::Ispe.point(2_600.0).pe, 2_500);
        assert_eq!(EraseAlgorithm::Ispe.point(2_750.0).pe, 2_500); // a tie takes the lower
        assert_eq!(EraseAlgorithm::Iispe.point(1_250.0).pe, 500);
        assert_eq!(EraseAlgorithm::Dpes.point(9_000.0).pe, 4_500);
        // Baseline at 0.5K: 92% of blocks 3.5 ms, 8% 7 ms.
        let t = |u| EraseAlgorithm::Ispe.total_ms(500.0, u);
        assert_eq!((t(0.0), t(0.9199), t(0.92), t(0.9999)), (3.5, 3.5, 7.0, 7.0));
        // A block keeps its quantile: slower at 4.5K than at 0.5K.
        assert_eq!(EraseAlgorithm::Ispe.total_ms(4_500.0, 0.9999), 17.5);
    }

    #[test]
    fn loops_follow_each_algorithms_slots() {
        assert_eq!(EraseAlgorithm::Ispe.loops_ms(10.5), vec![3.5, 3.5, 3.5]);
        assert_eq!(EraseAlgorithm::Dpes.loops_ms(3.5), vec![3.5]);
        assert_eq!(EraseAlgorithm::Aero.loops_ms(1.5), vec![1.0, 0.5]);
        assert_eq!(EraseAlgorithm::Aero.loops_ms(6.5), vec![1.0, 2.5, 3.0]);
        assert_eq!(EraseAlgorithm::AeroCons.loops_ms(13.5), vec![1.0, 2.5, 3.5, 3.5, 3.0]);
        for alg in ALL {
            for p in alg.table() {
                for &(ms, _) in p.categories {
                    let loops = alg.loops_ms(ms);
                    assert!((loops.iter().sum::<f64>() - ms).abs() < 1e-9, "{alg:?} {ms}");
                    assert!(loops.iter().all(|&l| l > 0.0 && l <= LOOP_MS));
                }
            }
        }
    }

    #[test]
    fn fail_bits_tell_felp_the_remaining_erase() {
        assert_eq!(fail_bits(0.0), 0);
        for steps in 0..40 {
            let ms = steps as f64 * STEP_MS;
            assert_eq!(felp_remaining_ms(fail_bits(ms)), ms);
        }
        // More erase left, more fail bits; a partial step counts as a whole one.
        assert!(fail_bits(2.5) > fail_bits(2.0));
        assert_eq!(felp_remaining_ms(1), STEP_MS);
    }

    #[test]
    fn stress_is_pulse_time_times_voltage() {
        let c = EraseStressConfig { start_v: 20.0, step_v: 1.0, rated_pe: 5_000.0 };
        // ISPE 10.5 ms: 3.5 ms at 20, 21 and 22 V.
        assert!((c.erase_stress(EraseAlgorithm::Ispe, 10.5) - 3.5 * (20.0 + 21.0 + 22.0)).abs() < 1e-9);
        // AERO 6.5 ms: 1 ms and 2.5 ms at 20 V (one split loop), then 3 ms at 21 V.
        assert!((c.erase_stress(EraseAlgorithm::Aero, 6.5) - (3.5 * 20.0 + 3.0 * 21.0)).abs() < 1e-9);
        // Mean stress at a table point is the distribution's; between points, linear.
        let base_05k = 0.92 * 3.5 * 20.0 + 0.08 * 3.5 * (20.0 + 21.0);
        assert!((c.mean_stress(EraseAlgorithm::Ispe, 500.0) - base_05k).abs() < 1e-9);
        let mid = (c.mean_stress(EraseAlgorithm::Ispe, 500.0) + c.mean_stress(EraseAlgorithm::Ispe, 1000.0)) / 2.0;
        assert!((c.mean_stress(EraseAlgorithm::Ispe, 750.0) - mid).abs() < 1e-9);
    }

    #[test]
    fn lifetime_spends_the_stress_ispe_takes_over_its_rated_cycles() {
        // Flat voltage: stress is erase time. ISPE's cumulative stress over 0..500 cycles
        // (its 0 and 0.5K points, linear between): 500 x (3.5 + 3.78) / 2 ms x 20 V.
        let flat = EraseStressConfig { start_v: 20.0, step_v: 0.0, rated_pe: 500.0 };
        let want = 500.0 * (3.5 + 3.78) / 2.0 * 20.0;
        assert!((flat.cumulative_stress(EraseAlgorithm::Ispe, 500.0) - want).abs() < 1e-6 * want);
        assert!((flat.lifetime_pe(EraseAlgorithm::Ispe) - 500.0).abs() < 1e-6);
        // AERO at 0..0.5K takes (2.245 + 2.435)/2 on average: it spends the same budget
        // later; below 1K its mean rises linearly too, so solve on the next segment.
        let aero = flat.lifetime_pe(EraseAlgorithm::Aero);
        let budget = want / 20.0;
        let used_to_500 = 500.0 * (2.245 + 2.435) / 2.0;
        // Within 500..1000 the mean is 2.435 + (x - 500) x (2.85 - 2.435) / 500.
        let (a, k) = (2.435, (2.85 - 2.435) / 500.0);
        let rest = budget - used_to_500;
        let x = (-a + (a * a + 2.0 * k * rest).sqrt()) / k;
        assert!((aero - (500.0 + x)).abs() < 1.0, "{aero} against {}", 500.0 + x);
        // Every algorithm that erases less lives longer than ISPE at the default.
        let d = EraseStressConfig::default();
        let base = d.lifetime_pe(EraseAlgorithm::Ispe);
        assert!((base - 5_000.0).abs() < 1e-6);
        assert!(d.lifetime_pe(EraseAlgorithm::Aero) > d.lifetime_pe(EraseAlgorithm::AeroCons));
        assert!(d.lifetime_pe(EraseAlgorithm::AeroCons) > base);
    }
}
