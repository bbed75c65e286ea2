//! The synthetic workload generator: fio-like request streams (sequential or random,
//! reads, writes or a mix, with optional Zipf or hot/cold address skew) generated on the
//! fly, so a run of any length needs constant memory.
//!
//! Everything is drawn from one seeded Xoshiro256++ stream in a fixed order (op, address,
//! arrival gap), so a seed always reproduces the same requests.

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp1, Zipf};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{Op, Request, RequestSource, MAX_ARRIVAL_NS, SECTOR_BYTES};
use super::config::{RwMode, WorkloadConfig};
use crate::error::{Error, Result};

/// Requests described by a [`WorkloadConfig`]. The addressed space is cut into `bs`-sized,
/// `bs`-aligned slots covering the first `span` of the logical space; every request is one
/// slot.
pub struct SyntheticSource {
    rng: Xoshiro256PlusPlus,
    ops: OpMix,
    picker: SlotPicker,
    slots: u64,
    slot_sectors: u32,
    /// Next slot of a sequential stream.
    cursor: u64,
    remaining: u64,
    /// Open loop: mean gap between arrivals in ns; closed loop: `None`.
    mean_gap_ns: Option<f64>,
    now_ns: u64,
    /// `host.time_scale`, by which open-loop replay multiplies the arrivals.
    time_scale: f64,
    iodepth: u32,
    /// Slots whose hash falls below this are approximate.
    approx: f64,
    approx_salt: u64,
}

#[derive(Debug, Clone, Copy)]
enum OpMix {
    Reads,
    Writes,
    /// Each request is a read with this probability.
    Mixed(f64),
}

enum SlotPicker {
    Sequential,
    Uniform,
    /// Popularity rank drawn from Zipf, then scattered over the span.
    Zipf {
        dist: Zipf<f64>,
        scatter: Scatter,
    },
    /// `fraction` of requests go to slots `0..hot`, the rest to `hot..slots`.
    HotCold {
        hot: u64,
        fraction: f64,
    },
}

impl SyntheticSource {
    /// A generator for `cfg` over a device of `logical_sectors` sectors. `seed` is used
    /// when `cfg.seed` is 0 (so the top-level seed reaches workloads that do not set one).
    ///
    /// Errors: an invalid `cfg` (as [`WorkloadConfig::validate`] reports it), or a span
    /// too small to hold one request (`workload.span`, or `workload.bs` if even the whole
    /// device is smaller than one request).
    pub fn new(cfg: &WorkloadConfig, logical_sectors: u64, seed: u64) -> Result<Self> {
        cfg.validate("workload")?;
        let slot_sectors = u32::try_from(cfg.bs / SECTOR_BYTES).map_err(|_| Error::Config {
            key: "workload.bs".into(),
            message: format!("{} bytes is too large for one request (at most {} sectors)", cfg.bs, u32::MAX),
        })?;
        let whole_device_slots = logical_sectors / slot_sectors as u64;
        if whole_device_slots == 0 {
            return Err(Error::Config {
                key: "workload.bs".into(),
                message: format!(
                    "{} bytes is larger than the whole logical space ({logical_sectors} sectors of {SECTOR_BYTES} bytes)",
                    cfg.bs
                ),
            });
        }
        let slots = ((cfg.span * logical_sectors as f64 / slot_sectors as f64).floor() as u64).min(whole_device_slots);
        if slots == 0 {
            return Err(Error::Config {
                key: "workload.span".into(),
                message: format!(
                    "{} of {logical_sectors} sectors is smaller than one request of {} bytes; increase it",
                    cfg.span, cfg.bs
                ),
            });
        }

        let seed = if cfg.seed != 0 { cfg.seed } else { seed };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let random = matches!(cfg.rw, RwMode::Randread | RwMode::Randwrite | RwMode::Randrw);
        let picker = if !random {
            SlotPicker::Sequential
        } else if cfg.zipf > 0.0 {
            let dist = Zipf::new(slots, cfg.zipf)
                .map_err(|e| Error::Config { key: "workload.zipf".into(), message: format!("{}: {e}", cfg.zipf) })?;
            SlotPicker::Zipf { dist, scatter: Scatter::new(slots, rng.gen_range(0..slots)) }
        } else if cfg.hot_fraction > 0.0 {
            let hot = ((cfg.hot_space * slots as f64).floor() as u64).clamp(1, slots);
            SlotPicker::HotCold { hot, fraction: cfg.hot_fraction }
        } else {
            SlotPicker::Uniform
        };
        let ops = match cfg.rw {
            RwMode::Read | RwMode::Randread => OpMix::Reads,
            RwMode::Write | RwMode::Randwrite => OpMix::Writes,
            RwMode::Rw | RwMode::Randrw => OpMix::Mixed(cfg.rwmixread / 100.0),
        };
        Ok(SyntheticSource {
            rng,
            ops,
            picker,
            slots,
            slot_sectors,
            cursor: 0,
            remaining: cfg.n,
            mean_gap_ns: (cfg.iodepth == 0).then_some(cfg.interarrival_us * 1000.0),
            now_ns: 0,
            time_scale: 1.0,
            iodepth: cfg.iodepth,
            approx: cfg.approx,
            approx_salt: seed,
        })
    }

