//! Fuzz target `config`: see `xlssd_core::fuzz::config` for the input and the invariants checked.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| xlssd_core::fuzz::config(data));
