//! IDS's pure parts (seed 003 Ch. 6.2): the update locality between program contexts over
//! a window of recent updates (Eqs. 6.1-6.3), single-linkage clustering in ascending
//! locality with each context's original and root clusters, and Algorithm 2's update
//! grouping.

use rustc_hash::FxHashMap;

/// ul(PCp, PCq) for every pair of distinct contexts in `window` (the contexts of the most
/// recent updates, oldest first), as (ul, p, q) with p < q.
///
/// Eq. 6.1: ud_{p_i}(PCp) is the distance from position i to the nearest position of PCp.
/// Eq. 6.2: ud_{PCq}(PCp) averages it over the positions of PCq. Eq. 6.3: ul weighs both
/// directions by their positions, which is the sum of both directions' distances over the
/// positions of both contexts.
pub fn update_locality(window: &[u32]) -> Vec<(f64, u32, u32)> {
    let mut pcs: Vec<u32> = window.to_vec();
    pcs.sort_unstable();
    pcs.dedup();
    // Distance from each position to the nearest occurrence of each context.
    let n = window.len();
    let dist: Vec<Vec<u32>> = pcs
        .iter()
        .map(|&p| {
            let mut d = vec![u32::MAX; n];
            let mut last: Option<usize> = None;
            for i in 0..n {
                if window[i] == p {
                    last = Some(i);
                }
                if let Some(l) = last {
                    d[i] = (i - l) as u32;
                }
            }
            let mut next: Option<usize> = None;
            for i in (0..n).rev() {
                if window[i] == p {
                    next = Some(i);
                }
                if let Some(x) = next {
                    d[i] = d[i].min((x - i) as u32);
                }
            }
            d
        })
        .collect();
    let index = |pc: u32| pcs.binary_search(&pc).expect("a context of the window");
    // For each context, the sum of distances to every other context over its positions.
    let mut sums = vec![vec![0u64; pcs.len()]; pcs.len()];
    let mut counts = vec![0u64; pcs.len()];
    for (i, &pc) in window.iter().enumerate() {
        let a = index(pc);
        counts[a] += 1;
        for (b, d) in dist.iter().enumerate() {
            sums[a][b] += d[i] as u64;
        }
    }
    let mut out = Vec::new();
    for a in 0..pcs.len() {
        for b in a + 1..pcs.len() {
            // Positions of q measure distance to p, and positions of p distance to q.
            let ul = (sums[b][a] + sums[a][b]) as f64 / (counts[a] + counts[b]) as f64;
            out.push((ul, pcs[a], pcs[b]));
        }
    }
    out
}

/// The clusters of one run of single-linkage clustering: for each context, the index
/// (from 1, in order of creation) of its original cluster, the first it joined, and of
/// that cluster's root, the earliest cluster inside it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Clusters {
    pub original: FxHashMap<u32, u32>,
    pub root: FxHashMap<u32, u32>,
}

/// Single-linkage clustering of the contexts in `pairs` (as [`update_locality`] gives them):
/// pairs in ascending ul (ties by the contexts' ids) merge the clusters of their two
/// contexts into a new one, unless they are in one already.
pub fn cluster(pairs: &[(f64, u32, u32)]) -> Clusters {
    let mut sorted = pairs.to_vec();
    sorted.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    // Union-find over contexts; each set remembers the cluster it currently forms.
    let mut parent: FxHashMap<u32, u32> = FxHashMap::default();
    let mut current: FxHashMap<u32, u32> = FxHashMap::default(); // set root -> cluster index
    let mut cluster_root: Vec<u32> = vec![0]; // cluster index -> its root cluster (index 0 unused)
    let mut out = Clusters::default();
    fn find(parent: &mut FxHashMap<u32, u32>, x: u32) -> u32 {
        let p = *parent.entry(x).or_insert(x);
        if p == x {
            return x;
        }
        let r = find(parent, p);
        parent.insert(x, r);
        r
    }
    for &(_, p, q) in &sorted {
        let (rp, rq) = (find(&mut parent, p), find(&mut parent, q));
        if rp == rq {
            continue;
        }
        let k = cluster_root.len() as u32;
        let roots = [current.get(&rp).copied(), current.get(&rq).copied()];
        let root = roots.iter().flatten().map(|&c| cluster_root[c as usize]).min().unwrap_or(k).min(k);
        cluster_root.push(root);
        parent.insert(rp, rq);
        current.remove(&rp);
        current.insert(rq, k);
        for pc in [p, q] {
            out.original.entry(pc).or_insert(k);
        }
    }
    for (&pc, &oc) in &out.original {
        out.root.insert(pc, cluster_root[oc as usize]);
    }
    out
}

/// Algorithm 2's table: each context's update group, and the groups of this clustering's
/// root clusters.
#[derive(Debug, Clone, Default)]
pub struct UpdateGroups {
    table: FxHashMap<u32, Option<u32>>,
    groups: u32,
    level: u32,
    /// Root cluster index -> its group, for the current clustering.
    root_group: FxHashMap<u32, u32>,
}

impl UpdateGroups {
    pub fn new(level: u32) -> UpdateGroups {
        UpdateGroups { level, ..Default::default() }
    }

    /// A new clustering: root clusters have no group yet.
    pub fn new_clustering(&mut self) {
        self.root_group.clear();
    }

