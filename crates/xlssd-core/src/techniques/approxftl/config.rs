//! The keys of `[scheme.approxftl]`, shared by ApproxFTL and its baselines Delta_b and
//! Vth_b (each uses some of them). Defaults are seed 000's.

use serde::{Deserialize, Serialize};

use crate::config::ranges::{bad, fraction};
use crate::error::Result;

/// Longest refresh age: about a century on the retention clock.
pub const MAX_REFRESH_H: f64 = 1.0e6;

/// Parameters of approximate writing. Defaults are seed 000's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ApproxConfig {
    /// Sector ranges `[start, end)` whose writes are approximate, for traces that carry no
    /// flag of their own (a flag in the trace also counts).
    pub lba_ranges: Vec<[u64; 2]>,
    /// A file of further ranges, one `start end` pair of sectors per line (`#` starts a
    /// comment); empty for none.
    pub lba_ranges_file: String,
    /// Requests of at most this many bytes are hot (Sec. IV-B: small requests are hot); hot
    /// and cold data go to separate pools of active blocks under `approxftl`.
    pub hot_max_bytes: u64,
    /// Effective wear an erase adds to a block that held only V_max_th-reduced pages (Eq.
    /// 10: 0.62; every other erase adds 1).
    pub all_approx_wear: f64,
    /// GC promotes a block's approximate pages to precise once its data has been written
    /// approximately this many times (Sec. IV-D: 2).
    pub promote_after: u32,
    /// Approximate pages older than this (retention clock, hours) are rewritten precise
    /// (Sec. IV-D: six months); 0 turns refresh off.
    pub refresh_h: f64,
    /// Block openings between recomputations of the smallest effective wear (Sec. IV-C:
    /// the smallest W is found periodically, not on every allocation).
    pub wear_refresh_every: u32,
    /// Where GC (and refresh) copies go under `approxftl`: `ordinary`, the active blocks of
    /// the page's own hot or cold pool (Sec. IV-D: valid pages move "to active blocks"; at
    /// most five per pool, Sec. IV-B), or `separate`, a third pool of five active blocks of
    /// their own. With pages bound when a write is queued (`ftl.page_binding = "queue"`) a
    /// copy bound into a host block holds up the host writes bound after it until its read
    /// and program are done (docs/techniques/approxftl.md measures it).
    pub gc_pool: GcPool,
}

/// Which active blocks relocated pages go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GcPool {
    Ordinary,
    Separate,
}

impl Default for ApproxConfig {
    fn default() -> Self {
        ApproxConfig {
            lba_ranges: Vec::new(),
            lba_ranges_file: String::new(),
            hot_max_bytes: 8192,
            all_approx_wear: 0.62,
            promote_after: 2,
            refresh_h: 4_380.0,
            wear_refresh_every: 64,
            gc_pool: GcPool::Ordinary,
        }
    }
}

impl ApproxConfig {
    /// Rejects impossible values, naming the key (under `prefix`) and the range.
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let k = |name: &str| format!("{prefix}.{name}");
        for (i, &[start, end]) in self.lba_ranges.iter().enumerate() {
            if start >= end {
                return Err(bad(
                    &format!("{}[{i}]", k("lba_ranges")),
                    format!("[{start}, {end}]"),
                    "a range [start, end) with start < end",
                ));
            }
        }
        fraction(&k("all_approx_wear"), self.all_approx_wear, true, false)?;
        if self.promote_after == 0 {
            return Err(bad(&k("promote_after"), self.promote_after, "at least 1"));
        }
        if !(0.0..=MAX_REFRESH_H).contains(&self.refresh_h) {
            return Err(bad(&k("refresh_h"), self.refresh_h, &format!("0 (off) to {MAX_REFRESH_H} hours")));
        }
        if self.wear_refresh_every == 0 {
            return Err(bad(&k("wear_refresh_every"), self.wear_refresh_every, "at least 1"));
        }
        Ok(())
    }

    /// Every approximate range: `lba_ranges` and those of `lba_ranges_file`.
    pub fn all_ranges(&self) -> Result<Vec<[u64; 2]>> {
        let mut ranges = self.lba_ranges.clone();
        if !self.lba_ranges_file.is_empty() {
            ranges.extend(read_ranges(&self.lba_ranges_file)?);
        }
        Ok(ranges)
    }

    pub fn is_approx_lba(&self, lba: u64) -> bool {
        self.lba_ranges.iter().any(|&[a, b]| (a..b).contains(&lba))
    }
}

/// Reads a file of approximate sector ranges: `start end` per line, half-open. It is
/// opened and read as a trace is, with the same limits and messages.
fn read_ranges(path: &str) -> Result<Vec<[u64; 2]>> {
    use crate::host::input::open_input;
    use crate::host::trace::{parse_u64, LineReader};
    let file = open_input(path, "scheme.approxftl.lba_ranges_file")?;
    let mut lines = LineReader::new(std::io::BufReader::new(file), path, false);
    let mut ranges = Vec::new();
    while let Some((_, raw)) = lines.next_line()? {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [start, end] = fields[..] else {
            return Err(lines.error("expected two fields: start_sector end_sector".into()));
        };
        let (start, end) = match (parse_u64(start, "start_sector"), parse_u64(end, "end_sector")) {
            (Ok(s), Ok(e)) => (s, e),
            (Err(m), _) | (_, Err(m)) => return Err(lines.error(format!("sectors must be non-negative integers: {m}"))),
        };
        if start >= end {
            return Err(lines.error("the range is empty: start must be below end".into()));
        }
        ranges.push([start, end]);
    }
    Ok(ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_files_are_read_with_errors_that_name_file_and_line() {
        let dir = std::env::temp_dir().join(format!("xlssd-ranges-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.txt");
        std::fs::write(&good, "# approximate data\n0 100\n\n  500 800  # second\n").unwrap();
        let cfg =
            ApproxConfig { lba_ranges: vec![[900, 901]], lba_ranges_file: good.display().to_string(), ..Default::default() };
        assert_eq!(cfg.all_ranges().unwrap(), vec![[900, 901], [0, 100], [500, 800]]);
        for (text, line, what) in [("0 10\n5\n", 2, "two fields"), ("x 3\n", 1, "integers"), ("1 1\n", 1, "empty")] {
            let bad = dir.join("bad.txt");
            std::fs::write(&bad, text).unwrap();
            let err = ApproxConfig { lba_ranges_file: bad.display().to_string(), ..Default::default() }.all_ranges().unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains(&format!("bad.txt:{line}:")) && msg.contains(what), "{msg}");
        }
        let missing = ApproxConfig { lba_ranges_file: dir.join("nope").display().to_string(), ..Default::default() };
        assert!(missing.all_ranges().unwrap_err().to_string().contains("scheme.approxftl.lba_ranges_file"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
