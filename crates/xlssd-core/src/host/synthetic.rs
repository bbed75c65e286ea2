//! The synthetic workload generator: fio-like request streams (sequential or random,
//! reads, writes or a mix, with optional Zipf or hot/cold address skew) generated on the
//! fly, so a run of any length needs constant memory.
//!
//! Everything is drawn from one seeded Xoshiro256++ stream in a fixed order (op, address,
//! arrival gap), so a seed always reproduces the same requests. With program contexts
//! (`workload.contexts`), which context issues a write is drawn from a second stream
//! derived from the same seed, so that a workload without contexts draws exactly what it
//! drew before contexts existed.

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp1, Zipf};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::config::{RwMode, WorkloadConfig};
use super::{Op, Request, RequestSource, MAX_ARRIVAL_NS, SECTOR_BYTES};
use crate::error::{Error, Result};

/// Tells the context stream's seed from the workload's own ("context" in ASCII).
const CONTEXT_STREAM: u64 = 0x63_6f6e_7465_7874;

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
    /// The program contexts issuing writes, if any.
    contexts: Option<Contexts>,
    /// Placement handles the writes name (0: none).
    handles: u32,
}

#[derive(Debug, Clone, Copy)]
enum OpMix {
    Reads,
    Writes,
    /// Each request is a read with this probability.
    Mixed(f64),
}

/// The address law: how a slot is chosen in a range of slots (the span, or a program
/// context's share of it).
enum SlotPicker {
    /// The next slot after the range's cursor, wrapping at its end.
    Sequential,
    Uniform,
    /// Popularity rank drawn from Zipf, then scattered over the range: one law per range
    /// length in use (the span's, and the one or two lengths of the contexts' shares).
    Zipf(Vec<Ranks>),
    /// `fraction` of requests go to the range's first `hot_space` (at least one slot),
    /// the rest to the others.
    HotCold {
        hot_space: f64,
        fraction: f64,
    },
}

/// A Zipf law of popularity over a range of `len` slots, its ranks scattered over the range.
struct Ranks {
    len: u64,
    dist: Zipf<f64>,
    scatter: Scatter,
}

impl Ranks {
    fn new(len: u64, exponent: f64, offset: u64) -> Result<Ranks> {
        let dist = Zipf::new(len, exponent)
            .map_err(|e| Error::Config { key: "workload.zipf".into(), message: format!("{exponent}: {e}") })?;
        Ok(Ranks { len, dist, scatter: Scatter::new(len, offset) })
    }

    fn draw(&self, rng: &mut Xoshiro256PlusPlus) -> u64 {
        // Ranks are 1..=len as floats; clamp against rounding for huge ranges.
        let rank = (self.dist.sample(rng) as u64).saturating_sub(1).min(self.len - 1);
        self.scatter.map(rank)
    }
}

impl SlotPicker {
    /// A slot of a range of `len` slots, as an offset from the range's start; `cursor` is
    /// the range's sequential position.
    fn draw(&self, rng: &mut Xoshiro256PlusPlus, len: u64, cursor: &mut u64) -> u64 {
        match self {
            SlotPicker::Sequential => {
                let slot = *cursor;
                *cursor = if slot + 1 >= len { 0 } else { slot + 1 };
                slot
            }
            SlotPicker::Uniform => rng.gen_range(0..len),
            SlotPicker::Zipf(laws) => {
                laws.iter().find(|r| r.len == len).expect("a Zipf law for the span and each share length").draw(rng)
            }
            SlotPicker::HotCold { hot_space, fraction } => {
                let hot = ((hot_space * len as f64).floor() as u64).clamp(1, len);
                if hot >= len || rng.gen::<f64>() < *fraction {
                    rng.gen_range(0..hot)
                } else {
                    rng.gen_range(hot..len)
                }
            }
        }
    }
}

/// The program contexts of a workload: context `c` (1 to `count`) issues writes with
/// probability proportional to `c^-skew` (a Zipf law, drawn from a stream of its own) and
/// writes only to its share of the slots, slots `floor((c-1)·slots/count)` to
/// `floor(c·slots/count)` (exclusive).
struct Contexts {
    rng: Xoshiro256PlusPlus,
    count: u32,
    law: Zipf<f64>,
    /// Sequential address laws: each context's position in its share; empty otherwise.
    cursors: Vec<u64>,
}

