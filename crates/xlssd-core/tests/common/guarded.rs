//! Runs that cannot hang a test, and quantities derived from a config.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use xlssd_core::host::Request;

use super::VecSource;
use xlssd_core::{Config, Progress, Report, RunOptions};

/// Stops a run in which no request completes over `max_stuck` progress updates (each is
/// 65,536 events), or that runs longer than `max_wall`.
pub struct Guard {
    started: Instant,
    last_done: u64,
    stuck: u32,
    max_stuck: u32,
    max_wall: Duration,
}

impl Guard {
    pub fn new(max_stuck: u32, max_wall: Duration) -> Guard {
        Guard { started: Instant::now(), last_done: u64::MAX, stuck: 0, max_stuck, max_wall }
    }
}

impl Progress for Guard {
    fn update(&mut self, requests_done: u64, _simulated_ns: u64) -> bool {
        if requests_done == self.last_done {
            self.stuck += 1;
        } else {
            self.stuck = 0;
            self.last_done = requests_done;
        }
        self.stuck < self.max_stuck && self.started.elapsed() < self.max_wall
    }
}

/// Runs `reqs` (closed loop with `qd` outstanding, or open loop) on its own thread, so that
/// an engine that livelocks (events without progress) or spins (no events, no return) fails
/// the test after a few seconds instead of hanging it.
pub fn run_guarded(cfg: &Config, reqs: Vec<Request>, qd: Option<u32>, check: bool) -> Result<Report, String> {
    const WATCHDOG: Duration = Duration::from_secs(20);
    let cfg = cfg.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let source = match qd {
            Some(qd) => VecSource::closed(reqs, qd),
            None => VecSource::open(reqs),
        };
        let result = xlssd_core::simulator(&cfg, Box::new(source), None).map_err(|e| format!("setup: {e}")).and_then(|sim| {
            let mut guard = Guard::new(50, Duration::from_secs(15));
            sim.run(RunOptions { check, progress: Some(&mut guard), ..Default::default() })
                .map_err(|e| format!("run: {e} (after {:?} of wall time)", guard.started.elapsed()))
        });
        let _ = tx.send(result);
    });
    rx.recv_timeout(WATCHDOG)
        .unwrap_or_else(|_| Err(format!("the run did not return within {WATCHDOG:?} (the engine is spinning)")))
}

/// Logical capacity in pages: floor(physical pages x (1 - over-provisioning)).
pub fn logical_pages(cfg: &Config) -> u64 {
    let g = &cfg.geometry;
    let physical = g.channels as u64
        * g.chips_per_channel as u64
        * g.dies_per_chip as u64
        * g.planes_per_die as u64
        * g.blocks_per_plane as u64
        * g.pages_per_block as u64;
    ((physical as f64) * (1.0 - cfg.ftl.overprovisioning)).floor() as u64
}

/// Time to move one page over a channel, in ns: page size / (rate x width), rounded up.
pub fn page_xfer_ns(cfg: &Config) -> u64 {
    let bytes_per_s = cfg.channel.rate_mts * 1e6 * cfg.channel.width_bits as f64 / 8.0;
    (cfg.geometry.page_size as f64 * 1e9 / bytes_per_s).ceil() as u64
}

/// Microseconds as the report gives them (rounded to the ns) from nanoseconds.
pub fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// Population spread measures of a report's erase counts.
pub fn erase_spread(r: &Report) -> (u64, f64) {
    (r.nand.erase_count.max - r.nand.erase_count.min, r.nand.erase_count.stddev)
}
