//! An emulated Ethernet cluster on one machine, for `simpi testbed`. Each node is a network
//! namespace with a TAP device; an emulated switch (a real-time thread of this process)
//! carries frames between them with the configured bandwidth and latency per link, and an
//! optional shared uplink per cabinet. Open MPI runs one rank per namespace over TCP, with
//! or without simpi's tracer. Everything is torn down at the end, on failure and on
//! SIGINT/SIGTERM/SIGHUP; [`cleanup`] removes what a killed run left.
//!
//! tc cannot do this on kernels built without netem (delay); the switch does both the
//! rate and the delay itself, the same way on every kernel.

mod fabric;
mod measure;
mod netns;
mod switch;

use fabric::Shape;
use simpi_platform::units;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;

/// Why a testbed run or cleanup failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The settings are incomplete or out of range (the message names the option as
    /// `simpi testbed` spells it).
    Usage(String),
    /// The process is not root, which creating network namespaces needs.
    NotRoot,
    /// The nodes do not split evenly into the cabinets, as the platform files need.
    UnevenCabinets {
        /// Nodes.
        nodes: usize,
        /// Cabinets.
        cabinets: usize,
    },
    /// A file could not be written: `cannot <action> <path>: <error>`.
    Io {
        /// What was being done, e.g. `write`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why it failed.
        error: std::io::Error,
    },
    /// The trace directory could not be created.
    TraceDir {
        /// The directory.
        path: PathBuf,
        /// Why it failed.
        error: std::io::Error,
    },
    /// An operating-system call failed with no file to name (shown as the system's message).
    System(std::io::Error),
    /// Creating, configuring or deleting namespaces and devices failed (the message names
    /// the command and what it printed).
    Network(String),
    /// Measuring latency and bandwidth between nodes 0 and 1 failed.
    Measure(String),
    /// The tracer could not be built.
    Tracer(simpi_tracer::Error),
    /// mpirun could not be started.
    Launch(std::io::Error),
    /// The MPI job ended with a failure.
    JobFailed(ExitStatus),
    /// A signal (SIGINT, SIGTERM, SIGHUP) stopped the run; the text says what was stopped.
    Interrupted(&'static str),
    /// Namespaces that teardown could not remove (`simpi testbed --cleanup` removes them).
    LeftBehind(Vec<String>),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Usage(m) | Error::Network(m) | Error::Measure(m) => f.write_str(m),
            Error::NotRoot => f.write_str("simpi testbed needs root (it creates network namespaces)"),
            Error::UnevenCabinets { nodes, cabinets } => write!(
                f,
                "{nodes} nodes do not split evenly into {cabinets} cabinets: the platform files need equal cabinets"
            ),
            Error::Io { action, path, error } => write!(f, "cannot {action} {}: {error}", path.display()),
            Error::TraceDir { path, error } => write!(f, "{}: {error}", path.display()),
            Error::System(e) => write!(f, "{e}"),
            Error::Tracer(e) => write!(f, "{e}"),
            Error::Launch(e) => write!(f, "cannot start mpirun: {e}"),
            Error::JobFailed(status) => write!(f, "the MPI job failed ({status})"),
            Error::Interrupted(m) => f.write_str(m),
            Error::LeftBehind(left) => write!(f, "namespaces left behind: {}", left.join(", ")),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { error, .. } | Error::TraceDir { error, .. } | Error::System(error) | Error::Launch(error) => {
                Some(error)
            }
            Error::Tracer(e) => Some(e),
            _ => None,
        }
    }
}

impl From<simpi_tracer::Error> for Error {
    fn from(e: simpi_tracer::Error) -> Error {
        Error::Tracer(e)
    }
}

