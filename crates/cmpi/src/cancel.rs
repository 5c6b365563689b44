//! MPI_Cancel and the status of a cancelled request. A receive that has not matched
//! when the rank's simulated time reaches the cancellation is taken out of matching
//! and completes having received nothing; any other request (a send, a collective, a
//! receive that matched) completes as usual, which MPI allows: the program learns
//! which happened from MPI_Test_cancelled.

use crate::client::{entry, Client, Failure, Pending, Status};
use simpi_wire::{abi, Call};
use std::ffi::c_int;

/// Cancels the request `q` names (the operation a persistent request started).
fn cancel(c: &mut Client, q: usize) -> Result<(), Failure> {
    if q as u64 == abi::REQUEST_NULL {
        return Err((abi::err::REQUEST, "MPI_Cancel of MPI_REQUEST_NULL".to_string()));
    }
    if let Some((inner, Pending::Recv { .. })) = c.lookup(q)? {
        c.call_ahead(Call::Cancel { request: inner });
    }
    Ok(())
}

/// # Safety
/// `request` points to a request handle.
#[no_mangle]
pub unsafe extern "C" fn MPI_Cancel(request: *mut usize) -> c_int {
    entry("MPI_Cancel", |c| {
        if request.is_null() {
            return Err((abi::err::ARG, "MPI_Cancel: the request pointer is null".to_string()));
        }
        cancel(c, *request)
    })
}

/// # Safety
/// `status` points to a status; `flag` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Test_cancelled(status: *const Status, flag: *mut c_int) -> c_int {
    entry("MPI_Test_cancelled", |_| {
        if status.is_null() || flag.is_null() {
            return Err((abi::err::ARG, "MPI_Test_cancelled: a null pointer".to_string()));
        }
        *flag = (*status).cancelled() as c_int;
        Ok(())
    })
}

/// # Safety
/// `status` points to a writable status.
#[no_mangle]
pub unsafe extern "C" fn MPI_Status_set_cancelled(status: *mut Status, flag: c_int) -> c_int {
    entry("MPI_Status_set_cancelled", |_| {
        if status.is_null() {
            return Err((
                abi::err::ARG,
                "MPI_Status_set_cancelled: the status pointer is null".to_string(),
            ));
        }
        (*status).set_cancelled(flag != 0);
        Ok(())
    })
}
