//! Fuzz target `cli_values`: see `simpi_fuzz::cli::cli_values`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::cli::cli_values(data));
