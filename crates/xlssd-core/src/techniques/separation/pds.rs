//! PDS's program-context grouping (seed 003 Ch. 5.3, Algorithm 1). It runs on every update
//! write with the program context that wrote the data being updated: a context whose data
//! has been updated `threshold` times becomes a dominating context with an update group of
//! its own; a context below the threshold whose update continues, page by page, an update
//! of a grouped context joins that context's group (a sequential context).

use rustc_hash::FxHashMap;

/// A row of the program-context information table: (idPC, idUG, Nupdate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PcInfo {
    pub group: Option<u32>,
    pub updates: u32,
}

/// Algorithm 1's state: the table, the groups made, and the previous update.
#[derive(Debug, Clone, Default)]
pub struct Grouping {
    table: FxHashMap<u32, PcInfo>,
    groups: u32,
    threshold: u32,
    prev_lpn: Option<u64>,
    prev_group: Option<u32>,
}

impl Grouping {
    pub fn new(threshold: u32) -> Grouping {
        Grouping { threshold, ..Default::default() }
    }

    /// Algorithm 1 for an update of logical page `lpn` whose old data context `pc` wrote;
    /// returns the context's update group (`None`: not grouped yet).
    pub fn update(&mut self, pc: u32, lpn: u64) -> Option<u32> {
        let (prev_lpn, prev_group) = (self.prev_lpn, self.prev_group);
        let group = match self.table.get_mut(&pc) {
            // Lines 2-6: first update of the context's data.
            None => {
                self.table.insert(pc, PcInfo { group: None, updates: 1 });
                None
            }
            Some(info) => {
                info.updates += 1;
                if info.group.is_none() {
                    if info.updates >= self.threshold {
                        // Lines 10-12: a dominating context opens a group.
                        self.groups += 1;
                        info.group = Some(self.groups);
                    } else if prev_lpn.is_some_and(|p| p + 1 == lpn) && prev_group.is_some() {
                        // Lines 14-15: a sequential context joins the group it continues.
                        info.group = prev_group;
                    }
                }
                info.group
            }
        };
        // Lines 20-21.
        self.prev_lpn = Some(lpn);
        self.prev_group = group;
        group
    }

    /// The group of context `pc`, if it has one.
    pub fn group_of(&self, pc: u32) -> Option<u32> {
        self.table.get(&pc).and_then(|i| i.group)
    }

    pub fn info(&self, pc: u32) -> Option<PcInfo> {
        self.table.get(&pc).copied()
    }

    /// Groups made so far.
    pub fn groups(&self) -> u32 {
        self.groups
    }

    /// Contexts in the table, and those of them with a group.
    pub fn contexts(&self) -> (u64, u64) {
        let grouped = self.table.values().filter(|i| i.group.is_some()).count();
        (self.table.len() as u64, grouped as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_1_by_hand() {
        let mut g = Grouping::new(3);
        // Context 5's data updated at pages 100, 101, 102: the first update inserts the row
        // (Nupdate 1), the second counts 2, the third reaches the threshold: group 1.
        assert_eq!(g.update(5, 100), None);
        assert_eq!(g.info(5), Some(PcInfo { group: None, updates: 1 }));
        assert_eq!(g.update(5, 101), None);
        assert_eq!(g.update(5, 102), Some(1));
        // Context 9 continues the sequence (103 after 102, whose group is 1) on its second
        // update: below the threshold, it joins group 1 as a sequential context.
        assert_eq!(g.update(9, 50), None, "a first update only inserts the row");
        assert_eq!(g.update(5, 102), Some(1));
        assert_eq!(g.update(9, 103), Some(1));
        assert_eq!(g.info(9), Some(PcInfo { group: Some(1), updates: 2 }));
        // Context 7: its second update does not continue a grouped update (a gap), so it
        // stays ungrouped; its third reaches the threshold and opens group 2.
        assert_eq!(g.update(7, 10), None);
        assert_eq!(g.update(7, 300), None);
        assert_eq!(g.update(7, 11), Some(2));
        assert_eq!(g.groups(), 2);
        // A grouped context keeps its group whatever follows, and its count goes on.
        assert_eq!(g.update(9, 999), Some(1));
        assert_eq!(g.info(9).unwrap().updates, 3);
        assert_eq!(g.contexts(), (3, 3));
    }

    #[test]
    fn the_sequence_must_follow_a_grouped_update() {
        let mut g = Grouping::new(10);
        g.update(1, 0);
        g.update(2, 0);
        // Page 1 follows page 0, but the update of page 0 was by an ungrouped context.
        assert_eq!(g.update(2, 1), None);
        assert_eq!(g.groups(), 0);
    }

    #[test]
    fn threshold_one_groups_a_context_on_its_second_update() {
        // Line 10 is only reached for a context already in the table: with threshold 1 the
        // first update inserts it, the second opens its group.
        let mut g = Grouping::new(1);
        assert_eq!(g.update(4, 0), None);
        assert_eq!(g.update(4, 7), Some(1));
    }
}
