//! xlssd: a white-box, cross-layer NAND-flash SSD simulator.
//!
//! Layers (each a module): `sim` (event engine), `nand` (flash array), `controller`
//! (queues, channels, write buffer, cached mapping table), `ftl` (mapping, allocation, GC,
//! wear levelling, preconditioning), `host` (workloads), `backing` (a disk behind the SSD),
//! `stats` and `report`. The
//! `engine` module wires them into a [`Simulator`]; `techniques` holds the schemes it calls
//! at its seams.

pub mod backing;
pub mod config;
pub mod controller;
pub mod ecc;
pub mod engine;
pub mod error;
pub mod ftl;
pub mod fuzz;
pub mod host;
pub mod interrupt;
pub mod limits;
pub mod nand;
pub mod physics;
pub mod report;
pub mod sim;
pub mod stats;
pub mod techniques;

pub use config::Config;
pub use engine::{Payload, Progress, RunOptions, Simulator};
pub use error::{Error, Result};
pub use host::{Request, RequestSource, Workload};
pub use report::Report;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

use host::synthetic::SyntheticSource;
use host::trace::open_trace_detected;

/// Opens the request source a workload describes, for a device of `logical_sectors`.
pub fn open_workload(cfg: &Config, workload: &Workload, logical_sectors: u64) -> Result<Box<dyn RequestSource>> {
    match workload {
        Workload::Synthetic(w) => {
            w.validate("workload")?;
            let seed = sim::seed::stream_seed(cfg.seed, sim::seed::SEED_WORKLOAD);
            Ok(Box::new(SyntheticSource::new(w, logical_sectors, seed)?.with_time_scale(w, cfg.host.time_scale)?))
        }
        Workload::Trace { path, format, skip_bad_lines } => {
            Ok(open_trace_detected(path, *format, *skip_bad_lines, trace_time_scale(cfg))?.0)
        }
    }
}

/// The time scale a trace's arrivals are replayed with, or `None` when they are not (closed
/// loop).
fn trace_time_scale(cfg: &Config) -> Option<f64> {
    (cfg.host.replay == config::ReplayMode::Open).then_some(cfg.host.time_scale)
}

/// Sectors host requests address on the device a config describes: the SSD's logical
/// capacity, or the disk's with an SSD cache in front of it (`[backing]`).
pub fn logical_sectors(cfg: &Config) -> u64 {
    if cfg.backing.enabled {
        return cfg.backing.disk.capacity_sectors();
    }
    // Logical pages are mapping units, each `unit_pages` flash pages.
    let cap = cfg.capacity();
    cap.logical_pages * cap.unit_pages as u64 * (cfg.geometry.page_size as u64 / host::SECTOR_BYTES)
}

/// Runs one simulation: the device of `cfg` replaying `workload`.
pub fn simulate(cfg: &Config, workload: &Workload, mut opts: RunOptions) -> Result<Report> {
    cfg.validate()?;
    let (source, description) = match workload {
        // A trace's report names the format it was read as, detected or given.
        Workload::Trace { path, format, skip_bad_lines } => {
            let (source, detected) = open_trace_detected(path, *format, *skip_bad_lines, trace_time_scale(cfg))?;
            let described = Workload::Trace { path: path.clone(), format: Some(detected), skip_bad_lines: *skip_bad_lines };
            (source, described)
        }
        _ => (open_workload(cfg, workload, logical_sectors(cfg))?, workload.clone()),
    };
    if opts.workload_description.is_null() {
        opts.workload_description = serde_json::to_value(&description).expect("workload serialises");
    }
    let mut progress = opts.progress.take();
    let mut sim = Simulator::with_progress(cfg, source, progress.as_deref_mut().map(|p| p as &mut dyn Progress))?;
    if sim.wants_preview() {
        // An offline oracle reads the workload once before the run replays it.
        let again = match workload {
            Workload::Trace { path, format, skip_bad_lines } => {
                open_trace_detected(path, *format, *skip_bad_lines, trace_time_scale(cfg))?.0
            }
            _ => open_workload(cfg, workload, logical_sectors(cfg))?,
        };
        sim.preview(again)?;
    }
    opts.progress = progress;
    sim.run(opts)
}
