//! The baseline's registry entry: the scheme that overrides no hook ([`crate::seams::Baseline`]).

use super::SchemeInfo;
use crate::seams::Baseline;

pub const BASELINE: SchemeInfo = SchemeInfo {
    name: "baseline",
    description: "every hook at its default: the configured GC, wear levelling, program mode and decoder",
    hooks: &[],
    table: None,
    keys: &[],
    streams: 1,
    uses_gc_policy: false,
    extra_streams: super::no_extra_streams,
    gc_reserve: super::no_extra_streams,
    needs: super::no_needs,
    build: |_| Ok(Box::new(Baseline)),
};
