//! Preconditioning: bringing the device to a given occupancy, optionally in the steady
//! state that long uniform random overwrites leave behind, without replaying any writes.
//!
//! Steady state follows the analytic model of log-structured cleaning under uniform random
//! writes: with U logical pages spread over M data blocks of N pages (rho = U / (M N)), a
//! block written j blocks ago (of M) still holds a fraction exp(-(j/M) (1 - u) / rho) of
//! valid pages, where u solves u = exp(-(1 - u) / rho) and is the valid fraction of the
//! oldest block. Each plane gets that profile of valid counts, the logical pages are dealt
//! out to it in random order, and the valid pages sit at random positions in their blocks.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::error::{Error, Result};
use crate::ftl::blocks::BlockManager;
use crate::ftl::mapping::Mapping;

/// Solves u = exp(-(1 - u) / rho) for the non-trivial root u in [0, 1).
pub fn fifo_victim_utilisation(rho: f64) -> f64 {
    if rho <= 0.0 {
        return 0.0;
    }
    // f(u) = u - exp(-(1-u)/rho) is negative just below u = 1 when rho < 1 and positive at
    // the non-trivial root's left; bisection between 0 and 1 - eps finds it.
    let f = |u: f64| u - (-(1.0 - u) / rho).exp();
    let (mut lo, mut hi) = (0.0f64, 1.0 - 1e-12);
    if f(lo) >= 0.0 {
        return 0.0;
    }
    if f(hi) < 0.0 {
        // No root below 1: rho >= 1 means every page is valid.
        return 1.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// WAF of FIFO cleaning under uniform random writes: 1 / (1 - u).
pub fn fifo_waf(rho: f64) -> f64 {
    1.0 / (1.0 - fifo_victim_utilisation(rho))
}

/// Splits `total` into `weights.len()` integers proportional to `weights`, each at most
/// `cap`, summing to `total` (largest remainder).
fn apportion(weights: &[f64], total: u64, cap: u32) -> Vec<u32> {
    let sum: f64 = weights.iter().sum();
    let mut counts: Vec<u32> = Vec::with_capacity(weights.len());
    let mut rema: Vec<(f64, usize)> = Vec::with_capacity(weights.len());
    let mut assigned = 0u64;
    for (i, w) in weights.iter().enumerate() {
        let exact = (w / sum * total as f64).min(cap as f64);
        let c = exact.floor() as u32;
        counts.push(c);
        assigned += c as u64;
        rema.push((exact - c as f64, i));
    }
    rema.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut left = total.saturating_sub(assigned);
    // Hand out what rounding left over, largest remainders first, then any block with room.
    for &(_, i) in rema.iter().chain(rema.iter()) {
        if left == 0 {
            break;
        }
        if counts[i] < cap {
            counts[i] += 1;
            left -= 1;
        }
    }
    let mut i = 0;
    while left > 0 && i < counts.len() {
        let add = (cap - counts[i]).min(left as u32);
        counts[i] += add;
        left -= add as u64;
        i += 1;
    }
    counts
}

/// Fills the device: logical pages `0..used` get data, each in the plane `plane_of` names.
/// `data_blocks` blocks per plane may hold data; the rest stay free.
pub fn precondition(
    blocks: &mut BlockManager,
    map: &mut Mapping,
    used: u64,
    steady_state: bool,
    data_blocks: u32,
    plane_of: impl Fn(u64) -> u32,
    rng: &mut Xoshiro256PlusPlus,
) -> Result<()> {
    let geo = blocks.geo.clone();
    // Slots of one logical page (mapping unit) per block.
    let unit = blocks.unit_pages();
    let n = geo.pages_per_block / unit;
    let mut pages: Vec<u32> = Vec::with_capacity(geo.pages_per_block as usize);
    let mut per_plane: Vec<Vec<u32>> = vec![Vec::new(); geo.planes as usize];
    for lpn in 0..used {
        per_plane[plane_of(lpn) as usize].push(lpn as u32);
    }
    let mut seq = 1u64;
    let mut positions: Vec<u32> = (0..n).collect();
    for (plane, lpns) in per_plane.iter_mut().enumerate() {
        let u_p = lpns.len() as u64;
        if u_p == 0 {
            continue;
        }
        let capacity = data_blocks as u64 * n as u64;
        if u_p > capacity {
            return Err(Error::Config {
                key: "precondition.occupancy".into(),
                message: format!(
                    "plane {plane} would hold {u_p} pages of data but has room for {capacity} outside the GC reserve"
                ),
            });
        }
        let counts: Vec<u32> = if steady_state {
            let m = data_blocks as f64;
            let rho = u_p as f64 / capacity as f64;
            let u = fifo_victim_utilisation(rho);
            let decay = if rho > 0.0 { (1.0 - u) / rho } else { 0.0 };
            let weights: Vec<f64> = (0..data_blocks).map(|j| (-(j as f64 + 0.5) / m * decay).exp()).collect();
            apportion(&weights, u_p, n)
        } else {
            let full = (u_p / n as u64) as u32;
            let mut c = vec![n; full as usize];
            if u_p % n as u64 > 0 {
                c.push((u_p % n as u64) as u32);
            }
            c
        };
        lpns.shuffle(rng);
        let mut next = 0usize;
        let first_block = geo.first_block_of_plane(plane as u32);
        let blocks_used = counts.len() as u32;
        for (j, &count) in counts.iter().enumerate() {
            let block = first_block + j as u32;
            // Partial Fisher-Yates: the first `count` entries become a random subset.
            for k in 0..count as usize {
                let swap = rng.gen_range(k..n as usize);
                positions.swap(k, swap);
            }
            let chosen = &mut positions[..count as usize];
            chosen.sort_unstable();
            pages.clear();
            pages.extend(chosen.iter().flat_map(|&slot| slot * unit..(slot + 1) * unit));
            // Older blocks (larger j) closed earlier.
            blocks.fill_directly(block, &pages, seq + (blocks_used as u64 - 1 - j as u64));
            for &slot in chosen.iter() {
                map.set_unmapped(lpns[next], geo.ppn(block, slot * unit));
                next += 1;
            }
        }
        seq += blocks_used as u64;
    }
    blocks.rebuild_free_pools();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn victim_utilisation_solves_the_fixed_point() {
        for rho in [0.3, 0.5, 0.8, 0.9, 0.95] {
            let u = fifo_victim_utilisation(rho);
            assert!((u - (-(1.0 - u) / rho).exp()).abs() < 1e-9, "rho {rho}: u {u}");
            assert!(u > 0.0 && u < 1.0);
        }
        // Known point: rho = 0.8 gives u ~ 0.629 (WAF ~ 2.69).
        assert!((fifo_victim_utilisation(0.8) - 0.6286).abs() < 1e-3);
        assert!(fifo_waf(0.9) > fifo_waf(0.8));
    }

    #[test]
    fn apportion_hits_total_and_respects_cap() {
        let c = apportion(&[1.0, 1.0, 1.0], 10, 4);
        assert_eq!(c.iter().sum::<u32>(), 10);
        assert!(c.iter().all(|&x| x <= 4));
        let c = apportion(&[5.0, 1.0], 7, 4);
        assert_eq!(c, vec![4, 3]);
    }
}