impl Contexts {
    /// The context of the next write.
    fn draw(&mut self) -> u32 {
        // Ranks are 1..=count as floats; clamp against rounding.
        (self.law.sample(&mut self.rng) as u64).clamp(1, self.count as u64) as u32
    }
}

/// The first slot and the number of slots of context `c`'s share (1 <= c <= count <= slots).
fn share(slots: u64, count: u32, c: u32) -> (u64, u64) {
    let bound = |i: u32| (slots as u128 * i as u128 / count as u128) as u64;
    (bound(c - 1), bound(c) - bound(c - 1))
}

impl SyntheticSource {
    /// A generator for `cfg` over a device of `logical_sectors` sectors. `seed` is used
    /// when `cfg.seed` is 0 (so the top-level seed reaches workloads that do not set one).
    ///
    /// Errors: an invalid `cfg` (as [`WorkloadConfig::validate`] reports it), a span too
    /// small to hold one request (`workload.span`, or `workload.bs` if even the whole
    /// device is smaller than one request), or more program contexts than slots
    /// (`workload.contexts`).
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
        if cfg.contexts as u64 > slots {
            return Err(Error::Config {
                key: "workload.contexts".into(),
                message: format!(
                    "{} program contexts but only {slots} slots of {} bytes in the span; each context needs a slot of its own \
                     (fewer contexts, or a larger workload.span or smaller workload.bs)",
                    cfg.contexts, cfg.bs
                ),
            });
        }

