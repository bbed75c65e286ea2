//! Seed 002 (ASCache, DAC 2019) Sec. 3: blocks grouped into eight reliability levels by a
//! pessimistic per-block RBER (RBER_U), tracked with one reference page per block.
//!
//! - **Thresholds** (Fig. 2a): LDPC hard decoding corrects RBER up to 1e-3; six soft-decoding
//!   levels reach 1.3e-2. The six intermediate thresholds are printed only in the figure; they
//!   are taken as geometrically spaced between the two end points (the digest's suggestion),
//!   `hard x (last / hard)^(k/6)`.
//! - **Levels** (higher is more reliable): 8 below the hard threshold, 7 up to the first soft
//!   threshold, ..., 2 up to the last, 1 beyond it (a codeword failure is likely).
//! - **Tracking** (Eq. 2): after a GC erase the reference page is written and read,
//!   RBER_U = RBER_ref + delta; when idle it is read again, RBER_U = max(RBER_ref,
//!   RBER_U) + delta; delta is a bias for the retention between updates.
//! - **Groups**: every block is in the group of its level; a block whose level changes moves
//!   to the new group (in constant time here, where the paper appends to a vector).

/// Levels, 1 (least reliable) to `LEVELS` (most).
pub const LEVELS: u8 = 8;
/// Soft-decoding levels of the LDPC flow (Fig. 2a).
pub const SOFT_LEVELS: u32 = 6;

/// The RBER thresholds that separate the levels.
#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds {
    /// `bounds[0]` is the hard-decoding threshold, `bounds[k]` the k-th soft level's.
    bounds: [f64; SOFT_LEVELS as usize + 1],
}

impl Thresholds {
    /// Geometric spacing from `hard` (the hard decoder's limit) to `last` (the last soft
    /// level's).
    pub fn geometric(hard: f64, last: f64) -> Thresholds {
        let mut bounds = [0.0; SOFT_LEVELS as usize + 1];
        for (k, b) in bounds.iter_mut().enumerate() {
            *b = hard * (last / hard).powf(k as f64 / SOFT_LEVELS as f64);
        }
        // The end points exactly as given, not as the powers round them.
        (bounds[0], bounds[SOFT_LEVELS as usize]) = (hard, last);
        Thresholds { bounds }
    }

    /// Fig. 2a's end points: 1e-3 and 1.3e-2.
    pub fn paper() -> Thresholds {
        Thresholds::geometric(1e-3, 1.3e-2)
    }

    pub fn bounds(&self) -> &[f64] {
        &self.bounds
    }

    /// The level of a block whose pages' RBER is at most `rber_u`.
    pub fn level_of(&self, rber_u: f64) -> u8 {
        // Below the hard threshold: level 8; each threshold reached drops a level.
        let reached = self.bounds.iter().filter(|&&b| rber_u >= b).count() as u8;
        LEVELS - reached
    }

    /// The highest RBER a block of `level` may have (infinite for level 1).
    pub fn upper_bound(&self, level: u8) -> f64 {
        debug_assert!((1..=LEVELS).contains(&level), "level {level}");
        let k = (LEVELS - level) as usize;
        self.bounds.get(k).copied().unwrap_or(f64::INFINITY)
    }

    /// The lowest level all of whose blocks' RBER stays below `ap_ber`: the level an
    /// approximate request tolerating `ap_ber` can be served from without decoding. None
    /// when even level 8's blocks may exceed it.
    pub fn tolerating(&self, ap_ber: f64) -> Option<u8> {
        (1..=LEVELS).find(|&l| self.upper_bound(l) <= ap_ber)
    }

    /// Soft-decoding levels the correction flow needs for a block of `level`: 0 (hard
    /// decoding alone) for level 8 up to 6 for level 2; None for level 1 (beyond the flow).
    pub fn soft_levels(level: u8) -> Option<u32> {
        (level >= 2).then(|| (LEVELS - level) as u32)
    }
}

/// Eq. 2: a block's RBER_U after its reference page was read at `rber_ref`.
pub fn after_gc(rber_ref: f64, delta: f64) -> f64 {
    rber_ref + delta
}

/// Eq. 2: a block's RBER_U after an idle-time read of its reference page.
pub fn after_idle_read(rber_ref: f64, old: f64, delta: f64) -> f64 {
    rber_ref.max(old) + delta
}

