//! BCH codes as a model: the uncorrectable bit error rate for a raw bit error rate and a
//! correction capability t (seed 001, Eq. 2), the smallest t that meets a target UBER, the
//! parity it costs, and the encoder's and decoder's latency and power.
//!
//! The hardware is seed 001's (Sec. 3, after Fabiano et al. 2013): one codeword per 4 KiB
//! page over GF(2^16), a 100 MHz clock, 8 bits a clock into the encoder and the syndrome
//! stage, a Chien search of 8 evaluations a clock, both pipelined with the flash transfer,
//! and t at most 93. A decode is timed in the worst case the paper characterises (t errors
//! in the last bits, so the Chien search runs over the whole codeword):
//!
//! - syndromes: ceil(n / parallelism) clocks, as the data streams in; pipelined, only what
//!   outlasts the transfer adds latency;
//! - key equation (Berlekamp-Massey for a binary code): t iterations, each computing a
//!   discrepancy over the locator's up to t + 1 coefficients on `solver_multipliers` GF
//!   multipliers, t * ceil((t + 1) / multipliers) clocks (the paper does not give its
//!   solver's schedule: one multiplier is assumed);
//! - Chien search: ceil(n / chien_parallelism) clocks;
//!
//! with n = k + m t codeword bits. Encoding streams the codeword through the encoder
//! (ceil(n / parallelism) clocks) alongside the transfer: nearly constant in t (Fig. 6).
//!
//! Eq. 2 is UBER = (1/n) sum_{i=t+1}^{n} C(n, i) RBER^i (1 - RBER)^(n - i). Its terms span
//! hundreds of orders of magnitude for t up to 500 and RBER up to 0.1, so they are summed in
//! log space. n is the number of data bits a codeword protects (the page's message length):
//! with that choice the equation gives the required t of seed 001 Tables II and IV within
//! 10% or 2 (see `xlssd reproduce tecs15-ecc`); counting the parity bits in n as well moves
//! the end-of-life ISPP-RV cell from 399 to 480, so the paper evidently did not.

use serde::{Deserialize, Serialize};

/// A BCH code protecting `k_bytes` of data per codeword, over GF(2^m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BchConfig {
    /// Data bytes per codeword (seed 001 protects a whole 4 KB page with one codeword).
    pub k_bytes: u32,
    /// Field exponent m; 0 picks the smallest m with 2^m - 1 >= k + m t.
    pub m: u32,
    /// Decoder clock in MHz (seed 001 Sec. 3: 100 MHz).
    pub clock_mhz: f64,
    /// Bits the encoder and the syndrome stage take per clock (seed 001 Sec. 3: 8-bit
    /// parallelism, to match the flash's I/O).
    pub parallelism: u32,
    /// Codeword positions the Chien search evaluates per clock (seed 001 Sec. 3: 8).
    pub chien_parallelism: u32,
    /// GF multipliers of the key-equation solver (not given by seed 001: one assumed).
    pub solver_multipliers: u32,
    /// The encoder and the syndrome stage work on the data as it crosses the channel (seed
    /// 001 Sec. 3), so only the rest of the decode follows the transfer.
    pub pipelined: bool,
    /// The largest t the hardware implements (seed 001 Sec. 3: 93 per 4 KiB codeword). A
    /// page whose wear and target UBER need more is encoded with this t and misses its
    /// target (counted as `reliability.bch.programs_over_t_max`).
    pub t_max: u32,
    /// Decoder power at `t_max`, mW (assumed: seed 001 prints no value; Fig. 7's curve is
    /// relative).
    pub decode_mw: f64,
    /// Share of the decoder's power saved at t = 1 against `t_max`, linear in t between
    /// (seed 001 Fig. 7: "up to ~55%").
    pub decode_power_saving: f64,
    /// Encoder power, mW (assumed: the decoder's scaled by the two blocks' areas in seed
    /// 001 Table III, 179,587 against 543,626 um^2).
    pub encode_mw: f64,
}

impl Default for BchConfig {
    fn default() -> Self {
        BchConfig {
            k_bytes: 4096,
            m: 0,
            clock_mhz: 100.0,
            parallelism: 8,
            chien_parallelism: 8,
            solver_multipliers: 1,
            pipelined: true,
            t_max: 93,
            decode_mw: 20.0,
            decode_power_saving: 0.55,
            encode_mw: 20.0 * 179_586.97 / 543_625.58,
        }
    }
}

