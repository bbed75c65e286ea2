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
use std::sync::mpsc;

use crate::error::{Error, Result};
use crate::ftl::blocks::BlockManager;
use crate::ftl::mapping::Mapping;
use crate::nand::Ppn;

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

/// Logical pages of one residue (modulo the plane count) handled together: the entries of a
/// cache line of the mapping table are written in one pass.
pub const GROUP: u64 = 16;

/// Groups whose buffers circulate between the two threads: one dealt while the other is
/// written.
pub const GROUPS_IN_FLIGHT: u64 = 2;

/// Fills the device: logical pages `0..used` get data, each in the plane `plane_of` names.
/// `data_blocks` blocks per plane may hold data; the rest stay free. `progress(done, total)`
/// hears how many logical pages are placed; returning false stops with
/// [`Error::Interrupted`], as does a stop asked for from outside ([`crate::interrupt`]).
///
/// A logical page's plane must depend only on its residue modulo the number of planes, as
/// under static (CWDP) allocation: logical page `k * planes + r` is the `k`-th of residue
/// `r`'s plane. Planes are filled a few residues at a time, so that the mapping table is
/// written a cache line at a time and the reverse map within a few planes; a random
/// placement over the whole table would cost a cache miss per logical page, which at 61 TB
/// is most of the work.
///
/// Two threads share the work: one draws every random number, in the order a single thread
/// would (so the device is the same whichever runs first), and deals out the next group's
/// slots while this one writes the group before into the block states and the map.
// Kept out of its caller: inlined into the simulator's set-up, its loops compiled 13% slower
// (whole-process wall time of the 70% `mqsim-default` preconditioning, alternated runs).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn precondition(
    blocks: &mut BlockManager,
    map: &mut Mapping,
    used: u64,
    steady_state: bool,
    data_blocks: u32,
    plane_of: impl Fn(u64) -> u32 + Sync,
    rng: &mut Xoshiro256PlusPlus,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<()> {
    let geo = blocks.geo.clone();
    let planes = geo.planes as u64;
    // Slots of one logical page (mapping unit) per block.
    let unit = blocks.unit_pages();
    let n = geo.pages_per_block / unit;
    let dealer = Dealer { geo: &geo, planes, used, steady_state, data_blocks, unit, n, plane_of: &plane_of };
    std::thread::scope(|s| {
        let (ready_tx, ready_rx) = mpsc::sync_channel::<Result<Group>>(1);
        let (spent_tx, spent_rx) = mpsc::channel::<Group>();
        // The groups' buffers are reused, since fresh memory is dear (the kernel zeroes
        // every page it hands out).
        for _ in 0..GROUPS_IN_FLIGHT {
            spent_tx.send(Group::default()).expect("the receiver is alive");
        }
        s.spawn(move || dealer.deal(rng, spent_rx, ready_tx));
        // This side's receiver and sender drop as it returns, which ends the dealer at its
        // next send or wait when this side stops early.
        write_all(ready_rx, spent_tx, blocks, map, &geo, used, progress)
    })?;
    blocks.rebuild_free_pools();
    Ok(())
}

/// Residues dealt together, with the buffers of each kept for the next group.
#[derive(Default)]
struct Group {
    first: u64,
    residues: Vec<Dealt>,
}

/// What one residue's plane receives.
#[derive(Default)]
struct Dealt {
    plane: u32,
    /// Close sequence of the plane's first block.
    seq: u64,
    /// Valid slots per data block, youngest block first.
    counts: Vec<u32>,
    /// The valid slots, block after block, each block's in increasing order.
    chosen: Vec<u32>,
    /// The plane's valid slots (pages from its first page) in the order its logical pages
    /// take them.
    order: Vec<u32>,
}

/// The side of preconditioning that draws random numbers.
struct Dealer<'a, F> {
    geo: &'a crate::nand::Geometry,
    planes: u64,
    used: u64,
    steady_state: bool,
    data_blocks: u32,
    unit: u32,
    n: u32,
    plane_of: &'a F,
}

