//! Fuzz target `record`: see `simpi_fuzz::record::record`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::record::record(data));
