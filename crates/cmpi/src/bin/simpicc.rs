//! `simpicc`: compiles and links a C MPI program against simpi's MPI library, as
//! `mpicc` does for a real MPI: the C compiler (`$SIMPI_CC`, else `cc`) with simpi's
//! `mpi.h` on the include path and `libsimpi_mpi.so` (found beside this program, or
//! in `deps/` beside it, where `cargo test` leaves it) on the link line, with an rpath so the program finds it when it runs. `-show` prints
//! the command instead of running it.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cc = std::env::var("SIMPI_CC").unwrap_or_else(|_| "cc".into());
    let include = std::env::var_os("SIMPI_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/include")));
    let libdir = match std::env::current_exe().ok().and_then(|p| p.parent().map(PathBuf::from)) {
        Some(d) => d,
        None => {
            eprintln!("simpicc: cannot find the directory of simpicc (and of libsimpi_mpi.so beside it)");
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
    let mut cmd = vec![cc, format!("-I{}", include.display())];
    cmd.extend(user.iter().map(|s| s.to_string()));
    if links {
        cmd.push(format!("-L{}", libdir.display()));
        // DT_RPATH, searched before LD_LIBRARY_PATH (cargo's test runner sets one that
        // may name an older copy of the library).
        cmd.push("-Wl,--disable-new-dtags".into());
        cmd.push(format!("-Wl,-rpath,{}", libdir.display()));
        cmd.push("-lsimpi_mpi".into());
    }
    if show {
        println!("{}", cmd.join(" "));
        return ExitCode::SUCCESS;
    }
    match Command::new(&cmd[0]).args(&cmd[1..]).status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(1, 255) as u8),
        Err(e) => {
            eprintln!("simpicc: cannot run {}: {e}", cmd[0]);
            ExitCode::from(1)
        }
    }
}
