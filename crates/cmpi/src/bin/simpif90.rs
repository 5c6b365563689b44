//! `simpif90`: compiles and links a Fortran 90 MPI program against simpi's MPI library, as
//! the MPI compiler wrappers do (the compiler is `$SIMPI_FC`, else `gfortran`; see `src/wrap`).

#[path = "../wrap/mod.rs"]
mod wrap;

fn main() -> std::process::ExitCode {
    wrap::run("simpif90", "SIMPI_FC", "gfortran", &["-rdynamic"])
}
