//! Fuzz target `calibrate_fit`: see `simpi_fuzz::measurements::calibrate_fit`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::measurements::calibrate_fit(data));
