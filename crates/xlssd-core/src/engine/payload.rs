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
//!
//! A run may end with a final read of the whole range (`Payload::final_read_after_h`): the
//! application reading its data back after the workload, and after its data has aged a
//! while, through the plain read path but outside simulated time, so that it changes no
//! measured latency. Each page comes back with its own RBER (its program mode, the
//! neighbours programmed after it, its block's wear, its age then).

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
    /// Read every page of the range once more after the run, this many hours of retention
    /// after its end (None: no final read).
    pub final_read_after_h: Option<f64>,
}

impl Payload {
    /// `data` at sector `first_lba`, read back only by the workload's own reads.
    pub fn new(first_lba: u64, data: Vec<u8>) -> Payload {
        Payload { first_lba, data, returned: Vec::new(), final_read_after_h: None }
    }
}

/// Counts for the report.
#[derive(Debug, Clone, Copy, Default)]
pub struct PayloadStats {
    pub pages: u64,
    pub pages_read: u64,
    pub pages_returned_with_errors: u64,
    pub bits_flipped: u64,
}

/// Counts of the final read, over the range's pages.
#[derive(Debug, Clone, Copy, Default)]
pub struct FinalReadStats {
    pub pages: u64,
    /// Pages the run's host writes put where they are (the rest hold data from before the
    /// run, or none).
    pub host_written: u64,
    /// Pages on flash programmed in an approximate mode.
    pub approximate: u64,
    /// Pages returned raw (approximate pages read without decoding, or decode failures).
    pub raw: u64,
    pub with_errors: u64,
    pub bits_flipped: u64,
    /// Sum of the RBER of the pages read from flash, decoded or not.
    pub rber_sum: f64,
    pub from_flash: u64,
}

/// How the final read found one page.
#[derive(Debug, Clone, Copy)]
pub(super) struct FinalPage {
    /// Its RBER on flash; None when it is not on flash (in the buffer, or never written).
    pub rber: Option<f64>,
    pub approximate: bool,
    /// Returned without correction, so with errors drawn at `rber`.
    pub raw: bool,
}

pub(super) struct PayloadStore {
    first_lpn: u64,
    page_bytes: usize,
    data: Vec<u8>,
    returned: Vec<u8>,
    rng: Xoshiro256PlusPlus,
    /// Per page: written by a host write of this run.
    host_written: Vec<bool>,
    pub final_read_after_h: Option<f64>,
    pub stats: PayloadStats,
    pub final_stats: FinalReadStats,
}

impl PayloadStore {
    pub fn new(first_lpn: u64, page_bytes: usize, p: &Payload, seed: u64) -> PayloadStore {
        let pages = p.data.len().div_ceil(page_bytes);
        let mut data = p.data.clone();
        data.resize(pages * page_bytes, 0);
        PayloadStore {
            first_lpn,
            page_bytes,
            returned: data.clone(),
            data,
            // Its own stream, so that carrying a payload changes no other random draw.
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7061_796c_6f61_6421),
            host_written: vec![false; pages],
            final_read_after_h: p.final_read_after_h,
            stats: PayloadStats { pages: pages as u64, ..Default::default() },
            final_stats: FinalReadStats::default(),
        }
    }

    /// Logical pages of the range.
    pub fn lpns(&self) -> std::ops::Range<u64> {
        self.first_lpn..self.first_lpn + self.stats.pages
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
        let flips = self.return_page(range, rber);
        if flips > 0 {
            self.stats.pages_returned_with_errors += 1;
            self.stats.bits_flipped += flips;
        }
    }

    /// A host write of logical page `lpn` reached flash.
    pub fn on_host_write(&mut self, lpn: u64) {
        if let Some(i) = lpn.checked_sub(self.first_lpn).filter(|&i| i < self.stats.pages) {
            self.host_written[i as usize] = true;
        }
    }

    /// The final read found logical page `lpn` as `found`.
    pub fn on_final_read(&mut self, lpn: u64, found: FinalPage) {
        let Some(range) = self.page_range(lpn) else { return };
        let i = (lpn - self.first_lpn) as usize;
        let f = &mut self.final_stats;
        f.pages += 1;
        f.host_written += self.host_written[i] as u64;
        if let Some(rber) = found.rber {
            f.from_flash += 1;
            f.rber_sum += rber;
            f.approximate += found.approximate as u64;
            f.raw += found.raw as u64;
        }
        let rber = found.rber.filter(|_| found.raw).unwrap_or(0.0);
        let flips = self.return_page(range, rber);
        if flips > 0 {
            self.final_stats.with_errors += 1;
            self.final_stats.bits_flipped += flips;
        }
    }

    /// Sets the returned copy of a page to what was written, with bit flips drawn at
    /// `rber`; the number of bits flipped.
    fn return_page(&mut self, range: std::ops::Range<usize>, rber: f64) -> u64 {
        let written = &self.data[range.clone()];
        let page = &mut self.returned[range];
        page.copy_from_slice(written);
        if rber <= 0.0 {
            return 0;
        }
        let bits = (page.len() * 8) as u64;
        let flips = Binomial::new(bits, rber.min(1.0)).map(|b| b.sample(&mut self.rng)).unwrap_or(0);
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
        flips
    }

    pub fn into_returned(self) -> Vec<u8> {
        self.returned
    }
}
