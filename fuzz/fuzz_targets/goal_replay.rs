//! Fuzz target `goal_replay`: see `simpi_fuzz::goal::goal_replay`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::goal::goal_replay(data));