impl<F: Fn(u64) -> u32> Dealer<'_, F> {
    fn deal(&self, rng: &mut Xoshiro256PlusPlus, spent: mpsc::Receiver<Group>, ready: mpsc::SyncSender<Result<Group>>) {
        let (planes, used, n) = (self.planes, self.used, self.n);
        let mut chooser = SlotChooser::new(n);
        // The steady-state profile depends only on how many pages a plane holds.
        let mut profiles: Vec<(u64, Vec<u32>)> = Vec::new();
        let mut seq = 1u64;
        for first in (0..planes.min(used)).step_by(GROUP as usize) {
            let Ok(mut group) = spent.recv() else { return };
            let residues = first..(first + GROUP).min(planes).min(used);
            group.first = first;
            // Only the last group can be shorter; the buffers it drops are not needed again.
            group.residues.resize_with((residues.end - first) as usize, Dealt::default);
            for r in residues {
                let plane = (self.plane_of)(r);
                debug_assert!(
                    r + planes >= used || (self.plane_of)(r + planes) == plane,
                    "plane of a page depends on more than its residue"
                );
                let u_p = (used - r).div_ceil(planes);
                let capacity = self.data_blocks as u64 * n as u64;
                if u_p > capacity {
                    let _ = ready.send(Err(Error::Config {
                        key: "precondition.occupancy".into(),
                        message: format!(
                            "plane {plane} would hold {u_p} pages of data but has room for {capacity} outside the GC reserve"
                        ),
                    }));
                    return;
                }
                let counts = match profiles.iter().find(|(u, _)| *u == u_p) {
                    Some((_, c)) => c,
                    None => {
                        profiles.push((u_p, block_counts(u_p, self.steady_state, self.data_blocks, n)));
                        &profiles.last().expect("just pushed").1
                    }
                };
                let d = &mut group.residues[(r - first) as usize];
                d.plane = plane;
                d.seq = seq;
                d.counts.clear();
                d.counts.extend_from_slice(counts);
                d.chosen.clear();
                d.order.clear();
                for (j, &count) in counts.iter().enumerate() {
                    for slot in chooser.choose(count, rng) {
                        d.chosen.push(slot);
                        d.order.push(j as u32 * self.geo.pages_per_block + slot * self.unit);
                    }
                }
                seq += counts.len() as u64;
                d.order.shuffle(rng);
            }
            if ready.send(Ok(group)).is_err() {
                return;
            }
        }
    }
}

/// Writes the groups dealt as they come, handing each back to be dealt again.
fn write_all(
    ready: mpsc::Receiver<Result<Group>>,
    spent: mpsc::Sender<Group>,
    blocks: &mut BlockManager,
    map: &mut Mapping,
    geo: &crate::nand::Geometry,
    used: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<()> {
    let mut pages: Vec<u32> = Vec::with_capacity(geo.pages_per_block as usize);
    let mut done = 0u64;
    for group in ready.iter() {
        let group = group?;
        done += write_group(&group, blocks, map, geo, &mut pages)?;
        if !progress(done, used) {
            return Err(Error::Interrupted);
        }
        // The dealer may have finished and gone: the group is then simply dropped.
        let _ = spent.send(group);
    }
    Ok(())
}

/// Writes a dealt group into the block states and the map; returns the logical pages placed.
fn write_group(
    group: &Group,
    blocks: &mut BlockManager,
    map: &mut Mapping,
    geo: &crate::nand::Geometry,
    pages: &mut Vec<u32>,
) -> Result<u64> {
    let (planes, unit) = (geo.planes as u64, blocks.unit_pages());
    let dealt = &group.residues;
    for d in dealt {
        crate::interrupt::poll()?;
        let first_block = geo.first_block_of_plane(d.plane);
        let blocks_used = d.counts.len() as u64;
        let mut at = 0usize;
        for (j, &count) in d.counts.iter().enumerate() {
            pages.clear();
            for &slot in &d.chosen[at..at + count as usize] {
                pages.extend(slot * unit..(slot + 1) * unit);
            }
            at += count as usize;
            // Older blocks (larger j) closed earlier.
            blocks.fill_directly(first_block + j as u32, pages, d.seq + (blocks_used - 1 - j as u64));
        }
    }
    let plane_first: Vec<Ppn> = dealt.iter().map(|d| geo.first_page(geo.first_block_of_plane(d.plane))).collect();
    let deepest = dealt.iter().map(|d| d.order.len()).max().unwrap_or(0);
    for k in 0..deepest {
        if k % 4096 == 0 {
            crate::interrupt::poll()?;
        }
        for (i, d) in dealt.iter().enumerate() {
            if let Some(&offset) = d.order.get(k) {
                let lpn = k as u64 * planes + group.first + i as u64;
                map.set_unmapped(lpn as u32, plane_first[i] + offset as Ppn);
            }
        }
    }
    Ok(dealt.iter().map(|d| d.order.len() as u64).sum())
}

/// Valid pages (mapping units) of each data block of a plane holding `u_p` of them: in
/// steady state, the profile of FIFO cleaning, youngest block first; otherwise full blocks.
fn block_counts(u_p: u64, steady_state: bool, data_blocks: u32, n: u32) -> Vec<u32> {
    if steady_state {
        let capacity = data_blocks as u64 * n as u64;
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
    }
}

/// Draws a uniformly random subset of a block's `n` slots, returned in slot order.
struct SlotChooser {
    n: u32,
    /// A permutation of the slots, the first entries of which a partial shuffle draws.
    positions: Vec<u32>,
    chosen: Vec<u64>,
}

impl SlotChooser {
    fn new(n: u32) -> Self {
        SlotChooser { n, positions: (0..n).collect(), chosen: vec![0; (n as usize).div_ceil(64)] }
    }

    /// `count` distinct slots in increasing order. Draws the smaller of the subset and its
    /// complement, so a nearly full block costs few draws.
    fn choose(&mut self, count: u32, rng: &mut Xoshiro256PlusPlus) -> impl Iterator<Item = u32> + '_ {
        let n = self.n;
        let count = count.min(n);
        let complement = count > n / 2;
        let draws = if complement { n - count } else { count };
        for k in 0..draws as usize {
            let swap = rng.gen_range(k..n as usize);
            self.positions.swap(k, swap);
        }
        let fill = if complement { u64::MAX } else { 0 };
        self.chosen.iter_mut().for_each(|w| *w = fill);
        for &p in &self.positions[..draws as usize] {
            self.chosen[(p / 64) as usize] ^= 1 << (p % 64);
        }
        if n % 64 != 0 {
            let last = self.chosen.len() - 1;
            self.chosen[last] &= (1u64 << (n % 64)) - 1;
        }
        self.chosen.iter().enumerate().flat_map(|(w, &bits)| SetBits(bits).map(move |b| w as u32 * 64 + b))
    }
}

