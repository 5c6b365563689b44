//! Fuzz target `platform_replay`: see `simpi_fuzz::platform::platform_replay`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::platform::platform_replay(data));
