//! Fuzz target `wire`: see `simpi_fuzz::wire::wire`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::wire::wire(data));
