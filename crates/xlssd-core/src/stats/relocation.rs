//! Relocations by reason: how many blocks were emptied, how many pages they moved, how long
//! each took from its start to its erase (its service time), how long the dies were busy
//! with it, and the response times of the host reads that arrived while one was running.
//! Read-disturb management is judged on exactly these (a reclaim's service time and the
//! reads it holds up), so the engine measures them for every reason alike.

use serde::Serialize;

use super::{LatencyStats, LatencySummary};
use crate::sim::Time;

/// At most this many reasons are told apart (cleaning, wear levelling, and the scheme's
/// task names); a run's reads carry the set of reasons running at their arrival as bits.
pub const MAX_REASONS: usize = 16;

/// Indices of the engine's own reasons.
pub const GC: usize = 0;
pub const WEAR_LEVELLING: usize = 1;

#[derive(Clone, Default)]
struct PerReason {
    name: &'static str,
    started: u64,
    finished: u64,
    pages_moved: u64,
    busy_ns: u64,
    service: LatencyStats,
    reads_during: LatencyStats,
    reads_on_die: LatencyStats,
    /// Relocations of this reason running now, over the whole device.
    running: u32,
}

/// The measurements of every reason seen so far.
#[derive(Clone)]
pub struct RelocationStats {
    reasons: Vec<PerReason>,
    /// Bit `i` set while a relocation of reason `i` runs.
    running_mask: u16,
}

impl Default for RelocationStats {
    fn default() -> Self {
        let named = |name| PerReason { name, ..PerReason::default() };
        RelocationStats { reasons: vec![named("gc"), named("wear_levelling")], running_mask: 0 }
    }
}

/// One reason's figures, as the report carries them.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RelocationReport {
    pub reason: String,
    /// Relocations started and finished (erased).
    pub started: u64,
    pub finished: u64,
    pub pages_moved: u64,
    /// Pages moved per finished relocation.
    pub pages_per_relocation: f64,
    /// Die time spent on its reads, programs and erases, in milliseconds.
    pub busy_ms: f64,
    /// From the start of a relocation to the end of its erase, in microseconds.
    pub service_us: LatencySummary,
    /// Host reads that arrived while a relocation of this reason was running anywhere on
    /// the device: how many, and their response times in microseconds.
    pub reads_during: u64,
    pub reads_during_us: LatencySummary,
    /// Host reads with a page sent to a die while a relocation of this reason ran on it
    /// (the reads it can hold up), and their response times in microseconds.
    pub reads_on_die: u64,
    pub reads_on_die_us: LatencySummary,
}

impl RelocationStats {
    /// The index of a task's reason, registering it on first sight. Reasons beyond
    /// [`MAX_REASONS`] share the last index.
    pub fn index(&mut self, name: &'static str) -> usize {
        if let Some(i) = self.reasons.iter().position(|r| r.name == name) {
            return i;
        }
        if self.reasons.len() == MAX_REASONS {
            return MAX_REASONS - 1;
        }
        self.reasons.push(PerReason { name, ..PerReason::default() });
        self.reasons.len() - 1
    }

    pub fn started(&mut self, reason: usize) {
        let r = &mut self.reasons[reason];
        r.started += 1;
        r.running += 1;
        self.running_mask |= 1 << reason;
    }

    pub fn moved(&mut self, reason: usize, pages: u64) {
        self.reasons[reason].pages_moved += pages;
    }

    pub fn busy(&mut self, reason: usize, ns: u64) {
        self.reasons[reason].busy_ns += ns;
    }

    /// A relocation of `reason` that started at `start` erased its block at `now`.
    pub fn finished(&mut self, reason: usize, start: Time, now: Time) {
        let r = &mut self.reasons[reason];
        debug_assert!(r.running > 0, "relocation `{}` finished more often than started", r.name);
        r.finished += 1;
        r.running = r.running.saturating_sub(1);
        r.service.record(now.saturating_sub(start), 0);
        if r.running == 0 {
            self.running_mask &= !(1 << reason);
        }
    }

    /// The reasons running now, as bits, for a read to remember from its arrival.
    #[inline]
    pub fn running_mask(&self) -> u16 {
        self.running_mask
    }

    /// A host read that arrived while the reasons of `mask` ran took `latency_ns`.
    pub fn read_during(&mut self, mask: u16, latency_ns: u64) {
        self.record_for(mask, latency_ns, |r| &mut r.reads_during);
    }

    /// A host read with a page sent to a die running relocations of the reasons of `mask`
    /// took `latency_ns`.
    pub fn read_on_die(&mut self, mask: u16, latency_ns: u64) {
        self.record_for(mask, latency_ns, |r| &mut r.reads_on_die);
    }

    /// Records `latency_ns` in the `stats` of every reason of `mask`.
    fn record_for(&mut self, mask: u16, latency_ns: u64, stats: fn(&mut PerReason) -> &mut LatencyStats) {
        let mut bits = mask;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            stats(&mut self.reasons[i]).record(latency_ns, 0);
        }
    }

    pub fn report(&self) -> Vec<RelocationReport> {
        self.reasons
            .iter()
            .map(|r| RelocationReport {
                reason: r.name.to_string(),
                started: r.started,
                finished: r.finished,
                pages_moved: r.pages_moved,
                pages_per_relocation: if r.finished == 0 { 0.0 } else { super::round3(r.pages_moved as f64 / r.finished as f64) },
                busy_ms: super::round3(r.busy_ns as f64 / 1e6),
                service_us: r.service.summary(),
                reads_during: r.reads_during.count(),
                reads_during_us: r.reads_during.summary(),
                reads_on_die: r.reads_on_die.count(),
                reads_on_die_us: r.reads_on_die.summary(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_is_counted_for_every_reason_running_at_its_arrival() {
        let mut s = RelocationStats::default();
        let reclaim = s.index("task_a");
        assert_eq!((reclaim, s.index("task_a")), (2, 2));
        s.started(GC);
        s.started(reclaim);
        let both = s.running_mask();
        s.finished(GC, 1_000, 5_000);
        let only_reclaim = s.running_mask();
        s.read_during(both, 300_000);
        s.read_during(only_reclaim, 100_000);
        s.finished(reclaim, 2_000, 12_000);
        assert_eq!(s.running_mask(), 0);
        let r = s.report();
        assert_eq!((r[0].reads_during, r[2].reads_during, r[1].reads_during), (1, 2, 0));
        assert_eq!(r[2].reads_during_us.mean, 200.0);
        // Reads on a die running a relocation are counted apart, per reason.
        s.read_on_die(1 << reclaim, 400_000);
        let r = s.report();
        assert_eq!((r[2].reads_on_die, r[0].reads_on_die), (1, 0));
        assert_eq!(r[2].reads_on_die_us.mean, 400.0);
        assert_eq!((r[0].service_us.max, r[2].service_us.max), (4.0, 10.0));
    }

    #[test]
    fn reasons_stay_running_until_their_last_relocation_finishes() {
        let mut s = RelocationStats::default();
        s.started(GC);
        s.started(GC);
        s.moved(GC, 10);
        s.finished(GC, 0, 10);
        assert_eq!(s.running_mask(), 1);
        s.finished(GC, 0, 30);
        assert_eq!(s.running_mask(), 0);
        let gc = &s.report()[0];
        assert_eq!((gc.started, gc.finished, gc.pages_moved, gc.pages_per_relocation), (2, 2, 10, 5.0));
    }
}
