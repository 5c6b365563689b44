//! Records what the OTF2 decoder process sends while reading an archive, as the script
//! the `otf2` fuzz target reads (`fuzz/make-corpus` makes its seeds so):
//! `cargo run --release -p simpi-trace --example otf2_script -- ARCHIVE/traces.otf2 OUT`.

use simpi_mpi::coll::{registry, CollSpec};
use simpi_trace::otf2::record_otf2_script;
use simpi_trace::tit::TitOptions;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [anchor, out] = args.as_slice() else {
        eprintln!("usage: otf2_script ARCHIVE/traces.otf2 OUT");
        return ExitCode::from(2);
    };
    let speed = |_r: u32| 1e9;
    let choose = |s: &CollSpec| {
        registry()
            .into_iter()
            .find(|a| a.coll == s.coll)
            .expect("an algorithm of every collective")
    };
    let opts = TitOptions {
        speed: &speed,
        choose: &choose,
        test_cost: 1e-4,
        calls: true,
    };
    match record_otf2_script(anchor.as_ref(), &opts) {
        Ok((_, script)) => match std::fs::write(out, script) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{out}: {e}");
                ExitCode::from(1)
            }
        },
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}