    /// The generator for a run that scales arrivals by `time_scale` (`host.time_scale`):
    /// refused if `cfg`'s arrivals would then reach beyond [`super::MAX_ARRIVAL_NS`].
    pub fn with_time_scale(mut self, cfg: &WorkloadConfig, time_scale: f64) -> Result<Self> {
        cfg.check_arrival_span("workload", time_scale)?;
        self.time_scale = time_scale;
        Ok(self)
    }

    /// Number of `bs`-sized slots the requests address.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    fn next_op(&mut self) -> Op {
        match self.ops {
            OpMix::Reads => Op::Read,
            OpMix::Writes => Op::Write,
            OpMix::Mixed(p) => {
                if self.rng.gen::<f64>() < p {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        }
    }

    fn next_slot(&mut self) -> u64 {
        let slots = self.slots;
        match &self.picker {
            SlotPicker::Sequential => {
                let slot = self.cursor;
                self.cursor = if slot + 1 >= slots { 0 } else { slot + 1 };
                slot
            }
            SlotPicker::Uniform => self.rng.gen_range(0..slots),
            SlotPicker::Zipf { dist, scatter } => {
                // Ranks are 1..=slots as floats; clamp against rounding for huge spans.
                let rank = (dist.sample(&mut self.rng) as u64).saturating_sub(1).min(slots - 1);
                scatter.map(rank)
            }
            SlotPicker::HotCold { hot, fraction } => {
                let (hot, fraction) = (*hot, *fraction);
                if hot >= slots || self.rng.gen::<f64>() < fraction {
                    self.rng.gen_range(0..hot)
                } else {
                    self.rng.gen_range(hot..slots)
                }
            }
        }
    }
}

impl RequestSource for SyntheticSource {
    fn next_request(&mut self) -> Result<Option<Request>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        let op = self.next_op();
        let slot = self.next_slot();
        let arrival_ns = match self.mean_gap_ns {
            None => 0,
            Some(mean) => {
                let gap: f64 = Exp1.sample(&mut self.rng);
                // Integer accumulation keeps ns resolution however long the run.
                self.now_ns = self.now_ns.saturating_add((gap * mean).round() as u64);
                // `check_arrival_span` leaves a margin no run of gaps is likely to cross;
                // one that does still must not overflow the engine's clock.
                if super::scaled_arrival_ns(self.now_ns, self.time_scale).is_none() {
                    return Err(Error::Config {
                        key: "workload.interarrival_us".into(),
                        message: format!(
                            "the random gaps put a request {} ns after the start (scaled by host.time_scale = {}), beyond the simulated-time limit of {} ns; expected fewer requests or shorter gaps",
                            self.now_ns,
                            crate::config::ranges::show_f64(self.time_scale),
                            MAX_ARRIVAL_NS
                        ),
                    });
                }
                self.now_ns
            }
        };
        let approx = self.approx > 0.0 && unit_hash(slot ^ self.approx_salt) < self.approx;
        Ok(Some(Request { arrival_ns, lba: slot * self.slot_sectors as u64, sectors: self.slot_sectors, op, approx, context: 0, handle: None }))
    }

    fn name(&self) -> &str {
        "synthetic"
    }

    fn preferred_queue_depth(&self) -> Option<u32> {
        (self.iodepth > 0).then_some(self.iodepth)
    }
}

/// A slot's place in [0, 1), fixed by the slot alone, so that the approximate region of a
/// workload is the same on every visit and takes no draw from the request stream.
fn unit_hash(x: u64) -> f64 {
    (crate::sim::stream_seed(x, 0x6170_7072_6f78) >> 11) as f64 / (1u64 << 53) as f64
}

