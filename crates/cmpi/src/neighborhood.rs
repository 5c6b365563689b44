//! Neighborhood collectives (MPI_Neighbor_allgather, allgatherv, alltoall, alltoallv,
//! alltoallw, their non-blocking and persistent forms): each rank sends to its out-neighbors and
//! receives from its in-neighbors in the communicator's topology (`topo::neighborhood`).
//! They are point-to-point messages, as MPICH and Open MPI make them, so the network
//! model times them as such. The messages travel on a duplicate of the communicator
//! made at its first neighborhood collective (every member makes that call, in the
//! same order), so they never match the program's own messages.

use crate::client::{entry, Client, Failure, Starter, Status};
use crate::comm::make;
use crate::compound;
use crate::p2p::{irecv, isend, wait_all};
use crate::topo::{neighborhood, Neighborhood};
use simpi_wire::{abi, CollKind};
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// One block of a neighborhood exchange: a buffer, a count and a datatype.
type Block = (*const c_void, c_int, usize);

/// The communicator the neighborhood collectives of `comm` use (made on first use).
fn shadow(c: &mut Client, comm: usize) -> Result<usize, Failure> {
    if let Some(&s) = c.shadows.get(&(comm as u64)) {
        return Ok(s as usize);
    }
    let s = make(c, comm, CollKind::Dup, Vec::new())?;
    c.shadows.insert(comm as u64, s);
    Ok(s as usize)
}

/// Starts the exchange: block `i` of `recv` from source `i`, block `i` of `send` to
/// destination `i`; gives the request that completes with all of it.
///
/// # Safety
/// The blocks' buffers hold their elements until the request completes.
unsafe fn start(c: &mut Client, comm: usize, n: &Neighborhood, send: &[Block], recv: &[Block]) -> Result<u64, Failure> {
    let via = shadow(c, comm)?;
    let mut parts = Vec::with_capacity(send.len() + recv.len());
    for (&(from, tag), &(buf, count, dt)) in n.sources.iter().zip(recv) {
        let mut q = 0usize;
        irecv(c, buf as *mut c_void, count, dt, from, tag, via, &mut q)?;
        parts.push(q as u64);
    }
    for (&(to, tag), &(buf, count, dt)) in n.dests.iter().zip(send) {
        let mut q = 0usize;
        isend(c, buf, count, dt, to, tag, via, &mut q)?;
        parts.push(q as u64);
    }
    Ok(compound::start(c, parts, None))
}

/// `count` blocks of `count_each` elements of `dt` laid one after the other from
/// `buf` (the regular collectives' buffers).
fn regular(c: &Client, buf: *const c_void, k: usize, count_each: c_int, dt: usize) -> Result<Vec<Block>, Failure> {
    if count_each < 0 {
        return Err((abi::err::COUNT, format!("count {count_each} is negative")));
    }
    let extent = c.typed(0, dt)?.ty.extent;
    Ok((0..k)
        .map(|i| {
            let at = (buf as *const u8).wrapping_offset((i as i64 * i64::from(count_each) * extent) as isize);
            (at as *const c_void, count_each, dt)
        })
        .collect())
}

/// The blocks of a v-variant buffer: counts and displacements (in extents of `dt`)
/// per neighbor.
unsafe fn varied(
    c: &Client,
    buf: *const c_void,
    k: usize,
    (counts, displs): (*const c_int, *const c_int),
    dt: usize,
) -> Result<Vec<Block>, Failure> {
    if k > 0 && (counts.is_null() || displs.is_null()) {
        return Err((abi::err::ARG, "a null array of counts or displacements".into()));
    }
    let extent = c.typed(0, dt)?.ty.extent;
    (0..k)
        .map(|i| {
            let n = *counts.add(i);
            if n < 0 {
                return Err((abi::err::COUNT, format!("count {n} for neighbor {i} is negative")));
            }
            let at = (buf as *const u8).wrapping_offset((i64::from(*displs.add(i)) * extent) as isize);
            Ok((at as *const c_void, n, dt))
        })
        .collect()
}

