//! `simpi convert TRACE --to goal`: a trace (collectives expanded by the chosen
//! algorithms) or schedule written as a GOAL schedule.

use crate::EXIT_INPUT;
use clap::{Args, ValueEnum};
use simpi::{load, CollChoice, LoadOptions, TimeUnit};
use std::io::Write;
use std::path::PathBuf;

#[derive(Copy, Clone, ValueEnum)]
enum Target {
    /// LogGOPSim's GOAL text.
    Goal,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// The TIT trace (index or trace file) or GOAL schedule to convert.
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum)]
    to: Target,
    /// Output file (default: standard output).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Use this algorithm for a collective (repeatable).
    #[arg(long = "coll", value_name = "OP=ALGO")]
    coll: Vec<String>,
    /// Whose decision rules pick collective algorithms: ompi (Open MPI 4.1), mpich (MPICH 4)
    /// or first (the first registered algorithm of each collective).
    #[arg(long, default_value = "ompi", value_name = "ompi|mpich|first")]
    coll_selector: String,
    /// Host speed in flop/s for `compute` actions.
    #[arg(long, default_value = "1e9")]
    speed: f64,
    /// Seconds each MPI_Test-like call costs.
    #[arg(long, default_value = "1e-4")]
    test_cost: f64,
    /// Time unit of the GOAL output.
    #[arg(long, default_value = "ns")]
    time_unit: TimeUnit,
}

pub fn run(a: ConvertArgs) -> Result<(), (u8, String)> {
    let Target::Goal = a.to;
    let mut coll = CollChoice::by_name(&a.coll_selector).map_err(|e| (2, format!("--coll-selector: {e}")))?;
    for c in &a.coll {
        coll.add_override(c).map_err(|e| (EXIT_INPUT, format!("--coll: {e}")))?;
    }
    let speed = |_r: u32| a.speed;
    let w = load(
        &a.file,
        &LoadOptions {
            format: None,
            unit: a.time_unit,
            speed: &speed,
            collectives: &coll,
            test_cost: a.test_cost,
        },
    )
    .map_err(|e| (EXIT_INPUT, e.to_string()))?;
    let io = |e: std::io::Error| (EXIT_INPUT, format!("writing the schedule: {e}"));
    let rep = match &a.output {
        Some(path) => {
            let f = std::fs::File::create(path)
                .map_err(|e| (EXIT_INPUT, format!("{}: cannot create: {e}", path.display())))?;
            simpi_trace::goal::write_schedule(&w.schedule, std::io::BufWriter::new(f), a.time_unit)
                .map_err(io)?
                .1
        }
        None => {
            let out = std::io::stdout();
            let (mut o, rep) = simpi_trace::goal::write_schedule(&w.schedule, out.lock(), a.time_unit).map_err(io)?;
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
