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
    Point { pe: 1000, mean_ms: 3.12, categories: &[(2.0, 3.0), (2.5, 40.0), (3.0, 30.0), (3.5, 11.0), (4.0, 5.0), (4.5, 4.0), (5.0, 2.0), (5.5, 2.0), (6.0, 2.0), (6.5, 1.0)] },
    Point { pe: 1500, mean_ms: 4.355, categories: &[(3.0, 8.0), (3.5, 30.0), (4.0, 22.0), (4.5, 16.0), (5.0, 7.0), (5.5, 5.0), (6.0, 3.0), (6.5, 2.0), (7.0, 2.0), (7.5, 2.0), (8.0, 3.0)] },
    Point { pe: 2000, mean_ms: 6.125, categories: &[(4.0, 3.0), (4.5, 7.0), (5.0, 18.0), (5.5, 19.0), (6.0, 17.0), (6.5, 12.0), (7.0, 8.0), (7.5, 4.0), (8.0, 3.0), (8.5, 2.0), (9.0, 2.0), (9.5, 3.0), (10.5, 2.0)] },
    Point { pe: 2500, mean_ms: 7.095, categories: &[(5.0, 4.0), (5.5, 9.0), (6.0, 23.0), (6.5, 14.0), (7.0, 13.0), (7.5, 10.0), (8.0, 7.0), (8.5, 5.0), (9.0, 4.0), (9.5, 5.0), (10.0, 3.0), (10.5, 1.0), (11.0, 1.0), (11.5, 1.0)] },
    Point { pe: 3000, mean_ms: 8.065, categories: &[(5.5, 2.0), (6.0, 7.0), (6.5, 18.0), (7.0, 16.0), (7.5, 13.0), (8.0, 9.0), (8.5, 9.0), (9.0, 5.0), (9.5, 4.0), (10.0, 3.0), (10.5, 2.0), (11.0, 3.0), (11.5, 2.0), (12.0, 2.0), (12.5, 2.0), (13.0, 2.0), (13.5, 1.0)] },
    Point { pe: 3500, mean_ms: 9.435, categories: &[(6.5, 5.0), (7.0, 12.0), (7.5, 8.0), (8.0, 5.0), (8.5, 6.0), (9.0, 15.0), (9.5, 11.0), (10.0, 8.0), (10.5, 6.0), (11.0, 6.0), (11.5, 5.0), (12.0, 3.0), (12.5, 3.0), (13.0, 2.0), (13.5, 2.0), (14.0, 1.0), (14.5, 1.0), (15.0, 1.0)] },
    Point { pe: 4000, mean_ms: 10.675, categories: &[(7.5, 2.0), (8.0, 4.0), (8.5, 8.0), (9.0, 15.0), (9.5, 12.0), (10.0, 11.0), (10.5, 9.0), (11.0, 8.0), (11.5, 5.0), (12.0, 7.0), (12.5, 3.0), (13.0, 2.0), (13.5, 3.0), (14.0, 3.0), (14.5, 2.0), (15.0, 1.0), (15.5, 2.0), (16.0, 2.0), (16.5, 1.0)] },
    Point { pe: 4500, mean_ms: 13.01, categories: &[(9.0, 2.0), (9.5, 5.0), (10.0, 5.0), (10.5, 8.0), (11.0, 8.0), (11.5, 9.0), (12.0, 6.0), (12.5, 5.0), (13.0, 4.0), (13.5, 4.0), (14.0, 8.0), (14.5, 8.0), (15.0, 8.0), (15.5, 9.0), (16.0, 5.0), (16.5, 2.0), (17.0, 2.0), (17.5, 2.0)] },
    Point { pe: 5000, mean_ms: 14.56, categories: &[(11.0, 3.0), (11.5, 2.0), (12.0, 4.0), (12.5, 7.0), (13.0, 8.0), (13.5, 6.0), (14.0, 9.0), (14.5, 11.0), (15.0, 13.0), (15.5, 11.0), (16.0, 10.0), (16.5, 9.0), (17.0, 5.0), (17.5, 2.0)] },
];
/// `aero2` of the model files, at 11 P/E points.
pub const AERO: &[Point] = &[
    Point { pe: 0, mean_ms: 2.245, categories: &[(1.5, 5.0), (2.0, 48.0), (2.5, 40.0), (3.0, 7.0)] },
    Point { pe: 500, mean_ms: 2.435, categories: &[(2.0, 42.0), (2.5, 30.0), (3.0, 27.0), (3.5, 1.0)] },
    Point { pe: 1000, mean_ms: 2.85, categories: &[(2.0, 9.0), (2.5, 38.0), (3.0, 38.0), (3.5, 8.0), (4.0, 4.0), (4.5, 2.0), (5.0, 1.0)] },
    Point { pe: 1500, mean_ms: 3.285, categories: &[(2.0, 2.0), (2.5, 23.0), (3.0, 28.0), (3.5, 25.0), (4.0, 13.0), (4.5, 5.0), (5.0, 2.0), (5.5, 2.0)] },
    Point { pe: 2000, mean_ms: 4.12, categories: &[(2.5, 8.0), (3.0, 16.0), (3.5, 20.0), (4.0, 21.0), (4.5, 13.0), (5.0, 7.0), (5.5, 4.0), (6.0, 3.0), (6.5, 3.0), (7.0, 2.0), (7.5, 2.0), (8.0, 1.0)] },
    Point { pe: 2500, mean_ms: 5.235, categories: &[(3.5, 6.0), (4.0, 17.0), (4.5, 24.0), (5.0, 16.0), (5.5, 12.0), (6.0, 5.0), (6.5, 6.0), (7.0, 3.0), (7.5, 4.0), (8.0, 2.0), (8.5, 2.0), (9.0, 2.0), (9.5, 1.0)] },
    Point { pe: 3000, mean_ms: 6.65, categories: &[(4.5, 12.0), (5.0, 13.0), (5.5, 15.0), (6.0, 12.0), (6.5, 10.0), (7.0, 7.0), (7.5, 6.0), (8.0, 5.0), (8.5, 5.0), (9.0, 4.0), (9.5, 3.0), (10.0, 3.0), (10.5, 2.0), (11.0, 1.0), (11.5, 1.0), (12.0, 1.0)] },
    Point { pe: 3500, mean_ms: 8.03, categories: &[(5.5, 11.0), (6.0, 10.0), (6.5, 10.0), (7.0, 14.0), (7.5, 10.0), (8.0, 6.0), (8.5, 6.0), (9.0, 6.0), (9.5, 7.0), (10.0, 5.0), (10.5, 4.0), (11.0, 2.0), (11.5, 3.0), (12.0, 1.0), (12.5, 2.0), (13.0, 2.0), (13.5, 1.0)] },
    Point { pe: 4000, mean_ms: 9.695, categories: &[(7.0, 8.0), (7.5, 10.0), (8.0, 10.0), (8.5, 10.0), (9.0, 11.0), (9.5, 10.0), (10.0, 8.0), (10.5, 7.0), (11.0, 5.0), (11.5, 5.0), (12.0, 3.0), (12.5, 3.0), (13.0, 2.0), (13.5, 3.0), (14.0, 1.0), (14.5, 2.0), (15.0, 1.0), (15.5, 1.0)] },
    Point { pe: 4500, mean_ms: 11.62, categories: &[(8.5, 8.0), (9.0, 6.0), (9.5, 8.0), (10.0, 10.0), (10.5, 11.0), (11.0, 10.0), (11.5, 6.0), (12.0, 6.0), (12.5, 4.0), (13.0, 5.0), (13.5, 5.0), (14.0, 5.0), (14.5, 6.0), (15.0, 3.0), (15.5, 2.0), (16.0, 2.0), (16.5, 2.0), (17.0, 1.0)] },
    Point { pe: 5000, mean_ms: 14.145, categories: &[(11.0, 3.0), (11.5, 5.0), (12.0, 6.0), (12.5, 9.0), (13.0, 9.0), (13.5, 10.0), (14.0, 10.0), (14.5, 9.0), (15.0, 11.0), (15.5, 10.0), (16.0, 7.0), (16.5, 6.0), (17.0, 3.0), (17.5, 2.0)] },
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
}