/// The blocks of MPI_Neighbor_alltoallw: byte displacements and a datatype each.
unsafe fn typed(
    buf: *const c_void,
    k: usize,
    (counts, displs, types): (*const c_int, *const isize, *const usize),
) -> Result<Vec<Block>, Failure> {
    if k > 0 && (counts.is_null() || displs.is_null() || types.is_null()) {
        return Err((
            abi::err::ARG,
            "a null array of counts, displacements or datatypes".into(),
        ));
    }
    (0..k)
        .map(|i| {
            let n = *counts.add(i);
            if n < 0 {
                return Err((abi::err::COUNT, format!("count {n} for neighbor {i} is negative")));
            }
            let at = (buf as *const u8).wrapping_offset(*displs.add(i));
            Ok((at as *const c_void, n, *types.add(i)))
        })
        .collect()
}

/// The same block for every destination (allgather's send side).
fn same(buf: *const c_void, k: usize, count: c_int, dt: usize) -> Result<Vec<Block>, Failure> {
    if count < 0 {
        return Err((abi::err::COUNT, format!("count {count} is negative")));
    }
    Ok(vec![(buf, count, dt); k])
}

/// The send and receive blocks of a neighborhood collective's call.
type Blocks = (Vec<Block>, Vec<Block>);

/// Starts the exchange whose blocks `prepare` gives; returns its request.
unsafe fn exchange(
    c: &mut Client,
    comm: usize,
    prepare: impl FnOnce(&Client, &Neighborhood) -> Result<Blocks, Failure>,
) -> Result<u64, Failure> {
    let n = neighborhood(c, comm)?;
    let (send, recv) = prepare(c, &n)?;
    if send.iter().chain(&recv).any(|b| b.0 as usize == abi::IN_PLACE) {
        return Err((abi::err::BUFFER, "MPI_IN_PLACE in a neighborhood collective".into()));
    }
    start(c, comm, &n, &send, &recv)
}

/// How a persistent neighborhood collective starts its exchange at each MPI_Start
/// (reading the buffers then).
pub struct NeighborStarter(Box<Go>);

/// A neighborhood collective's start with its arguments bound.
type Go = dyn Fn(&mut Client) -> Result<u64, Failure>;

// SAFETY: the rank's one thread calls MPI; the buffers are the program's, named by the
// call that made the request.
unsafe impl Send for NeighborStarter {}
// SAFETY: as for Send.
unsafe impl Sync for NeighborStarter {}

impl NeighborStarter {
    /// Starts the exchange; its request.
    pub fn start(&self, c: &mut Client) -> Result<u64, Failure> {
        (self.0)(c)
    }
}

impl std::fmt::Debug for NeighborStarter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NeighborStarter")
    }
}

/// Makes the persistent request whose starts run `prepare`'s exchange.
unsafe fn persistent(
    name: &str,
    comm: usize,
    request: *mut usize,
    prepare: impl Fn(&Client, &Neighborhood) -> Result<Blocks, Failure> + 'static,
) -> c_int {
    entry(name, |c| {
        if request.is_null() {
            return Err((abi::err::REQUEST, "a null request pointer".into()));
        }
        // The arguments are checked now, as by the other forms.
        let n = neighborhood(c, comm)?;
        prepare(c, &n)?;
        let go = NeighborStarter(Box::new(move |c: &mut Client| exchange(c, comm, &prepare)));
        *request = c.new_persistent(Starter::Neighbor(Arc::new(go))) as usize;
        Ok(())
    })
}

/// Runs `prepare`'s exchange and either waits for it (`request` null) or gives its
/// request.
unsafe fn run(
    name: &str,
    comm: usize,
    request: *mut usize,
    prepare: impl FnOnce(&Client, &Neighborhood) -> Result<Blocks, Failure>,
) -> c_int {
    entry(name, |c| {
        let q = exchange(c, comm, prepare)?;
        if request.is_null() {
            let mut qs = [q as usize];
            let mut st = [Status::default()];
            wait_all(c, &mut qs, st.as_mut_ptr())
        } else {
            *request = q as usize;
            Ok(())
        }
    })
}

