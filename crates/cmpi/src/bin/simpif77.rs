//! `simpif77`: compiles and links a Fortran 77 MPI program against simpi's MPI library, as
//! the MPI compiler wrappers do (the compiler is `$SIMPI_F77`, else `gfortran`; see `src/wrap`).

#[path = "../wrap/mod.rs"]
mod wrap;

fn main() -> std::process::ExitCode {
    wrap::run("simpif77", "SIMPI_F77", "gfortran", &["-rdynamic"])
}
