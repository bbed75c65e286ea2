//! Configuration of the host side: the interface, how a trace is replayed, and the
//! synthetic workload.

use serde::{Deserialize, Serialize};

use crate::config::ranges::{bad, duration_ns, fraction, positive_f64, positive_u32, show_f64, Zero};
use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplayMode {
    /// Honour each request's arrival time.
    Open,
    /// Keep `queue_depth` requests outstanding, ignoring arrival times.
    Closed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressMode {
    /// An address beyond the logical capacity stops the run.
    Error,
    /// Addresses are taken modulo the logical capacity.
    Wrap,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnmappedReads {
    /// A read of a never-written page is served as if the page had been written before the
    /// run: it is given a physical page (without programming time) and read from flash.
    Materialize,
    /// A read of a never-written page returns zeros from the controller without a flash read.
    Zero,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// Host interface bandwidth in GB/s (10^9 bytes/s) used for data transfer to and from
    /// the host; 0 models an ideal interface.
    pub interface_gbps: f64,
    pub replay: ReplayMode,
    /// Outstanding requests in closed-loop replay.
    pub queue_depth: u32,
    /// Arrival times are multiplied by this factor in open-loop replay.
    pub time_scale: f64,
    pub address_mode: AddressMode,
    pub unmapped_reads: UnmappedReads,
    /// The bit error rate every request tolerates unless its trace line gives its own
    /// (`ap_ber=X`; seed 002's AP_BER); 0: none, data must come back corrected.
    pub ap_ber: f64,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            interface_gbps: 0.0,
            replay: ReplayMode::Open,
            queue_depth: 32,
            time_scale: 1.0,
            address_mode: AddressMode::Error,
            unmapped_reads: UnmappedReads::Materialize,
            ap_ber: 0.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    Read,
    Write,
    Randread,
    Randwrite,
    Randrw,
    Rw,
}

/// A synthetic workload in fio's vocabulary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadConfig {
    pub rw: RwMode,
    /// Request size in bytes (a multiple of 512).
    pub bs: u64,
    /// Percentage of reads in mixed workloads.
    pub rwmixread: f64,
    /// Outstanding requests (closed loop); 0 means open loop with `interarrival_us`.
    pub iodepth: u32,
    /// Number of requests.
    pub n: u64,
    /// Fraction of the logical space addressed, from its start.
    pub span: f64,
    /// Zipf exponent of address popularity; 0 is uniform.
    pub zipf: f64,
    /// Hot/cold skew: `hot_fraction` of requests go to `hot_space` of the span (0 = off).
    pub hot_fraction: f64,
    pub hot_space: f64,
    /// Mean gap between arrivals in open loop, in microseconds (exponential).
    pub interarrival_us: f64,
    /// Fraction of the addressed slots whose data may be stored approximately; which
    /// slots is fixed by a hash of the slot, so an address keeps its tag.
    pub approx: f64,
    /// Program contexts issuing the writes (seed 003 Ch. 5.2), numbered 1 to `contexts`;
    /// 0: requests carry none. Each owns an equal contiguous share of the slots.
    pub contexts: u32,
    /// Zipf exponent of the share of writes each context issues (context 1 the most).
    pub context_skew: f64,
    /// Placement handles the writes name (0: none): a write of context `c` names
    /// `(c - 1) % handles`, or handle 0 without contexts.
    pub handles: u32,
    /// Seed of this workload; 0 derives it from the top-level seed.
    pub seed: u64,
}

/// The most program contexts a synthetic workload may have (2^20): real programs have tens
/// (seed 003 Sec. 5.3: 48 to 89 that update data), and sequential workloads keep a cursor
/// per context.
pub const MAX_CONTEXTS: u32 = 1 << 20;

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            rw: RwMode::Randrw,
            bs: 4096,
            rwmixread: 70.0,
            iodepth: 16,
            n: 20_000,
            span: 1.0,
            zipf: 0.0,
            hot_fraction: 0.0,
            hot_space: 0.2,
            interarrival_us: 0.0,
            approx: 0.0,
            contexts: 0,
            context_skew: 1.5,
            handles: 0,
            seed: 0,
        }
    }
}

