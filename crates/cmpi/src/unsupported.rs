//! Calls declared in `mpi.h` that simpi does not simulate yet (MPI-IO, dynamic processes, ...): a
//! program that mentions them builds; calling one goes to the error handler with
//! MPI_ERR_UNSUPPORTED_OPERATION, naming the call.

use crate::client::entry;
use simpi_wire::abi;
use std::ffi::c_int;

macro_rules! not_yet {
    ($($name:ident)*) => {$(
        /// Not simulated yet: MPI_ERR_UNSUPPORTED_OPERATION through the error handler.
        #[no_mangle]
        pub extern "C" fn $name() -> c_int {
            entry(stringify!($name), |_| Err((
                abi::err::UNSUPPORTED_OPERATION,
                "not simulated by simpi yet".to_string(),
            )))
        }
    )*};
}

not_yet! {
    MPI_Type_get_contents MPI_Type_create_darray
    MPI_Type_match_size MPI_Pack_external MPI_Unpack_external MPI_Pack_external_size
    MPI_Comm_spawn MPI_Comm_get_parent
    MPI_File_open MPI_File_close MPI_File_delete MPI_File_set_view
    MPI_File_read_at MPI_File_write_at MPI_File_read_at_all MPI_File_write_at_all
}