/// The share of blocks at each level (index 0 is level 1) when levels follow a normal
/// distribution of mean `mean` and standard deviation `sigma` (in levels), cut into unit
/// intervals around each level and renormalised over levels 1 to 8: the initial block state
/// of seed 002's experiments ("a Gaussian centred on the middle groups"; its mean and
/// spread are not given).
pub fn gaussian_shares(mean: f64, sigma: f64) -> [f64; LEVELS as usize] {
    let cdf = |x: f64| 0.5 * (1.0 + libm::erf((x - mean) / (sigma * std::f64::consts::SQRT_2)));
    let mut shares = [0.0; LEVELS as usize];
    for (i, s) in shares.iter_mut().enumerate() {
        let l = (i + 1) as f64;
        // The outermost levels take the tails.
        let lo = if i == 0 { f64::NEG_INFINITY } else { l - 0.5 };
        let hi = if i + 1 == LEVELS as usize { f64::INFINITY } else { l + 0.5 };
        *s = cdf(hi) - cdf(lo);
    }
    let total: f64 = shares.iter().sum();
    shares.iter_mut().for_each(|s| *s /= total);
    shares
}

/// The level of the block at quantile `u` in [0, 1) of `shares`.
pub fn level_at(shares: &[f64; LEVELS as usize], u: f64) -> u8 {
    let mut below = 0.0;
    for (i, s) in shares.iter().enumerate() {
        below += s;
        if u < below {
            return (i + 1) as u8;
        }
    }
    LEVELS
}

/// Blocks by level, with each block's level and place in its group.
#[derive(Debug, Clone)]
pub struct Groups {
    members: Vec<Vec<u32>>,
    /// By block: its level (0 = in no group) and its index in the group.
    level: Vec<u8>,
    index: Vec<u32>,
}

impl Groups {
    pub fn new(blocks: u32) -> Groups {
        Groups {
            members: vec![Vec::new(); LEVELS as usize + 1],
            level: vec![0; blocks as usize],
            index: vec![0; blocks as usize],
        }
    }

    pub fn level(&self, block: u32) -> u8 {
        self.level[block as usize]
    }

    /// Blocks of `level`, in no particular order.
    pub fn of(&self, level: u8) -> &[u32] {
        &self.members[level as usize]
    }

    /// Puts `block` in the group of `level` (1 to 8), leaving its old group.
    pub fn place(&mut self, block: u32, level: u8) {
        assert!((1..=LEVELS).contains(&level), "level {level} is not 1 to {LEVELS}");
        let b = block as usize;
        let old = self.level[b];
        if old == level {
            return;
        }
        if old != 0 {
            let group = &mut self.members[old as usize];
            let i = self.index[b] as usize;
            debug_assert_eq!(group[i], block);
            group.swap_remove(i);
            if let Some(&moved) = group.get(i) {
                self.index[moved as usize] = i as u32;
            }
        }
        let group = &mut self.members[level as usize];
        self.index[b] = group.len() as u32;
        group.push(block);
        self.level[b] = level;
    }

