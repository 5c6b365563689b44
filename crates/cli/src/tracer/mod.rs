//! `simpi trace -o DIR -- mpirun ... ./app`: runs an unmodified MPI program under simpi's
//! PMPI tracer (built on first use against the MPI that `mpicc` belongs to) and reports
//! what it recorded; `simpi trace-info DIR` summarises a trace directory.

mod prototypes;
mod summary;

pub use summary::{trace_info, TraceInfoArgs};

use crate::EXIT_INPUT;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tracer's own source, compiled on the user's machine.
const TRACER_C: &str = include_str!("../../tracer/simpi_trace.c");

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

/// Arguments of `simpi trace`.
#[derive(Args)]
pub struct TraceArgs {
    /// Directory for the trace (`index.txt`, `rank-<r>.tit`, `.times` and `.counts` files).
    #[arg(short = 'o', long, default_value = "simpi-trace")]
    output: PathBuf,
    /// Flop/s at which time between MPI calls is written as `compute` flops.
    #[arg(long, default_value = "1e9")]
    speed: f64,
    /// Shortest computation written on its own, in seconds (shorter gaps add up).
    #[arg(long, default_value = "1e-6")]
    min_compute: f64,
    /// The MPI compiler wrapper whose MPI the program runs with.
    #[arg(long, default_value = "mpicc")]
    mpicc: String,
    /// Build the tracing library, print its path and stop.
    #[arg(long)]
    build_only: bool,
    /// The command: `mpirun -np 4 ./app args` (after `--`), or a singleton `./app`.
    #[arg(last = true)]
    command: Vec<String>,
}

/// Runs `simpi trace`.
pub fn run(a: TraceArgs) -> Result<(), (u8, String)> {
    let lib = build_library(&a.mpicc).map_err(|e| (EXIT_INPUT, e))?;
    if a.build_only {
        println!("{}", lib.display());
        return Ok(());
    }
    if a.command.is_empty() {
        return Err((
            2,
            "give the command to trace after --, e.g. simpi trace -o t -- mpirun -np 4 ./app".into(),
        ));
    }
    if !(a.speed > 0.0 && a.speed.is_finite()) {
        return Err((
            2,
            format!("--speed must be a positive number of flop/s, not {}", a.speed),
        ));
    }
    let dir = prepare_dir(&a.output).map_err(|e| (EXIT_INPUT, e))?;
    let env = [
        ("SIMPI_TRACE_DIR", dir.display().to_string()),
        ("SIMPI_TRACE_SPEED", format!("{:e}", a.speed)),
        ("SIMPI_TRACE_MIN_COMPUTE", format!("{:e}", a.min_compute)),
    ];
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(v) if !v.is_empty() => format!("{}:{v}", lib.display()),
        _ => lib.display().to_string(),
    };
    let mut cmd = Command::new(&a.command[0]);
    match launcher(&a.command[0]) {
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
    cmd.args(&a.command[1..]);
    for (k, v) in &env {
        cmd.env(k, v);
    }
    let status = cmd
        .status()
        .map_err(|e| (EXIT_INPUT, format!("cannot run {}: {e}", a.command[0])))?;
    let info = summary::read_dir(&dir);
    match &info {
        Ok(t) => eprint!("{}", summary::human(t, &dir)),
        Err(e) => eprintln!("simpi trace: {e}"),
    }
    if !status.success() {
        return Err((
            EXIT_INPUT,
            format!(
                "the traced command failed ({status}); the trace in {} may be incomplete",
                dir.display()
            ),
        ));
    }
    info.map(|_| ()).map_err(|e| (EXIT_INPUT, e))
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
fn prepare_dir(dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let dir = dir
        .canonicalize()
        .map_err(|e| format!("cannot resolve {}: {e}", dir.display()))?;
    for entry in std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))? {
        let p = entry.map_err(|e| e.to_string())?.path();
        let name = p.file_name().and_then(|s| s.to_str()).unwrap_or("");
        let stale = name == "index.txt"
            || name == "meta.txt"
            || (name.starts_with("rank-") && [".tit", ".times", ".counts"].iter().any(|s| name.ends_with(s)));
        if stale {
            std::fs::remove_file(&p).map_err(|e| format!("cannot remove {}: {e}", p.display()))?;
        }
    }
    Ok(dir)
}

fn cache_root() -> PathBuf {
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

fn fnv(data: &[&str]) -> u64 {
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

/// Builds (or finds in the cache) the tracing library for the MPI of `mpicc`.
pub fn build_library(mpicc: &str) -> Result<PathBuf, String> {
    let root = cache_root();
    std::fs::create_dir_all(&root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let probe_dir = tempdir(&root)?;
    let probe = probe_dir.join("probe.c");
    std::fs::write(&probe, "#include <mpi.h>\n").map_err(|e| e.to_string())?;
    let out = Command::new(mpicc)
        .arg("-E")
        .arg("-P")
        .arg(&probe)
        .output()
        .map_err(|e| {
            format!("cannot run {mpicc} ({e}): install an MPI with its compiler wrapper (e.g. apt-get install libopenmpi-dev) or name it with --mpicc")
        })?;
    let _ = std::fs::remove_dir_all(&probe_dir);
    if !out.status.success() {
        return Err(format!(
            "{mpicc} could not preprocess mpi.h:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let header = String::from_utf8_lossy(&out.stdout).into_owned();
    let key = fnv(&[&header, TRACER_C, mpicc]);
    let dir = root.join(format!("tracer-{key:016x}"));
    let lib = dir.join("libsimpi_trace.so");
    if lib.exists() {
        return Ok(lib);
    }
    let protos = prototypes::parse_prototypes(&header);
    let missing: Vec<&&str> = TRACED
        .iter()
        .filter(|t| !protos.iter().any(|p| p.name == **t))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "this MPI's mpi.h does not declare {missing:?} (with PMPI twins); simpi's tracer needs MPI 3.1"
        ));
    }
    let (h, c) = prototypes::generate(&protos, TRACED);
    let work = tempdir(&root)?;
    let write = |name: &str, text: &str| {
        std::fs::write(work.join(name), text).map_err(|e| format!("cannot write {}: {e}", work.join(name).display()))
    };
    write("simpi_fns.h", &h)?;
    write("simpi_wrappers.c", &c)?;
    write("simpi_trace.c", TRACER_C)?;
    let out = Command::new(mpicc)
        .current_dir(&work)
        .args([
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
        ])
        .output()
        .map_err(|e| format!("cannot run {mpicc}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building the tracer failed (sources kept in {}):\n{}",
            work.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // Publish the finished directory in one step so that concurrent builds cannot see half of it.
    match std::fs::rename(&work, &dir) {
        Ok(()) => {}
        Err(_) if lib.exists() => {
            let _ = std::fs::remove_dir_all(&work);
        }
        Err(e) => return Err(format!("cannot move the tracer to {}: {e}", dir.display())),
    }
    Ok(lib)
}

fn tempdir(root: &Path) -> Result<PathBuf, String> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let d = root.join(format!(".work-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
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
