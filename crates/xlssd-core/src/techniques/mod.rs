//! Techniques as schemes. A scheme is a named bundle of hook implementations
//! ([`hooks`]) and its parameters; the engine calls the hooks at its seams and knows no
//! scheme by name. This file holds the registry, the one place that maps names to
//! implementations, and the `[scheme]` configuration section.
//!
//! `scheme.name` selects a scheme, or joins several with `+` when they override disjoint
//! hooks (`"a+b"`). A technique's keys live in its own sub-table (`[scheme.approxftl]`);
//! a scheme uses some of them, and a key it does not use is an error.

pub mod access_modes;
pub mod aero;
pub mod approxftl;
pub mod ascache;
pub mod baseline;
pub mod redftl;
pub mod rif;
pub mod separation;

#[cfg(test)]
mod memory_table;

use std::collections::BTreeMap;

use serde::Serialize;

pub use crate::seams::*;

use crate::config::{Config, SchemeConfig, SchemeShape};
use crate::error::{Error, Result};
use crate::nand::Geometry;

/// A registered scheme.
pub struct SchemeInfo {
    pub name: &'static str,
    /// One line for `xlssd schemes`.
    pub description: &'static str,
    /// The hooks it overrides.
    pub hooks: &'static [Hook],
    /// The sub-table of `[scheme]` holding its technique's keys, if any, and the keys of it
    /// this scheme uses.
    pub table: Option<&'static str>,
    pub keys: &'static [&'static str],
    /// Host write streams it needs (each with an open block per plane).
    pub streams: u32,
    /// Its cleaning hook still chooses victims by `gc.policy` (among blocks it prefers), so
    /// that key stays the user's to set.
    pub uses_gc_policy: bool,
    /// Streams beyond `streams` that its table's values ask for (groups, buckets), given
    /// the table as configured (keys it leaves out take their defaults).
    pub extra_streams: fn(&serde_json::Value) -> u32,
    /// Free blocks per plane it keeps for cleaning (its `set_up` raises the urgent-GC
    /// threshold to them), given its table; 0 for the engine's own single block. The space
    /// check counts them, so that a device too small for them is refused before the run.
    pub gc_reserve: fn(&serde_json::Value) -> u32,
    /// What it asks of the rest of the configuration (a physics model, a decoder, a mapping
    /// unit), given its table resolved: checked with the configuration
    /// ([`Config::validate`]), so that a sweep refuses a point before any of its runs starts.
    pub needs: fn(&Config, &serde_json::Value) -> Result<()>,
    pub build: fn(&BuildCtx) -> Result<Box<dyn Technique>>,
}

/// A technique's configuration sub-table.
pub struct TableInfo {
    pub name: &'static str,
    /// The top-level report key of the section its schemes write when they run (a report
    /// has no section of a technique that did not run).
    pub report_key: &'static str,
    /// Parses the table over its defaults and validates it; errors name keys under
    /// `prefix`. Returns every key, resolved.
    pub resolve: fn(&serde_json::Value, &str) -> Result<serde_json::Value>,
    /// What the technique allocates that grows with the device, given its logical pages,
    /// physical pages and blocks, for the estimate made before a run (`limits`).
    pub memory: fn(u64, u64, u64) -> Vec<crate::limits::estimate::Part>,
}

/// What building a scheme may use.
pub struct BuildCtx<'a> {
    pub cfg: &'a Config,
    pub geo: &'a Geometry,
    pub logical_pages: u64,
    /// The scheme's technique table, resolved (every key the scheme uses).
    pub table: Option<&'a serde_json::Value>,
}

/// Every scheme, baselines included.
pub const SCHEMES: &[SchemeInfo] = &[
    baseline::BASELINE,
    approxftl::DELTA_B,
    approxftl::VTH_B,
    approxftl::APPROXFTL,
    redftl::READ_RECLAIM,
    redftl::REDFTL,
    redftl::RRB,
    redftl::REDFTL_PLUS,
    redftl::REDFTL_PLUSPLUS,
    separation::HASH,
    separation::PDS,
    separation::IDS,
    separation::ORA,
    rif::RETRY,
    rif::IDEAL,
    rif::SENC,
    rif::SWR,
    rif::RIF,
    aero::ISPE,
    aero::IISPE,
    aero::DPES,
    aero::AERO_CONS,
    aero::AERO,
    ascache::SSD_CACHE,
    ascache::ASCACHE,
    access_modes::ACCESS_MODES,
    access_modes::FIXED_T,
];