/// The emulated cluster of [`run`] and what runs on it.
#[derive(Clone, Debug)]
pub struct TestbedConfig {
    /// Nodes (namespaces), one MPI rank each: 2 to 60000.
    pub nodes: usize,
    /// Bandwidth of each node's link, each direction, in simpi's units (e.g. `100Mbps`,
    /// `12.5MBps`).
    pub bandwidth: String,
    /// One-way latency between two nodes of a cabinet (each node link has half of it), e.g.
    /// `100us`.
    pub latency: String,
    /// Cabinets: nodes are split into this many consecutive groups joined by uplinks.
    pub cabinets: usize,
    /// Bandwidth of each cabinet's uplink, each direction (with more than one cabinet).
    pub uplink_bandwidth: String,
    /// Latency of each cabinet's uplink.
    pub uplink_latency: String,
    /// MTU of the node interfaces.
    pub mtu: u32,
    /// Microseconds before a delivery at which the switch stops sleeping and polls.
    pub spin_us: u64,
    /// Queue limit per link, bytes (a full queue drops frames).
    pub queue_bytes: u64,
    /// Where the matching simpi platform (TOML) is written.
    pub platform_out: PathBuf,
    /// Where the matching SimGrid platform (XML) is written.
    pub xml_out: PathBuf,
    /// Host speed written to the platform files (what the tracer's compute is in), e.g. `1Gf`.
    pub speed: String,
    /// Run the program under simpi's tracer, writing the trace here.
    pub trace: Option<PathBuf>,
    /// The trace's compute is wall-clock time between calls (else each rank's CPU time:
    /// the nodes share this machine's cores, and the platform says so).
    pub wall_compute: bool,
    /// Measure latency and bandwidth between nodes 0 and 1 and print them on standard output.
    pub measure: bool,
    /// Print the measurement as JSON.
    pub json: bool,
    /// Extra arguments for mpirun.
    pub mpirun_args: Vec<String>,
    /// The MPI program and its arguments; without one, only the measurement runs.
    pub command: Vec<String>,
}

/// The address of node `i`.
fn addr_of(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(10, 77, (i / 250) as u8, (i % 250 + 1) as u8)
}

/// Everything a run created, removed when dropped.
struct Testbed {
    namespaces: Vec<String>,
    stop: Arc<AtomicBool>,
    switch: Option<std::thread::JoinHandle<Result<switch::SwitchStats, String>>>,
    scratch: Option<PathBuf>,
}

impl Testbed {
    fn teardown(&mut self) -> Result<Option<switch::SwitchStats>, String> {
        self.stop.store(true, Ordering::Relaxed);
        let mut errors = Vec::new();
        // Processes first (they hold the namespaces), then the namespaces; the TAP devices
        // vanish with the switch's descriptors.
        for ns in self.namespaces.drain(..).rev() {
            if let Err(e) = netns::delete(&ns) {
                errors.push(e);
            }
        }
        let stats = match self.switch.take().map(|h| h.join()) {
            Some(Ok(Ok(s))) => Some(s),
            Some(Ok(Err(e))) => {
                errors.push(format!("the emulated switch failed: {e}"));
                None
            }
            Some(Err(_)) => {
                errors.push("the emulated switch panicked".into());
                None
            }
            None => None,
        };
        if let Some(d) = self.scratch.take() {
            let _ = std::fs::remove_dir_all(d);
        }
        if errors.is_empty() {
            Ok(stats)
        } else {
            Err(errors.join("; "))
        }
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            eprintln!("simpi testbed: teardown: {e}");
        }
    }
}

/// The pid of the running MPI job's process group (0: none), for the signal thread.
static CHILD: AtomicI32 = AtomicI32::new(0);

/// Blocks the termination signals on every thread and handles them on one: the child job
/// is killed, and the main thread, seeing it end, tears the testbed down.
fn guard_signals(interrupted: Arc<AtomicBool>) {
    // SAFETY: signal-mask manipulation with properly initialised sets.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, s);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        std::thread::spawn(move || loop {
            let mut sig = 0;
            if libc::sigwait(&set, &mut sig) == 0 {
                interrupted.store(true, Ordering::SeqCst);
                eprintln!("simpi testbed: signal {sig}: stopping the job and tearing down");
                let pg = CHILD.load(Ordering::SeqCst);
                if pg > 0 {
                    libc::kill(-pg, libc::SIGTERM);
                    std::thread::sleep(std::time::Duration::from_secs(2));
                    libc::kill(-pg, libc::SIGKILL);
                }
            }
        });
    }
}