    /// Algorithm 2 for context `pc` under `clusters`; returns its group.
    ///
    /// Lines 1-5: a context not in the table is inserted without a group. Line 9-11: a
    /// context whose original cluster is its root cluster puts the root cluster into a
    /// group. Lines 13-14: one whose original cluster was made at most `level` merges
    /// after its root joins the root's group (the seed writes `<`, but its worked example,
    /// PC3 into UG1 at level 2 with clusters C3 and C1, needs `<=`). A root cluster's group
    /// is the group the first of its contexts to ask already had, so that a new clustering
    /// keeps groups where it can; only a root none of whose contexts had one opens a new
    /// group (the seed's line 10 numbers a new group each time).
    pub fn assign(&mut self, pc: u32, clusters: &Clusters) -> Option<u32> {
        let Some(&had) = self.table.get(&pc) else {
            self.table.insert(pc, None);
            return None;
        };
        let (Some(&j), Some(&i)) = (clusters.original.get(&pc), clusters.root.get(&pc)) else {
            return had;
        };
        if j - i > self.level {
            return had;
        }
        let group = match self.root_group.get(&i) {
            Some(&g) => g,
            None => {
                let g = had.unwrap_or_else(|| {
                    self.groups += 1;
                    self.groups
                });
                self.root_group.insert(i, g);
                g
            }
        };
        self.table.insert(pc, Some(group));
        Some(group)
    }

    pub fn group_of(&self, pc: u32) -> Option<u32> {
        self.table.get(&pc).copied().flatten()
    }

    pub fn groups(&self) -> u32 {
        self.groups
    }

    pub fn grouped(&self) -> u64 {
        self.table.values().filter(|g| g.is_some()).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ul(pairs: &[(f64, u32, u32)], p: u32, q: u32) -> f64 {
        pairs.iter().find(|x| (x.1, x.2) == (p.min(q), p.max(q))).unwrap().0
    }

    #[test]
    fn the_worked_example_of_figure_33() {
        // U = <PC1, PC1, PC2, PC3, PC1, PC2>: ul(PC1, PC2) = 1.2, ul(PC1, PC3) = 1.75 (the
        // text rounds it to 1.8).
        let pairs = update_locality(&[1, 1, 2, 3, 1, 2]);
        assert!((ul(&pairs, 1, 2) - 1.2).abs() < 1e-12, "{pairs:?}");
        assert!((ul(&pairs, 1, 3) - 1.75).abs() < 1e-12, "{pairs:?}");
        // ul(PC2, PC3): PC3 at 4 is 1 from PC2 (3); PC2 at 3 and 6 are 1 and 2 from PC3:
        // (1 + 3) / 3.
        assert!((ul(&pairs, 2, 3) - 4.0 / 3.0).abs() < 1e-12, "{pairs:?}");
        assert_eq!(pairs.len(), 3);
    }

    #[test]
    fn clustering_of_figure_34() {
        // Links in ascending ul: (1,2) makes C1, (4,5) C2, (2,3) C3 = C1 + PC3, (3,4) C4.
        // Links between contexts already together make nothing.
        let pairs = [(0.5, 1, 2), (0.7, 4, 5), (0.9, 2, 3), (1.0, 1, 3), (1.1, 3, 4), (2.0, 1, 5)];
        let c = cluster(&pairs);
        let oc: Vec<u32> = (1..=5).map(|p| c.original[&p]).collect();
        let rc: Vec<u32> = (1..=5).map(|p| c.root[&p]).collect();
        assert_eq!(oc, vec![1, 1, 3, 2, 2]);
        assert_eq!(rc, vec![1, 1, 1, 2, 2]);
    }

    #[test]
    fn algorithm_2_on_figure_34() {
        let pairs = [(0.5, 1, 2), (0.7, 4, 5), (0.9, 2, 3), (1.1, 3, 4)];
        let c = cluster(&pairs);
        let mut g = UpdateGroups::new(2);
        // First sight: inserted without a group.
        for pc in 1..=5 {
            assert_eq!(g.assign(pc, &c), None);
        }
        g.new_clustering();
        // PC1: original = root = C1: the root cluster gets a new group, UG1.
        assert_eq!(g.assign(1, &c), Some(1));
        assert_eq!(g.assign(2, &c), Some(1), "PC2 shares the root cluster C1");
        // PC3: original C3, root C1: 3 - 1 = 2 <= level 2: joins UG1 (the seed's example).
        assert_eq!(g.assign(3, &c), Some(1));
        // PC4: original = root = C2: a new group.
        assert_eq!(g.assign(4, &c), Some(2));
        assert_eq!(g.assign(5, &c), Some(2));
        assert_eq!(g.groups(), 2);

        // At level 1, PC3 stays out of UG1.
        let mut strict = UpdateGroups::new(1);
        for pc in 1..=5 {
            strict.assign(pc, &c);
        }
        strict.new_clustering();
        strict.assign(1, &c);
        assert_eq!(strict.assign(3, &c), None);
    }

    #[test]
    fn a_new_clustering_keeps_groups_where_it_can() {
        let c = cluster(&[(0.5, 1, 2), (0.7, 3, 4)]);
        let mut g = UpdateGroups::new(0);
        for pc in 1..=4 {
            g.assign(pc, &c);
        }
        g.new_clustering();
        assert_eq!((g.assign(1, &c), g.assign(3, &c)), (Some(1), Some(2)));
        // Now PC2 and PC3 are closest, then PC1 joins them: root C1 = {2, 3}.
        let c2 = cluster(&[(0.1, 2, 3), (0.2, 1, 2), (0.3, 3, 4)]);
        g.new_clustering();
        // PC3 asks first: it had UG2, so its root cluster keeps UG2; PC2 (no group) joins it.
        assert_eq!(g.assign(3, &c2), Some(2));
        assert_eq!(g.assign(2, &c2), Some(2));
        assert_eq!(g.groups(), 2, "no new group was needed");
    }
}
