//! The `[limits]` section: bounds the user may move on what a run may take.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// The most memory the device's structures may take, by the estimate made before
    /// anything is allocated (`limits::memory`); 0 means the memory the machine has
    /// available. Above the machine's memory it lets a run go ahead that the estimate would
    /// refuse (a large device whose maps a short workload barely touches).
    pub max_memory_bytes: u64,
}
