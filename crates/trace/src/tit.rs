//! SimGrid time-independent traces (TIT): per-rank lists of MPI actions
//! (`<rank> <action> <args>`), as SimGrid 3.32's `smpirun -trace-ti` writes them, plus
//! simpi's communicator extension (see `docs/formats.md`):
//!
//! * `<rank> comm_split <parent> <color> <key> <new|->`, `<rank> comm_dup <parent> <new>`,
//!   `<rank> comm_create <parent> <new|-> <world ranks...>` define communicators with
//!   trace-wide ids (`world` is MPI_COMM_WORLD);
//! * `<rank> @<comm> <action> ...` runs an action on a communicator: point-to-point
//!   partners stay world ranks, collective roots and count arrays are communicator-sized.
//!
//! A trace is a rank program ([`TitProgram`]) making MPI calls: run live by the engine
//! ([`open_tit`]) or converted into a whole [`simpi_mpi::Schedule`] ([`read_tit`]):
//! blocking calls chain, non-blocking ones are waited for by `wait`/`waitall`,
//! collectives are expanded by the chosen algorithms. The input is either an index file (one rank's trace file per line; a
//! single line naming a file that holds every rank) or such a file itself.

pub(crate) mod actions;
mod convert;
mod datatypes;
mod feed;
pub(crate) mod program;
mod source;

pub use actions::Action;
pub use convert::{looks_like_tit, open_tit, read_tit, read_tit_on, tit_ranks, TitError, TitTrace, PARALLEL_RANKS};
pub use datatypes::datatype_size;
pub use program::{TitOptions, TitProgram};
pub use simpi_mpi::comm::{Comm, CommTable};
