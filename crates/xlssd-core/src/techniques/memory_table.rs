//! The memory table of docs/architecture.md ("Memory per TiB") against the estimate: the
//! engine's structures (`limits::estimate`) and each technique's own (its table's `memory`).

use crate::config::Config;
use crate::limits::estimate::*;
use crate::physics::ModelKind;

/// The "bytes each" column of docs/architecture.md's table, by structure.
fn documented() -> Vec<(String, String)> {
    let doc = include_str!("../../../../docs/architecture.md");
    let table = doc.split("### Memory per TiB").nth(1).expect("the section is there");
    table
        .lines()
        .skip_while(|l| !l.starts_with("| structure"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].to_string(), cells[4].to_string())
        })
        .collect()
}

#[test]
fn the_documented_bytes_are_the_ones_estimated() {
    let bits = |n: u64| format!("{n}/8");
    let approx = super::approxftl::TABLE;
    let approx_parts = (approx.memory)(64, 64, 1);
    let ascache_parts = (super::ascache::TABLE.memory)(64, 64, 1);
    let modes_parts = (super::access_modes::TABLE.memory)(64, 64, 1);
    let ours = [
        ("logical-to-physical map", L2P_BYTES_PER_UNIT.to_string()),
        ("physical-to-logical map", P2L_BYTES_PER_UNIT.to_string()),
        ("valid bitmap", bits(VALID_BITS_PER_PAGE)),
        ("block state", BLOCK_STATE_BYTES.to_string()),
        ("page physics", PAGE_PHYSICS_BYTES.to_string()),
        ("block physics", BLOCK_PHYSICS_BYTES.to_string()),
        ("ApproxFTL request tags", (approx_parts[0].bytes / 64).to_string()),
        ("ApproxFTL page flags", bits(approx_parts[1].bytes * 8 / 64)),
        ("ApproxFTL block state", approx_parts[2].bytes.to_string()),
        ("read-disturb block state", super::redftl::BLOCK_BYTES.to_string()),
        ("read-disturb hotness per logical page", super::redftl::LOGICAL_PAGE_BYTES.to_string()),
        ("redFTL page read statistics", super::redftl::PAGE_READ_STAT_BYTES.to_string()),
        ("data-separation state per logical page", super::separation::LOGICAL_PAGE_BYTES.to_string()),
        ("placement handle per logical page", HANDLE_BYTES_PER_UNIT.to_string()),
        ("ASCache AP_BER per logical page", (ascache_parts[1].bytes / 64).to_string()),
        ("ASCache block state", ascache_parts[0].bytes.to_string()),
        ("cache directory", CACHE_SLOT_BYTES.to_string()),
        ("preconditioning's slot lists", PRECONDITION_SLOT_BYTES.to_string()),
        ("cached mapping table", CMT_SLOT_BYTES.to_string()),
        ("translation pages in flight", TRANSLATION_PAGE_BYTES.to_string()),
        ("access modes: service per block", modes_parts[0].bytes.to_string()),
        ("access modes: services of preconditioned pages", (modes_parts[1].bytes / 64).to_string()),
    ];
    let doc = documented();
    assert_eq!(doc.len(), ours.len(), "{doc:?}");
    for (name, bytes) in ours {
        let row = doc.iter().find(|(n, _)| n.starts_with(name)).unwrap_or_else(|| panic!("no row for {name}"));
        assert_eq!(row.1, bytes, "{name}");
    }
}

#[test]
fn every_structure_of_a_full_configuration_is_counted() {
    let mut cfg = Config::default();
    cfg.physics.model = ModelKind::Vth;
    cfg.scheme.name = "approxftl".into();
    cfg.precondition.occupancy = 0.5;
    cfg.mapping.cached_table_bytes = 1 << 16;
    let mut names: Vec<&str> = crate::memory_estimate(&cfg).parts.iter().map(|p| p.name).collect();
    // Each technique's structures with a scheme of its own.
    cfg.scheme.name = "redftl-plus".into();
    names.extend(crate::memory_estimate(&cfg).parts.iter().map(|p| p.name));
    cfg.scheme.name = "ora".into();
    cfg.ftl.placement_handles = 4;
    names.extend(crate::memory_estimate(&cfg).parts.iter().map(|p| p.name));
    cfg.scheme.name = "ascache".into();
    cfg.ftl.placement_handles = 0;
    cfg.backing.enabled = true;
    names.extend(crate::memory_estimate(&cfg).parts.iter().map(|p| p.name));
    cfg.backing.enabled = false;
    cfg.physics.model = ModelKind::PowerLaw;
    cfg.ecc.scheme = crate::config::EccScheme::Bch;
    cfg.scheme.name = "access-modes".into();
    names.extend(crate::memory_estimate(&cfg).parts.iter().map(|p| p.name));
    names.sort_unstable();
    names.dedup();
    let doc = documented();
    assert_eq!(names.len(), doc.len(), "{names:?}");
    for name in names {
        assert!(doc.iter().any(|(n, _)| n.starts_with(name)), "{name} is not documented");
    }
    // The default device: 2 x 2 x 1 x 2 planes of 256 blocks of 64 pages.
    let e = crate::memory_estimate(&Config::default());
    let pages = 2 * 2 * 2 * 256 * 64;
    assert_eq!(e.parts[1].bytes, 4 * pages);
    assert_eq!(e.parts[3].bytes, 47 * 2 * 2 * 2 * 256);
    assert_eq!(e.parts.len(), 4, "no physics, no scheme, no preconditioning");
}
