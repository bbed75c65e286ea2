//! Bounds on what a run may take, checked before it takes it.
//!
//! Memory: the structures that grow with the device (the maps, the page physics) are
//! estimated from the configuration (`estimate`) and compared with the memory the machine
//! has (`machine`), or with `limits.max_memory_bytes` when set, before the simulator
//! allocates anything; a device too large is refused naming its geometry. Whatever the
//! estimate lets through is allocated fallibly (`alloc`), so that a refusal by the system is
//! an error too, never an abort.

pub mod alloc;
pub mod config;
pub mod estimate;
pub mod machine;

pub use config::LimitsConfig;

use crate::config::Config;
use crate::error::{Error, Result};

/// `bytes` in GiB, with the decimals a small figure needs.
fn gib(bytes: u64) -> String {
    let g = bytes as f64 / (1u64 << 30) as f64;
    match g {
        g if g >= 10.0 => format!("{g:.1} GiB"),
        g if g >= 0.01 => format!("{g:.2} GiB"),
        g => format!("{g:.4} GiB"),
    }
}

/// Refuses a device whose structures would take more memory than the machine has (or than
/// `limits.max_memory_bytes`, when set), naming the geometry and the estimate; `techniques`
/// are the parts the running scheme's techniques allocate (the scheme registry's).
pub fn check_memory(cfg: &Config, techniques: &[estimate::Part]) -> Result<()> {
    let estimate = estimate::estimate(cfg, techniques);
    let needed = estimate.total();
    let (limit, against) = match cfg.limits.max_memory_bytes {
        0 => {
            let (bytes, source) = machine::available();
            (bytes, format!("the {} this machine has {source}", gib(bytes)))
        }
        n => (n, format!("limits.max_memory_bytes ({})", gib(n))),
    };
    if needed <= limit {
        return Ok(());
    }
    let g = &cfg.geometry;
    // The largest parts, which are what a smaller geometry or a larger unit would shrink.
    let mut parts = estimate.parts.clone();
    parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    let parts: Vec<String> = parts.iter().take(3).map(|p| format!("{} {}", p.name, gib(p.bytes))).collect();
    Err(Error::Config {
        key: "geometry".into(),
        message: format!(
            "channels {} x chips_per_channel {} x dies_per_chip {} x planes_per_die {} x blocks_per_plane {} x \
             pages_per_block {} = {} pages of {} bytes need an estimated {} of memory ({}), more than {against}; \
             expected a smaller geometry or a larger mapping.unit_bytes, or set limits.max_memory_bytes to allow it",
            g.channels,
            g.chips_per_channel,
            g.dies_per_chip,
            g.planes_per_die,
            g.blocks_per_plane,
            g.pages_per_block,
            cfg.capacity().physical_pages,
            g.page_size,
            gib(needed),
            parts.join(", "),
        ),
    })
}
