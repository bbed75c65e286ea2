//! Replays the kept fuzz corpora (`fuzz/corpus/<target>/`, docs/testing.md) through the
//! same entry functions the cargo-fuzz targets call, on stable Rust: every input the
//! fuzzer kept, and every crash it found (kept as a corpus file), is checked on each test
//! run.

use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: the corpus is empty", dir.display());
    files
        .into_iter()
        .map(|p| {
            let data = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, data)
        })
        .collect()
}

/// Runs `entry` on every file of `target`'s corpus, naming the file that fails.
fn replay(target: &str, entry: fn(&[u8])) {
    for (path, data) in corpus(target) {
        if std::panic::catch_unwind(|| entry(&data)).is_err() {
            panic!(
                "fuzz corpus file {} fails (reproduce: cd fuzz && cargo +nightly fuzz run {target} {})",
                path.display(),
                path.display()
            );
        }
    }
}

#[test]
fn trace_corpus_replays() {
    replay("trace", xlssd_core::fuzz::trace);
}

#[test]
fn workload_spec_corpus_replays() {
    replay("workload_spec", xlssd_core::fuzz::workload_spec);
}

#[test]
fn config_corpus_replays() {
    replay("config", xlssd_core::fuzz::config);
}
