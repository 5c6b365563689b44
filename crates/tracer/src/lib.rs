//! simpi's MPI tracer: a PMPI library, compiled on first use against the MPI that `mpicc`
//! belongs to, that records what an unmodified MPI program does (a TIT trace per rank, call
//! times and call counts); [`run`] runs a command under it and [`summary`] reads what it wrote.

pub mod bench;
pub mod calibrate;
mod program;
mod prototypes;
pub mod summary;
pub mod times;

pub use summary::{read_dir, trace_info, RankInfo, TraceDir};

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// The tracer's own source, compiled on the user's machine.
const TRACER_C: &str = include_str!("../simpi_trace.c");
/// The generator of its wrappers: part of a cached build's key, so that a change to
/// the generator alone rebuilds the library.
const GENERATOR_RS: &str = include_str!("prototypes.rs");
/// Its OTF2 writer (`--otf2`), compiled in with `-DSIMPI_OTF2`.
const OTF2_C: &str = include_str!("../simpi_otf2.c");
/// The OTF2 writer's interface.
const OTF2_H: &str = include_str!("../simpi_otf2.h");

/// Why tracing, building the tracer or reading a trace failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The settings are incomplete or out of range (the message names the option as
    /// `simpi trace` spells it).
    Usage(String),
    /// A file or directory could not be used: `cannot <action> <path>: <error>`.
    Io {
        /// What was being done, e.g. `create` or `read`.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why it failed.
        error: std::io::Error,
    },
    /// An operating-system call failed with no file to name (shown as the system's message).
    System(std::io::Error),
    /// The MPI compiler wrapper cannot be started: no MPI is installed, or `mpicc` is wrong.
    NoMpicc {
        /// The compiler wrapper.
        mpicc: String,
        /// Why it did not start.
        error: std::io::Error,
    },
    /// The MPI compiler wrapper could not preprocess `mpi.h`.
    Preprocess {
        /// The compiler wrapper.
        mpicc: String,
        /// What it wrote on standard error.
        stderr: String,
    },
    /// This MPI's `mpi.h` does not declare these traced functions (MPI 3.1 has them all).
    MissingFunctions(Vec<String>),
    /// Compiling the tracer failed.
    Build {
        /// The directory where its sources are kept for inspection.
        sources: PathBuf,
        /// What the compiler wrote on standard error.
        stderr: String,
    },
    /// A program (the compiler, the traced command) could not be started.
    Run {
        /// The program.
        program: String,
        /// Why it did not start.
        error: std::io::Error,
    },
    /// The traced command failed; the trace it left may be incomplete.
    CommandFailed {
        /// How the command ended.
        status: ExitStatus,
        /// The trace directory.
        dir: PathBuf,
    },
    /// A trace directory has no readable index: the program did not call MPI_Init under the tracer.
    NoIndex {
        /// The index file (`index.txt`).
        path: PathBuf,
        /// Why it could not be read.
        error: std::io::Error,
    },
    /// A line of a trace file is malformed.
    Format {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong or what was expected.
        message: &'static str,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Usage(m) => f.write_str(m),
            Error::Io { action, path, error } => write!(f, "cannot {action} {}: {error}", path.display()),
            Error::System(e) => write!(f, "{e}"),
            Error::NoMpicc { mpicc, error } => write!(
                f,
                "cannot run {mpicc} ({error}): install an MPI with its compiler wrapper (e.g. apt-get install libopenmpi-dev) or name it with --mpicc"
            ),
            Error::Preprocess { mpicc, stderr } => write!(f, "{mpicc} could not preprocess mpi.h:\n{stderr}"),
            Error::MissingFunctions(missing) => write!(
                f,
                "this MPI's mpi.h does not declare {missing:?} (with PMPI twins); simpi's tracer needs MPI 3.1"
            ),
            Error::Build { sources, stderr } => write!(
                f,
                "building the tracer failed (sources kept in {}):\n{stderr}",
                sources.display()
            ),
            Error::Run { program, error } => write!(f, "cannot run {program}: {error}"),
            Error::CommandFailed { status, dir } => write!(
                f,
                "the traced command failed ({status}); the trace in {} may be incomplete",
                dir.display()
            ),
            Error::NoIndex { path, error } => write!(
                f,
                "cannot read {}: {error} (did the program call MPI_Init under the tracer?)",
                path.display()
            ),
            Error::Format { path, line, message } => write!(f, "{}:{line}: {message}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { error, .. }
            | Error::System(error)
            | Error::NoMpicc { error, .. }
            | Error::Run { error, .. }
            | Error::NoIndex { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// `cannot <action> <path>: <error>` as an [`Error`].
pub(crate) fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> Error + 'a {
    move |error| Error::Io {
        action,
        path: path.to_path_buf(),
        error,
    }
}

/// Functions `simpi_trace.c` defines (everything else gets a counting wrapper).
pub const TRACED: &[&str] = &[
    "MPI_Init",
    "MPI_Init_thread",
    "MPI_Finalize",
    "MPI_Send",
    "MPI_Ssend",
    "MPI_Bsend",
    "MPI_Rsend",
    "MPI_Isend",
    "MPI_Issend",
    "MPI_Ibsend",
    "MPI_Irsend",
    "MPI_Recv",
    "MPI_Irecv",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    "MPI_Probe",
    "MPI_Iprobe",
    "MPI_Send_init",
    "MPI_Ssend_init",
    "MPI_Bsend_init",
    "MPI_Rsend_init",
    "MPI_Recv_init",
    "MPI_Start",
    "MPI_Startall",
    "MPI_Request_free",
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Waitsome",
    "MPI_Test",
    "MPI_Testany",
    "MPI_Testall",
    "MPI_Testsome",
    "MPI_Barrier",
    "MPI_Ibarrier",
    "MPI_Bcast",
    "MPI_Ibcast",
    "MPI_Reduce",
    "MPI_Ireduce",
    "MPI_Allreduce",
    "MPI_Iallreduce",
    "MPI_Scan",
    "MPI_Iscan",
    "MPI_Exscan",
    "MPI_Iexscan",
    "MPI_Gather",
    "MPI_Igather",
    "MPI_Allgather",
    "MPI_Iallgather",
    "MPI_Scatter",
    "MPI_Iscatter",
    "MPI_Alltoall",
    "MPI_Ialltoall",
    "MPI_Alltoallv",
    "MPI_Ialltoallv",
    "MPI_Gatherv",
    "MPI_Igatherv",
    "MPI_Allgatherv",
    "MPI_Iallgatherv",
    "MPI_Scatterv",
    "MPI_Iscatterv",
    "MPI_Reduce_scatter",
    "MPI_Ireduce_scatter",
    "MPI_Reduce_scatter_block",
    "MPI_Ireduce_scatter_block",
    "MPI_Comm_split",
    "MPI_Comm_dup",
    "MPI_Comm_create",
    "MPI_Comm_create_group",
    "MPI_Comm_split_type",
    "MPI_Cart_create",
    "MPI_Cart_sub",
    "MPI_Comm_free",
];

/// What [`run`] traces and how.
#[derive(Clone, Debug)]
pub struct TraceConfig {
    /// Directory for the trace (`index.txt`, `rank-<r>.tit`, `.times` and `.counts` files);
    /// files of an earlier trace in it are removed.
    pub output: PathBuf,
    /// Flop/s at which time between MPI calls is written as `compute` flops.
    pub speed: f64,
    /// Shortest computation written on its own, in seconds (shorter gaps add up).
    pub min_compute: f64,
    /// Compute is the thread's CPU time between calls rather than the wall clock's.
    pub cpu_compute: bool,
    /// The MPI compiler wrapper whose MPI the program runs with.
    pub mpicc: String,
    /// Also write the calls as an OTF2 archive (`traces.otf2`) in the same directory,
    /// with Score-P's event conventions (needs the OTF2 library).
    pub otf2: bool,
    /// Other PMPI tracers (shared libraries such as libdumpi.so) that record the same run:
    /// preloaded after simpi's, in this order, with `SIMPI_TRACE_NEXT=1` so that each of
    /// simpi's wrappers calls the next library's `MPI_X` rather than `PMPI_X`.
    pub chain: Vec<PathBuf>,
    /// The command: `mpirun -np 4 ./app args`, or a singleton `./app`.
    pub command: Vec<String>,
}

/// What a traced command left.
#[derive(Debug)]
pub struct Traced {
    /// The trace directory (absolute).
    pub dir: PathBuf,
    /// How the traced command ended.
    pub status: ExitStatus,
    /// What the trace directory holds, or why it cannot be read.
    pub trace: Result<TraceDir, Error>,
}

impl Traced {
    /// The trace, or [`Error::CommandFailed`] if the command failed (even if it left a
    /// readable trace), or why the trace cannot be read.
    pub fn into_result(self) -> Result<TraceDir, Error> {
        if !self.status.success() {
            return Err(Error::CommandFailed {
                status: self.status,
                dir: self.dir,
            });
        }
        self.trace
    }
}

/// Builds the tracer if needed, runs the command under it (through the launcher's own
/// options to pass the environment to the ranks, for Open MPI's and MPICH's `mpirun`) and
/// reads the trace. Errors here are the ones that stop before or while starting the command.
pub fn run(c: &TraceConfig) -> Result<Traced, Error> {
    let lib = build_library_with(&c.mpicc, c.otf2)?;
    if c.command.is_empty() {
        return Err(Error::Usage(
            "give the command to trace after --, e.g. simpi trace -o t -- mpirun -np 4 ./app".into(),
        ));
    }
    if !(c.speed > 0.0 && c.speed.is_finite()) {
        return Err(Error::Usage(format!(
            "--speed must be a positive number of flop/s, not {}",
            c.speed
        )));
    }
    let dir = prepare_dir(&c.output)?;
    let mut env = vec![
        ("SIMPI_TRACE_DIR", dir.display().to_string()),
        ("SIMPI_TRACE_SPEED", format!("{:e}", c.speed)),
        ("SIMPI_TRACE_MIN_COMPUTE", format!("{:e}", c.min_compute)),
        ("SIMPI_TRACE_COMPUTE", if c.cpu_compute { "cpu" } else { "wall" }.into()),
    ];
    // simpi's library first: a chained tracer calls PMPI_X itself, so one before simpi's
    // would hide the calls from it.
    let mut preload = vec![lib.display().to_string()];
    for next in &c.chain {
        let abs = next.canonicalize().map_err(io("find the chained tracer", next))?;
        preload.push(abs.display().to_string());
    }
    if !c.chain.is_empty() {
        env.push(("SIMPI_TRACE_NEXT", "1".into()));
    }
    if let Ok(v) = std::env::var("LD_PRELOAD") {
        if !v.is_empty() {
            preload.push(v);
        }
    }
    let preload = preload.join(":");
    let mut cmd = Command::new(&c.command[0]);
    match launcher(&c.command[0]) {
        Launcher::OpenMpi => {
            // Only the ranks get the tracer: mpirun itself must not load it.
            cmd.arg("-x").arg(format!("LD_PRELOAD={preload}"));
            for (k, v) in &env {
                cmd.arg("-x").arg(format!("{k}={v}"));
            }
        }
        Launcher::Hydra => {
            cmd.arg("-genv").arg("LD_PRELOAD").arg(&preload);
            for (k, v) in &env {
                cmd.arg("-genv").arg(k).arg(v);
            }
        }
        Launcher::Direct => {
            cmd.env("LD_PRELOAD", &preload);
        }
    }
    cmd.args(&c.command[1..]);
    for (k, v) in &env {
        cmd.env(k, v);
    }
    let status = cmd.status().map_err(|error| Error::Run {
        program: c.command[0].clone(),
        error,
    })?;
    let trace = summary::read_dir(&dir);
    Ok(Traced { dir, status, trace })
}

enum Launcher {
    OpenMpi,
    Hydra,
    Direct,
}

/// Which MPI launcher `program` is (asks it for its version).
fn launcher(program: &str) -> Launcher {
    let base = Path::new(program).file_name().and_then(|s| s.to_str()).unwrap_or("");
    if !matches!(
        base,
        "mpirun"
            | "mpiexec"
            | "orterun"
            | "prterun"
            | "mpiexec.hydra"
            | "mpirun.openmpi"
            | "mpirun.mpich"
            | "mpiexec.openmpi"
            | "mpiexec.mpich"
    ) {
        return Launcher::Direct;
    }
    let out = Command::new(program).arg("--version").output();
    let text = match out {
        Ok(o) => format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(_) => String::new(),
    };
    if text.contains("Open MPI") || text.contains("OpenRTE") || text.contains("PRRTE") {
        Launcher::OpenMpi
    } else if text.contains("HYDRA") || text.contains("Hydra") {
        Launcher::Hydra
    } else {
        Launcher::Direct
    }
}

/// Creates the trace directory, removing the files of an earlier trace in it.
fn prepare_dir(dir: &Path) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(dir).map_err(io("create", dir))?;
    let dir = dir.canonicalize().map_err(io("resolve", dir))?;
    for entry in std::fs::read_dir(&dir).map_err(io("read", &dir))? {
        let p = entry.map_err(Error::System)?.path();
        let name = p.file_name().and_then(|s| s.to_str()).unwrap_or("");
        let stale = name == "index.txt"
            || name == "meta.txt"
            || name == "traces.otf2"
            || name == "traces.def"
            || (name.starts_with("rank-") && [".tit", ".times", ".counts"].iter().any(|s| name.ends_with(s)));
        if stale {
            std::fs::remove_file(&p).map_err(io("remove", &p))?;
        }
        // An earlier OTF2 archive's per-rank files (OTF2 will not overwrite an archive).
        if name == "traces" && p.is_dir() {
            std::fs::remove_dir_all(&p).map_err(io("remove", &p))?;
        }
    }
    Ok(dir)
}

pub(crate) fn cache_root() -> PathBuf {
    if let Some(d) = std::env::var_os("SIMPI_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("simpi");
    }
    if let Some(h) = std::env::var_os("HOME") {
        return PathBuf::from(h).join(".cache").join("simpi");
    }
    std::env::temp_dir().join("simpi-cache")
}

pub(crate) fn fnv(data: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for d in data {
        for b in d.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// Builds (or finds in the cache) the tracing library for the MPI of `mpicc` and returns
/// its path. The cache is `$SIMPI_CACHE_DIR`, else `$XDG_CACHE_HOME/simpi`, else
/// `~/.cache/simpi`; a build is keyed by the MPI's `mpi.h`, the tracer's source and `mpicc`.
pub fn build_library(mpicc: &str) -> Result<PathBuf, Error> {
    build_library_with(mpicc, false)
}

/// The compiler and linker flags of the OTF2 library, from `otf2-config`.
fn otf2_flags() -> Result<Vec<String>, Error> {
    let mut flags = Vec::new();
    for what in ["--cflags", "--ldflags", "--libs"] {
        let out = Command::new("otf2-config")
            .arg(what)
            .output()
            .map_err(|error| Error::Run {
                program: "otf2-config (install the OTF2 library: apt-get install libotf2-trace-dev)".into(),
                error,
            })?;
        if !out.status.success() {
            return Err(Error::Build {
                sources: PathBuf::from("otf2-config"),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        flags.extend(
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .map(String::from),
        );
    }
    Ok(flags)
}

/// [`build_library`], with the OTF2 writer built in when `otf2` (a library of its own in
/// the cache).
pub fn build_library_with(mpicc: &str, otf2: bool) -> Result<PathBuf, Error> {
    let root = cache_root();
    std::fs::create_dir_all(&root).map_err(io("create", &root))?;
    let probe_dir = tempdir(&root)?;
    let probe = probe_dir.join("probe.c");
    std::fs::write(&probe, "#include <mpi.h>\n").map_err(Error::System)?;
    let out = Command::new(mpicc)
        .arg("-E")
        .arg("-P")
        .arg(&probe)
        .output()
        .map_err(|error| Error::NoMpicc {
            mpicc: mpicc.to_string(),
            error,
        })?;
    let _ = std::fs::remove_dir_all(&probe_dir);
    if !out.status.success() {
        return Err(Error::Preprocess {
            mpicc: mpicc.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    let header = String::from_utf8_lossy(&out.stdout).into_owned();
    let otf2_flags = if otf2 { otf2_flags()? } else { Vec::new() };
    let key = if otf2 {
        fnv(&[
            &header,
            TRACER_C,
            GENERATOR_RS,
            mpicc,
            OTF2_C,
            OTF2_H,
            &otf2_flags.join(" "),
        ])
    } else {
        fnv(&[&header, TRACER_C, GENERATOR_RS, mpicc])
    };
    let dir = root.join(format!("tracer-{key:016x}"));
    let lib = dir.join("libsimpi_trace.so");
    if lib.exists() {
        return Ok(lib);
    }
    let protos = prototypes::parse_prototypes(&header);
    let missing: Vec<String> = TRACED
        .iter()
        .filter(|t| !protos.iter().any(|p| p.name == **t))
        .map(|t| t.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(Error::MissingFunctions(missing));
    }
    let (h, c) = prototypes::generate(&protos, TRACED);
    let work = tempdir(&root)?;
    let write = |name: &str, text: &str| {
        let path = work.join(name);
        std::fs::write(&path, text).map_err(io("write", &path))
    };
    write("simpi_fns.h", &h)?;
    write("simpi_wrappers.c", &c)?;
    write("simpi_trace.c", TRACER_C)?;
    let mut args: Vec<String> = [
        "-O2",
        "-fPIC",
        "-shared",
        "-Wall",
        "-Wno-deprecated-declarations",
        "-o",
        "libsimpi_trace.so",
        "simpi_trace.c",
        "simpi_wrappers.c",
        "-I.",
        "-ldl",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if otf2 {
        write("simpi_otf2.c", OTF2_C)?;
        write("simpi_otf2.h", OTF2_H)?;
        args.push("-DSIMPI_OTF2".into());
        args.push("simpi_otf2.c".into());
        args.extend(otf2_flags);
    }
    let out = Command::new(mpicc)
        .current_dir(&work)
        .args(&args)
        .output()
        .map_err(|error| Error::Run {
            program: mpicc.to_string(),
            error,
        })?;
    if !out.status.success() {
        return Err(Error::Build {
            sources: work,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    // Publish the finished directory in one step so that concurrent builds cannot see half of it.
    match std::fs::rename(&work, &dir) {
        Ok(()) => {}
        Err(_) if lib.exists() => {
            let _ = std::fs::remove_dir_all(&work);
        }
        Err(e) => return Err(io("move the tracer to", &dir)(e)),
    }
    Ok(lib)
}

pub(crate) fn tempdir(root: &Path) -> Result<PathBuf, Error> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let d = root.join(format!(".work-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&d).map_err(io("create", &d))?;
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_traced_function_is_defined_in_the_tracer() {
        for f in TRACED {
            let direct = TRACER_C.contains(&format!("int {f}("));
            // Macro-made wrappers name the function (SEND(MPI_Send, ..)) or its suffixes
            // (COUNTED(Allreduce, Iallreduce, ..) makes MPI_Allreduce and MPI_Iallreduce).
            let suffix = f.trim_start_matches("MPI_");
            let by_macro = TRACER_C.contains(&format!("({f},"))
                || TRACER_C.contains(&format!("({suffix},"))
                || TRACER_C.contains(&format!(", {suffix},"));
            assert!(
                direct || by_macro,
                "{f} is listed as traced but simpi_trace.c does not define it"
            );
        }
    }
}