/// A bijection of `0..n` needing O(1) memory: `i -> (a*i + b) mod n` with `a` coprime to
/// `n`. Zipf ranks are mapped through it so that the hottest slots are spread over the
/// span instead of being its first slots (which would make a skewed workload look
/// sequential to the FTL). `a` is near `n / golden ratio`, so consecutive ranks land far
/// apart.
#[derive(Debug, Clone, Copy)]
struct Scatter {
    n: u64,
    a: u64,
    b: u64,
}

impl Scatter {
    fn new(n: u64, offset: u64) -> Scatter {
        let n = n.max(1);
        let mut a = ((n as f64 * 0.618_033_988_749_894_9) as u64).clamp(1, n);
        while gcd(a, n) != 1 {
            a = if a >= n { 1 } else { a + 1 };
        }
        Scatter { n, a, b: offset % n }
    }

    fn map(&self, i: u64) -> u64 {
        ((self.a as u128 * i as u128 + self.b as u128) % self.n as u128) as u64
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(rw: RwMode) -> WorkloadConfig {
        WorkloadConfig { rw, bs: 4096, n: 1000, iodepth: 8, ..WorkloadConfig::default() }
    }

    fn all(cfg: &WorkloadConfig, logical: u64, seed: u64) -> Vec<Request> {
        let mut src = SyntheticSource::new(cfg, logical, seed).unwrap();
        let mut out = Vec::new();
        while let Some(r) = src.next_request().unwrap() {
            out.push(r);
        }
        assert_eq!(src.next_request().unwrap(), None, "stays exhausted");
        out
    }

    #[test]
    fn same_seed_same_sequence_different_seed_differs() {
        let c = WorkloadConfig { zipf: 0.9, ..cfg(RwMode::Randrw) };
        let a = all(&c, 1 << 20, 5);
        assert_eq!(a.len(), 1000);
        assert_eq!(a, all(&c, 1 << 20, 5));
        assert_ne!(a, all(&c, 1 << 20, 6));
        // A seed in the workload config overrides the one passed in.
        let seeded = WorkloadConfig { seed: 9, ..c.clone() };
        assert_eq!(all(&seeded, 1 << 20, 5), all(&seeded, 1 << 20, 6));
        assert_eq!(all(&seeded, 1 << 20, 1), all(&c, 1 << 20, 9));
    }

    #[test]
    fn addresses_are_aligned_and_inside_the_span() {
        let logical = 100_000; // not a multiple of the slot size
        for (rw, zipf, hot) in [
            (RwMode::Randrw, 0.0, 0.0),
            (RwMode::Randread, 1.2, 0.0),
            (RwMode::Randwrite, 0.0, 0.9),
            (RwMode::Write, 0.0, 0.0),
        ] {
            let c = WorkloadConfig { bs: 16384, span: 0.3, zipf, hot_fraction: hot, n: 20_000, ..cfg(rw) };
            let limit = (0.3 * logical as f64) as u64;
            for r in all(&c, logical, 1) {
                assert_eq!(r.sectors, 32);
                assert_eq!(r.lba % 32, 0, "{r:?}");
                assert!(r.lba + 32 <= limit, "{r:?} beyond {limit}");
            }
        }
    }

    #[test]
    fn read_fraction_follows_rwmixread() {
        for rw in [RwMode::Randrw, RwMode::Rw] {
            let c = WorkloadConfig { rwmixread: 70.0, n: 100_000, ..cfg(rw) };
            let reads = all(&c, 1 << 20, 3).iter().filter(|r| r.op == Op::Read).count();
            let frac = reads as f64 / 100_000.0;
            assert!((frac - 0.7).abs() < 0.01, "{rw:?}: {frac}");
        }
        assert!(all(&cfg(RwMode::Randread), 1 << 20, 1).iter().all(|r| r.op == Op::Read));
        assert!(all(&cfg(RwMode::Write), 1 << 20, 1).iter().all(|r| r.op == Op::Write));
        let none = WorkloadConfig { rwmixread: 0.0, ..cfg(RwMode::Randrw) };
        assert!(all(&none, 1 << 20, 1).iter().all(|r| r.op == Op::Write));
        let every = WorkloadConfig { rwmixread: 100.0, ..cfg(RwMode::Randrw) };
        assert!(all(&every, 1 << 20, 1).iter().all(|r| r.op == Op::Read));
    }

    fn slot_counts(reqs: &[Request], slots: usize) -> Vec<u64> {
        let mut counts = vec![0u64; slots];
        for r in reqs {
            counts[(r.lba / 8) as usize] += 1;
        }
        counts
    }

    #[test]
    fn zipf_concentrates_on_a_few_scattered_slots() {
        let c = WorkloadConfig { zipf: 1.1, n: 100_000, ..cfg(RwMode::Randwrite) };
        let reqs = all(&c, 8000, 2); // 1000 slots
        let counts = slot_counts(&reqs, 1000);
        let mut order: Vec<usize> = (0..1000).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(counts[i]));
        let uniform = 100_000 / 1000;
        assert!(counts[order[0]] > 50 * uniform, "top slot has only {}", counts[order[0]]);
        // The two hottest slots are not neighbours: ranks are scattered.
        assert!(order[0].abs_diff(order[1]) > 1, "{} {}", order[0], order[1]);
        // Uniform has no such hot spot.
        let flat = all(&WorkloadConfig { n: 100_000, ..cfg(RwMode::Randwrite) }, 8000, 2);
        assert!(*slot_counts(&flat, 1000).iter().max().unwrap() < 3 * uniform);
    }

