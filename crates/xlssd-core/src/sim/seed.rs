//! Seeds: one independent pseudo-random stream per concern, derived from the run's seed, so
//! that how often one concern draws never shifts another's numbers.

/// Derives an independent seed for one concern from the run's seed.
pub fn stream_seed(seed: u64, concern: u64) -> u64 {
    // SplitMix64 finaliser: nearby seeds and concerns give unrelated streams.
    let mut z = seed ^ concern.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The concerns that draw random numbers.
pub const SEED_WORKLOAD: u64 = 1;
pub const SEED_GC: u64 = 2;
pub const SEED_PRECONDITION: u64 = 3;
pub const SEED_PHYSICS: u64 = 4;
pub const SEED_AGING: u64 = 5;
pub const SEED_PAYLOAD: u64 = 6;