/// Builds the testbed, measures it and runs the program on it as `a` says, then tears it
/// down (also on failure and on SIGINT/SIGTERM/SIGHUP, which this function handles for the
/// whole process). Progress goes to standard error, the measurement to standard output.
pub fn run(a: &TestbedConfig) -> Result<(), Error> {
    let usage = Error::Usage;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(Error::NotRoot);
    }
    if a.nodes < 2 || a.nodes > 60_000 {
        return Err(usage(format!("--nodes must be between 2 and 60000, not {}", a.nodes)));
    }
    if a.cabinets == 0 || a.cabinets > a.nodes {
        return Err(usage(format!(
            "--cabinets must be between 1 and --nodes, not {}",
            a.cabinets
        )));
    }
    if a.command.is_empty() && !a.measure {
        return Err(usage("give the MPI program after --, or --measure".into()));
    }
    let parse_bw = |s: &str, what: &str| units::bandwidth(s).map_err(|e| usage(format!("{what}: {e}")));
    let parse_t = |s: &str, what: &str| units::time(s).map_err(|e| usage(format!("{what}: {e}")));
    let shape = Shape {
        nodes: a.nodes,
        node_bandwidth: parse_bw(&a.bandwidth, "--bandwidth")?,
        node_latency: parse_t(&a.latency, "--latency")? / 2.0,
        cabinets: a.cabinets,
        uplink_bandwidth: parse_bw(&a.uplink_bandwidth, "--uplink-bandwidth")?,
        uplink_latency: parse_t(&a.uplink_latency, "--uplink-latency")?,
        queue_bytes: a.queue_bytes,
    };
    let speed = units::speed(&a.speed).map_err(|e| usage(format!("--speed: {e}")))?;
    write_platforms(&shape, speed, &a.platform_out, &a.xml_out)?;

    let interrupted = Arc::new(AtomicBool::new(false));
    guard_signals(interrupted.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let prefix = format!("{}{}", netns::PREFIX, std::process::id());
    let mut tb = Testbed {
        namespaces: Vec::new(),
        stop: stop.clone(),
        switch: None,
        scratch: None,
    };
    let result = (|| -> Result<(), Error> {
        let err = Error::Network;
        let mut taps = Vec::new();
        for i in 0..a.nodes {
            if interrupted.load(Ordering::SeqCst) {
                return Err(Error::Interrupted("interrupted while building the testbed"));
            }
            let ns = format!("{prefix}-n{i}");
            netns::ip(&["netns", "add", &ns]).map_err(err)?;
            tb.namespaces.push(ns.clone());
            netns::in_ns(&ns, &["ip", "link", "set", "lo", "up"]).map_err(err)?;
            taps.push(netns::open_tap(&ns, "eth0").map_err(err)?);
            let m = switch::mac_of(i);
            let mac = format!(
                "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
                m[0], m[1], m[2], m[3], m[4], m[5]
            );
            let mtu = a.mtu.to_string();
            netns::in_ns(&ns, &["ip", "link", "set", "eth0", "address", &mac, "mtu", &mtu, "up"]).map_err(err)?;
            netns::in_ns(
                &ns,
                &["ip", "addr", "add", &format!("{}/16", addr_of(i)), "dev", "eth0"],
            )
            .map_err(err)?;
            // Static neighbours: no ARP traffic to perturb the measurements.
            for j in (0..a.nodes).filter(|&j| j != i) {
                let m = switch::mac_of(j);
                let mac = format!(
                    "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
                    m[0], m[1], m[2], m[3], m[4], m[5]
                );
                netns::in_ns(
                    &ns,
                    &[
                        "ip",
                        "neigh",
                        "replace",
                        &addr_of(j).to_string(),
                        "lladdr",
                        &mac,
                        "dev",
                        "eth0",
                        "nud",
                        "permanent",
                    ],
                )
                .map_err(err)?;
            }
        }
        let sw_shape = shape.clone();
        let sw_stop = stop.clone();
        let spin = a.spin_us * 1000;
        let bypass = Arc::new(AtomicBool::new(false));
        let sw_bypass = bypass.clone();
        tb.switch = Some(std::thread::spawn(move || {
            switch::run(taps, sw_shape, spin, sw_stop, sw_bypass)
        }));
        eprintln!(
            "simpi testbed: {} nodes ({}), {} per link, {} one-way; platform in {} and {}",
            a.nodes,
            if a.cabinets > 1 {
                format!("{} cabinets", a.cabinets)
            } else {
                "one switch".into()
            },
            a.bandwidth,
            a.latency,
            a.platform_out.display(),
            a.xml_out.display()
        );
        if a.measure {
            let m = measure::measure(
                &format!("{prefix}-n0"),
                &format!("{prefix}-n1"),
                addr_of(1),
                bypass.clone(),
            )
            .map_err(Error::Measure)?;
            let cabinet_path = shape.cabinet_of(0) == shape.cabinet_of(1);
            // What the settings predict for a 1-byte TCP message (a 67-byte frame, stored and
            // forwarded by two links) and for bulk goodput (1448 payload bytes per 1514-byte
            // frame at MTU 1500 with TCP timestamps).
            let hops = if cabinet_path { 2.0 } else { 4.0 };
            let frame = 67.0;
            let expected_latency = 2.0 * shape.node_latency + hops * frame / shape.node_bandwidth;
            let payload = (a.mtu as f64 - 52.0) / (a.mtu as f64 + 14.0);
            let expected_bw = shape.node_bandwidth * payload;
            if a.json {
                println!(
                    "{{\"latency_s\": {:e}, \"host_latency_s\": {:e}, \"network_latency_s\": {:e}, \"expected_latency_s\": {:e}, \"configured_latency_s\": {:e}, \"bandwidth_Bps\": {:e}, \"expected_bandwidth_Bps\": {:e}, \"configured_bandwidth_Bps\": {:e}}}",
                    m.latency,
                    m.host_latency,
                    m.latency - m.host_latency,
                    expected_latency,
                    2.0 * shape.node_latency,
                    m.bandwidth,
                    expected_bw,
                    shape.node_bandwidth
                );
            } else {
                println!(
                    "latency   {:.1} us one-way: {:.1} us in the hosts' TCP stacks, {:.1} us in the network (configured {:.1} us; with the frame's serialisation {:.1} us)",
                    m.latency * 1e6,
                    m.host_latency * 1e6,
                    (m.latency - m.host_latency) * 1e6,
                    2.0 * shape.node_latency * 1e6,
                    expected_latency * 1e6
                );
                println!(
                    "bandwidth {:.3} MB/s TCP goodput (configured {:.3} MB/s; TCP payload share {:.3} MB/s)",
                    m.bandwidth / 1e6,
                    shape.node_bandwidth / 1e6,
                    expected_bw / 1e6
                );
            }
        }
        if !a.command.is_empty() {
            let scratch = std::env::temp_dir().join(format!("{prefix}-launch"));
            std::fs::create_dir_all(&scratch).map_err(Error::System)?;
            tb.scratch = Some(scratch.clone());
            run_job(a, speed, &prefix, &scratch, &interrupted)?;
        }
        Ok(())
    })();
    let stats = tb.teardown();
    let left: Vec<String> = netns::ours().into_iter().filter(|n| n.starts_with(&prefix)).collect();
    match (&result, stats) {
        (_, Err(e)) => eprintln!("simpi testbed: teardown: {e}"),
        (_, Ok(Some(s))) => eprintln!(
            "simpi testbed: torn down; the switch carried {} frames (late by {:.1} us on average, {:.1} us at most), dropped {}{}",
            s.delivered,
            s.lateness_sum_ns as f64 / s.delivered.max(1) as f64 / 1e3,
            s.lateness_max_ns as f64 / 1e3,
            s.dropped,
            if s.realtime { "" } else { " (without raised priority: timings may be noisy)" }
        ),
        _ => {}
    }
    if !left.is_empty() {
        return Err(Error::LeftBehind(left));
    }
    if interrupted.load(Ordering::SeqCst) {
        return Err(Error::Interrupted("interrupted; the testbed was torn down"));
    }
    result
}

