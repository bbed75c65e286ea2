//! HASH: hot data identified by hashed write counters (Hsieh, Kuo and Chang's multi-hash
//! framework, seed 003 Ch. 5.1.3's representative locality-based separator). Each write
//! increments the counters its logical page hashes to; a page is hot while all of them are
//! at least the threshold; every counter is halved periodically so that old writes fade.

/// The counters and their decay.
#[derive(Debug, Clone)]
pub struct HotHash {
    counters: Vec<u8>,
    functions: u32,
    threshold: u8,
    decay_writes: u32,
    since_decay: u32,
}

/// Counters saturate at 4 bits, as in the framework.
const COUNTER_MAX: u8 = 15;

impl HotHash {
    pub fn new(counters: u32, functions: u32, threshold: u32, decay_writes: u32) -> HotHash {
        HotHash {
            counters: vec![0; counters as usize],
            functions,
            threshold: threshold.min(COUNTER_MAX as u32) as u8,
            decay_writes,
            since_decay: 0,
        }
    }

    /// The counter hash function `i` maps `lpn` to: independent functions from one mixer
    /// (SplitMix64's finaliser) seeded differently per function.
    fn slot(&self, lpn: u32, i: u32) -> usize {
        let mut z = (lpn as u64) ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z % self.counters.len() as u64) as usize
    }

    /// A write of `lpn`: its counters go up, and every `decay_writes` writes all are halved.
    pub fn record(&mut self, lpn: u32) {
        for i in 0..self.functions {
            let s = self.slot(lpn, i);
            self.counters[s] = (self.counters[s] + 1).min(COUNTER_MAX);
        }
        self.since_decay += 1;
        if self.since_decay >= self.decay_writes {
            self.since_decay = 0;
            for c in &mut self.counters {
                *c /= 2;
            }
        }
    }

    /// Whether `lpn` is hot now.
    pub fn is_hot(&self, lpn: u32) -> bool {
        (0..self.functions).all(|i| self.counters[self.slot(lpn, i)] >= self.threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_hot_after_threshold_writes_and_cools_with_decay() {
        // Many counters and two functions: collisions between these few pages are unlikely,
        // and the test checks there are none.
        let mut h = HotHash::new(1 << 16, 2, 4, 1000);
        let slots: std::collections::HashSet<usize> = (0..4u32).flat_map(|p| [h.slot(p, 0), h.slot(p, 1)]).collect();
        assert_eq!(slots.len(), 8, "the pages' counters collide");
        for n in 1..=4 {
            h.record(7);
            assert_eq!(h.is_hot(7), n >= 4, "after {n} writes");
        }
        assert!(!h.is_hot(3), "a page never written is cold");
        // Counters saturate at 15.
        for _ in 0..40 {
            h.record(7);
        }
        assert_eq!(h.counters[h.slot(7, 0)], 15);
        // Decay: after 1,000 writes in all every counter is halved: 15 -> 7 -> 3 after two.
        let mut writes = 44;
        while writes < 2000 {
            h.record(1);
            writes += 1;
        }
        assert_eq!(h.counters[h.slot(7, 0)], 3, "halved twice");
        assert!(!h.is_hot(7), "3 < 4: cooled down");
    }

    #[test]
    fn a_page_is_hot_only_when_all_its_counters_are() {
        let mut h = HotHash::new(64, 3, 2, u32::MAX);
        h.record(5);
        h.record(5);
        assert!(h.is_hot(5));
        // Lower one of its counters below the threshold: no longer hot.
        let s = h.slot(5, 2);
        h.counters[s] = 1;
        assert!(!h.is_hot(5));
    }
}
