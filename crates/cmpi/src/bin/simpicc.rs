//! `simpicc`: compiles and links a C MPI program against simpi's MPI library, as
//! the MPI compiler wrappers do (the compiler is `$SIMPI_CC`, else `cc`; see `src/wrap`).

#[path = "../wrap/mod.rs"]
mod wrap;

fn main() -> std::process::ExitCode {
    wrap::run("simpicc", "SIMPI_CC", "cc", &[])
}