/// Runs the program with one rank per namespace under Open MPI's mpirun, launched from
/// node 0's namespace; other nodes' daemons start through an agent that enters their
/// namespace.
fn run_job(a: &TestbedConfig, speed: f64, prefix: &str, scratch: &Path, interrupted: &AtomicBool) -> Result<(), Error> {
    let hosts = scratch.join("hostfile");
    let list: String = (0..a.nodes).map(|i| format!("n{i} slots=1\n")).collect();
    std::fs::write(&hosts, list).map_err(Error::System)?;
    let agent = scratch.join("agent");
    std::fs::write(
        &agent,
        // Every daemon gets its own TMPDIR: they share the host name, and racing to create
        // the same Open MPI session directory makes one of them fail at start-up.
        format!(
            "#!/bin/sh\n# Open MPI's launch agent: run the daemon inside the node's namespace.\nh=$1\nshift\nt={tmp}/tmp-$h\nmkdir -p \"$t\"\nexec ip netns exec {prefix}-$h env TMPDIR=\"$t\" sh -c \"$*\"\n",
            tmp = scratch.display()
        ),
    )
    .map_err(Error::System)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).map_err(Error::System)?;
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &format!("{prefix}-n0"), "mpirun"]);
    cmd.arg("--hostfile").arg(&hosts);
    cmd.args(["-np", &a.nodes.to_string(), "--map-by", "node"]);
    cmd.arg("--mca").arg("plm_rsh_agent").arg(&agent);
    cmd.args(["--mca", "btl", "tcp,self"]);
    cmd.args(["--mca", "btl_tcp_if_include", "10.77.0.0/16"]);
    cmd.args(["--mca", "oob_tcp_if_include", "10.77.0.0/16"]);
    cmd.args(["--mca", "mpi_yield_when_idle", "1"]);
    if let Some(dir) = &a.trace {
        let lib = simpi_tracer::build_library("mpicc")?;
        std::fs::create_dir_all(dir).map_err(|error| Error::TraceDir {
            path: dir.clone(),
            error,
        })?;
        let dir = dir.canonicalize().map_err(Error::System)?;
        cmd.arg("-x").arg(format!("LD_PRELOAD={}", lib.display()));
        cmd.arg("-x").arg(format!("SIMPI_TRACE_DIR={}", dir.display()));
        cmd.arg("-x").arg(format!("SIMPI_TRACE_SPEED={speed:e}"));
        let clock = if a.wall_compute { "wall" } else { "cpu" };
        cmd.arg("-x").arg(format!("SIMPI_TRACE_COMPUTE={clock}"));
    }
    cmd.args(&a.mpirun_args);
    cmd.args(&a.command);
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
    let start = std::time::Instant::now();
    let mut child = cmd.spawn().map_err(Error::Launch)?;
    CHILD.store(child.id() as i32, Ordering::SeqCst);
    let status = child.wait().map_err(Error::System)?;
    CHILD.store(0, Ordering::SeqCst);
    let wall = start.elapsed().as_secs_f64();
    eprintln!("simpi testbed: the job ran {wall:.3} s ({status})");
    if interrupted.load(Ordering::SeqCst) {
        return Err(Error::Interrupted("interrupted"));
    }
    if !status.success() {
        return Err(Error::JobFailed(status));
    }
    Ok(())
}

