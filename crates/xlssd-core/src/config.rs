//! The simulator's configuration: one typed structure whose sections mirror the modules.
//! Each section's type and its validation live beside the module that owns it
//! (`nand::config`, `controller::config`, `ftl::config`, `host::config`, `physics::config`,
//! `ecc::config`, `stats::config`, and a technique's own `config`); this module joins them,
//! parses documents and checks what spans sections (capacity, the scheme's overrides).
//!
//! Every key has a default, so a config file only names what differs from them. Unknown
//! keys and wrong types are rejected by serde (with the dotted path of the key), and
//! impossible values by [`Config::validate`], which names the key and the allowed range.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

mod finite;
mod precondition_room;
pub(crate) mod ranges;
mod scheme;

pub use precondition_room::PreconditionLayout;
pub use ranges::show_f64;
pub use scheme::{SchemeConfig, SchemeShape, BASELINE};

pub use crate::controller::config::{CacheConfig, ChannelConfig, MappingConfig, WritePolicy};
pub use crate::ecc::config::{EccConfig, EccScheme};
pub use crate::ftl::config::{
    AllocationScheme, FtlConfig, GcConfig, GcPolicy, HandleGc, PageBinding, PreconditionConfig, WlConfig,
};
pub use crate::host::config::{AddressMode, HostConfig, ReplayMode, RwMode, UnmappedReads, WorkloadConfig};
pub use crate::nand::config::{CellType, GeometryConfig, PerPageType, TimingConfig, MAX_PLANES_PER_DIE};
pub use crate::physics::config::{AgingConfig, PhysicsConfig};
pub use crate::stats::config::EnergyConfig;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Seed of every pseudo-random stream (workload, policies); each concern derives its own.
    pub seed: u64,
    pub geometry: GeometryConfig,
    pub timing: TimingConfig,
    pub channel: ChannelConfig,
    pub host: HostConfig,
    pub ftl: FtlConfig,
    pub gc: GcConfig,
    pub wl: WlConfig,
    pub cache: CacheConfig,
    pub mapping: MappingConfig,
    pub precondition: PreconditionConfig,
    pub energy: EnergyConfig,
    pub workload: WorkloadConfig,
    pub physics: PhysicsConfig,
    pub ecc: EccConfig,
    pub aging: AgingConfig,
    /// An SSD cache in front of a disk: host requests address the disk.
    pub backing: crate::backing::BackingConfig,
    /// Bounds on what a run may take (memory).
    pub limits: crate::limits::LimitsConfig,
    /// The scheme: which techniques run, and their parameters.
    pub scheme: SchemeConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            geometry: GeometryConfig::default(),
            timing: TimingConfig::default(),
            channel: ChannelConfig::default(),
            host: HostConfig::default(),
            ftl: FtlConfig::default(),
            gc: GcConfig::default(),
            wl: WlConfig::default(),
            cache: CacheConfig::default(),
            mapping: MappingConfig::default(),
            precondition: PreconditionConfig::default(),
            energy: EnergyConfig::default(),
            workload: WorkloadConfig::default(),
            physics: PhysicsConfig::default(),
            backing: crate::backing::BackingConfig::default(),
            ecc: EccConfig::default(),
            aging: AgingConfig::default(),
            limits: Default::default(),
            scheme: Default::default(),
        }
    }
}

