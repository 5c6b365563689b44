//! Fuzz target `measurements`: see `simpi_fuzz::measurements::measurements`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::measurements::measurements(data));