        let seed = if cfg.seed != 0 { cfg.seed } else { seed };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let random = matches!(cfg.rw, RwMode::Randread | RwMode::Randwrite | RwMode::Randrw);
        let picker = if !random {
            SlotPicker::Sequential
        } else if cfg.zipf > 0.0 {
            // Every range's ranks are scattered by the one offset drawn for the span's.
            let offset = rng.gen_range(0..slots);
            let mut laws = vec![Ranks::new(slots, cfg.zipf, offset)?];
            if cfg.contexts > 0 {
                // Shares are floor(slots / contexts) or one more slots long.
                for len in [slots / cfg.contexts as u64, slots.div_ceil(cfg.contexts as u64)] {
                    if !laws.iter().any(|r| r.len == len) {
                        laws.push(Ranks::new(len, cfg.zipf, offset)?);
                    }
                }
            }
            SlotPicker::Zipf(laws)
        } else if cfg.hot_fraction > 0.0 {
            SlotPicker::HotCold { hot_space: cfg.hot_space, fraction: cfg.hot_fraction }
        } else {
            SlotPicker::Uniform
        };
        let ops = match cfg.rw {
            RwMode::Read | RwMode::Randread => OpMix::Reads,
            RwMode::Write | RwMode::Randwrite => OpMix::Writes,
            RwMode::Rw | RwMode::Randrw => OpMix::Mixed(cfg.rwmixread / 100.0),
        };
        let contexts = if cfg.contexts == 0 {
            None
        } else {
            let law = Zipf::new(cfg.contexts as u64, cfg.context_skew).map_err(|e| Error::Config {
                key: "workload.context_skew".into(),
                message: format!("{}: {e}", cfg.context_skew),
            })?;
            let cursors = if random { Vec::new() } else { vec![0; cfg.contexts as usize] };
            Some(Contexts {
                rng: Xoshiro256PlusPlus::seed_from_u64(crate::sim::stream_seed(seed, CONTEXT_STREAM)),
                count: cfg.contexts,
                law,
                cursors,
            })
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
            contexts,
            handles: cfg.handles,
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

    /// The slot of a request of `op` and its program context (0 for none): a write of a
    /// workload with contexts goes to a slot of its context's share, chosen by the address
    /// law within the share; every other request to a slot of the whole span.
    fn next_slot(&mut self, op: Op) -> (u64, u32) {
        match (&mut self.contexts, op) {
            (Some(contexts), Op::Write) => {
                let c = contexts.draw();
                let (first, len) = share(self.slots, contexts.count, c);
                let mut unused = 0;
                let cursor = contexts.cursors.get_mut(c as usize - 1).unwrap_or(&mut unused);
                (first + self.picker.draw(&mut self.rng, len, cursor), c)
            }
            _ => (self.picker.draw(&mut self.rng, self.slots, &mut self.cursor), 0),
        }
    }

    /// The placement handle a request of `op` from `context` names.
    fn handle(&self, op: Op, context: u32) -> Option<u16> {
        if op != Op::Write || self.handles == 0 {
            return None;
        }
        // At most MAX_HANDLE: `handles` is at most MAX_HANDLE + 1 (validated).
        Some((context.saturating_sub(1) % self.handles) as u16)
    }
}

impl RequestSource for SyntheticSource {
    fn next_request(&mut self) -> Result<Option<Request>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        let op = self.next_op();
        let (slot, context) = self.next_slot(op);
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
        let handle = self.handle(op, context);
        Ok(Some(Request {
            arrival_ns,
            lba: slot * self.slot_sectors as u64,
            sectors: self.slot_sectors,
            op,
            approx,
            context,
            handle,
            tolerance: 0.0,
        }))
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
    use crate::host::config::MAX_CONTEXTS;

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
        for (rw, zipf, hot) in
            [(RwMode::Randrw, 0.0, 0.0), (RwMode::Randread, 1.2, 0.0), (RwMode::Randwrite, 0.0, 0.9), (RwMode::Write, 0.0, 0.0)]
        {
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

    /// FNV-1a over every field of `reqs`: a fingerprint that, unlike the standard
    /// library's hasher, stays the same across Rust releases.
    fn fingerprint(reqs: &[Request]) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for r in reqs {
            let handle = r.handle.map_or(u64::MAX, u64::from);
            let fields =
                [r.arrival_ns, r.lba, r.sectors as u64, (r.op == Op::Read) as u64, r.approx as u64, r.context as u64, handle];
            for byte in fields.iter().flat_map(|f| f.to_le_bytes()) {
                h = (h ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
            }
        }
        h
    }

    #[test]
    fn without_contexts_the_requests_are_those_recorded_before_contexts_existed() {
        // Fingerprints of the first 1,000 requests, recorded with the generator as it was
        // before program contexts and handles (commit 1776167): a workload without them
        // must draw exactly the same requests, or every recorded report would change.
        let base = WorkloadConfig { n: 1000, ..WorkloadConfig::default() };
        let cases = [
            ("uniform", WorkloadConfig { rw: RwMode::Randrw, ..base.clone() }, 0xd321_8281_8c86_fd67),
            ("zipf", WorkloadConfig { rw: RwMode::Randwrite, zipf: 1.1, ..base.clone() }, 0xa129_466a_3788_4fca),
            (
                "hot-cold",
                WorkloadConfig { rw: RwMode::Randrw, hot_fraction: 0.8, rwmixread: 30.0, ..base.clone() },
                0xd4fb_b8f5_7b47_959a,
            ),
            ("sequential", WorkloadConfig { rw: RwMode::Rw, span: 0.01, ..base.clone() }, 0x6f9a_63e0_9159_4099),
            (
                "open-loop",
                WorkloadConfig { iodepth: 0, interarrival_us: 10.0, approx: 0.3, ..base.clone() },
                0x3bc4_87c7_231f_5165,
            ),
        ];
        let got: Vec<(&str, u64)> = cases.iter().map(|(name, c, _)| (*name, fingerprint(&all(c, 1 << 20, 7)))).collect();
        let want: Vec<(&str, u64)> = cases.iter().map(|(name, _, want)| (*name, *want)).collect();
        assert_eq!(got, want, "fingerprints {got:x?}");
    }

    /// The share of writes the `top` most popular of `contexts` contexts issue under a Zipf
    /// law of exponent `skew`, from the law's formula.
    fn zipf_top_share(contexts: u32, skew: f64, top: u32) -> f64 {
        let weight = |k: u32| (k as f64).powf(-skew);
        (1..=top).map(weight).sum::<f64>() / (1..=contexts).map(weight).sum::<f64>()
    }

    /// The share of context `c` of `contexts` over `slots` slots, as a range of slots.
    fn share_of(slots: u64, contexts: u64, c: u32) -> std::ops::Range<u64> {
        (c as u64 - 1) * slots / contexts..c as u64 * slots / contexts
    }

    #[test]
    fn contexts_issue_writes_by_their_zipf_law() {
        let c = WorkloadConfig { contexts: 64, n: 200_000, ..cfg(RwMode::Randrw) };
        let reqs = all(&c, 1 << 20, 11);
        let mut writes = vec![0u64; 65];
        for r in &reqs {
            match r.op {
                Op::Write => writes[r.context as usize] += 1,
                Op::Read => assert_eq!((r.context, r.handle), (0, None), "{r:?}"),
            }
        }
        assert_eq!(writes[0], 0, "every write has a context");
        let total = writes.iter().sum::<u64>() as f64;
        assert!(total > 50_000.0, "{total}");
        let mut by_count = writes[1..].to_vec();
        by_count.sort_unstable_by(|a, b| b.cmp(a));
        let top5 = by_count[..5].iter().sum::<u64>() as f64 / total;
        // The docs' figure: with 64 contexts and 1.5, the top five issue about 75%.
        let want = zipf_top_share(64, 1.5, 5);
        assert!((want - 0.745).abs() < 0.001, "{want}");
        assert!((top5 - want).abs() < 0.01, "top five issue {top5}, the law says {want}");
        // Context 1 is the most popular, with the law's share.
        let first = writes[1] as f64 / total;
        assert!((first - zipf_top_share(64, 1.5, 1)).abs() < 0.01, "{first}");
        // A flatter law spreads the writes.
        let flat = WorkloadConfig { context_skew: 0.5, n: 50_000, ..c.clone() };
        let mut writes = vec![0u64; 65];
        for r in all(&flat, 1 << 20, 11).iter().filter(|r| r.op == Op::Write) {
            writes[r.context as usize] += 1;
        }
        writes.sort_unstable_by(|a, b| b.cmp(a));
        let top5 = writes[..5].iter().sum::<u64>() as f64 / writes.iter().sum::<u64>() as f64;
        assert!((top5 - zipf_top_share(64, 0.5, 5)).abs() < 0.02, "{top5}");
    }

    #[test]
    fn each_context_writes_only_its_share_by_the_address_law() {
        let logical = 8000; // 1000 slots of 8 sectors: shares of 142 and 143 slots
        for (rw, zipf, hot_fraction) in [
            (RwMode::Randrw, 0.0, 0.0),
            (RwMode::Randwrite, 1.1, 0.0),
            (RwMode::Randwrite, 0.0, 0.9),
            (RwMode::Rw, 0.0, 0.0),
            (RwMode::Write, 0.0, 0.0),
        ] {
            let c = WorkloadConfig { contexts: 7, zipf, hot_fraction, hot_space: 0.1, n: 50_000, ..cfg(rw) };
            let reqs = all(&c, logical, 3);
            let mut by_context: Vec<Vec<u64>> = vec![Vec::new(); 8];
            for r in &reqs {
                let slot = r.lba / 8;
                assert!(slot < 1000, "{r:?}");
                if r.op == Op::Write {
                    assert!((1..=7).contains(&r.context), "{r:?}");
                    assert!(share_of(1000, 7, r.context).contains(&slot), "{rw:?}: {r:?} outside its share");
                    by_context[r.context as usize].push(slot);
                }
            }
            for (ctx, slots) in by_context.iter().enumerate().skip(1) {
                let share = share_of(1000, 7, ctx as u32);
                assert!(!slots.is_empty(), "{rw:?}: context {ctx} never writes");
                match (rw, zipf > 0.0, hot_fraction > 0.0) {
                    (RwMode::Rw | RwMode::Write, _, _) => {
                        // Sequential: each context walks its own share and wraps at its end.
                        let walk: Vec<u64> = share.clone().cycle().take(slots.len()).collect();
                        assert_eq!(slots, &walk, "{rw:?}: context {ctx}");
                    }
                    (_, true, _) => {
                        // Zipf within the share: a hot slot, not at the share's start.
                        let mut counts = std::collections::HashMap::new();
                        slots.iter().for_each(|s| *counts.entry(*s).or_insert(0u64) += 1);
                        let top = counts.values().max().copied().unwrap_or(0);
                        assert!(top * 10 > slots.len() as u64, "{rw:?}: context {ctx}: hottest slot {top} of {}", slots.len());
                    }
                    (_, _, true) => {
                        // Hot/cold within the share: its first tenth takes about 90%.
                        let hot_end = share.start + (0.1 * (share.end - share.start) as f64).floor() as u64;
                        let hot = slots.iter().filter(|&&s| s < hot_end).count() as f64 / slots.len() as f64;
                        assert!((hot - 0.9).abs() < 0.05, "{rw:?}: context {ctx}: {hot}");
                    }
                    _ => {
                        // Uniform within the share: more than 100 of its slots are written.
                        let distinct: std::collections::HashSet<_> = slots.iter().collect();
                        assert!(distinct.len() > 100 || slots.len() < 300, "{rw:?}: context {ctx}: {}", distinct.len());
                    }
                }
            }
            // Reads keep the whole span: uniform reads reach slots of every share.
            if rw == RwMode::Randrw {
                let read_slots: std::collections::HashSet<u64> =
                    reqs.iter().filter(|r| r.op == Op::Read).map(|r| r.lba / 8).collect();
                assert!(read_slots.len() > 900, "{}", read_slots.len());
            }
            // Sequential reads walk the whole span on a cursor of their own.
            if rw == RwMode::Rw {
                let reads: Vec<u64> = reqs.iter().filter(|r| r.op == Op::Read).map(|r| r.lba / 8).collect();
                let walk: Vec<u64> = (0..1000).cycle().take(reads.len()).collect();
                assert_eq!(reads, walk);
            }
        }
    }

    #[test]
    fn handles_follow_the_context() {
        let c = WorkloadConfig { contexts: 10, handles: 4, n: 5000, ..cfg(RwMode::Randrw) };
        let reqs = all(&c, 1 << 20, 2);
        assert_eq!(reqs, all(&c, 1 << 20, 2), "the same seed gives the same contexts");
        let mut handles_seen = std::collections::BTreeSet::new();
        for r in &reqs {
            match r.op {
                Op::Write => {
                    assert_eq!(r.handle, Some(((r.context - 1) % 4) as u16), "{r:?}");
                    handles_seen.insert(r.handle);
                }
                Op::Read => assert_eq!(r.handle, None, "{r:?}"),
            }
        }
        assert_eq!(handles_seen.len(), 4);
        // Without contexts every write names handle 0.
        let plain = WorkloadConfig { handles: 3, ..cfg(RwMode::Randrw) };
        for r in all(&plain, 1 << 20, 2) {
            assert_eq!(r.context, 0);
            assert_eq!(r.handle, (r.op == Op::Write).then_some(0), "{r:?}");
        }
        // As many handles as ids allow: context c names c - 1.
        let most = WorkloadConfig { contexts: 65_535, handles: 65_535, n: 2000, ..cfg(RwMode::Randwrite) };
        for r in all(&most, 1 << 20, 2) {
            assert_eq!(r.handle, Some((r.context - 1) as u16), "{r:?}");
        }
        // Without handles no request names one.
        let none = WorkloadConfig { contexts: 10, ..cfg(RwMode::Randrw) };
        assert!(all(&none, 1 << 20, 2).iter().all(|r| r.handle.is_none()));
    }

    #[test]
    fn contexts_need_a_slot_each() {
        // 80 sectors: 10 slots of 4 KiB.
        let ten = WorkloadConfig { contexts: 10, n: 100, ..cfg(RwMode::Write) };
        for r in all(&ten, 80, 1) {
            assert_eq!(r.lba / 8, r.context as u64 - 1, "one slot per context: {r:?}");
        }
        let eleven = WorkloadConfig { contexts: 11, ..ten.clone() };
        match SyntheticSource::new(&eleven, 80, 1) {
            Err(Error::Config { key, message }) => {
                assert_eq!(key, "workload.contexts");
                assert!(message.contains("11 program contexts but only 10 slots of 4096 bytes"), "{message}");
            }
            Err(e) => panic!("{e:?}"),
            Ok(_) => panic!("accepted"),
        }
        // Errors of the keys themselves come from validation.
        for (bad, key) in [
            (WorkloadConfig { contexts: MAX_CONTEXTS + 1, ..ten.clone() }, "workload.contexts"),
            (WorkloadConfig { context_skew: 0.0, ..ten.clone() }, "workload.context_skew"),
            (WorkloadConfig { context_skew: f64::NAN, ..ten.clone() }, "workload.context_skew"),
            (WorkloadConfig { handles: 65_536, ..ten.clone() }, "workload.handles"),
        ] {
            match SyntheticSource::new(&bad, 1 << 20, 1) {
                Err(Error::Config { key: k, .. }) => assert_eq!(k, key),
                Err(e) => panic!("{e:?}"),
                Ok(_) => panic!("accepted {bad:?}"),
            }
        }
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