/// Deletes the namespaces of testbed runs whose process is gone; returns how many.
pub fn cleanup() -> Result<usize, Error> {
    let mut removed = 0;
    for ns in netns::ours() {
        let pid: Option<u32> = ns[netns::PREFIX.len()..].split('-').next().and_then(|p| p.parse().ok());
        let alive = pid.is_some_and(|p| Path::new(&format!("/proc/{p}")).exists());
        if !alive {
            netns::delete(&ns).map_err(Error::Network)?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Writes the simpi platform and the SimGrid platform of the emulated network.
fn write_platforms(s: &Shape, speed: f64, toml: &Path, xml: &Path) -> Result<(), Error> {
    let bw = |b: f64| format!("{b}Bps");
    // Microseconds, without binary-fraction noise (0.5 * 100e-6 prints as 50us).
    let t = |x: f64| {
        let us = format!("{:.6}", x * 1e6);
        format!("{}us", us.trim_end_matches('0').trim_end_matches('.'))
    };
    // Every node runs on this machine: its ranks share its cores.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut text = format!(
        "# The network of `simpi testbed`: {} nodes, each with a full-duplex link to its switch,\n\
         # all running on this machine's {cores} cores.\nname = \"testbed\"\nshared_cores = {cores}\n[topology]\n",
        s.nodes
    );
    let link = format!(
        "{{ bandwidth = \"{}\", latency = \"{}\", sharing = \"split-duplex\" }}",
        bw(s.node_bandwidth),
        t(s.node_latency)
    );
    if s.cabinets > 1 {
        let per = s.nodes.div_ceil(s.cabinets);
        if per * s.cabinets != s.nodes {
            return Err(Error::UnevenCabinets {
                nodes: s.nodes,
                cabinets: s.cabinets,
            });
        }
        text += &format!(
            "kind = \"cabinets\"\ncabinets = {}\nper_cabinet = {per}\nspeed = \"{speed}f\"\nlink = {link}\ncabinet_switch = {{ bandwidth = \"1TBps\", latency = \"0us\" }}\nuplink = {{ bandwidth = \"{}\", latency = \"{}\" }}\n",
            s.cabinets,
            bw(s.uplink_bandwidth),
            t(s.uplink_latency)
        );
    } else {
        text += &format!(
            "kind = \"flat\"\nhosts = {}\nspeed = \"{speed}f\"\nlink = {link}\n",
            s.nodes
        );
    }
    std::fs::write(toml, text).map_err(|error| Error::Io {
        action: "write",
        path: toml.to_path_buf(),
        error,
    })?;
    let mut x = String::from("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<!-- The network of `simpi testbed`. -->\n<platform version=\"4.1\">\n");
    if s.cabinets > 1 {
        let per = s.nodes / s.cabinets;
        x += "  <zone id=\"testbed\" routing=\"Full\">\n";
        for c in 0..s.cabinets {
            x += &format!(
                "    <cluster id=\"cab{c}\" prefix=\"node-\" suffix=\"\" radical=\"{}-{}\" speed=\"{speed}f\" bw=\"{}\" lat=\"{}\" sharing_policy=\"SPLITDUPLEX\" router_id=\"cab{c}-router\"/>\n",
                c * per,
                (c + 1) * per - 1,
                bw(s.node_bandwidth),
                t(s.node_latency)
            );
            x += &format!(
                "    <link id=\"cab{c}-uplink\" bandwidth=\"{}\" latency=\"{}\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                bw(s.uplink_bandwidth),
                t(s.uplink_latency)
            );
        }
        for c in 0..s.cabinets {
            for d in (c + 1)..s.cabinets {
                x += &format!(
                    "    <zoneRoute src=\"cab{c}\" dst=\"cab{d}\" gw_src=\"cab{c}-router\" gw_dst=\"cab{d}-router\" symmetrical=\"YES\">\n      <link_ctn id=\"cab{c}-uplink\" direction=\"UP\"/>\n      <link_ctn id=\"cab{d}-uplink\" direction=\"DOWN\"/>\n    </zoneRoute>\n"
                );
            }
        }
        x += "  </zone>\n";
    } else {
        x += &format!(
            "  <cluster id=\"testbed\" prefix=\"node-\" suffix=\"\" radical=\"0-{}\" speed=\"{speed}f\" bw=\"{}\" lat=\"{}\" sharing_policy=\"SPLITDUPLEX\"/>\n",
            s.nodes - 1,
            bw(s.node_bandwidth),
            t(s.node_latency)
        );
    }
    x += "</platform>\n";
    std::fs::write(xml, x).map_err(|error| Error::Io {
        action: "write",
        path: xml.to_path_buf(),
        error,
    })
}
