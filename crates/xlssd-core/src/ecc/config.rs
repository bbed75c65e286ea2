//! Configuration of error correction: which decoder protects the pages, and read-retry.

use serde::{Deserialize, Serialize};

use crate::config::ranges::{
    bad, duration_ns, fraction, non_negative, positive_f64, positive_u32, Zero, MAX_DURATION_NS, MAX_DURATION_US,
};
use crate::ecc::bch::MAX_T;

/// Most soft-decision levels an LDPC decode may try.
pub const MAX_SOFT_LEVELS: u32 = 64;
use crate::error::Result;

/// Which decoder protects the pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EccScheme {
    /// No decoding stage: reads cost sense and transfer only.
    None,
    /// A BCH code with read-retry (seed 001).
    Bch,
    /// The LDPC flow of seed 002: hard decode, soft levels, RAID.
    Ldpc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EccConfig {
    pub scheme: EccScheme,
    /// UBER the adaptive BCH code is sized for (seed 001: 1e-13 standard, 1e-15 enhanced,
    /// 1e-11 reduced).
    pub target_uber: f64,
    /// BCH correction capability per codeword; 0 adapts t to the page's wear and
    /// programming algorithm at program time to hold `target_uber` (seed 001 Table IV).
    pub bch_t: u32,
    pub bch: crate::ecc::bch::BchConfig,
    pub ldpc: crate::ecc::ldpc::LdpcConfig,
    /// Read-retry steps after a failed BCH decode, each a new sense, transfer and decode
    /// with shifted read references.
    pub retry_steps: u32,
    /// RBER left after each retry step, as a fraction of the step before (a shifted read
    /// reference recovers part of the drifted cells).
    pub retry_rber_factor: f64,
    /// Read approximately programmed pages raw, without decoding (seed 000 Sec. III-A: the
    /// ECC of approximate pages may be skipped).
    pub skip_approximate: bool,
    /// Pages of read data a channel's ECC engine can hold waiting to be decoded; a read
    /// transfer that would overflow it holds the channel until a page starts decoding (the
    /// channel's ECC wait). 0: no limit, data waits in controller memory.
    pub decode_buffer_pages: u32,
}

impl Default for EccConfig {
    fn default() -> Self {
        EccConfig {
            scheme: EccScheme::None,
            target_uber: 1e-13,
            bch_t: 0,
            bch: Default::default(),
            ldpc: Default::default(),
            retry_steps: 8,
            retry_rber_factor: 0.6,
            skip_approximate: false,
            decode_buffer_pages: 0,
        }
    }
}

impl EccConfig {
    /// A BCH codeword's data must fit in a page of `page_size` bytes.
    pub fn validate(&self, page_size: u32) -> Result<()> {
        if !(self.target_uber > 0.0 && self.target_uber < 1.0) {
            return Err(bad("ecc.target_uber", self.target_uber, "a probability in (0, 1)"));
        }
        let b = &self.bch;
        if b.k_bytes == 0 || (self.scheme == EccScheme::Bch && b.k_bytes > page_size) {
            return Err(bad("ecc.bch.k_bytes", b.k_bytes, "between 1 and geometry.page_size"));
        }
        if b.m != 0 && !(3..=32).contains(&b.m) {
            return Err(bad("ecc.bch.m", b.m, "0 (automatic) or 3 to 32"));
        }
        // Beyond what its codeword can correct a code's UBER is 0 by construction.
        let max_t = match (self.scheme, b.max_t()) {
            (EccScheme::Bch, Some(t)) => t,
            (EccScheme::Bch, None) => {
                return Err(bad(
                    "ecc.bch.m",
                    b.m,
                    &format!(
                        "0 (automatic) or a field whose codewords (2^m - 1 bits) hold the {} data bits of ecc.bch.k_bytes and their parity",
                        b.data_bits()
                    ),
                ))
            }
            _ => crate::ecc::bch::MAX_T,
        };
        if !(1..=MAX_T).contains(&b.t_max) {
            return Err(bad("ecc.bch.t_max", b.t_max, &format!("1 to {MAX_T}")));
        }
        if self.bch_t > max_t {
            return Err(bad(
                "ecc.bch_t",
                self.bch_t,
                &format!("0 (adaptive) or at most {max_t}, the most a code of ecc.bch.k_bytes = {} can correct", b.k_bytes),
            ));
        }
        if self.scheme == EccScheme::Bch && self.bch_t > b.t_max {
            return Err(bad(
                "ecc.bch_t",
                self.bch_t,
                &format!("0 (adaptive) or at most ecc.bch.t_max ({}), the largest t the decoder implements", b.t_max),
            ));
        }
        positive_f64("ecc.bch.clock_mhz", b.clock_mhz)?;
        positive_u32("ecc.bch.parallelism", b.parallelism)?;
        positive_u32("ecc.bch.chien_parallelism", b.chien_parallelism)?;
        positive_u32("ecc.bch.solver_multipliers", b.solver_multipliers)?;
        non_negative("ecc.bch.decode_mw", b.decode_mw)?;
        non_negative("ecc.bch.encode_mw", b.encode_mw)?;
        fraction("ecc.bch.decode_power_saving", b.decode_power_saving, false, false)?;
        let slowest = b.decode_ns(MAX_T, 0) as f64;
        if !(slowest < MAX_DURATION_NS) {
            return Err(bad(
                "ecc.bch.clock_mhz",
                b.clock_mhz,
                "a clock at which the slowest decode (t = 4096) takes less than a year",
            ));
        }
        let l = &self.ldpc;
        positive_f64("ecc.ldpc.hard_us", l.hard_us)?;
        positive_f64("ecc.ldpc.soft_us", l.soft_us)?;
        if l.soft_levels > MAX_SOFT_LEVELS {
            return Err(bad("ecc.ldpc.soft_levels", l.soft_levels, &format!("at most {MAX_SOFT_LEVELS}")));
        }
        // The slowest decode tries every soft level, then RAID.
        duration_ns("ecc.ldpc.hard_us", l.hard_us, Zero::Allowed)?;
        duration_ns("ecc.ldpc.soft_us", l.soft_us * l.soft_levels as f64, Zero::Allowed).map_err(|_| {
            bad("ecc.ldpc.soft_us", l.soft_us, &format!("a time whose {} soft levels take at most a year", l.soft_levels))
        })?;
        fraction("ecc.ldpc.hard_limit", l.hard_limit, true, true)?;
        fraction("ecc.ldpc.soft_limit", l.soft_limit, true, true)?;
        if l.soft_limit < l.hard_limit {
            return Err(bad("ecc.ldpc.soft_limit", l.soft_limit, &format!("at least ecc.ldpc.hard_limit ({})", l.hard_limit)));
        }
        if !(l.raid_us.is_finite() && l.raid_us >= 0.0 && l.raid_us <= MAX_DURATION_US) {
            return Err(bad("ecc.ldpc.raid_us", l.raid_us, "a number of microseconds >= 0 (0 disables RAID)"));
        }
        if self.decode_buffer_pages > 1024 {
            return Err(bad("ecc.decode_buffer_pages", self.decode_buffer_pages, "0 (no limit) to 1024"));
        }
        if self.retry_steps > 64 {
            return Err(bad("ecc.retry_steps", self.retry_steps, "at most 64"));
        }
        fraction("ecc.retry_rber_factor", self.retry_rber_factor, true, true)
    }
}
