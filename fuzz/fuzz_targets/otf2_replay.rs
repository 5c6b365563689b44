//! Fuzz target `otf2_replay`: see `simpi_fuzz::otf2::otf2_replay`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::otf2::otf2_replay(data));
