//! Fuzz target `preset`: see `simpi_fuzz::preset::preset`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::preset::preset(data));
