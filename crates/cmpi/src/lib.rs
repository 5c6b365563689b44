//! simpi's MPI library for C programs: `libsimpi_mpi.so`, with `include/mpi.h`.
//!
//! A program built with `simpicc` runs one process per rank under `simpi run`. Calls
//! that concern only the rank (its number, the time, datatype sizes) are answered here;
//! every call that involves other ranks goes to `simpi run` through the mailbox the
//! launcher gave the process, with the CPU time the rank spent since its last call, and
//! returns when the simulation says it returns, with the data it received. Payloads
//! are real: messages carry the bytes, reductions compute real results.
//!
//! Handles follow the MPI 5.0 ABI (`simpi_wire::abi`): predefined handles are small
//! integers, so `MPI_COMM_WORLD` is `0x101` on both sides. Every entry point catches
//! Rust panics: a C caller never unwinds.
//!
//! Errors go to the communicator's error handler: `MPI_ERRORS_ARE_FATAL` (the
//! default) prints the error and ends the whole run through the launcher;
//! `MPI_ERRORS_RETURN` returns the error class.

mod attr;
mod cancel;
mod client;
mod clock;
mod coll;
mod comm;
mod compound;
mod datatype;
mod env;
mod errhan;
mod fortran;
mod greq;
mod group;
mod in_process;
mod info;
mod large_count;
mod layout;
mod mprobe;
mod neighborhood;
mod op;
mod p2p;
mod persist;
mod rank_local;
mod rma;
mod smpi;
mod some;
mod topo;
mod unsupported;
mod win;

pub use client::Status;
