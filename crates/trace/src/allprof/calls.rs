//! The MPI functions a liballprof trace may record, by what the replay does with them:
//! the argument kinds of their C signatures (the order liballprof prints them in), and
//! whether they communicate, are local (their time is computation, as it is in a trace
//! of `simpi trace`, which does not record them) or are refused.

use super::line::Kind::{self, Comm as C, Counts as A, Int as I, Op as O, Ptr as P, Type as D};

/// What a recorded function is to the replay.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// MPI_Init, MPI_Init_thread: computation is counted from its end.
    Init,
    /// MPI_Finalize: the rank's last call.
    Finalize,
    /// A call the replay makes (its arguments read with this signature).
    Modelled(&'static [Kind]),
    /// A local call whose communicator argument (at this signature) is read to follow
    /// handles; its time is computation.
    LocalComm(&'static [Kind]),
    /// A local call: its time is computation.
    Local,
}

/// The role of `name`; none: a function the replay does not model, refused.
pub(crate) fn role(name: &str) -> Option<Role> {
    use Role::*;
    const SEND: &[Kind] = &[P, I, D, I, I, C];
    const ISEND: &[Kind] = &[P, I, D, I, I, C, P];
    Some(match name {
        "MPI_Init" => Init,
        "MPI_Init_thread" => Init,
        "MPI_Finalize" => Finalize,
        "MPI_Send" | "MPI_Ssend" | "MPI_Bsend" | "MPI_Rsend" => Modelled(SEND),
        "MPI_Isend" | "MPI_Issend" | "MPI_Ibsend" | "MPI_Irsend" | "MPI_Recv" | "MPI_Irecv" => Modelled(ISEND),
        "MPI_Sendrecv" => Modelled(&[P, I, D, I, I, P, I, D, I, I, C, P]),
        "MPI_Sendrecv_replace" => Modelled(&[P, I, D, I, I, I, I, C, P]),
        "MPI_Wait" => Modelled(&[P, P]),
        "MPI_Waitall" => Modelled(&[I, P, P]),
        "MPI_Waitany" => Modelled(&[I, P, P, P]),
        "MPI_Waitsome" => Modelled(&[I, P, P, P, P]),
        "MPI_Test" => Modelled(&[P, P, P]),
        "MPI_Testall" => Modelled(&[I, P, P, P]),
        "MPI_Testany" | "MPI_Testsome" => Modelled(&[I, P, P, P, P]),
        "MPI_Iprobe" => Modelled(&[I, I, C, P, P]),
        "MPI_Request_free" => Modelled(&[P]),
        "MPI_Barrier" => Modelled(&[C]),
        "MPI_Bcast" => Modelled(&[P, I, D, I, C]),
        "MPI_Reduce" => Modelled(&[P, P, I, D, O, I, C]),
        "MPI_Allreduce" | "MPI_Scan" | "MPI_Exscan" => Modelled(&[P, P, I, D, O, C]),
        "MPI_Alltoall" | "MPI_Allgather" => Modelled(&[P, I, D, P, I, D, C]),
        "MPI_Alltoallv" => Modelled(&[P, A, A, D, P, A, A, D, C]),
        "MPI_Allgatherv" => Modelled(&[P, I, D, P, A, A, D, C]),
        "MPI_Gather" | "MPI_Scatter" => Modelled(&[P, I, D, P, I, D, I, C]),
        "MPI_Gatherv" => Modelled(&[P, I, D, P, A, A, D, I, C]),
        "MPI_Scatterv" => Modelled(&[P, A, A, D, P, I, D, I, C]),
        "MPI_Reduce_scatter" => Modelled(&[P, P, A, D, O, C]),
        "MPI_Comm_split" => Modelled(&[C, I, I, P]),
        "MPI_Comm_dup" => Modelled(&[C, P]),
        "MPI_Comm_free" => Modelled(&[P]),
        "MPI_Comm_rank" | "MPI_Comm_size" => LocalComm(&[C, P]),
        _ if local(name) => Local,
        _ => return None,
    })
}

/// Calls that neither communicate nor synchronise.
fn local(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "MPI_Type_",
        "MPI_Group_",
        "MPI_Op_",
        "MPI_Errhandler_",
        "MPI_Attr_",
        "MPI_Keyval_",
        "MPI_Info_",
        "MPI_Pack",
        "MPI_Unpack",
        "MPI_Get_",
        "MPI_Error_",
        "MPI_Add_error",
    ];
    // MPI_Get_accumulate is one-sided communication, not a query.
    (PREFIXES.iter().any(|p| name.starts_with(p)) && name != "MPI_Get_accumulate")
        || matches!(
            name,
            "MPI_Wtime"
                | "MPI_Wtick"
                | "MPI_Initialized"
                | "MPI_Finalized"
                | "MPI_Address"
                | "MPI_Comm_group"
                | "MPI_Comm_compare"
                | "MPI_Comm_test_inter"
                | "MPI_Comm_get_attr"
                | "MPI_Comm_set_attr"
                | "MPI_Comm_delete_attr"
                | "MPI_Comm_get_name"
                | "MPI_Comm_set_name"
                | "MPI_Comm_set_errhandler"
                | "MPI_Comm_get_errhandler"
                | "MPI_Comm_create_keyval"
                | "MPI_Comm_free_keyval"
                | "MPI_Cart_coords"
                | "MPI_Cart_rank"
                | "MPI_Cart_get"
                | "MPI_Cart_shift"
                | "MPI_Cartdim_get"
                | "MPI_Dims_create"
                | "MPI_Topo_test"
                | "MPI_Buffer_attach"
                | "MPI_Buffer_detach"
                | "MPI_Query_thread"
                | "MPI_Is_thread_main"
                | "MPI_Alloc_mem"
                | "MPI_Free_mem"
                | "MPI_Request_get_status"
                | "MPI_Status_set_elements"
                | "MPI_Status_set_cancelled"
                | "MPI_Test_cancelled"
                | "MPI_Pcontrol"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles() {
        assert_eq!(role("MPI_Wtime"), Some(Role::Local));
        assert_eq!(role("MPI_Type_size"), Some(Role::Local));
        assert!(matches!(role("MPI_Comm_rank"), Some(Role::LocalComm(_))));
        assert!(matches!(role("MPI_Alltoallv"), Some(Role::Modelled(_))));
        assert_eq!(role("MPI_Put"), None);
        assert_eq!(role("MPI_Get_accumulate"), None);
        assert_eq!(role("MPI_Probe"), None);
        assert_eq!(role("MPI_Comm_create"), None);
    }
}
