//! xlssd: a white-box, cross-layer NAND-flash SSD simulator.
//!
//! Layers (each a module): `sim` (event engine), `nand` (flash array), `controller`
//! (queues, channels, write buffer, cached mapping table), `ftl` (mapping, allocation, GC,
//! wear levelling, preconditioning), `host` (workloads), `backing` (a disk behind the SSD),
//! `stats` and `report`. `seams` holds the hooks the engine calls a scheme at; `config`
//! the typed configuration; the `engine` module wires the layers into a [`Simulator`];
//! `techniques` holds the schemes and their registry.
//!
//! This file is the top level, and the only caller of the scheme registry: it resolves and
//! validates a configuration once ([`validated`]), checks its memory with the parts the
//! techniques supply, builds the scheme and hands it to the engine ([`simulator`]).

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
pub mod seams;
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

/// `cfg` resolved and checked: its scheme section resolved by the registry (names,
/// tables, what the scheme brings), every section's values, and what the scheme needs of
/// the others. The configuration every run uses; checking it again is not needed.
pub fn validated(cfg: &Config) -> Result<Config> {
    let mut cfg = cfg.clone();
    cfg.scheme = techniques::resolve(&cfg.scheme)?;
    cfg.validate()?;
    // Last: what a scheme asks of the sections checked above.
    techniques::check_needs(&cfg)?;
    Ok(cfg)
}

/// A TOML document over the defaults, validated ([`validated`]).
pub fn config_from_toml(text: &str) -> Result<Config> {
    validated(&Config::parse_toml(text)?)
}

/// A JSON document over the defaults (the form the Python layer hands over), validated.
pub fn config_from_json(text: &str) -> Result<Config> {
    validated(&Config::parse_json(text)?)
}

/// The memory estimate of a validated configuration, the scheme's own structures included.
pub fn memory_estimate(cfg: &Config) -> limits::estimate::Estimate {
    limits::estimate::estimate(cfg, &techniques::memory(cfg))
}

/// The simulator of `cfg` (validated here), set up and ready to run `source`; `progress`
/// hears how the set-up goes.
pub fn simulator<'s>(
    cfg: &Config,
    source: Box<dyn RequestSource + 's>,
    progress: Option<&mut dyn Progress>,
) -> Result<Simulator<'s>> {
    simulator_of_valid(&validated(cfg)?, source, progress)
}

/// As [`simulator`], for a configuration [`validated`] already.
fn simulator_of_valid<'s>(
    cfg: &Config,
    source: Box<dyn RequestSource + 's>,
    progress: Option<&mut dyn Progress>,
) -> Result<Simulator<'s>> {
    // Before anything that grows with the device is allocated.
    limits::check_memory(cfg, &techniques::memory(cfg))?;
    let geo = nand::Geometry::new(&cfg.geometry);
    let scheme = techniques::build(cfg, &geo, cfg.capacity().logical_pages)?;
    Simulator::assemble(cfg, scheme, source, progress)
}

/// Runs one simulation: the device of `cfg` replaying `workload`.
pub fn simulate(cfg: &Config, workload: &Workload, mut opts: RunOptions) -> Result<Report> {
    let cfg = &validated(cfg)?;
    let (source, description) = match workload {
        // A trace's report names the format it was read as, detected or given.
        Workload::Trace { path, format, skip_bad_lines } => {
            let (source, detected) = open_trace_detected(path, *format, *skip_bad_lines, trace_time_scale(cfg))?;
            let described = Workload::Trace { path: path.clone(), format: Some(detected), skip_bad_lines: *skip_bad_lines };
            (source, described)
        }
        _ => (open_workload(cfg, workload, cfg.logical_sectors())?, workload.clone()),
    };
    if opts.workload_description.is_null() {
        opts.workload_description = serde_json::to_value(&description).expect("workload serialises");
    }
    let mut progress = opts.progress.take();
    let mut sim = simulator_of_valid(cfg, source, progress.as_deref_mut().map(|p| p as &mut dyn Progress))?;
    if sim.wants_preview() {
        // An offline oracle reads the workload once before the run replays it.
        let again = match workload {
            Workload::Trace { path, format, skip_bad_lines } => {
                open_trace_detected(path, *format, *skip_bad_lines, trace_time_scale(cfg))?.0
            }
            _ => open_workload(cfg, workload, cfg.logical_sectors())?,
        };
        sim.preview(again)?;
    }
    opts.progress = progress;
    sim.run(opts)
}
