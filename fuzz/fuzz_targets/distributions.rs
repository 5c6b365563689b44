//! Fuzz target `distributions`: see `simpi_fuzz::distributions::distributions`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::distributions::distributions(data));
