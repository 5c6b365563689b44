//! Fuzz target `hostfile`: see `simpi_fuzz::platform::hostfile`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::platform::hostfile(data));
