//! Fuzz target `otf2`: see `simpi_fuzz::otf2::otf2`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::otf2::otf2(data));
