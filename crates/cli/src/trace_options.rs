//! The options of commands that read traces: how collectives are expanded, what a
//! `compute` action and a test call cost.

use clap::Args;
use simpi::{values, CollChoice};

/// Trace-reading options shared by `simpi replay` and `simpi convert`.
#[derive(Args)]
pub struct TraceOptions {
    /// Use this algorithm for a collective, e.g. `--coll bcast=binomial` (repeatable;
    /// `simpi list-algorithms` lists them).
    #[arg(long = "coll", value_name = "OP=ALGO")]
    pub coll: Vec<String>,
    /// Whose decision rules pick collective algorithms: ompi (Open MPI 4.1), mpich (MPICH 4)
    /// or first (the first registered algorithm of each collective).
    #[arg(long, default_value = "ompi", value_parser = ["ompi", "mpich", "first"])]
    pub coll_selector: String,
    /// Host speed in flop/s for traces' `compute` (replay: when there is no platform).
    #[arg(long, default_value = "1e9", value_parser = values::positive)]
    pub speed: f64,
    /// Seconds each MPI_Test-like call of a trace costs (SimGrid's smpi/test).
    #[arg(long, default_value = "1e-4", value_parser = values::clock_seconds)]
    pub test_cost: f64,
}

impl TraceOptions {
    /// The collective choice the options describe; a bad selector or override is a
    /// command-line error (exit code 2).
    pub fn collectives(&self) -> Result<CollChoice, (u8, String)> {
        let mut coll = CollChoice::by_name(&self.coll_selector).map_err(|e| (2, format!("--coll-selector: {e}")))?;
        for c in &self.coll {
            coll.add_override(c).map_err(|e| (2, format!("--coll: {e}")))?;
        }
        Ok(coll)
    }
}
