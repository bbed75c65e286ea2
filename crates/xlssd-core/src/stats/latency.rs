use hdrhistogram::Histogram;
use serde::Serialize;

/// Latency distribution of one kind of request: an HDR histogram (3 significant digits)
/// for percentiles, plus an exact sum for the mean and an exact maximum.
#[derive(Clone)]
pub struct LatencyStats {
    hist: Histogram<u64>,
    sum_ns: u128,
    max_ns: u64,
    bytes: u64,
}

/// Latency summary in microseconds, as the report carries it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LatencySummary {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
    pub max: f64,
    /// The distribution for plotting: `[latency_us, fraction of requests at or below it]`
    /// at the fractions of [`CDF_FRACTIONS`].
    pub cdf: Vec<[f64; 2]>,
}

/// Fractions at which the report samples each latency distribution: every 5% and the tail.
pub const CDF_FRACTIONS: [f64; 24] = [
    0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99, 0.999,
    0.9999, 1.0,
];

impl Default for LatencyStats {
    fn default() -> Self {
        LatencyStats { hist: Histogram::new(3).expect("3 significant digits is valid"), sum_ns: 0, max_ns: 0, bytes: 0 }
    }
}

impl LatencyStats {
    pub fn record(&mut self, latency_ns: u64, bytes: u64) {
        // An auto-resizing histogram only fails on counts beyond u64, which cannot happen here.
        let _ = self.hist.record(latency_ns.max(1));
        self.sum_ns += latency_ns as u128;
        self.max_ns = self.max_ns.max(latency_ns);
        self.bytes += bytes;
    }

    /// Records `n` values of `latency_ns` carrying no bytes, as `n` calls of [`Self::record`].
    pub fn record_n(&mut self, latency_ns: u64, n: u64) {
        if n == 0 {
            return;
        }
        let _ = self.hist.record_n(latency_ns.max(1), n);
        self.sum_ns += latency_ns as u128 * n as u128;
        self.max_ns = self.max_ns.max(latency_ns);
    }

    /// The distribution of both `self`'s and `other`'s values, as if each had been
    /// recorded into one: kept apart while the run goes, the kinds of request are joined
    /// once for the report instead of every request being recorded twice.
    pub fn joined(&self, other: &LatencyStats) -> LatencyStats {
        let mut hist = self.hist.clone();
        // Both are auto-resizing with the same precision: adding cannot fail.
        let _ = hist.add(&other.hist);
        LatencyStats {
            hist,
            sum_ns: self.sum_ns + other.sum_ns,
            max_ns: self.max_ns.max(other.max_ns),
            bytes: self.bytes + other.bytes,
        }
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn summary(&self) -> LatencySummary {
        let n = self.count();
        if n == 0 {
            return LatencySummary {
                mean: 0.0,
                p50: 0.0,
                p90: 0.0,
                p99: 0.0,
                p99_9: 0.0,
                p99_99: 0.0,
                max: 0.0,
                cdf: Vec::new(),
            };
        }
        // The histogram answers with the top of a bucket; never beyond what was observed.
        let q = |p: f64| round3(self.hist.value_at_quantile(p).min(self.max_ns) as f64 / 1000.0);
        LatencySummary {
            mean: round3(self.sum_ns as f64 / n as f64 / 1000.0),
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            p99_9: q(0.999),
            p99_99: q(0.9999),
            max: round3(self.max_ns as f64 / 1000.0),
            cdf: CDF_FRACTIONS.iter().map(|&f| [q(f), f]).collect(),
        }
    }
}

/// Rounds to the nanosecond when the value is in microseconds, so reports don't carry
/// floating-point noise.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_mean_of_a_known_distribution() {
        let mut s = LatencyStats::default();
        for us in 1..=1000u64 {
            s.record(us * 1000, 4096);
        }
        let sum = s.summary();
        assert_eq!(s.count(), 1000);
        assert_eq!(sum.mean, 500.5);
        assert!((sum.p50 - 500.0).abs() <= 0.5, "{sum:?}");
        assert!((sum.p99 - 990.0).abs() <= 1.0, "{sum:?}");
        assert_eq!(sum.max, 1000.0);
        assert_eq!(s.bytes(), 4096 * 1000);
    }

    #[test]
    fn two_joined_distributions_summarise_as_one_recorded_whole() {
        let (mut a, mut b, mut whole) = (LatencyStats::default(), LatencyStats::default(), LatencyStats::default());
        for i in 1..=3000u64 {
            // Spread over six orders of magnitude, so that the histograms resize.
            let ns = i * i * 37 + 1;
            let (part, bytes) = if i % 3 == 0 { (&mut a, 4096) } else { (&mut b, 512 * (i % 7)) };
            part.record(ns, bytes);
            whole.record(ns, bytes);
        }
        let joined = a.joined(&b);
        assert_eq!(joined.count(), 3000);
        assert_eq!(joined.bytes(), whole.bytes());
        assert_eq!(joined.summary(), whole.summary());
        assert_eq!(b.joined(&a).summary(), whole.summary());
    }

    #[test]
    fn cdf_samples_the_distribution_from_min_to_max() {
        let mut s = LatencyStats::default();
        for us in 1..=1000u64 {
            s.record(us * 1000, 0);
        }
        let sum = s.summary();
        assert_eq!(sum.cdf.len(), CDF_FRACTIONS.len());
        assert_eq!(sum.cdf[0], [1.0, 0.0]);
        assert_eq!(*sum.cdf.last().unwrap(), [1000.0, 1.0]);
        assert!(sum.cdf.windows(2).all(|w| w[0][0] <= w[1][0] && w[0][1] < w[1][1]));
        // Each point is the quantile at its fraction: a quarter of 1..1000 is 250.
        let quarter = sum.cdf.iter().find(|p| p[1] == 0.25).unwrap();
        assert!((quarter[0] - 250.0).abs() <= 0.5, "{quarter:?}");
        assert_eq!(sum.cdf.iter().find(|p| p[1] == 0.5).unwrap()[0], sum.p50);
        assert!(LatencyStats::default().summary().cdf.is_empty());
    }
}
