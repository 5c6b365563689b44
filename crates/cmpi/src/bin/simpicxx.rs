//! `simpicxx`: compiles and links a C++ MPI program against simpi's MPI library, as
//! the MPI compiler wrappers do (the compiler is `$SIMPI_CXX`, else `c++`; see `src/wrap`).

#[path = "../wrap/mod.rs"]
mod wrap;

fn main() -> std::process::ExitCode {
    wrap::run("simpicxx", "SIMPI_CXX", "c++", &[])
}
