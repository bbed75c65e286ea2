//! The engine stays free of techniques: no file of the engine's layers names one. A
//! technique is a scheme behind the hooks in `techniques/`; a seam it needs is a hook for
//! everyone.

use std::path::{Path, PathBuf};
use std::process::Command;

use xlssd_core::techniques::technique_names;

/// The layers that must not name a technique.
const LAYERS: [&str; 5] = ["engine", "ftl", "nand", "controller", "host"];

/// Scheme names that are also ordinary words of code and prose (a hash map, transaction
/// ids, a read retry, an ideal case): in the engine they are looked for as quoted names only
/// (`"hash"`), where a scheme would be selected by name.
const COMMON_WORDS: [&str; 5] = ["hash", "ids", "ora", "retry", "ideal"];

/// Technique names in `text`, matched case-insensitively and ignoring `_` and `-` (so
/// `vth_b`, `VthB` and `vth-b` are one name), as whole words; names that are common words,
/// in quotes.
fn named_in(text: &str, names: &[&str]) -> Vec<String> {
    let folded: String = text.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect();
    let mut found = Vec::new();
    for name in names {
        let bare: String = name.chars().filter(|c| *c != '_' && *c != '-').collect();
        let needle = if COMMON_WORDS.contains(name) { format!("\"{bare}\"") } else { bare };
        let mut from = 0;
        while let Some(i) = folded[from..].find(&needle) {
            let (start, end) = (from + i, from + i + needle.len());
            let before = folded[..start].chars().next_back().is_some_and(|c| c.is_alphanumeric());
            let after = folded[end..].chars().next().is_some_and(|c| c.is_alphanumeric());
            if !before && !after {
                found.push(name.to_string());
                break;
            }
            from = end;
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_check_finds_a_technique_name_however_it_is_spelt() {
    let names = ["approxftl", "vth_b"];
    assert_eq!(named_in("if scheme == Scheme::ApproxFTL {", &names), vec!["approxftl"]);
    assert_eq!(named_in("let s = VthB;", &names), vec!["vth_b"]);
    assert_eq!(named_in("// as vth-b does", &names), vec!["vth_b"]);
    // Part of a longer word is not the name.
    assert!(named_in("let vthbias = 1; approxftlike", &names).is_empty());
    assert!(named_in("approximate writes with a lowered V_max_th", &names).is_empty());
    // A name that is a common word counts only quoted.
    assert!(named_in("kept in a hash map by transaction ids", &["hash", "ids"]).is_empty());
    assert_eq!(named_in("if name == \"ids\" {", &["hash", "ids"]), vec!["ids"]);
}

#[test]
fn no_engine_layer_names_a_technique() {
    let names = technique_names();
    assert!(names.contains(&"approxftl") && names.contains(&"delta_b") && !names.contains(&"baseline"), "{names:?}");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for layer in LAYERS {
        rust_files(&src.join(layer), &mut files);
    }
    assert!(files.len() > 30, "found only {} files", files.len());
    let offenders: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let found = named_in(&std::fs::read_to_string(f).unwrap(), &names);
            (!found.is_empty()).then(|| format!("{} names {}", f.strip_prefix(&src).unwrap().display(), found.join(", ")))
        })
        .collect();
    assert!(offenders.is_empty(), "technique names in the engine's layers:\n{}", offenders.join("\n"));
}

/// The Rust tree, the workspace and the fuzzing crate beside it, is as `cargo fmt` leaves it
/// (with `rustfmt.toml`), so that a change's diff holds only what it changes.
#[test]
fn the_rust_tree_is_formatted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for manifest in ["Cargo.toml", "fuzz/Cargo.toml"] {
        let out = Command::new(env!("CARGO"))
            .args(["fmt", "--all", "--check", "--manifest-path", manifest])
            .current_dir(&root)
            .output()
            .expect("cargo runs");
        let diff = String::from_utf8_lossy(&out.stdout);
        let files: Vec<&str> = diff.lines().filter_map(|l| l.strip_prefix("Diff in ")).collect();
        assert!(
            out.status.success(),
            "`cargo fmt` would change {manifest}'s tree (run `cargo fmt --all --manifest-path {manifest}`): {files:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
