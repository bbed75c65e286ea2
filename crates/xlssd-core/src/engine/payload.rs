//! Payload mode: the simulator carries real bytes for a range of logical pages and returns
//! them as a device would. A read the decoder corrected returns the written bytes; a read
//! returned without correction (no decoder, an approximate page read raw, a decode failure)
//! returns them with bit flips drawn at the page's RBER. The host view of the range after
//! the run (every page as it was last returned, or as written when never read) is what an
//! application would compute on.
//!
//! The content of a logical page follows it through GC moves: the controller corrects a
//! page it copies, so errors do not accumulate across copies. A trace carries no data, so
//! its writes to the range are taken to rewrite the same bytes.

use rand::{Rng, SeedableRng};
use rand_distr::{Binomial, Distribution};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Bytes for the range of logical pages starting at `first_lba` (a sector address on a
/// page boundary), given to and returned by a run.
#[derive(Debug, Clone, Default)]
pub struct Payload {
    pub first_lba: u64,
    /// What the host wrote; padded with zeros to whole pages by the run.
    pub data: Vec<u8>,
    /// After the run: what the host would read back.
    pub returned: Vec<u8>,
}

/// Counts for the report.
#[derive(Debug, Clone, Copy, Default)]
pub struct PayloadStats {
    pub pages: u64,
    pub pages_read: u64,
    pub pages_returned_with_errors: u64,
    pub bits_flipped: u64,
}

pub(super) struct PayloadStore {
    first_lpn: u64,
    page_bytes: usize,
    data: Vec<u8>,
    returned: Vec<u8>,
    rng: Xoshiro256PlusPlus,
    pub stats: PayloadStats,
}

impl PayloadStore {
    pub fn new(first_lpn: u64, page_bytes: usize, mut data: Vec<u8>, seed: u64) -> PayloadStore {
        let pages = data.len().div_ceil(page_bytes);
        data.resize(pages * page_bytes, 0);
        PayloadStore {
            first_lpn,
            page_bytes,
            returned: data.clone(),
            data,
            // Its own stream, so that carrying a payload changes no other random draw.
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7061_796c_6f61_6421),
            stats: PayloadStats { pages: pages as u64, ..Default::default() },
        }
    }

    pub fn pages(&self) -> u64 {
        self.stats.pages
    }

    fn page_range(&self, lpn: u64) -> Option<std::ops::Range<usize>> {
        let i = lpn.checked_sub(self.first_lpn)?;
        (i < self.stats.pages).then(|| i as usize * self.page_bytes..(i as usize + 1) * self.page_bytes)
    }

    /// The host read logical page `lpn` from flash; `rber` is the error rate it was
    /// returned with (0 when the decoder corrected it).
    pub fn on_read(&mut self, lpn: u64, rber: f64) {
        let Some(range) = self.page_range(lpn) else { return };
        self.stats.pages_read += 1;
        let written = &self.data[range.clone()];
        let page = &mut self.returned[range];
        page.copy_from_slice(written);
        if rber <= 0.0 {
            return;
        }
        let bits = (page.len() * 8) as u64;
        let flips = Binomial::new(bits, rber.min(1.0)).map(|b| b.sample(&mut self.rng)).unwrap_or(0);
        if flips == 0 {
            return;
        }
        self.stats.pages_returned_with_errors += 1;
        self.stats.bits_flipped += flips;
        // Distinct positions: a bit flipped twice would be no error at all.
        let mut flipped = 0;
        while flipped < flips {
            let bit = self.rng.gen_range(0..bits) as usize;
            let mask = 1u8 << (bit % 8);
            if (page[bit / 8] ^ written[bit / 8]) & mask == 0 {
                page[bit / 8] ^= mask;
                flipped += 1;
            }
        }
    }

    pub fn into_returned(self) -> Vec<u8> {
        self.returned
    }
}