/// Sizes that follow from a config: the logical space, the GC reserve, the mapping table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// Planes of the device.
    pub planes: u64,
    pub physical_pages: u64,
    /// Flash pages per mapping unit (`mapping.unit_bytes`).
    pub unit_pages: u32,
    /// Logical pages the host can address, each one mapping unit: physical pages less
    /// over-provisioning, in units.
    pub logical_pages: u64,
    /// Translation pages holding the mapping table on flash (cached mapping table only).
    pub translation_pages: u64,
    /// Mapping entries in one translation page.
    pub entries_per_translation_page: u64,
    /// Background GC starts in a plane with fewer free blocks than this.
    pub gc_threshold_blocks: u32,
    /// Once started, it goes on while the plane has fewer free blocks than this (at least
    /// `gc_threshold_blocks`).
    pub gc_stop_blocks: u32,
    /// Below this many free blocks a plane's GC runs in the foreground.
    pub gc_hard_blocks: u32,
    /// Free blocks per plane only cleaning may take (at least 1).
    pub gc_reserve_blocks: u32,
    /// Blocks per plane that can never hold the logical space: the foreground-GC reserve
    /// (hard threshold), the block kept for GC itself, and one open block per allocation
    /// stream in use (host streams, GC, materialised reads, translation pages), whose
    /// unwritten pages the other streams cannot use.
    pub reserved_blocks_per_plane: u32,
    /// Physical pages outside that reserve, which must hold the logical space and the
    /// translation pages.
    pub usable_pages: u64,
}

impl Config {
    /// Sizes derived from the geometry, over-provisioning, GC thresholds and mapping.
    /// Host write streams: those configured, or as many as the scheme needs.
    pub fn host_streams(&self) -> u32 {
        self.ftl.streams.max(self.scheme.shape.streams).max(self.ftl.placement_handles)
    }

    /// GC streams beyond the shared one: one per placement handle after the first when
    /// cleaning keeps handles apart (`ftl.handle_gc = "same-handle"`).
    pub fn extra_gc_streams(&self) -> u32 {
        match self.ftl.handle_gc {
            crate::ftl::config::HandleGc::SameHandle => self.ftl.placement_handles.saturating_sub(1),
            crate::ftl::config::HandleGc::Shared => 0,
        }
    }

    pub fn capacity(&self) -> Capacity {
        let g = &self.geometry;
        let planes = g.channels as u64 * g.chips_per_channel as u64 * g.dies_per_chip as u64 * g.planes_per_die as u64;
        let physical_pages = planes * g.blocks_per_plane as u64 * g.pages_per_block as u64;
        let unit_pages = self.mapping.unit_pages(g.page_size);
        let logical_pages = ((physical_pages as f64) * (1.0 - self.ftl.overprovisioning)).floor() as u64 / unit_pages as u64;
        let entries = (g.page_size / self.mapping.entry_bytes.max(1)).max(1) as u64;
        let translation_pages = if self.mapping.cached_table_bytes > 0 { logical_pages.div_ceil(entries) } else { 0 };
        // Free blocks kept for cleaning: one, or one per stream cleaning may open a block in
        // at once (a scheme's, or each handle's with `same-handle` cleaning). Cleaning starts
        // before the host is held back by them and turns urgent at them, and the space check
        // counts them.
        let extra_gc = self.extra_gc_streams();
        let gc_reserve_blocks = self.scheme.shape.gc_reserve.max(1 + extra_gc);
        let gc_threshold_blocks =
            ((self.gc.threshold * g.blocks_per_plane as f64).round() as u32).max(2).max(gc_reserve_blocks + 1);
        let gc_hard_blocks = ((self.gc.hard_threshold * g.blocks_per_plane as f64).round() as u32).max(gc_reserve_blocks);
        let gc_stop_blocks = ((self.gc.stop_threshold * g.blocks_per_plane as f64).round() as u32).max(gc_threshold_blocks);
        let open_streams = self.host_streams()
            + 1
            + self.extra_gc_streams()
            + (self.host.unmapped_reads == UnmappedReads::Materialize) as u32
            + (translation_pages > 0) as u32;
        let reserved_blocks_per_plane = gc_hard_blocks + 1 + open_streams;
        let reserve = reserved_blocks_per_plane as u64 * planes * g.pages_per_block as u64;
        Capacity {
            planes,
            physical_pages,
            unit_pages,
            logical_pages,
            translation_pages,
            entries_per_translation_page: entries,
            gc_threshold_blocks,
            gc_stop_blocks,
            gc_hard_blocks,
            gc_reserve_blocks,
            reserved_blocks_per_plane,
            usable_pages: physical_pages.saturating_sub(reserve),
        }
    }

