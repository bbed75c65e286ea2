//! The `[scheme]` section as data: the scheme's name and its technique tables. What the
//! names mean (which hooks, streams and reserves a scheme brings, which keys its tables
//! take) is the registry's (`techniques`), which the top level asks once per run to resolve
//! the section; the result is kept here as the section's [`SchemeShape`], so that the
//! configuration's own checks and sizes need no registry.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::seams::{Hook, HookSet};

/// The name of the scheme that overrides nothing.
pub const BASELINE: &str = "baseline";

/// The `[scheme]` section.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SchemeConfig {
    /// A registered scheme, or several joined with `+`.
    pub name: String,
    /// Technique sub-tables, by table name.
    #[serde(flatten)]
    pub tables: BTreeMap<String, serde_json::Value>,
    /// What the registry made of `name` and `tables`; not part of the document.
    #[serde(skip)]
    pub shape: SchemeShape,
}

/// Two sections are equal when their documents are (the shape follows from them).
impl PartialEq for SchemeConfig {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.tables == other.tables
    }
}

impl Default for SchemeConfig {
    fn default() -> Self {
        SchemeConfig { name: BASELINE.to_string(), tables: BTreeMap::new(), shape: SchemeShape::baseline() }
    }
}

/// What a resolved scheme brings to the rest of the configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchemeShape {
    /// The `scheme.name` this shape was resolved for (`None`: not resolved).
    pub resolved_for: Option<String>,
    /// The hooks the scheme's parts override.
    pub hooks: HookSet,
    /// The part claiming each hook, by name (`Hook as usize`), for messages.
    pub owners: [&'static str; Hook::ALL.len()],
    /// The part overriding cleaning still chooses victims by `gc.policy`.
    pub keeps_gc_policy: bool,
    /// Host write streams the scheme needs.
    pub streams: u32,
    /// Free blocks per plane the scheme keeps for cleaning (0: none beyond the engine's).
    pub gc_reserve: u32,
}

impl SchemeShape {
    /// The baseline's: no hook, one stream, no reserve of its own.
    pub fn baseline() -> SchemeShape {
        SchemeShape { resolved_for: Some(BASELINE.to_string()), streams: 1, ..Default::default() }
    }

    /// The part claiming `hook` ("" when none does).
    pub fn owner(&self, hook: Hook) -> &'static str {
        self.owners[hook as usize]
    }
}

impl SchemeConfig {
    /// Whether the shape is the one of this name.
    pub fn is_resolved(&self) -> bool {
        self.shape.resolved_for.as_deref() == Some(self.name.as_str())
    }
}
