//! Fuzz target `dumpi`: see `simpi_fuzz::dumpi::dumpi`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::dumpi::dumpi(data));