/// The positions of the set bits of a word, lowest first.
struct SetBits(u64);

impl Iterator for SetBits {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::config::GeometryConfig;
    use crate::nand::Geometry;
    use rand::SeedableRng;

    /// `planes` planes of 8 blocks of 16 pages, with a map of `logical` one-page units.
    fn device(planes: u32, logical: u64) -> (Geometry, BlockManager, Mapping) {
        let geo = Geometry::new(&GeometryConfig { channels: planes, ..GeometryConfig::one_plane(8, 16, 1) });
        let blocks = BlockManager::new(&geo, 1).unwrap();
        let map = Mapping::new(logical, geo.pages, 1).unwrap();
        (geo, blocks, map)
    }

    fn fill(planes: u32, used: u64, data_blocks: u32, stop_after: u64) -> (Geometry, BlockManager, Mapping, Result<()>) {
        let (geo, mut blocks, mut map) = device(planes, used);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let g = geo.clone();
        let result = precondition(
            &mut blocks,
            &mut map,
            used,
            true,
            data_blocks,
            |lpn| (lpn % g.planes as u64) as u32,
            &mut rng,
            &mut |done, _| done < stop_after,
        );
        (geo, blocks, map, result)
    }

    #[test]
    fn every_logical_page_gets_its_own_page_in_its_plane_across_many_groups() {
        // 40 planes: three groups of residues, so the dealt groups' buffers are reused.
        let (planes, used) = (40u32, 40 * 70 + 13);
        let (geo, blocks, map, result) = fill(planes, used, 6, u64::MAX);
        result.unwrap();
        let mut seen = std::collections::HashSet::new();
        for lpn in 0..used as u32 {
            let ppn = map.get(lpn).unwrap_or_else(|| panic!("logical page {lpn} left unmapped"));
            assert_eq!(geo.plane_of_block(geo.block_of(ppn)), lpn % planes, "logical page {lpn} outside its plane");
            assert!(seen.insert(ppn), "page {ppn} given twice");
            assert_eq!(map.owner(ppn), Some(lpn));
        }
        let valid: usize = (0..geo.blocks).map(|b| blocks.valid_pages(b).count()).sum();
        assert_eq!(valid as u64, used);
    }

    #[test]
    fn the_same_seed_deals_the_same_device() {
        let (_, _, a, _) = fill(40, 2000, 6, u64::MAX);
        let (_, _, b, _) = fill(40, 2000, 6, u64::MAX);
        assert!((0..2000).all(|lpn| a.get(lpn) == b.get(lpn)));
    }

    #[test]
    fn more_data_than_the_data_blocks_hold_is_an_error_naming_the_key() {
        // 6 data blocks of 16 one-page units hold 96 per plane.
        let (_, _, _, result) = fill(40, 40 * 97, 6, u64::MAX);
        let e = result.unwrap_err();
        assert!(matches!(e, Error::Config { ref key, .. } if key == "precondition.occupancy"), "{e}");
    }

    #[test]
    fn a_stop_asked_by_progress_ends_the_filling() {
        let (_, _, map, result) = fill(40, 40 * 70, 6, 1);
        assert!(matches!(result, Err(Error::Interrupted)));
        assert!(map.mapped() < 40 * 70, "stopped after the first group");
    }

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

    #[test]
    fn slot_chooser_draws_distinct_sorted_slots_of_the_asked_number() {
        use rand::SeedableRng;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for n in [1u32, 5, 64, 100, 768] {
            let mut chooser = SlotChooser::new(n);
            let mut seen = vec![0u32; n as usize];
            for count in 0..=n {
                let got: Vec<u32> = chooser.choose(count, &mut rng).collect();
                assert_eq!(got.len(), count as usize, "n {n} count {count}");
                assert!(got.windows(2).all(|w| w[0] < w[1]) && got.iter().all(|&s| s < n));
                got.iter().for_each(|&s| seen[s as usize] += 1);
            }
            // Over every count, each slot is drawn about half the time (sum of count/n).
            if n >= 64 {
                let expected = (n + 1) as f64 / 2.0;
                assert!(seen.iter().all(|&c| (c as f64 - expected).abs() < 6.0 * expected.sqrt()), "n {n}: {seen:?}");
            }
        }
    }
}