/// Largest t searched for; beyond it a code is treated as unable to meet the target.
pub const MAX_T: u32 = 4096;

/// Largest codeword message the calculators take (1 MiB): a page's codeword is a few KiB,
/// and the UBER sum takes time in proportion to the message's bits.
pub const MAX_K_BYTES: u32 = 1 << 20;

/// Natural log of the binomial tail P[X > t] for X ~ Binomial(n, p), divided by n.
pub fn log_uber(rber: f64, t: u64, n: u64) -> f64 {
    if rber <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if t >= n {
        return f64::NEG_INFINITY;
    }
    let rber = rber.min(1.0 - 1e-15);
    let (lp, lq) = (rber.ln(), (-rber).ln_1p());
    let ln_fact = |x: u64| libm::lgamma(x as f64 + 1.0);
    let ln_nf = ln_fact(n);
    let log_term = |i: u64| ln_nf - ln_fact(i) - ln_fact(n - i) + i as f64 * lp + (n - i) as f64 * lq;
    let mode = (n as f64 * rber).floor() as u64;
    // Sum outward from the largest term: from t+1 upwards, the terms rise to the mode (if
    // it lies above t) and then fall; stop once they are 1e-40 of the largest.
    let mut max = f64::NEG_INFINITY;
    let mut acc = 0.0f64; // sum of exp(term - max)
    let add = |lt: f64, max: &mut f64, acc: &mut f64| {
        if lt > *max {
            *acc = *acc * (*max - lt).exp() + 1.0;
            *max = lt;
        } else {
            *acc += (lt - *max).exp();
        }
    };
    let mut i = t + 1;
    while i <= n {
        let lt = log_term(i);
        add(lt, &mut max, &mut acc);
        if i > mode && lt < max - 92.0 {
            break;
        }
        i += 1;
    }
    max + acc.ln() - (n as f64).ln()
}

impl BchConfig {
    pub fn data_bits(&self) -> u64 {
        self.k_bytes as u64 * 8
    }

    /// The largest t the model gives a meaningful answer for: at most [`MAX_T`], below the
    /// number of data bits (a code correcting every bit has an UBER of 0 by definition),
    /// and, with `m` fixed, small enough that the codeword (k + m t bits) fits in GF(2^m)'s
    /// 2^m - 1. `None` if, with `m` fixed, not even t = 1 fits.
    pub fn max_t(&self) -> Option<u32> {
        let k = self.data_bits();
        let mut t = (MAX_T as u64).min(k.saturating_sub(1));
        if self.m > 0 {
            let n_max = (1u64 << self.m.min(63)) - 1;
            t = t.min(n_max.saturating_sub(k) / self.m as u64);
        }
        (t > 0 || k <= 1).then_some(t as u32)
    }

    /// UBER of a t-correcting code at a raw bit error rate.
    pub fn uber(&self, rber: f64, t: u32) -> f64 {
        log_uber(rber, t as u64, self.data_bits()).exp()
    }