    #[test]
    fn hot_fraction_goes_to_the_hot_space() {
        let c = WorkloadConfig { hot_fraction: 0.8, hot_space: 0.2, n: 100_000, ..cfg(RwMode::Randwrite) };
        let reqs = all(&c, 8000, 4); // 1000 slots, 200 hot
        let hot = reqs.iter().filter(|r| r.lba / 8 < 200).count() as f64 / 1e5;
        assert!((hot - 0.8).abs() < 0.01, "{hot}");
        let counts = slot_counts(&reqs, 1000);
        assert!(counts.iter().all(|&c| c > 0), "every slot is reached");
    }

    #[test]
    fn sequential_wraps_at_the_end_of_the_span() {
        let c = WorkloadConfig { bs: 1024, span: 0.5, n: 7, ..cfg(RwMode::Read) };
        let lbas: Vec<u64> = all(&c, 12, 1).iter().map(|r| r.lba).collect(); // 3 slots of 2 sectors
        assert_eq!(lbas, vec![0, 2, 4, 0, 2, 4, 0]);
        let one = WorkloadConfig { n: 3, ..cfg(RwMode::Write) };
        assert_eq!(all(&one, 8, 1).iter().map(|r| r.lba).collect::<Vec<_>>(), vec![0, 0, 0]);
    }

