//! The memory this machine has for a run.

/// Assumed when the system says nothing (no /proc/meminfo, no sysconf): a modest machine.
pub const FALLBACK_BYTES: u64 = 4 << 30;

/// Bytes a new run can take without pushing others out, and where the figure comes from:
/// `MemAvailable` of /proc/meminfo (free memory plus what the kernel can reclaim), else
/// `MemTotal`, else the physical memory sysconf reports, else [`FALLBACK_BYTES`].
pub fn available() -> (u64, &'static str) {
    if let Ok(text) = std::fs::read_to_string("/proc/meminfo") {
        for (field, source) in [("MemAvailable:", "available (MemAvailable)"), ("MemTotal:", "in total (MemTotal)")] {
            if let Some(bytes) = meminfo_field(&text, field) {
                return (bytes, source);
            }
        }
    }
    // SAFETY: sysconf with constant arguments only.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    if pages > 0 && page > 0 {
        return ((pages as u64).saturating_mul(page as u64), "in total (physical memory)");
    }
    (FALLBACK_BYTES, "assumed (the system does not say)")
}

/// A `Field:  N kB` line of /proc/meminfo, in bytes.
fn meminfo_field(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(field))?;
    let mut words = line[field.len()..].split_whitespace();
    let n: u64 = words.next()?.parse().ok()?;
    let unit = match words.next() {
        Some("kB") => 1024,
        None => 1,
        Some(_) => return None,
    };
    n.checked_mul(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_fields_are_read_in_bytes() {
        let text = "MemTotal:       24683656 kB\nMemFree:  100 kB\nMemAvailable:   23664444 kB\n";
        assert_eq!(meminfo_field(text, "MemAvailable:"), Some(23664444 * 1024));
        assert_eq!(meminfo_field(text, "MemTotal:"), Some(24683656 * 1024));
        assert_eq!(meminfo_field(text, "SwapTotal:"), None);
        assert_eq!(meminfo_field("MemTotal: lots kB\n", "MemTotal:"), None);
    }

    #[test]
    fn this_machine_has_some_memory() {
        let (bytes, source) = available();
        assert!(bytes >= 64 << 20, "{bytes} bytes {source}");
    }
}