    /// No engine key the scheme overrides set to anything but its default (it would be
    /// silently ignored). The section must have been resolved by the registry (the top
    /// level's `validated`), which checked its names and tables.
    fn validate_scheme(&self) -> Result<()> {
        use crate::seams::Hook;
        if !self.scheme.is_resolved() {
            return Err(Error::Config {
                key: "scheme.name".into(),
                message: format!(
                    "`{}` has not been resolved: a configuration is checked through xlssd_core::validated, which asks \
                     the scheme registry what the scheme brings",
                    crate::error::printable(&self.scheme.name, 60)
                ),
            });
        }
        let shape = &self.scheme.shape;
        let hooks = shape.hooks;
        let gc = GcConfig::default();
        if hooks.has(Hook::Cleaning)
            && !shape.keeps_gc_policy
            && (self.gc.policy != gc.policy || self.gc.rga_candidates != gc.rga_candidates)
        {
            let key = if self.gc.policy != gc.policy { "gc.policy" } else { "gc.rga_candidates" };
            return Err(Error::Config {
                key: key.into(),
                message: format!(
                    "has no effect under scheme `{}`, which chooses its own GC victims: leave it at its default or choose a scheme that does not override cleaning",
                    shape.owner(Hook::Cleaning)
                ),
            });
        }
        if self.mapping.unit_pages(self.geometry.page_size) > 1 {
            // Units of several pages are placed, programmed and moved whole; a scheme that
            // places, programs or orders single pages cannot take them.
            if let Some(h) = [Hook::Placement, Hook::ProgramMode, Hook::Cleaning].into_iter().find(|&h| hooks.has(h)) {
                return Err(Error::Config {
                    key: "mapping.unit_bytes".into(),
                    message: format!(
                        "value {}: scheme `{}` overrides the {} hook, which handles single pages; use a unit of one page",
                        self.mapping.unit_bytes,
                        shape.owner(h),
                        h.name()
                    ),
                });
            }
        }
        if hooks.has(Hook::FreeBlocks) && self.wl != WlConfig::default() {
            return Err(Error::Config {
                key: "wl".into(),
                message: format!(
                    "has no effect under scheme `{}`, which chooses free blocks and levels wear its own way: leave [wl] at its defaults or choose a scheme that does not override free-block choice",
                    shape.owner(Hook::FreeBlocks)
                ),
            });
        }
        Ok(())
    }

    /// Parses a TOML document over the defaults, without checking its values: the top
    /// level's `config_from_toml` parses and validates.
    pub fn parse_toml(text: &str) -> Result<Config> {
        let de = toml::Deserializer::new(text);
        serde_path_to_error::deserialize(de).map_err(|e| read_error(e.path().to_string(), e.inner().message()))
    }

