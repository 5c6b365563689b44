//! Preset files (`--preset FILE`, what `simpi calibrate` writes): the reader, the file
//! written back (values to 7 digits) and read again, and the fixed mixed schedule
//! replayed under the file's hybrid model and, if it has them, its LogGOPS parameters.

use super::run::{exercise, flow, mixed, platform};
use simpi::preset_file::{parse, to_text};
use simpi::Model;

/// Reads the input as a preset file; what reads must write back into a file that reads,
/// and that writes back to the same text (the writer rounds once), and drives a replay.
pub fn preset(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = match parse(text, "fuzz.toml") {
        Ok(f) => f,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let text = to_text(&file, "again");
    let again = parse(&text, "again.toml").expect("a preset file written back reads");
    assert_eq!(to_text(&again, "again"), text, "a preset file written twice differs");
    let (mut w, ranks) = mixed();
    exercise(&mut w, &flow(platform(), ranks, file.preset.clone()));
    if let Some(l) = file.loggops {
        exercise(&mut w, &Model::LogGops(l));
    }
}
