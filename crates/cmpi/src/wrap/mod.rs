//! What the compiler wrappers (`simpicc`, `simpicxx`, `simpif90`, `simpif77`) share:
//! they run a compiler with simpi's headers (`mpi.h`, `mpif.h`) on the include path
//! and `libsimpi_mpi.so` (found beside the wrapper, or in `deps/` beside it, where
//! `cargo test` leaves it) on the link line, with an rpath so the program finds it
//! when it runs, as `mpicc` and `mpif90` do for a real MPI. `-show` prints the command
//! instead of running it.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// Runs compiler `$<env>` (else `default`) as wrapper `name`; `extra` goes on the
/// link line (Fortran programs export their symbols, so the library finds the
/// addresses of MPI_IN_PLACE and the ignored-status arrays).
pub fn run(name: &str, env: &str, default: &str, extra: &[&str]) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cc = std::env::var(env).unwrap_or_else(|_| default.into());
    let include = std::env::var_os("SIMPI_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/include")));
    let libdir = match std::env::current_exe().ok().and_then(|p| p.parent().map(PathBuf::from)) {
        Some(d) => d,
        None => {
            eprintln!("{name}: cannot find the directory of {name} (and of libsimpi_mpi.so beside it)");
            return ExitCode::from(1);
        }
    };
    // `cargo build` leaves the library beside simpicc, `cargo test` in deps/ (and
    // updates only that one): take the newer.
    let built = |d: &PathBuf| {
        std::fs::metadata(d.join("libsimpi_mpi.so"))
            .and_then(|m| m.modified())
            .ok()
    };
    let deps = libdir.join("deps");
    let libdir = match (built(&libdir), built(&deps)) {
        (None, Some(_)) => deps,
        (Some(a), Some(b)) if b > a => deps,
        _ => libdir,
    };
    let show = args.iter().any(|a| a == "-show" || a == "--showme");
    let user: Vec<&String> = args.iter().filter(|a| *a != "-show" && *a != "--showme").collect();
    // Only a command that links gets the library.
    let links = !user
        .iter()
        .any(|a| matches!(a.as_str(), "-c" | "-E" | "-S" | "-M" | "-MM"));
    // Calls with buffers of different types to one MPI routine are what MPI's
    // Fortran bindings are; gfortran 10 and later refuse them unless told.
    let fortran = cc.contains("gfortran");
    // Position-independent code, as for a library: the program reaches the C
    // library's variables (optarg, environ, stdout) through its GOT, with no copies
    // of them made at load time, so `simpi run --in-process` can load it into its
    // own process once per rank.
    let mut cmd = vec![cc.clone(), "-fPIC".into(), format!("-I{}", include.display())];
    if fortran {
        cmd.push("-fallow-argument-mismatch".into());
        // The `mpi` module, for programs that `use mpi`.
        match fortran_module(&cc, &include) {
            Ok(dir) => cmd.push(format!("-I{}", dir.display())),
            Err(e) => eprintln!("{name}: warning: no `mpi` module ({e}); programs using mpif.h build"),
        }
    }
    cmd.extend(user.iter().map(|s| s.to_string()));
    if links {
        cmd.push(format!("-L{}", libdir.display()));
        // DT_RPATH, searched before LD_LIBRARY_PATH (cargo's test runner sets one that
        // may name an older copy of the library).
        cmd.push("-Wl,--disable-new-dtags".into());
        cmd.push(format!("-Wl,-rpath,{}", libdir.display()));
        cmd.push("-lsimpi_mpi".into());
        cmd.extend(extra.iter().map(|s| s.to_string()));
    }
    if show {
        println!("{}", cmd.join(" "));
        return ExitCode::SUCCESS;
    }
    match Command::new(&cmd[0]).args(&cmd[1..]).status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(1, 255) as u8),
        Err(e) => {
            eprintln!("{name}: cannot run {}: {e}", cmd[0]);
            ExitCode::from(1)
        }
    }
}

/// The directory holding `mpi.mod` built by `fc` from the module source in `include`,
/// building it the first time: module files belong to one compiler version, so the
/// directory is named by the compiler's version and the sources' contents.
fn fortran_module(fc: &str, include: &std::path::Path) -> Result<PathBuf, String> {
    let source = include.join("mpi_module.f90");
    let text = [
        std::fs::read(&source).map_err(|e| format!("{}: {e}", source.display()))?,
        std::fs::read(include.join("mpif.h")).map_err(|e| format!("mpif.h: {e}"))?,
    ]
    .concat();
    let version = Command::new(fc)
        .arg("-dumpfullversion")
        .output()
        .map_err(|e| format!("cannot run {fc}: {e}"))?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    // FNV-1a of the sources: a changed mpif.h gets a new module.
    let hash = text.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = cache
        .join("simpi")
        .join(format!("fortran-{}-{version}-{hash:016x}", fc.replace('/', "_")));
    if dir.join("mpi.mod").exists() {
        return Ok(dir);
    }
    // Built aside, then renamed: a wrapper running at the same time sees a whole
    // module or none.
    let tmp = dir.with_extension(format!("tmp{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let status = Command::new(fc)
        .args(["-fallow-argument-mismatch", "-c", "-o"])
        .arg(tmp.join("mpi_module.o"))
        .arg(format!("-I{}", include.display()))
        .arg("-J")
        .arg(&tmp)
        .arg(&source)
        .status()
        .map_err(|e| format!("cannot run {fc}: {e}"))?;
    if !status.success() {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(format!("{fc} failed on {}", source.display()));
    }
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another wrapper got there first.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(dir)
}
