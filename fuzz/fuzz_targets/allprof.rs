//! Fuzz target `allprof`: see `simpi_fuzz::allprof::allprof`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::allprof::allprof(data));