/// Every technique table.
pub const TABLES: &[TableInfo] =
    &[approxftl::TABLE, redftl::TABLE, separation::TABLE, rif::TABLE, aero::TABLE, ascache::TABLE, access_modes::TABLE];

/// A scheme of one stream with a technique table, whose streams and cleaning reserve do
/// not depend on the table.
pub(crate) const fn table_scheme(
    name: &'static str,
    description: &'static str,
    hooks: &'static [Hook],
    table: &'static str,
    keys: &'static [&'static str],
    build: fn(&BuildCtx) -> Result<Box<dyn Technique>>,
) -> SchemeInfo {
    SchemeInfo {
        name,
        description,
        hooks,
        table: Some(table),
        keys,
        streams: 1,
        uses_gc_policy: false,
        extra_streams: no_extra_streams,
        gc_reserve: no_extra_streams,
        needs: no_needs,
        build,
    }
}

/// For a scheme whose streams do not depend on its table.
pub fn no_extra_streams(_table: &serde_json::Value) -> u32 {
    0
}

/// For a scheme that works with any configuration the engine accepts.
pub fn no_needs(_cfg: &Config, _table: &serde_json::Value) -> Result<()> {
    Ok(())
}

/// The error of a scheme's need: the key to change, and what the scheme does with it.
pub(crate) fn need(cfg: &Config, key: &str, message: impl std::fmt::Display) -> Error {
    Error::Config { key: key.into(), message: format!("scheme `{}` {message}", cfg.scheme.name) }
}

/// Looks a scheme up by name.
pub fn scheme(name: &str) -> Option<&'static SchemeInfo> {
    SCHEMES.iter().find(|s| s.name == name)
}

/// Names that belong to techniques (schemes other than the baseline, and their tables):
/// none may appear in the engine's layers.
pub fn technique_names() -> Vec<&'static str> {
    let schemes = SCHEMES.iter().filter(|s| s.name != baseline::BASELINE.name).map(|s| s.name);
    let mut names: Vec<&str> = schemes.chain(TABLES.iter().map(|t| t.name)).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// An error about the `[scheme]` section. Its messages quote the scheme name as given, which
/// may be anything: what they quote is cut short and escaped as a config document's errors are.
fn err(key: impl Into<String>, message: impl Into<String>) -> Error {
    crate::config::read_error(key.into(), &message.into())
}

/// The schemes `scheme.name` joins, checked: each registered, none twice, no hook claimed
/// by two of them.
pub fn parts(scheme: &SchemeConfig) -> Result<Vec<&'static SchemeInfo>> {
    let mut parts: Vec<&'static SchemeInfo> = Vec::new();
    for n in scheme.name.split('+').map(str::trim) {
        let Some(info) = self::scheme(n) else {
            let known: Vec<&str> = SCHEMES.iter().map(|s| s.name).collect();
            return Err(err(
                "scheme.name",
                format!("`{}`: unknown scheme `{n}`; schemes are: {} (see `xlssd schemes`)", scheme.name, known.join(", ")),
            ));
        };
        if parts.iter().any(|p| p.name == info.name) {
            return Err(err("scheme.name", format!("`{}` names scheme `{n}` twice", scheme.name)));
        }
        for p in &parts {
            if let Some(h) = p.hooks.iter().find(|h| info.hooks.contains(h)) {
                return Err(err(
                    "scheme.name",
                    format!("`{}`: schemes `{}` and `{}` both override the {} hook", scheme.name, p.name, info.name, h.name()),
                ));
            }
        }
        parts.push(info);
    }
    Ok(parts)
}

