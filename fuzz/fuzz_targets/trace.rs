//! Fuzz target `trace`: see `xlssd_core::fuzz::trace` for the input and the invariants checked.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| xlssd_core::fuzz::trace(data));