    #[test]
    fn closed_loop_and_open_loop_arrivals() {
        let closed = SyntheticSource::new(&cfg(RwMode::Randrw), 1 << 20, 1).unwrap();
        assert_eq!(closed.preferred_queue_depth(), Some(8));
        assert!(all(&cfg(RwMode::Randrw), 1 << 20, 1).iter().all(|r| r.arrival_ns == 0));

        let c = WorkloadConfig { iodepth: 0, interarrival_us: 10.0, n: 100_000, ..cfg(RwMode::Randrw) };
        let src = SyntheticSource::new(&c, 1 << 20, 1).unwrap();
        assert_eq!(src.preferred_queue_depth(), None);
        let reqs = all(&c, 1 << 20, 1);
        assert!(reqs.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns));
        let mean = reqs[reqs.len() - 1].arrival_ns as f64 / reqs.len() as f64;
        assert!((mean - 10_000.0).abs() < 200.0, "{mean}");
    }

    #[test]
    fn too_small_span_or_device_is_a_config_error() {
        let c = WorkloadConfig { span: 0.001, ..cfg(RwMode::Randrw) };
        match SyntheticSource::new(&c, 1000, 1) {
            Err(Error::Config { key, .. }) => assert_eq!(key, "workload.span"),
            Err(e) => panic!("{e:?}"),
            Ok(_) => panic!("accepted"),
        }
        match SyntheticSource::new(&cfg(RwMode::Randrw), 7, 1) {
            Err(Error::Config { key, message }) => {
                assert_eq!(key, "workload.bs");
                assert!(message.contains("larger than the whole logical space"), "{message}");
            }
            Err(e) => panic!("{e:?}"),
            Ok(_) => panic!("accepted"),
        }
        let invalid = WorkloadConfig { bs: 100, ..cfg(RwMode::Randrw) };
        assert!(matches!(SyntheticSource::new(&invalid, 1 << 20, 1), Err(Error::Config { .. })));
    }

    #[test]
    fn extreme_skews_stay_in_range() {
        for zipf in [1e-9, 0.5, 1.0, 50.0, 1e6] {
            for logical in [8, 80, 1 << 30] {
                let c = WorkloadConfig { zipf, n: 2000, ..cfg(RwMode::Randrw) };
                let slots = logical / 8;
                assert!(all(&c, logical, 1).iter().all(|r| r.lba / 8 < slots), "zipf={zipf} logical={logical}");
            }
        }
        for (hot_fraction, hot_space) in [(1.0, 1.0), (1.0, 1e-9), (1e-9, 0.5)] {
            let c = WorkloadConfig { hot_fraction, hot_space, n: 2000, ..cfg(RwMode::Randrw) };
            assert!(all(&c, 80, 1).iter().all(|r| r.lba / 8 < 10));
        }
    }

    #[test]
    fn arrivals_beyond_the_time_limit_are_refused() {
        let key_of = |r: Result<SyntheticSource>| match r {
            Err(Error::Config { key, .. }) => key,
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("accepted"),
        };
        let slow = WorkloadConfig { iodepth: 0, interarrival_us: 1e300, n: 3, ..cfg(RwMode::Randrw) };
        assert_eq!(key_of(SyntheticSource::new(&slow, 80, 1)), "workload.interarrival_us");
        // A year between arrivals is allowed, but not a million times that.
        let year = WorkloadConfig { interarrival_us: 3.2e13, ..slow };
        let src = SyntheticSource::new(&year, 80, 1).unwrap();
        assert_eq!(key_of(src.with_time_scale(&year, 1e6)), "workload.interarrival_us");
        let reqs = all(&year, 80, 1);
        assert!(reqs.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns) && reqs[2].arrival_ns < MAX_ARRIVAL_NS);
        // Gaps that pass the up-front check but add up to more still end in an error.
        let long = WorkloadConfig { n: 1000, ..year };
        let mut src = SyntheticSource::new(&long, 80, 1).unwrap();
        let mut n = 0;
        let err = loop {
            match src.next_request() {
                Ok(Some(r)) => {
                    assert!(r.arrival_ns <= MAX_ARRIVAL_NS);
                    n += 1;
                }
                Ok(None) => panic!("all {n} requests within the limit"),
                Err(e) => break e,
            }
        };
        assert!(n > 100 && n < 1000, "{n}");
        assert!(matches!(err, Error::Config { ref key, .. } if key == "workload.interarrival_us"), "{err:?}");
    }

    #[test]
    fn scatter_is_a_bijection() {
        for n in 1..200u64 {
            for offset in [0, 7, 1000] {
                let s = Scatter::new(n, offset);
                let mut seen = vec![false; n as usize];
                for i in 0..n {
                    let j = s.map(i) as usize;
                    assert!(!seen[j], "n={n}: {j} twice");
                    seen[j] = true;
                }
            }
        }
        let big = Scatter::new(u64::MAX, 3);
        assert!(big.map(u64::MAX - 1) < u64::MAX);
    }

    #[test]
    fn approximate_fraction_tags_a_fixed_share_of_addresses() {
        let cfg = WorkloadConfig { rw: RwMode::Randwrite, n: 20_000, approx: 0.3, ..Default::default() };
        let reqs = all(&cfg, 1 << 20, 5);
        let share = reqs.iter().filter(|r| r.approx).count() as f64 / reqs.len() as f64;
        assert!((share - 0.3).abs() < 0.02, "{share}");
        // An address keeps its tag on every visit.
        let mut tag = std::collections::HashMap::new();
        for r in &reqs {
            assert_eq!(*tag.entry(r.lba).or_insert(r.approx), r.approx, "lba {}", r.lba);
        }
        // The tag takes no draw from the request stream: the same requests otherwise.
        let plain = all(&WorkloadConfig { approx: 0.0, ..cfg.clone() }, 1 << 20, 5);
        assert!(plain.iter().all(|r| !r.approx));
        assert!(plain.iter().zip(&reqs).all(|(a, b)| (a.lba, a.op, a.arrival_ns) == (b.lba, b.op, b.arrival_ns)));
    }
}
