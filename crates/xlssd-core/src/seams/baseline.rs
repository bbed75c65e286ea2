//! The baseline: every hook at its default. Writes go to their kind's stream, victims are
//! chosen by `gc.policy`, free blocks by `wl.*`, every page is programmed in
//! `physics.program_mode`, reads settle as the decoder says, an erase is one `timing.erase_us`
//! pulse, and every request is served by the SSD.

use super::hooks::*;

/// The scheme that overrides nothing: each of its methods is the trait's default, so the
/// baseline behaviour is written once, in [`super::hooks`].
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
