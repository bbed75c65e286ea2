//! The baseline: every hook at its default. Writes go to their kind's stream, victims are
//! chosen by `gc.policy`, free blocks by `wl.*`, every page is programmed in
//! `physics.program_mode`, reads settle as the decoder says, an erase is one `timing.erase_us`
//! pulse, and every request is served by the SSD.

use super::hooks::*;
use super::SchemeInfo;

pub struct Baseline;

impl Placement for Baseline {}
impl ProgramModes for Baseline {}
impl Cleaning for Baseline {}
impl FreeBlocks for Baseline {}
impl ReadPath for Baseline {}
impl ReadRetry for Baseline {}
impl RetryReference for Baseline {}
impl EraseControl for Baseline {}
impl Background for Baseline {}
impl CacheTier for Baseline {}
impl Observer for Baseline {}
impl Technique for Baseline {}

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
