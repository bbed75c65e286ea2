//! The engine stays free of techniques: no file of the engine's layers names one or imports
//! the `techniques` module, and the seams (`seams/`, the hooks the engine calls) import no
//! layer above the device. A technique is a scheme behind the hooks; a seam it needs is a
//! hook for everyone.

use std::path::{Path, PathBuf};
use std::process::Command;

use xlssd_core::techniques::technique_names;

/// The layers that must not name a technique.
const LAYERS: [&str; 9] = ["engine", "ftl", "nand", "controller", "host", "backing", "config", "limits", "seams"];

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
        files.extend(layer_files(&src, layer));
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

/// Layers that must not import `techniques` (nor the top level, which calls its registry).
const NO_TECHNIQUES: [&str; 8] = ["engine", "ftl", "nand", "controller", "host", "backing", "config", "limits"];

/// What the seams may import: the device layers below them.
const SEAMS_MAY_IMPORT: [&str; 7] = ["seams", "ftl", "nand", "physics", "host", "sim", "error"];

/// Imports that break the rules above and are allowed for now: (file under `src/`, module
/// imported, why). The list may only shrink: an entry no longer needed fails the test, and
/// [`MAX_EXCEPTIONS`] only goes down.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];
const MAX_EXCEPTIONS: usize = 0;

/// The crate root's re-exports and functions, by the module they come from; the root's own
/// functions are the top level (`lib`); `VERSION` is the package's version, no layer.
const ROOT_NAMES: [(&str, &str); 16] = [
    ("Config", "config"),
    ("Payload", "engine"),
    ("Progress", "engine"),
    ("RunOptions", "engine"),
    ("Simulator", "engine"),
    ("Error", "error"),
    ("Result", "error"),
    ("Request", "host"),
    ("RequestSource", "host"),
    ("Workload", "host"),
    ("Report", "report"),
    ("VERSION", "version"),
    ("validated", "lib"),
    ("simulator", "lib"),
    ("simulate", "lib"),
    ("open_workload", "lib"),
];

/// `text` without comments and without items marked `#[cfg(test)]` (a unit test may use the
/// top level to build what it checks; the library's own code may not).
fn library_code(text: &str) -> String {
    let code: String = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let Some(open) = after.find('{') else { return out };
        let mut depth = 0;
        let mut end = after.len();
        for (j, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The crate's modules `code` imports: every `crate::name` and each name of a
/// `crate::{a, b::c}` group, a root name mapped to its module.
fn imported_modules(code: &str) -> Vec<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut names = Vec::new();
    let mut from = 0;
    while let Some(i) = code[from..].find("crate::") {
        let at = from + i;
        let before = code[..at].chars().next_back();
        from = at + "crate::".len();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `xlssd_crate::`, not this crate's root
        }
        let rest = &code[from..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names of the group: those at brace depth 0.
            let (mut depth, mut start) = (0, 0);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        names.push(ident(group[start..j].trim()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(ident(group[start..j].trim()));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            names.push(ident(rest));
        }
    }
    let mut modules: Vec<String> = names
        .into_iter()
        .filter(|n| !n.is_empty())
        .map(|n| ROOT_NAMES.iter().find(|(name, _)| *name == n).map_or(n.clone(), |(_, m)| m.to_string()))
        .collect();
    modules.sort();
    modules.dedup();
    modules
}

/// The files of a layer: its folder and the file of its name beside it.
fn layer_files(src: &Path, layer: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if src.join(layer).is_dir() {
        rust_files(&src.join(layer), &mut files);
    }
    let file = src.join(format!("{layer}.rs"));
    if file.is_file() {
        files.push(file);
    }
    files
}

#[test]
fn the_import_check_reads_paths_groups_and_root_names() {
    let code = "use crate::ftl::blocks::BlockManager;\nuse crate::{seams::Hook, techniques::{self, Joined}};\n\
                fn f() { crate::simulate(); xlssd_crate::x(); }";
    assert_eq!(imported_modules(code), vec!["ftl", "lib", "seams", "techniques"]);
    let code = "use crate::sim::Time; // crate::techniques in a comment\n#[cfg(test)]\nmod tests {\n    use crate::config::Config;\n    fn g() { if x { y } }\n}\nuse crate::nand::Ppn;";
    assert_eq!(imported_modules(&library_code(code)), vec!["nand", "sim"]);
}

#[test]
fn layers_import_only_what_lies_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert!(EXCEPTIONS.len() <= MAX_EXCEPTIONS, "the list of exceptions may only shrink");
    let mut found: Vec<(String, String)> = Vec::new();
    let mut checked = 0;
    let mut check = |layer: &str, allowed: &dyn Fn(&str) -> bool| {
        for f in layer_files(&src, layer) {
            checked += 1;
            let file = f.strip_prefix(&src).unwrap().display().to_string();
            for m in imported_modules(&library_code(&std::fs::read_to_string(&f).unwrap())) {
                if !allowed(&m) {
                    found.push((file.clone(), m));
                }
            }
        }
    };
    for layer in NO_TECHNIQUES {
        check(layer, &|m| m != "techniques" && m != "lib");
    }
    check("seams", &|m| SEAMS_MAY_IMPORT.contains(&m));
    // The report's types sit below the engine that fills them and the schemes that add
    // sections to them.
    check("report", &|m| !["engine", "techniques", "lib"].contains(&m));
    assert!(checked > 60, "checked only {checked} files");
    let excepted = |(f, m): &(String, String)| EXCEPTIONS.iter().any(|(ef, em, _)| ef == f && em == m);
    let offenders: Vec<String> = found.iter().filter(|i| !excepted(i)).map(|(f, m)| format!("{f} imports {m}")).collect();
    assert!(offenders.is_empty(), "imports from a higher layer:\n{}", offenders.join("\n"));
    let stale: Vec<&str> =
        EXCEPTIONS.iter().filter(|(f, m, _)| !found.iter().any(|(ff, fm)| ff == f && fm == m)).map(|e| e.0).collect();
    assert!(stale.is_empty(), "exceptions no longer needed (remove them and lower MAX_EXCEPTIONS): {stale:?}");
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