impl HostConfig {
    pub fn validate(&self) -> Result<()> {
        if !(self.interface_gbps.is_finite() && self.interface_gbps >= 0.0) {
            return Err(bad("host.interface_gbps", self.interface_gbps, "a number >= 0 (0 = ideal)"));
        }
        positive_u32("host.queue_depth", self.queue_depth)?;
        if !(self.ap_ber.is_finite() && (0.0..=0.5).contains(&self.ap_ber)) {
            return Err(bad("host.ap_ber", self.ap_ber, "a bit error rate in [0, 0.5]"));
        }
        positive_f64("host.time_scale", self.time_scale)
    }
}

impl WorkloadConfig {
    /// Validates with `prefix` naming where the workload came from (config section or spec).
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let k = |name: &str| format!("{prefix}.{name}");
        if self.bs == 0 || self.bs % 512 != 0 {
            return Err(bad(&k("bs"), self.bs, "a positive multiple of 512 bytes"));
        }
        if !(self.rwmixread.is_finite() && (0.0..=100.0).contains(&self.rwmixread)) {
            return Err(bad(&k("rwmixread"), self.rwmixread, "a percentage in [0, 100]"));
        }
        if self.n == 0 {
            return Err(bad(&k("n"), self.n, "an integer >= 1"));
        }
        fraction(&k("span"), self.span, true, false)?;
        if !(self.zipf.is_finite() && self.zipf >= 0.0) {
            return Err(bad(&k("zipf"), self.zipf, "a number >= 0 (0 = uniform)"));
        }
        fraction(&k("hot_fraction"), self.hot_fraction, false, false)?;
        fraction(&k("hot_space"), self.hot_space, true, false)?;
        fraction(&k("approx"), self.approx, false, false)?;
        if self.contexts > MAX_CONTEXTS {
            return Err(bad(&k("contexts"), self.contexts, &format!("0 (none) to {MAX_CONTEXTS} program contexts")));
        }
        positive_f64(&k("context_skew"), self.context_skew)?;
        if self.handles > super::MAX_HANDLE as u32 + 1 {
            return Err(bad(
                &k("handles"),
                self.handles,
                &format!("0 (none) to {} placement handles (ids 0 to {})", super::MAX_HANDLE as u32 + 1, super::MAX_HANDLE),
            ));
        }
        if self.zipf > 0.0 && self.hot_fraction > 0.0 {
            return Err(Error::Config {
                key: k("zipf"),
                message: format!("cannot be combined with {}; choose one skew", k("hot_fraction")),
            });
        }
        duration_ns(&k("interarrival_us"), self.interarrival_us, Zero::Allowed)?;
        if self.iodepth == 0 && self.interarrival_us == 0.0 {
            return Err(Error::Config {
                key: k("iodepth"),
                message: "is 0 (open loop) but interarrival_us is 0 too; give one of them".into(),
            });
        }
        Ok(())
    }

    /// In open loop, the `n` arrivals, `interarrival_us` apart on average and scaled by
    /// `time_scale` (`host.time_scale`), must span well under [`super::MAX_ARRIVAL_NS`]
    /// (half of it, so that the randomness of the gaps cannot reach it).
    pub fn check_arrival_span(&self, prefix: &str, time_scale: f64) -> Result<()> {
        if self.iodepth != 0 {
            return Ok(());
        }
        let span_ns = self.n as f64 * self.interarrival_us * crate::sim::NS_PER_US * time_scale;
        if span_ns > (super::MAX_ARRIVAL_NS / 2) as f64 {
            return Err(Error::Config {
                key: format!("{prefix}.interarrival_us"),
                message: format!(
                    "{} us between {} arrivals (scaled by host.time_scale = {}) spans about {span_ns:e} ns, \
                     beyond the simulated-time limit of {} ns (about 146 years); expected fewer requests or shorter gaps",
                    show_f64(self.interarrival_us),
                    self.n,
                    show_f64(time_scale),
                    super::MAX_ARRIVAL_NS
                ),
            });
        }
        Ok(())
    }
}