    /// Parses a JSON document over the defaults (the form the Python layer hands over),
    /// without checking its values: the top level's `config_from_json` parses and validates.
    pub fn parse_json(text: &str) -> Result<Config> {
        let mut de = serde_json::Deserializer::from_str(text);
        let parsed: Result<Config> = serde_path_to_error::deserialize(&mut de)
            .map_err(|e| read_error(e.path().to_string(), &strip_position(&e.inner().to_string())));
        // A NaN or an infinity (as Python writes them) is not JSON; read it anyway, so that
        // validation can say what the key expects instead of serde_json's `expected value`.
        match parsed {
            Err(e) => finite::non_finite_json(text).unwrap_or(Err(e)),
            ok => ok,
        }
    }

    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("config serialises")
    }
    /// The sections the device's timing is resolved from.
    pub fn timing_sections(&self) -> crate::nand::TimingSections<'_> {
        crate::nand::TimingSections {
            geometry: &self.geometry,
            timing: &self.timing,
            channel: &self.channel,
            unit_pages: self.mapping.unit_pages(self.geometry.page_size),
            host_interface_gbps: self.host.interface_gbps,
        }
    }

    /// Sectors host requests address: the SSD's logical capacity, or the disk's with an SSD
    /// cache in front of it (`[backing]`).
    pub fn logical_sectors(&self) -> u64 {
        if self.backing.enabled {
            return self.backing.disk.capacity_sectors();
        }
        // Logical pages are mapping units, each `unit_pages` flash pages.
        let cap = self.capacity();
        cap.logical_pages * cap.unit_pages as u64 * (self.geometry.page_size as u64 / crate::host::SECTOR_BYTES)
    }

    /// Rejects impossible values, naming the key and the allowed range. The scheme section
    /// must be resolved (by the registry, at the top level), and what a scheme asks of the
    /// other sections is the registry's to check after this.
    pub fn validate(&self) -> Result<()> {
        self.validate_scheme()?;
        self.geometry.validate()?;
        self.validate_size()?;
        self.timing.validate(self.geometry.cell.bits_per_cell())?;
        self.channel.validate()?;
        self.host.validate()?;
        crate::nand::Timing::checked(self.timing_sections())?;
        self.ftl.validate()?;
        self.gc.validate()?;
        self.cache.validate()?;
        self.wl.validate()?;
        self.mapping.validate(self.geometry.page_size, self.geometry.pages_per_block)?;
        self.precondition.validate()?;
        self.energy.validate()?;
        self.workload.validate("workload")?;
        self.workload.check_arrival_span("workload", self.host.time_scale)?;
        self.physics.validate()?;
        self.ecc.validate(self.geometry.page_size)?;
        self.validate_read_retry()?;
        self.aging.validate(&self.physics)?;
        self.validate_backing()?;
        // Whatever a section's checks let through, no number may be NaN or infinite.
        finite::check_finite(self)?;
        self.validate_capacity()
    }

    fn validate_backing(&self) -> Result<()> {
        let cap = self.capacity();
        let page_bytes = self.geometry.page_size as u64 * cap.unit_pages as u64;
        self.backing.validate(cap.logical_pages * page_bytes, page_bytes)
    }

    /// The retry-table model decides hard LDPC decodes of pages that have an RBER.
    fn validate_read_retry(&self) -> Result<()> {
        if !self.physics.read_retry.enabled {
            return Ok(());
        }
        let problem = if self.physics.model == crate::physics::ModelKind::None {
            "needs a physics model (physics.model) to give pages an RBER"
        } else if self.ecc.scheme != EccScheme::Ldpc {
            "models hard LDPC decodes: set ecc.scheme = \"ldpc\""
        } else {
            return Ok(());
        };
        Err(Error::Config { key: "physics.read_retry.enabled".into(), message: problem.into() })
    }

    /// The device's page count must fit the 64-bit arithmetic of [`Config::capacity`]; a
    /// geometry beyond it would wrap around to a small, wrong size. (The mapping table's
    /// own, much lower limit is checked by [`Config::validate_capacity`].)
    fn validate_size(&self) -> Result<()> {
        let g = &self.geometry;
        let pages = [g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die, g.blocks_per_plane, g.pages_per_block]
            .into_iter()
            .fold(1u128, |acc, n| acc.saturating_mul(n as u128));
        if pages >= 1u128 << 62 {
            return Err(Error::Config {
                key: "geometry".into(),
                message: format!(
                    "channels x chips_per_channel x dies_per_chip x planes_per_die x blocks_per_plane x pages_per_block \
                     is {pages} pages; expected far fewer (below 2^62, and the mapping table holds below 2^32 units)"
                ),
            });
        }
        Ok(())
    }

    /// The logical space and the mapping table must fit outside the free-block reserve.
    fn validate_capacity(&self) -> Result<()> {
        let c = self.capacity();
        let bpp = self.geometry.blocks_per_plane;
        if c.gc_threshold_blocks + 2 >= bpp {
            return Err(Error::Config {
                key: "gc.threshold".into(),
                message: format!(
                    "keeps {} of {bpp} blocks per plane free, leaving none for data; expected a smaller fraction",
                    c.gc_threshold_blocks
                ),
            });
        }
        if c.gc_stop_blocks + 2 >= bpp {
            return Err(Error::Config {
                key: "gc.stop_threshold".into(),
                message: format!(
                    "cleans until {} of {bpp} blocks per plane are free, leaving none for data; expected a smaller fraction",
                    c.gc_stop_blocks
                ),
            });
        }
        // Page addresses are 64-bit throughout; the mapping table's entries are 32-bit, one
        // per unit of `mapping.unit_bytes` (stored + 1, the largest value marking an entry
        // whose data waits for its page).
        let units = c.physical_pages / c.unit_pages as u64;
        if units >= u32::MAX as u64 - 1 {
            return Err(Error::Config {
                key: "mapping.unit_bytes".into(),
                message: format!(
                    "{} physical pages make {units} mapping units of {} page(s); the mapping table addresses at most \
                     {}: raise mapping.unit_bytes",
                    c.physical_pages,
                    c.unit_pages,
                    u32::MAX - 2
                ),
            });
        }
        if c.logical_pages * c.unit_pages as u64 + c.translation_pages >= c.usable_pages {
            let table = if c.translation_pages > 0 {
                format!(" and {} translation pages of the mapping table", c.translation_pages)
            } else {
                String::new()
            };
            return Err(Error::Config {
                key: "ftl.overprovisioning".into(),
                message: format!(
                    "{} leaves {} logical pages{table}, but only {} physical pages lie outside the {} blocks per \
                     plane that cannot hold them (the gc.hard_threshold reserve, one block for GC, and one open \
                     block per allocation stream); raise ftl.overprovisioning",
                    self.ftl.overprovisioning, c.logical_pages, c.usable_pages, c.reserved_blocks_per_plane
                ),
            });
        }
        Ok(())
    }
}

