//! `simpi testbed`: runs an MPI program on an emulated Ethernet cluster of network
//! namespaces (the `simpi-testbed` crate); `--cleanup` removes what a killed run left.

use crate::EXIT_INPUT;
use clap::Args;
use simpi_testbed::{Error, TestbedConfig};
use std::path::PathBuf;

/// Arguments of `simpi testbed`.
#[derive(Args)]
pub struct TestbedArgs {
    /// Nodes (namespaces), one MPI rank each.
    #[arg(long, default_value_t = 8)]
    nodes: usize,
    /// Bandwidth of each node's link, each direction (e.g. 100Mbps, 12.5MBps).
    #[arg(long, default_value = "100Mbps")]
    bandwidth: String,
    /// One-way latency between two nodes of a cabinet (each node link has half of it).
    #[arg(long, default_value = "100us")]
    latency: String,
    /// Cabinets: nodes are split into this many consecutive groups joined by uplinks.
    #[arg(long, default_value_t = 1)]
    cabinets: usize,
    /// Bandwidth of each cabinet's uplink, each direction (with --cabinets > 1).
    #[arg(long, default_value = "100Mbps")]
    uplink_bandwidth: String,
    /// Latency of each cabinet's uplink.
    #[arg(long, default_value = "0us")]
    uplink_latency: String,
    /// MTU of the node interfaces.
    #[arg(long, default_value_t = 1500)]
    mtu: u32,
    /// Microseconds before a delivery at which the switch stops sleeping and polls.
    #[arg(long, default_value_t = 50)]
    spin_us: u64,
    /// Queue limit per link, bytes (a full queue drops frames).
    #[arg(long, default_value_t = 4 << 20)]
    queue_bytes: u64,
    /// Write the matching simpi platform (TOML) here.
    #[arg(long, default_value = "testbed.toml")]
    platform_out: PathBuf,
    /// Write the matching SimGrid platform (XML) here.
    #[arg(long, default_value = "testbed.xml")]
    xml_out: PathBuf,
    /// Host speed (flop/s) written to the platform files (what the tracer's compute is in).
    #[arg(long, default_value = "1Gf")]
    speed: String,
    /// Run the program under simpi's tracer, writing the trace here.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Write the trace's compute as wall-clock time between calls. By default it is each
    /// rank's CPU time: the nodes share this machine's cores (the platform file says
    /// so) and the replay shares them again.
    #[arg(long)]
    wall_compute: bool,
    /// Measure latency and bandwidth between nodes 0 and 1 and print them (JSON with --json).
    #[arg(long)]
    measure: bool,
    /// Print the measurement as JSON.
    #[arg(long)]
    json: bool,
    /// Extra arguments for mpirun (split at spaces).
    #[arg(long, default_value = "")]
    mpirun_args: String,
    /// Remove the namespaces of testbed runs that no longer exist, then stop.
    #[arg(long)]
    cleanup: bool,
    /// The MPI program and its arguments (after --). Without one, only --measure runs.
    #[arg(last = true)]
    command: Vec<String>,
}

/// The exit code and message of a testbed error.
fn failure(e: Error) -> (u8, String) {
    let code = match e {
        Error::Usage(_) => 2,
        Error::Interrupted(_) => 130,
        _ => EXIT_INPUT,
    };
    (code, e.to_string())
}

/// Runs `simpi testbed`.
pub fn run(a: TestbedArgs) -> Result<(), (u8, String)> {
    if a.cleanup {
        let removed = simpi_testbed::cleanup().map_err(failure)?;
        eprintln!("simpi testbed: removed {removed} namespace(s)");
        return Ok(());
    }
    simpi_testbed::run(&TestbedConfig {
        nodes: a.nodes,
        bandwidth: a.bandwidth,
        latency: a.latency,
        cabinets: a.cabinets,
        uplink_bandwidth: a.uplink_bandwidth,
        uplink_latency: a.uplink_latency,
        mtu: a.mtu,
        spin_us: a.spin_us,
        queue_bytes: a.queue_bytes,
        platform_out: a.platform_out,
        xml_out: a.xml_out,
        speed: a.speed,
        trace: a.trace,
        wall_compute: a.wall_compute,
        measure: a.measure,
        json: a.json,
        mpirun_args: a.mpirun_args.split_whitespace().map(String::from).collect(),
        command: a.command,
    })
    .map_err(failure)
}
