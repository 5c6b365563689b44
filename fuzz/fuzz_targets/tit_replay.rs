//! Fuzz target `tit_replay`: see `simpi_fuzz::tit::tit_replay`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::tit::tit_replay(data));
