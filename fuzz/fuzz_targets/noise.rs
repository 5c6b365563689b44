//! Fuzz target `noise`: see `simpi_fuzz::noise::noise`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::noise::noise(data));
