//! ORA, the offline oracle of seed 003 Ch. 5.1.2: from the whole workload, the time of the
//! next update of every page write, counted in page writes (the seed's logical time); at
//! run time each page's data goes to the bucket of its next update time. Buckets are equal
//! shares of the workload's page writes, so a bucket's blocks hold data that dies within
//! one share of the run (the seed does not say how ORA groups times).

use rustc_hash::FxHashMap;

/// A next-update time meaning "never updated again".
pub const NEVER: u32 = u32::MAX;

#[derive(Debug, Clone, Default)]
pub struct Oracle {
    /// For each page write, in order: the logical time of the next write of its page.
    next: Vec<u32>,
    /// First pass only: the latest write of each page seen so far.
    last: FxHashMap<u32, u32>,
    /// Second pass: the page write the run has reached.
    cursor: u32,
}

impl Oracle {
    /// First pass: the next page write of the workload is of `lpn`.
    pub fn preview(&mut self, lpn: u32) {
        let t = self.next.len() as u32;
        if let Some(prev) = self.last.insert(lpn, t) {
            self.next[prev as usize] = t;
        }
        self.next.push(NEVER);
    }

    /// Page writes the first pass saw.
    pub fn writes(&self) -> u32 {
        self.next.len() as u32
    }

    /// Second pass: the run writes its next page; the time that page's data will be
    /// updated (NEVER past what the first pass saw).
    pub fn next_write(&mut self) -> u32 {
        if self.cursor == 0 {
            self.last = FxHashMap::default(); // the first pass is over
        }
        let t = self.next.get(self.cursor as usize).copied().unwrap_or(NEVER);
        self.cursor = self.cursor.saturating_add(1);
        t
    }

    /// The bucket of next-update time `t` among `buckets` equal shares of the workload's
    /// page writes: 0 for data never updated, else 1 to `buckets`.
    pub fn bucket(&self, t: u32, buckets: u32) -> u32 {
        if t == NEVER {
            return 0;
        }
        let total = self.writes().max(1) as u64;
        1 + ((t as u64 * buckets as u64) / total).min(buckets as u64 - 1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_update_times_and_buckets_by_hand() {
        let mut o = Oracle::default();
        // Page writes: a b a c b a  (times 0..5).
        for lpn in [10, 20, 10, 30, 20, 10] {
            o.preview(lpn);
        }
        assert_eq!(o.writes(), 6);
        let next: Vec<u32> = (0..6).map(|_| o.next_write()).collect();
        assert_eq!(next, vec![2, 4, 5, NEVER, NEVER, NEVER]);
        // Three buckets of two page writes each: times 0-1, 2-3, 4-5.
        assert_eq!([o.bucket(2, 3), o.bucket(4, 3), o.bucket(5, 3), o.bucket(NEVER, 3)], [2, 3, 3, 0]);
        assert_eq!(o.bucket(0, 3), 1);
        assert_eq!(o.bucket(1, 1), 1, "one bucket holds every updated page");
        // Writes past what the first pass saw are never updated.
        assert_eq!(o.next_write(), NEVER);
    }
}
