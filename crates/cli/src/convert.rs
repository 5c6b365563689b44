//! `simpi convert TRACE --to goal`: a trace (collectives expanded by the chosen
//! algorithms) or schedule written as a GOAL schedule.

use crate::EXIT_INPUT;
use clap::{ArgMatches, Args, ValueEnum};
use simpi::{load, LoadOptions, TimeUnit};
use std::io::Write;
use std::path::PathBuf;

#[derive(Copy, Clone, ValueEnum)]
enum Target {
    /// LogGOPSim's GOAL text.
    Goal,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// The TIT trace (index or trace file), OTF2 trace (anchor file), liballprof trace
    /// (rank 0's file), DUMPI trace (.meta file) or GOAL schedule to convert (its format
    /// detected).
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum)]
    to: Target,
    /// Output file (default: standard output).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    trace: crate::trace_options::TraceOptions,
    /// Time unit of the GOAL output.
    #[arg(long, default_value = "ns")]
    time_unit: TimeUnit,
}

pub fn run(a: ConvertArgs, m: &ArgMatches) -> Result<(), (u8, String)> {
    let Target::Goal = a.to;
    // A GOAL schedule has its operations already: what expands a trace changes nothing.
    if simpi::Format::detect(&a.file) == simpi::Format::Goal {
        let flags = [
            ("coll", "--coll"),
            ("coll_selector", "--coll-selector"),
            ("speed", "--speed"),
            ("test_cost", "--test-cost"),
        ];
        if let Some((_, flag)) = flags.iter().find(|(id, _)| crate::given(m, id)) {
            return Err((
                crate::EXIT_USAGE,
                format!(
                    "{flag} applies to traces; {} is a GOAL schedule, which has its operations already",
                    a.file.display()
                ),
            ));
        }
    }
    let coll = a.trace.collectives()?;
    let flops = a.trace.speed;
    let speed = |_r: u32| flops;
    let w = load(
        &a.file,
        &LoadOptions {
            format: None,
            unit: a.time_unit,
            speed: &speed,
            collectives: &coll,
            test_cost: a.trace.test_cost,
            calls: false,
            whole: true,
        },
    )
    .map_err(|e| (EXIT_INPUT, e.to_string()))?;
    let io = |e: std::io::Error| (EXIT_INPUT, format!("writing the schedule: {e}"));
    let rep = match &a.output {
        Some(path) => {
            let f = std::fs::File::create(path)
                .map_err(|e| (EXIT_INPUT, format!("{}: cannot create: {e}", path.display())))?;
            simpi_trace::goal::write_schedule(
                w.schedule().expect("loaded whole"),
                std::io::BufWriter::new(f),
                a.time_unit,
            )
            .map_err(io)?
            .1
        }
        None => {
            let out = std::io::stdout();
            let (mut o, rep) =
                simpi_trace::goal::write_schedule(w.schedule().expect("loaded whole"), out.lock(), a.time_unit)
                    .map_err(io)?;
            o.flush().map_err(io)?;
            rep
        }
    };
    for warning in w.warnings {
        eprintln!("simpi: warning: {warning}");
    }
    if rep.wildcard_tags_across_contexts > 0 {
        eprintln!(
            "simpi: warning: {} receive(s) with a wildcard tag on a sub-communicator may match messages of other communicators in GOAL",
            rep.wildcard_tags_across_contexts
        );
    }
    if rep.any_of_as_all_of > 0 {
        eprintln!(
            "simpi: warning: {} waitany point(s) became wait-for-all (GOAL has no any-of dependency)",
            rep.any_of_as_all_of
        );
    }
    if rep.rounded_computes > 0 {
        eprintln!(
            "simpi: warning: {} compute time(s) rounded to whole {}",
            rep.rounded_computes,
            a.time_unit.name()
        );
    }
    if rep.resized_receives > 0 {
        eprintln!(
            "simpi: note: {} receive(s) posted a buffer of another size than their message; written with the message's size",
            rep.resized_receives
        );
    }
    if rep.tag_overflows > 0 {
        eprintln!(
            "simpi: warning: {} tag(s) too large to carry their communicator in GOAL",
            rep.tag_overflows
        );
    }
    Ok(())
}

/// `simpi list-algorithms`: every collective algorithm.
pub fn list_algorithms() -> Result<(), (u8, String)> {
    let mut last = None;
    for a in simpi::mpi::coll::registry() {
        if last != Some(a.coll) {
            println!("{}:", a.coll);
            last = Some(a.coll);
        }
        let sg = a.simgrid.map(|n| format!(" [SimGrid: {n}]")).unwrap_or_default();
        println!("  {:<24} {}{sg}", a.name, a.source);
    }
    Ok(())
}
