//! Fuzz target `xml_platform`: see `simpi_fuzz::platform::xml_platform`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: simpi_fuzz::process::init(), |data: &[u8]| simpi_fuzz::platform::xml_platform(data));