/// The section with every technique table the schemes use resolved to the keys they use,
/// defaults filled in, and its [`SchemeShape`]. A table, or a key of it, that no selected
/// scheme uses is an error naming it.
pub fn resolve(scheme: &SchemeConfig) -> Result<SchemeConfig> {
    let parts = parts(scheme)?;
    for (key, value) in &scheme.tables {
        let Some(table) = TABLES.iter().find(|t| t.name == key) else {
            let tables: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
            return Err(err(
                format!("scheme.{key}"),
                format!("unknown key: expected `name` or a technique table ({})", tables.join(", ")),
            ));
        };
        if !parts.iter().any(|p| p.table == Some(table.name)) {
            let users: Vec<&str> = SCHEMES.iter().filter(|s| s.table == Some(table.name)).map(|s| s.name).collect();
            return Err(err(
                format!("scheme.{key}"),
                format!("keys of technique `{key}`, used by schemes {}, but scheme.name is `{}`", users.join(", "), scheme.name),
            ));
        }
        if !value.is_object() {
            return Err(err(format!("scheme.{key}"), format!("value {value} is not a table")));
        }
    }
    let mut tables = BTreeMap::new();
    for table in TABLES {
        let users: Vec<&SchemeInfo> = parts.iter().copied().filter(|p| p.table == Some(table.name)).collect();
        if users.is_empty() {
            continue;
        }
        let prefix = format!("scheme.{}", table.name);
        let empty = serde_json::Value::Object(Default::default());
        let raw = scheme.tables.get(table.name).unwrap_or(&empty);
        let full = (table.resolve)(raw, &prefix)?;
        let used = |k: &str| users.iter().any(|u| u.keys.contains(&k));
        for k in raw.as_object().into_iter().flat_map(|o| o.keys()) {
            if !used(k) {
                let by: Vec<&str> = SCHEMES
                    .iter()
                    .filter(|s| s.table == Some(table.name) && s.keys.contains(&k.as_str()))
                    .map(|s| s.name)
                    .collect();
                return Err(err(
                    format!("{prefix}.{k}"),
                    format!("is used by scheme {} only, not by `{}`", by.join(", "), scheme.name),
                ));
            }
        }
        let kept: serde_json::Map<String, serde_json::Value> =
            full.as_object().into_iter().flatten().filter(|(k, _)| used(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        tables.insert(table.name.to_string(), serde_json::Value::Object(kept));
    }
    let null = serde_json::Value::Null;
    let table_of = |s: &SchemeInfo| s.table.and_then(|t| tables.get(t)).unwrap_or(&null);
    let mut owners = [""; Hook::ALL.len()];
    for p in &parts {
        for &h in p.hooks {
            owners[h as usize] = p.name;
        }
    }
    let shape = SchemeShape {
        resolved_for: Some(scheme.name.clone()),
        hooks: HookSet(parts.iter().fold(0, |acc, p| acc | HookSet::of(p.hooks).0)),
        owners,
        keeps_gc_policy: parts.iter().any(|p| p.hooks.contains(&Hook::Cleaning) && p.uses_gc_policy),
        streams: parts.iter().map(|s| s.streams + (s.extra_streams)(table_of(s))).max().unwrap_or(1),
        gc_reserve: parts.iter().map(|s| (s.gc_reserve)(table_of(s))).max().unwrap_or(0),
    };
    Ok(SchemeConfig { name: scheme.name.clone(), tables, shape })
}

/// Whether the rest of `cfg` gives each scheme what it needs (its `needs`); `cfg.scheme`
/// must be resolved.
pub fn check_needs(cfg: &Config) -> Result<()> {
    let empty = serde_json::Value::Object(Default::default());
    for part in parts(&cfg.scheme)? {
        let table = part.table.and_then(|t| cfg.scheme.tables.get(t)).unwrap_or(&empty);
        (part.needs)(cfg, table)?;
    }
    Ok(())
}

/// What the techniques of `cfg`'s scheme allocate that grows with the device, for the
/// memory estimate made before a run; `cfg.scheme` must be resolved.
pub fn memory(cfg: &Config) -> Vec<crate::limits::estimate::Part> {
    let c = cfg.capacity();
    let blocks = c.physical_pages / cfg.geometry.pages_per_block.max(1) as u64;
    let parts = parts(&cfg.scheme).unwrap_or_default();
    TABLES
        .iter()
        .filter(|table| parts.iter().any(|p| p.table == Some(table.name)))
        .flat_map(|table| (table.memory)(c.logical_pages, c.physical_pages, blocks))
        .collect()
}

/// Parses a technique table over its defaults (`T::default()` fills missing keys) and
/// validates it; errors name the key under `prefix`. The resolved table, every key.
pub(crate) fn resolve_table<T>(
    raw: &serde_json::Value,
    prefix: &str,
    validate: fn(&T, &str) -> Result<()>,
) -> Result<serde_json::Value>
where
    T: serde::de::DeserializeOwned + Serialize,
{
    let cfg: T = serde_path_to_error::deserialize(raw)
        .map_err(|e| crate::config::read_error(format!("{prefix}.{}", e.path()), &e.inner().to_string()))?;
    validate(&cfg, prefix)?;
    Ok(serde_json::to_value(cfg).expect("config serialises"))
}

/// A scheme's table as its technique's type (the registry resolved and validated it).
pub(crate) fn table_config<T: serde::de::DeserializeOwned>(ctx: &BuildCtx, table: &str) -> Result<T> {
    let raw = ctx.table.cloned().unwrap_or_else(|| serde_json::Value::Object(Default::default()));
    serde_json::from_value(raw).map_err(|e| Error::Config { key: format!("scheme.{table}"), message: e.to_string() })
}

/// Builds the scheme `cfg.scheme` names (resolved), joined into one.
pub fn build(cfg: &Config, geo: &Geometry, logical_pages: u64) -> Result<Joined> {
    let mut built = Vec::new();
    for info in parts(&cfg.scheme)? {
        let table = info.table.and_then(|t| cfg.scheme.tables.get(t));
        let ctx = BuildCtx { cfg, geo, logical_pages, table };
        if info.name != baseline::BASELINE.name {
            built.push(((info.build)(&ctx)?, info.hooks));
        }
    }
    Ok(Joined::new(built))
}

/// The report sections a run of `scheme` carries: one per technique table its parts use.
pub fn report_keys(scheme: &SchemeConfig) -> Result<Vec<&'static str>> {
    let parts = parts(scheme)?;
    Ok(TABLES.iter().filter(|t| parts.iter().any(|p| p.table == Some(t.name))).map(|t| t.report_key).collect())
}

/// Every scheme as `xlssd schemes` lists it.
pub fn describe() -> serde_json::Value {
    let rows: Vec<serde_json::Value> = SCHEMES
        .iter()
        .map(|s| {
            serde_json::json!({
                "name": s.name,
                "hooks": s.hooks.iter().map(|h| h.name()).collect::<Vec<_>>(),
                "table": s.table,
                "keys": s.keys,
                "description": s.description,
            })
        })
        .collect();
    serde_json::Value::Array(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(toml: &str) -> Result<Config> {
        crate::config_from_toml(toml)
    }

    fn message(toml: &str) -> String {
        parse(toml).unwrap_err().to_string()
    }

    /// A scheme's unmet need is refused with the configuration, naming the key to change;
    /// the same config with its needs met reads.
    #[test]
    fn a_scheme_s_needs_are_checked_with_the_config() {
        const ROOM: &str = "[ftl]\noverprovisioning = 0.25\n";
        const POWER_LAW: &str = "[physics]\nmodel = \"power-law\"\n";
        let cases: [(&str, &str, &str, &str); 8] = [
            // Units of several pages are placed whole: no scheme that places pages takes them.
            ("approxftl", "[mapping]\nunit_bytes = 16384\n", "mapping.unit_bytes", ""),
            (
                "ascache",
                "[ecc]\nscheme = \"ldpc\"\n",
                "physics.model",
                "[physics]\nmodel = \"power-law\"\n[ecc]\nscheme = \"ldpc\"\n",
            ),
            ("ssd-cache", POWER_LAW, "ecc.scheme", "[physics]\nmodel = \"power-law\"\n[ecc]\nscheme = \"ldpc\"\n"),
            (
                "ascache",
                "[physics]\nmodel = \"power-law\"\n[ecc]\nscheme = \"ldpc\"\n[ecc.ldpc]\nsoft_levels = 3\n",
                "ecc.ldpc.soft_levels",
                "[physics]\nmodel = \"power-law\"\n[ecc]\nscheme = \"ldpc\"\n",
            ),
            (
                "rif",
                "[physics]\nmodel = \"power-law\"\n[ecc]\nscheme = \"ldpc\"\n",
                "scheme.name",
                "[physics]\nmodel = \"power-law\"\n[physics.read_retry]\nenabled = true\n[ecc]\nscheme = \"ldpc\"\n",
            ),
            ("redftl", "[mapping]\nunit_bytes = 16384\n", "mapping.unit_bytes", ""),
            ("access-modes", POWER_LAW, "ecc.scheme", "[physics]\nmodel = \"power-law\"\n[ecc]\nscheme = \"bch\"\n"),
            (
                "fixed-t",
                "[physics]\nmodel = \"power-law\"\n[ecc]\nscheme = \"bch\"\n[scheme.access_modes]\nfixed_t = 120\n",
                "scheme.access_modes.fixed_t",
                "[physics]\nmodel = \"power-law\"\n[ecc]\nscheme = \"bch\"\n[scheme.access_modes]\nfixed_t = 60\n",
            ),
        ];
        for (scheme, rest, key, mended) in cases {
            let head = format!("[scheme]\nname = \"{scheme}\"\n{ROOM}");
            match parse(&format!("{head}{rest}")) {
                Err(Error::Config { key: got, message }) => {
                    assert_eq!(got, key, "{scheme}: {message}");
                    // A scheme's own key needs no naming of the scheme.
                    assert!(message.contains(scheme) || key.starts_with("scheme."), "{scheme}: {message}");
                }
                Err(e) => panic!("{scheme} with {rest:?}: expected a refusal at `{key}`, got {e}"),
                Ok(_) => panic!("{scheme} with {rest:?}: expected a refusal at `{key}`, but it reads"),
            }
            if let Err(e) = parse(&format!("{head}{mended}")) {
                panic!("{scheme} with {mended:?} is refused: {e}");
            }
        }
    }

    #[test]
    fn technique_keys_are_validated_with_key_value_and_range() {
        let m = message("[scheme]\nname = \"approxftl\"\n[scheme.approxftl]\nall_approx_wear = 1.5\n");
        assert!(m.contains("scheme.approxftl.all_approx_wear") && m.contains("1.5") && m.contains("(0, 1]"), "{m}");
        // The precise pages' speed-ups come from the physics, not from keys.
        let m = message("[scheme]\nname = \"approxftl\"\n[scheme.approxftl]\nchb_precise_speedup = 0.24\n");
        assert!(m.contains("chb_precise_speedup"), "{m}");
        let m = message("[scheme]\nname = \"approxftl\"\n[scheme.approxftl]\nrefresh_h = -1.0\n");
        assert!(m.contains("scheme.approxftl.refresh_h"), "{m}");
        let m = message("[scheme]\nname = \"vth_b\"\n[scheme.approxftl]\nlba_ranges = [[10, 5]]\n");
        assert!(m.contains("scheme.approxftl.lba_ranges[0]") && m.contains("start < end"), "{m}");
        let m = message("[scheme]\nname = \"approxftl\"\n[scheme.approxftl]\nhot_max_bytez = 1\n");
        assert!(m.contains("scheme.approxftl.hot_max_bytez") && m.contains("unknown field"), "{m}");
        let m = message("[scheme]\nname = \"approxftl\"\n[scheme.approxftl]\nhot_max_bytes = \"big\"\n");
        assert!(m.contains("scheme.approxftl.hot_max_bytes"), "{m}");
    }

    #[test]
    fn keys_a_scheme_does_not_use_are_errors() {
        let m = message("[scheme]\nname = \"delta_b\"\n[scheme.approxftl]\nhot_max_bytes = 4096\n");
        assert!(m.contains("scheme.approxftl.hot_max_bytes") && m.contains("approxftl only") && m.contains("delta_b"), "{m}");
        let m = message("[scheme.approxftl]\nlba_ranges = [[0, 8]]\n");
        assert!(m.contains("`scheme.approxftl`") && m.contains("`baseline`"), "{m}");
        let m = message("[scheme]\nname = \"baseline\"\nnme = 3\n");
        assert!(m.contains("scheme.nme") && m.contains("unknown key"), "{m}");
    }

    #[test]
    fn a_huge_or_unprintable_scheme_name_is_quoted_short_and_escaped() {
        // Found by fuzzing the config loader: an unknown name of 1,000 characters was
        // quoted twice in full. The TOML escape \u001b puts an ESC in the name.
        let toml = format!("[scheme]\nname = \"\\u001bappr{}\"\n", "9".repeat(1000));
        let m = message(&toml);
        // The message lists every scheme; the name itself takes a short quote.
        let known: usize = SCHEMES.iter().map(|s| s.name.len() + 2).sum();
        assert!(m.chars().count() < known + 250, "{} characters: {m}", m.chars().count());
        assert!(m.contains(r"unknown scheme `\x1bappr999") && m.contains("...`") && m.contains("approxftl, read-reclaim"), "{m}");
        assert!(!m.contains('\u{1b}'), "{m}");
    }

    #[test]
    fn scheme_names_are_checked_and_joined_schemes_may_not_share_a_hook() {
        let m = message("[scheme]\nname = \"approxfl\"\n");
        assert!(m.contains("scheme.name") && m.contains("approxfl") && m.contains("delta_b, vth_b, approxftl"), "{m}");
        let m = message("[scheme]\nname = \"vth_b+approxftl\"\n");
        assert!(m.contains("`vth_b` and `approxftl` both override the placement hook"), "{m}");
        let m = message("[scheme]\nname = \"delta_b+delta_b\"\n");
        assert!(m.contains("twice"), "{m}");
        // The baseline overrides nothing, so it joins anything.
        let cfg = parse("[ftl]\noverprovisioning = 0.25\n[scheme]\nname = \"baseline+approxftl\"\n").unwrap();
        assert_eq!(cfg.scheme.shape.hooks, HookSet::of(approxftl::APPROXFTL.hooks));
    }

    #[test]
    fn engine_keys_a_scheme_overrides_are_errors() {
        let m = message("[scheme]\nname = \"approxftl\"\n[gc]\npolicy = \"fifo\"\n");
        assert!(m.contains("gc.policy") && m.contains("approxftl") && m.contains("GC victims"), "{m}");
        let m = message("[scheme]\nname = \"approxftl\"\n[wl]\nstatic = false\n");
        assert!(m.contains("`wl`") && m.contains("approxftl"), "{m}");
        // Schemes that keep the engine's victims and wear levelling accept them.
        assert!(parse("[scheme]\nname = \"vth_b\"\n[gc]\npolicy = \"fifo\"\n[wl]\nstatic = false\n").is_ok());
    }

    #[test]
    fn the_resolved_section_holds_the_keys_the_scheme_uses_and_parses_again() {
        let cfg = parse("[scheme]\nname = \"delta_b\"\n[scheme.approxftl]\npromote_after = 3\n").unwrap();
        let table = cfg.scheme.tables["approxftl"].as_object().unwrap();
        let keys: Vec<&str> = table.keys().map(String::as_str).collect();
        assert_eq!(keys, vec!["lba_ranges", "lba_ranges_file", "promote_after"]);
        assert_eq!(table["promote_after"], 3);
        let again = crate::config_from_json(&cfg.to_json_value().to_string()).unwrap();
        assert_eq!(again.scheme, cfg.scheme);
        // Every key of the approxftl scheme, with seed 000's defaults.
        let cfg = parse("[ftl]\noverprovisioning = 0.25\n[scheme]\nname = \"approxftl\"\n").unwrap();
        assert_eq!(cfg.scheme.tables["approxftl"].as_object().unwrap().len(), approxftl::APPROXFTL.keys.len());
        assert_eq!(cfg.scheme.tables["approxftl"]["all_approx_wear"], 0.62);
    }

    #[test]
    fn every_scheme_is_listed_with_its_hooks() {
        let listed = describe();
        let names: Vec<&str> = listed.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            vec![
                "baseline",
                "delta_b",
                "vth_b",
                "approxftl",
                "read-reclaim",
                "redftl",
                "rrb",
                "redftl-plus",
                "redftl-plusplus",
                "hash",
                "pds",
                "ids",
                "ora",
                "retry",
                "ideal",
                "senc",
                "swr",
                "rif",
                "ispe",
                "iispe",
                "dpes",
                "aero-cons",
                "aero",
                "ssd-cache",
                "ascache",
                "access-modes",
                "fixed-t"
            ]
        );
        assert_eq!(listed[3]["hooks"][0], "placement");
        assert!(listed.as_array().unwrap().iter().all(|s| !s["description"].as_str().unwrap().is_empty()));
    }
}