/// Makes the blocking entry point `$b`, the non-blocking one `$nb` and the persistent
/// one `$init` of the neighborhood collective whose blocks `$blocks` gives.
macro_rules! neighborhood_collective {
    ($b:ident $nb:ident $init:ident ($($arg:ident: $ty:ty),*) $blocks:expr) => {
        /// # Safety
        /// As the MPI standard's; `request` is writable.
        #[no_mangle]
        pub unsafe extern "C" fn $init($($arg: $ty,)* comm: usize, _info: usize, request: *mut usize) -> c_int {
            persistent(stringify!($init), comm, request, move |c, n| ($blocks)(c, n, $($arg),*))
        }

        /// # Safety
        /// As the MPI standard's.
        #[no_mangle]
        pub unsafe extern "C" fn $b($($arg: $ty,)* comm: usize) -> c_int {
            run(stringify!($b), comm, std::ptr::null_mut(), |c, n| ($blocks)(c, n, $($arg),*))
        }

        /// # Safety
        /// As the MPI standard's; `request` is writable.
        #[no_mangle]
        pub unsafe extern "C" fn $nb($($arg: $ty,)* comm: usize, request: *mut usize) -> c_int {
            if request.is_null() {
                return entry(stringify!($nb), |_| Err((abi::err::REQUEST, "a null request pointer".into())));
            }
            run(stringify!($nb), comm, request, |c, n| ($blocks)(c, n, $($arg),*))
        }
    };
}

neighborhood_collective!(MPI_Neighbor_allgather MPI_Ineighbor_allgather MPI_Neighbor_allgather_init
(sendbuf: *const c_void, sendcount: c_int, sendtype: usize, recvbuf: *mut c_void, recvcount: c_int, recvtype: usize)
|c: &Client, n: &Neighborhood, sendbuf, sendcount, sendtype, recvbuf: *mut c_void, recvcount, recvtype| {
    Ok((
        same(sendbuf, n.dests.len(), sendcount, sendtype)?,
        regular(c, recvbuf, n.sources.len(), recvcount, recvtype)?,
    ))
});

neighborhood_collective!(MPI_Neighbor_allgatherv MPI_Ineighbor_allgatherv MPI_Neighbor_allgatherv_init
(sendbuf: *const c_void, sendcount: c_int, sendtype: usize, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: usize)
|c: &Client, n: &Neighborhood, sendbuf, sendcount, sendtype, recvbuf: *mut c_void, recvcounts, displs, recvtype| {
    Ok((
        same(sendbuf, n.dests.len(), sendcount, sendtype)?,
        varied(c, recvbuf, n.sources.len(), (recvcounts, displs), recvtype)?,
    ))
});

neighborhood_collective!(MPI_Neighbor_alltoall MPI_Ineighbor_alltoall MPI_Neighbor_alltoall_init
(sendbuf: *const c_void, sendcount: c_int, sendtype: usize, recvbuf: *mut c_void, recvcount: c_int, recvtype: usize)
|c: &Client, n: &Neighborhood, sendbuf, sendcount, sendtype, recvbuf: *mut c_void, recvcount, recvtype| {
    Ok((
        regular(c, sendbuf, n.dests.len(), sendcount, sendtype)?,
        regular(c, recvbuf, n.sources.len(), recvcount, recvtype)?,
    ))
});

neighborhood_collective!(MPI_Neighbor_alltoallv MPI_Ineighbor_alltoallv MPI_Neighbor_alltoallv_init
(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: usize, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: usize)
|c: &Client, n: &Neighborhood, sendbuf, sendcounts, sdispls, sendtype, recvbuf: *mut c_void, recvcounts, rdispls, recvtype| {
    Ok((
        varied(c, sendbuf, n.dests.len(), (sendcounts, sdispls), sendtype)?,
        varied(c, recvbuf, n.sources.len(), (recvcounts, rdispls), recvtype)?,
    ))
});

neighborhood_collective!(MPI_Neighbor_alltoallw MPI_Ineighbor_alltoallw MPI_Neighbor_alltoallw_init
(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const isize, sendtypes: *const usize, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const isize, recvtypes: *const usize)
|_c: &Client, n: &Neighborhood, sendbuf, sendcounts, sdispls, sendtypes, recvbuf: *mut c_void, recvcounts, rdispls, recvtypes| {
    Ok((
        typed(sendbuf, n.dests.len(), (sendcounts, sdispls, sendtypes))?,
        typed(recvbuf, n.sources.len(), (recvcounts, rdispls, recvtypes))?,
    ))
});