    /// The smallest t whose UBER is at most `target`, or `None` above [`MAX_T`].
    pub fn required_t(&self, rber: f64, target: f64) -> Option<u32> {
        let goal = target.ln();
        if log_uber(rber, 0, self.data_bits()) <= goal {
            return Some(0);
        }
        // UBER falls as t grows: bisect on [1, MAX_T].
        let (mut lo, mut hi) = (0u32, MAX_T);
        if log_uber(rber, hi as u64, self.data_bits()) > goal {
            return None;
        }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if log_uber(rber, mid as u64, self.data_bits()) <= goal {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(hi)
    }

    /// Field exponent for a t-correcting code: the configured m, or the smallest m with
    /// 2^m - 1 >= k + m t (seed 001 Sec. 3).
    pub fn field_m(&self, t: u32) -> u32 {
        if self.m > 0 {
            return self.m;
        }
        let k = self.data_bits();
        (3..=32).find(|&m| (1u64 << m) - 1 >= k + m as u64 * t as u64).unwrap_or(32)
    }

    /// Parity bits of a t-correcting code: m t.
    pub fn parity_bits(&self, t: u32) -> u64 {
        self.field_m(t) as u64 * t as u64
    }

    fn cycle_ns(&self) -> f64 {
        1e3 / self.clock_mhz
    }

    fn ns_of(&self, cycles: u64) -> u64 {
        (cycles as f64 * self.cycle_ns()).ceil() as u64
    }

    /// Bits of a t-correcting codeword: data and parity.
    pub fn codeword_bits(&self, t: u32) -> u64 {
        self.data_bits() + self.parity_bits(t)
    }

    /// Clocks of the encoder (and of the syndrome stage): the codeword streams through it.
    pub fn stream_cycles(&self, t: u32) -> u64 {
        self.codeword_bits(t).div_ceil(self.parallelism as u64)
    }

    /// Clocks of the key-equation solver: t iterations over up to t + 1 coefficients.
    pub fn solver_cycles(&self, t: u32) -> u64 {
        t as u64 * (t as u64 + 1).div_ceil(self.solver_multipliers as u64)
    }

    /// Clocks of a Chien search over the whole codeword (the worst case: errors at its end).
    pub fn chien_cycles(&self, t: u32) -> u64 {
        self.codeword_bits(t).div_ceil(self.chien_parallelism as u64)
    }

    /// Encoding time: the codeword streams through the encoder, whatever t is. Pipelined,
    /// it runs alongside the transfer to the flash.
    pub fn encode_ns(&self, t: u32) -> u64 {
        self.ns_of(self.stream_cycles(t))
    }

    /// Worst-case decoding time after the last byte of a transfer of `xfer_ns` has arrived:
    /// what of the syndrome stage outlasts the transfer (all of it when not pipelined), the
    /// solver, and the Chien search. A code of t = 0 is not decoded.
    pub fn decode_ns(&self, t: u32, xfer_ns: u64) -> u64 {
        if t == 0 {
            return 0;
        }
        let syndromes = self.ns_of(self.stream_cycles(t));
        let after = if self.pipelined { syndromes.saturating_sub(xfer_ns) } else { syndromes };
        after + self.ns_of(self.solver_cycles(t) + self.chien_cycles(t))
    }

    /// Time the decoder's stages are active on one worst-case decode.
    pub fn decode_active_ns(&self, t: u32) -> u64 {
        if t == 0 {
            return 0;
        }
        self.ns_of(self.stream_cycles(t) + self.solver_cycles(t) + self.chien_cycles(t))
    }

    /// Decoder power at correction capability t, mW: `decode_mw` at `t_max`, falling
    /// linearly to (1 - `decode_power_saving`) of it at t = 1.
    pub fn decode_power_mw(&self, t: u32) -> f64 {
        if self.t_max <= 1 {
            return self.decode_mw;
        }
        let below = self.t_max.saturating_sub(t.max(1)) as f64 / (self.t_max - 1) as f64;
        self.decode_mw * (1.0 - self.decode_power_saving * below)
    }

    /// Energy of one worst-case decode, J.
    pub fn decode_j(&self, t: u32) -> f64 {
        self.decode_power_mw(t) * 1e-3 * self.decode_active_ns(t) as f64 * 1e-9
    }

    /// Energy of one encode, J.
    pub fn encode_j(&self, t: u32) -> f64 {
        self.encode_mw * 1e-3 * self.encode_ns(t) as f64 * 1e-9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact binomial tail for a small code, summed directly.
    fn direct(p: f64, t: u64, n: u64) -> f64 {
        let mut c = 1.0f64;
        let mut s = 0.0;
        for i in 0..=n {
            if i > 0 {
                c = c * (n - i + 1) as f64 / i as f64;
            }
            if i > t {
                s += c * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32);
            }
        }
        s / n as f64
    }

    #[test]
    fn log_space_sum_matches_direct_sum_on_small_codes() {
        for &(p, t, n) in &[(0.01, 2u64, 100u64), (0.05, 10, 200), (0.001, 1, 500), (0.2, 30, 120)] {
            let ours = log_uber(p, t, n).exp();
            let exact = direct(p, t, n);
            assert!((ours - exact).abs() / exact < 1e-9, "p {p} t {t} n {n}: {ours} vs {exact}");
        }
    }

    #[test]
    fn stays_finite_at_the_extremes() {
        let b = BchConfig::default();
        for &(p, t) in &[(0.1, 500u32), (1e-9, 500), (0.1, 1), (1e-12, 1)] {
            let l = log_uber(p, t as u64, b.data_bits());
            assert!(l.is_finite(), "p {p} t {t}: {l}");
        }
        assert!(b.uber(0.1, 500) > 1e-6, "t=500 cannot cope with 3,277 expected errors");
        assert!(b.uber(1e-6, 500) < 1e-300 || b.uber(1e-6, 500) == 0.0);
    }

    #[test]
    fn required_t_never_falls_as_rber_grows() {
        let b = BchConfig::default();
        let mut last = 0;
        for e in 0..70 {
            let rber = 1e-7 * 10f64.powf(e as f64 / 12.0);
            let t = b.required_t(rber, 1e-13).unwrap();
            assert!(t >= last, "rber {rber}: t {t} < {last}");
            last = t;
        }
        assert!(last > 400);
    }

    #[test]
    fn required_t_is_the_smallest_meeting_the_target() {
        let b = BchConfig::default();
        let t = b.required_t(1.526e-3, 1e-13).unwrap();
        assert!(b.uber(1.526e-3, t) <= 1e-13);
        assert!(b.uber(1.526e-3, t - 1) > 1e-13);
    }

    #[test]
    fn the_largest_t_fits_the_data_and_the_field() {
        let b = BchConfig::default();
        assert_eq!(b.max_t(), Some(MAX_T));
        assert_eq!(BchConfig { k_bytes: 16, ..b.clone() }.max_t(), Some(127));
        // GF(2^16) holds 65,535 bits: 32,768 of data leave room for t = 2,047 at 16 bits each.
        assert_eq!(BchConfig { m: 16, ..b.clone() }.max_t(), Some(2047));
        assert_eq!(BchConfig { m: 15, ..b.clone() }.max_t(), None);
        assert_eq!(BchConfig { m: 32, ..b }.max_t(), Some(MAX_T));
    }

    #[test]
    fn field_and_parity_follow_the_code_length() {
        let b = BchConfig::default();
        // 32,768 data bits need GF(2^16): 2^15 - 1 < 32,768.
        assert_eq!(b.field_m(93), 16);
        assert_eq!(b.parity_bits(93), 1488); // 186 bytes, seed 001 Sec. 3
        assert!(b.encode_ns(93) - b.encode_ns(4) < b.encode_ns(4) / 10, "encoding is nearly constant in t");
    }

    #[test]
    fn decode_time_is_the_worked_cycle_count() {
        let b = BchConfig::default();
        // t = 10: n = 32,768 + 160 = 32,928 bits. Syndromes 4,116 clocks, solver 10 * 11 =
        // 110, Chien 4,116: 8,342 clocks of 10 ns.
        assert_eq!(b.decode_ns(10, 0), 83_420);
        assert_eq!(b.decode_active_ns(10), 83_420);
        // Pipelined behind a 102.4 us transfer the syndromes (41.16 us) are hidden.
        assert_eq!(b.decode_ns(10, 102_400), 42_260);
        // Behind a 20 us transfer 21.16 us of them are left.
        assert_eq!(b.decode_ns(10, 20_000), 21_160 + 42_260);
        // t = 93: n = 34,256; syndromes and Chien 4,282 clocks each, solver 93 * 94 = 8,742.
        assert_eq!(b.decode_ns(93, 102_400), 130_240);
        // t = 33: n = 33,296: 4,162 each, solver 33 * 34 = 1,122.
        assert_eq!(b.decode_ns(33, 102_400), 52_840);
        assert_eq!(b.decode_ns(0, 0), 0);
        let two = BchConfig { solver_multipliers: 2, ..b.clone() };
        assert_eq!(two.solver_cycles(93), 93 * 47);
        let serial = BchConfig { pipelined: false, ..b };
        assert_eq!(serial.decode_ns(10, 102_400), 83_420);
    }

    #[test]
    fn decoder_power_falls_linearly_to_the_saving_at_t_1() {
        let b = BchConfig::default();
        assert_eq!(b.decode_power_mw(93), 20.0);
        assert!((b.decode_power_mw(1) - 9.0).abs() < 1e-12);
        assert!((b.decode_power_mw(47) - 14.5).abs() < 1e-12);
        // Energy at t = 93: 20 mW for 4,282 + 8,742 + 4,282 clocks.
        assert!((b.decode_j(93) - 20e-3 * 173_060e-9).abs() < 1e-15);
        assert!(b.encode_j(4) > 0.0 && (b.encode_j(93) / b.encode_j(4)) < 1.05);
    }
}