    /// Checks that every block is where its level says.
    pub fn check(&self) -> Result<(), String> {
        for (l, group) in self.members.iter().enumerate() {
            for (i, &b) in group.iter().enumerate() {
                if self.level[b as usize] as usize != l || self.index[b as usize] as usize != i {
                    return Err(format!(
                        "block {b} is at {i} of group {l} but recorded at {} of {}",
                        self.index[b as usize], self.level[b as usize]
                    ));
                }
            }
        }
        let placed: usize = self.members.iter().map(Vec::len).sum();
        let recorded = self.level.iter().filter(|&&l| l != 0).count();
        if placed != recorded {
            return Err(format!("{placed} blocks in groups, {recorded} with a level"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_geometric_between_the_papers_end_points() {
        let t = Thresholds::paper();
        let b = t.bounds();
        assert_eq!(b.len(), 7);
        assert!((b[0] - 1e-3).abs() < 1e-15 && (b[6] - 1.3e-2).abs() < 1e-15);
        // The digest's values: 1.53e-3, 2.35e-3, 3.60e-3, 5.52e-3, 8.47e-3.
        for (got, want) in b[1..6].iter().zip([1.53e-3, 2.35e-3, 3.60e-3, 5.52e-3, 8.47e-3]) {
            assert!((got - want).abs() < 0.01e-3, "{got} against {want}");
        }
        for w in b.windows(2) {
            assert!((w[1] / w[0] - 13f64.powf(1.0 / 6.0)).abs() < 1e-9);
        }
    }

    #[test]
    fn levels_follow_the_thresholds() {
        let t = Thresholds::paper();
        assert_eq!(t.level_of(0.0), 8);
        assert_eq!(t.level_of(0.99e-3), 8);
        assert_eq!(t.level_of(1e-3), 7);
        assert_eq!(t.level_of(1.6e-3), 6);
        assert_eq!(t.level_of(1.29e-2), 2);
        assert_eq!(t.level_of(1.3e-2), 1);
        assert_eq!(t.level_of(0.5), 1);
        // A level's upper bound is the threshold that leads to the next one down.
        for l in 2..=LEVELS {
            let ub = t.upper_bound(l);
            assert_eq!(t.level_of(ub * (1.0 - 1e-9)), l);
            assert_eq!(t.level_of(ub), l - 1);
        }
        assert_eq!(t.upper_bound(1), f64::INFINITY);
        assert_eq!(
            (Thresholds::soft_levels(8), Thresholds::soft_levels(2), Thresholds::soft_levels(1)),
            (Some(0), Some(6), None)
        );
    }

    #[test]
    fn an_approximate_request_is_served_raw_from_the_levels_below_its_tolerance() {
        let t = Thresholds::paper();
        // AP_BER 0.011 (Fig. 5's knee) tolerates every level whose RBER stays below 8.47e-3.
        assert_eq!(t.tolerating(0.011), Some(3));
        assert_eq!(t.tolerating(1.3e-2), Some(2));
        assert_eq!(t.tolerating(1.0), Some(2));
        assert_eq!(t.tolerating(1e-3), Some(8));
        assert_eq!(t.tolerating(0.9e-3), None);
    }

    #[test]
    fn the_reference_page_updates_the_bound() {
        // At GC the bound is the fresh measurement plus the bias; idle reads never lower it.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-15;
        assert!(close(after_gc(2e-3, 1e-4), 2.1e-3));
        assert!(close(after_idle_read(1e-3, 2.1e-3, 1e-4), 2.2e-3));
        assert!(close(after_idle_read(3e-3, 2.1e-3, 1e-4), 3.1e-3));
    }

    #[test]
    fn blocks_move_between_groups() {
        let mut g = Groups::new(6);
        for b in 0..6 {
            g.place(b, 8);
        }
        g.place(2, 5);
        g.place(0, 5);
        g.place(2, 3);
        g.place(5, 8); // already there
        assert_eq!(g.level(2), 3);
        assert_eq!(g.of(3), &[2]);
        let mut five = g.of(5).to_vec();
        five.sort();
        assert_eq!(five, vec![0]);
        let mut eight = g.of(8).to_vec();
        eight.sort();
        assert_eq!(eight, vec![1, 3, 4, 5]);
        assert!(g.check().is_ok());
    }

    #[test]
    fn a_gaussian_over_levels_gives_each_its_share() {
        // Centred on level 4 with a spread of one level: 38.3% at 4, 24.2% at 3 and 5, 6.1% at
        // 2 and 6 (the normal distribution's mass within +-0.5, 0.5-1.5 and 1.5-2.5 sigma).
        let s = gaussian_shares(4.0, 1.0);
        assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((s[3] - 0.3829).abs() < 1e-3, "{s:?}");
        assert!((s[2] - 0.2417).abs() < 1e-3 && (s[4] - 0.2417).abs() < 1e-3, "{s:?}");
        assert!((s[1] - 0.0606).abs() < 1e-3 && (s[5] - 0.0606).abs() < 1e-3, "{s:?}");
        // The tails belong to the outermost levels: level 1 holds all below 1.5.
        assert!((s[0] - 0.0062).abs() < 1e-3, "{s:?}");
        // A narrow distribution puts every block at its mean; quantiles pick levels in order.
        let narrow = gaussian_shares(6.0, 0.01);
        assert!((narrow[5] - 1.0).abs() < 1e-9);
        assert_eq!(level_at(&s, 0.0), 1);
        assert_eq!(level_at(&s, 0.5), 4);
        assert_eq!(level_at(&s, 0.999_999), 8);
    }
}