/// Longest key an error about a document names, in characters.
const MAX_KEY_CHARS: usize = 120;
/// Longest field or value a message quotes from the document, in characters.
const MAX_QUOTED_CHARS: usize = 60;
/// Longest message about a document, in characters.
const MAX_MESSAGE_CHARS: usize = 1000;

/// The error for a document serde could not read as a config: the key's path and serde's
/// message, with what they quote of the document cut short, so that a huge unknown key or
/// value is named without being repeated in full.
pub(crate) fn read_error(key: String, message: &str) -> Error {
    use crate::error::{printable, shorten_quoted};
    Error::Config { key: printable(&key, MAX_KEY_CHARS), message: shorten_quoted(message, MAX_QUOTED_CHARS, MAX_MESSAGE_CHARS) }
}

/// serde_json appends "at line 1 column N" to its messages; the key path says more.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// A TOML document as compact JSON text, its tables' keys in the document's order: how the
/// Python layer reads the bundled presets without loading a TOML parser of its own (about
/// 12 ms of every command's start). The error is the parser's message, with line and column.
pub fn toml_to_json(text: &str) -> std::result::Result<String, String> {
    let value: serde_json::Value = toml::from_str(text).map_err(|e| e.to_string())?;
    Ok(serde_json::to_string(&value).expect("a JSON value serialises"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_is_named_with_its_path() {
        let err = crate::config_from_toml("[geometry]\nchanels = 4\n").unwrap_err();
        match err {
            Error::Config { key, message } => {
                assert_eq!(key, "geometry.chanels");
                assert!(message.contains("unknown field"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn a_huge_unknown_key_or_value_is_named_short() {
        // Found by fuzzing: the key and serde's message each repeated the whole key.
        let json = crate::config_from_json(&format!("{{\"gc\": {{\"{}\": 1}}}}", "k\x7f".repeat(2000)));
        let toml = crate::config_from_toml(&format!("[gc]\n\"{}\" = 1\n", "k\\u007f".repeat(2000)));
        for err in [json.unwrap_err(), toml.unwrap_err()] {
            let shown = err.to_string();
            assert!(shown.chars().count() < 700 && shown.contains("expected one of `policy`"), "{shown}");
            assert!(matches!(err, Error::Config { ref key, .. } if key.starts_with("gc.k\\x7fk")), "{err:?}");
        }
        let value = "v".repeat(5000);
        let err = crate::config_from_json(&format!("{{\"gc\": {{\"threshold\": \"{value}\"}}}}")).unwrap_err();
        assert!(err.to_string().chars().count() < 300, "{err}");
    }

    #[test]
    fn wrong_type_is_named() {
        let err = crate::config_from_json(r#"{"gc": {"threshold": "high"}}"#).unwrap_err();
        assert!(matches!(err, Error::Config { ref key, .. } if key == "gc.threshold"), "{err:?}");
    }

    #[test]
    fn overprovisioning_outside_open_interval_is_rejected() {
        for v in ["0.0", "1.0", "-0.1", "1.5"] {
            let err = crate::config_from_toml(&format!("[ftl]\noverprovisioning = {v}\n")).unwrap_err();
            let text = err.to_string();
            assert!(text.contains("ftl.overprovisioning") && text.contains("(0, 1)"), "{text}");
        }
        assert!(crate::config_from_toml("[ftl]\noverprovisioning = 0.2\n").is_ok());
    }

    #[test]
    fn threshold_voltage_windows_must_hold_their_states() {
        let err = crate::config_from_toml("[physics.vth]\napprox_vmax_v = 2.5\n").unwrap_err();
        assert!(err.to_string().contains("physics.vth.approx_vmax_v"), "{err}");
        let err = crate::config_from_toml("[physics.vth]\nlambda_fresh_v = 0.5\n").unwrap_err();
        assert!(err.to_string().contains("physics.vth.lambda_fresh_v"), "{err}");
        let err = crate::config_from_toml("[physics]\nprogram_mode = \"sloppy\"\n").unwrap_err();
        assert!(err.to_string().contains("physics.program_mode"), "{err}");
        assert!(crate::config_from_toml("[physics]\nmodel = \"vth\"\nprogram_mode = \"approx-dvpp\"\n").is_ok());
    }

    #[test]
    fn a_geometry_whose_page_count_overflows_is_rejected() {
        let text = "[geometry]\nchannels = 4294967295\nchips_per_channel = 4294967295\ndies_per_chip = 65536\n";
        let err = crate::config_from_toml(text).unwrap_err();
        assert!(matches!(err, Error::Config { ref key, .. } if key == "geometry"), "{err}");
    }

    #[test]
    fn zero_sizes_are_rejected() {
        let err = crate::config_from_toml("[geometry]\nchannels = 0\n").unwrap_err();
        assert!(err.to_string().contains("geometry.channels"), "{err}");
    }

    #[test]
    fn per_page_type_latency_must_match_cell() {
        let err = crate::config_from_toml("[geometry]\ncell = \"tlc\"\n[timing]\nread_us = [50, 60]\n").unwrap_err();
        assert!(err.to_string().contains("timing.read_us"), "{err}");
        let cfg = crate::config_from_toml("[geometry]\ncell = \"tlc\"\n[timing]\nread_us = [50, 60, 70]\n").unwrap();
        assert_eq!(cfg.timing.read_us.get(2), 70.0);
    }

    #[test]
    fn erase_suspension_times_must_be_durations() {
        for key in ["erase_suspend_us", "erase_suspend_min_left_us"] {
            let err = crate::config_from_toml(&format!("[timing]\nerase_suspend = true\n{key} = -1.0\n")).unwrap_err();
            assert!(err.to_string().contains(&format!("timing.{key}")), "{err}");
        }
        let cfg = crate::config_from_toml("[timing]\nerase_suspend = true\nerase_suspend_us = 0.0\n").unwrap();
        assert!(cfg.timing.erase_suspend);
    }

    #[test]
    fn a_config_survives_a_json_round_trip_exactly() {
        // Reports carry the resolved config as JSON and sweeps rebuild configs from it: every
        // float must come back bit for bit (exp_linear.c once lost its last digit).
        let cfg = Config::default();
        let back = crate::config_from_json(&serde_json::to_string(&cfg.to_json_value()).unwrap()).unwrap();
        assert_eq!(back, cfg);
        assert_eq!(back.physics.exp_linear.c.to_bits(), cfg.physics.exp_linear.c.to_bits());
    }
}
