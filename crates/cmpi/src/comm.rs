//! Communicator management: rank and size, and the calls that make communicators
//! (MPI_Comm_dup, MPI_Comm_split, MPI_Comm_split_type, MPI_Comm_create). Making one is
//! collective over the parent: the simulator numbers the new communicator and times
//! the call; the handle is `COMM_BASE` plus that number, the same on every member.

use crate::client::{entry, Client, Comm, Failure};
use crate::coll::{bcast, blocking};
use crate::p2p::{isend, recv, wait_all};
use crate::rank_local::RankLocal;
use simpi_wire::{abi, Call, CollKind, Collective, NewComm};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::{Arc, Mutex};

/// MPI_COMM_TYPE_HW_GUIDED.
const HW_GUIDED: c_int = 1003;

/// Names given with MPI_Comm_set_name, by handle.
static NAMES: RankLocal<Mutex<Option<HashMap<u64, String>>>> = RankLocal::new(|| Mutex::new(None));

/// # Safety
/// `rank` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_rank(comm: usize, rank: *mut c_int) -> c_int {
    entry("MPI_Comm_rank", |c| {
        *rank = c.comm(comm)?.rank as c_int;
        Ok(())
    })
}

/// # Safety
/// `size` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_size(comm: usize, size: *mut c_int) -> c_int {
    entry("MPI_Comm_size", |c| {
        *size = c.comm(comm)?.size as c_int;
        Ok(())
    })
}

/// Makes a communicator from `parent` with creation call `kind` contributing `data`;
/// returns its handle (MPI_COMM_NULL where this rank is in none).
pub(crate) fn make(c: &mut Client, parent: usize, kind: CollKind, data: Vec<u8>) -> Result<u64, Failure> {
    let p = c.comm(parent)?;
    if p.remote.is_some()
        && !matches!(
            kind,
            CollKind::Dup | CollKind::Merge | CollKind::Split | CollKind::Create
        )
    {
        return Err((
            abi::err::UNSUPPORTED_OPERATION,
            format!("{kind:?} of {}, an intercommunicator: not simulated yet", p.name()),
        ));
    }
    let done = c.call(Call::Collective(Collective {
        kind,
        comm: p.index,
        root: 0,
        op: 0,
        datatype: abi::BYTE,
        count: 0,
        send_counts: Vec::new(),
        recv_counts: Vec::new(),
        data,
        send_at: None,
        recv_at: None,
        persistent: None,
    }));
    let reply = done
        .into_iter()
        .next()
        .ok_or((abi::err::INTERN, "no communicator in the reply".to_string()))?;
    c.adopt(&p, &reply.data)
}

/// # Safety
/// `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_dup(comm: usize, newcomm: *mut usize) -> c_int {
    entry("MPI_Comm_dup", |c| {
        let new = make(c, comm, CollKind::Dup, Vec::new())? as usize;
        c.copy_attrs(comm, new)?;
        if let Some(t) = c.topos.get(&(comm as u64)).cloned() {
            c.topos.insert(new as u64, t);
        }
        *newcomm = new;
        Ok(())
    })
}

/// # Safety
/// `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_dup_with_info(comm: usize, _info: usize, newcomm: *mut usize) -> c_int {
    MPI_Comm_dup(comm, newcomm)
}

/// # Safety
/// `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_split(comm: usize, color: c_int, key: c_int, newcomm: *mut usize) -> c_int {
    entry("MPI_Comm_split", |c| {
        if color < 0 && color != abi::UNDEFINED {
            return Err((abi::err::ARG, format!("color {color} is negative")));
        }
        let data = [color.to_le_bytes(), key.to_le_bytes()].concat();
        *newcomm = make(c, comm, CollKind::Split, data)? as usize;
        Ok(())
    })
}

/// # Safety
/// `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_split_type(
    comm: usize,
    split_type: c_int,
    key: c_int,
    info: usize,
    newcomm: *mut usize,
) -> c_int {
    entry("MPI_Comm_split_type", |c| {
        // Other types name hardware levels simpi's platforms do not describe: each
        // is taken as the host, the finest level they have. MPI_UNDEFINED: no
        // communicator for this rank (the call is still the others').
        // MPI_COMM_TYPE_HW_GUIDED names its level in the info (key
        // mpi_hw_resource_type): without one, no communicator.
        let unguided = split_type == HW_GUIDED
            && c.infos
                .get(&(info as u64))
                .is_none_or(|i| !i.iter().any(|(k, _)| k == "mpi_hw_resource_type"));
        let undefined = c_int::from(split_type == abi::UNDEFINED || unguided);
        let data = [key.to_le_bytes(), undefined.to_le_bytes()].concat();
        *newcomm = make(c, comm, CollKind::SplitShared, data)? as usize;
        Ok(())
    })
}

/// # Safety
/// `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_create(comm: usize, group: usize, newcomm: *mut usize) -> c_int {
    entry("MPI_Comm_create", |c| {
        let p = c.comm(comm)?;
        let g = c.group(group)?;
        let parent = p.member_list();
        if let Some(w) = g.iter().find(|w| !parent.contains(w)) {
            return Err((
                abi::err::GROUP,
                format!("the group holds world rank {w}, which is not in the communicator"),
            ));
        }
        let data = g.iter().flat_map(|w| w.to_le_bytes()).collect();
        *newcomm = make(c, comm, CollKind::Create, data)? as usize;
        Ok(())
    })
}

/// Makes `call`, which the simulator answers with a new communicator's index.
fn numbered(c: &mut Client, call: Call) -> Result<u32, Failure> {
    let reply = c
        .call(call)
        .into_iter()
        .next()
        .ok_or((abi::err::INTERN, "no communicator in the reply".to_string()))?;
    match NewComm::decode(&reply.data).map_err(|e| (abi::err::INTERN, e.to_string()))? {
        NewComm::SameMembers(i) => Ok(i),
        other => Err((abi::err::INTERN, format!("a communicator answered as {other:?}"))),
    }
}

/// # Safety
/// `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_create_group(comm: usize, group: usize, tag: c_int, newcomm: *mut usize) -> c_int {
    entry("MPI_Comm_create_group", |c| {
        let p = c.comm(comm)?;
        let g = c.group(group)?;
        let parent = p.member_list();
        if let Some(w) = g.iter().find(|w| !parent.contains(w)) {
            return Err((
                abi::err::GROUP,
                format!("the group holds world rank {w}, which is not in the communicator"),
            ));
        }
        if !g.contains(&c.rank) {
            *newcomm = abi::COMM_NULL as usize;
            return Ok(());
        }
        let index = numbered(
            c,
            Call::GroupComm {
                members: g.to_vec(),
                tag,
            },
        )?;
        *newcomm = c.add_comm(index, Some(g), None)? as usize;
        Ok(())
    })
}

/// # Safety
/// `newcomm` and `request` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_idup(comm: usize, newcomm: *mut usize, request: *mut usize) -> c_int {
    // The copy is made at once (it costs no simulated time); the request is complete.
    let code = MPI_Comm_dup(comm, newcomm);
    if code == abi::err::SUCCESS {
        return entry("MPI_Comm_idup", |c| {
            *request = c.new_request(crate::client::Pending::null()) as usize;
            Ok(())
        });
    }
    code
}

/// # Safety
/// `newcomm` and `request` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_idup_with_info(
    comm: usize,
    _info: usize,
    newcomm: *mut usize,
    request: *mut usize,
) -> c_int {
    MPI_Comm_idup(comm, newcomm, request)
}

/// # Safety
/// `group` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_group(comm: usize, group: *mut usize) -> c_int {
    entry("MPI_Comm_group", |c| {
        let m = c.comm(comm)?.member_list();
        *group = c.new_group(m.to_vec()) as usize;
        Ok(())
    })
}

/// # Safety
/// `comm` points to a communicator handle.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_free(comm: *mut usize) -> c_int {
    entry("MPI_Comm_free", |c| {
        let h = *comm as u64;
        if h == abi::COMM_WORLD || h == abi::COMM_SELF {
            return Err((
                abi::err::COMM,
                "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed".into(),
            ));
        }
        c.comm(*comm)?;
        c.drop_attrs(*comm)?;
        // Gone once its attributes' delete functions ran (they may still use it).
        crate::client::defer(move || {
            crate::client::with_mut(|c| {
                c.comms.remove(&h);
                c.topos.remove(&h);
            });
            abi::err::SUCCESS
        });
        *comm = abi::COMM_NULL as usize;
        Ok(())
    })
}

/// # Safety
/// `comm` points to a communicator handle.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_disconnect(comm: *mut usize) -> c_int {
    MPI_Comm_free(comm)
}

/// MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR and MPI_UNEQUAL as `mpi.h` defines them.
pub const IDENT: c_int = 101;
/// MPI_CONGRUENT.
pub const CONGRUENT: c_int = 102;
/// MPI_SIMILAR.
pub const SIMILAR: c_int = 103;
/// MPI_UNEQUAL.
pub const UNEQUAL: c_int = 104;

/// How two member lists compare: the same order (`same`), the same set (SIMILAR),
/// or not (UNEQUAL).
pub fn compare_members(a: &[u32], b: &[u32], same: c_int) -> c_int {
    if a == b {
        return same;
    }
    let (mut x, mut y) = (a.to_vec(), b.to_vec());
    x.sort_unstable();
    y.sort_unstable();
    if x == y {
        SIMILAR
    } else {
        UNEQUAL
    }
}

/// # Safety
/// `result` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_compare(a: usize, b: usize, result: *mut c_int) -> c_int {
    entry("MPI_Comm_compare", |c| {
        let (x, y): (Comm, Comm) = (c.comm(a)?, c.comm(b)?);
        *result = if a == b {
            IDENT
        } else {
            compare_members(&x.member_list(), &y.member_list(), CONGRUENT)
        };
        Ok(())
    })
}

/// # Safety
/// `flag` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_test_inter(comm: usize, flag: *mut c_int) -> c_int {
    entry("MPI_Comm_test_inter", |c| {
        *flag = c_int::from(c.comm(comm)?.remote.is_some());
        Ok(())
    })
}

/// The intercommunicator of `c`, or MPI_ERR_COMM.
fn inter(c: &Client, comm: usize) -> Result<(Comm, Arc<[u32]>), Failure> {
    let cm = c.comm(comm)?;
    match cm.remote.clone() {
        Some(r) => Ok((cm, r)),
        None => Err((abi::err::COMM, format!("{} is not an intercommunicator", cm.name()))),
    }
}

/// # Safety
/// `size` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_remote_size(comm: usize, size: *mut c_int) -> c_int {
    entry("MPI_Comm_remote_size", |c| {
        *size = inter(c, comm)?.1.len() as c_int;
        Ok(())
    })
}

/// # Safety
/// `group` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_remote_group(comm: usize, group: *mut usize) -> c_int {
    entry("MPI_Comm_remote_group", |c| {
        let r = inter(c, comm)?.1;
        *group = c.new_group(r.to_vec()) as usize;
        Ok(())
    })
}

/// World ranks as bytes (little-endian u32s).
fn ranks_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// # Safety
/// `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Intercomm_create(
    local_comm: usize,
    local_leader: c_int,
    peer_comm: usize,
    remote_leader: c_int,
    tag: c_int,
    newcomm: *mut usize,
) -> c_int {
    entry("MPI_Intercomm_create", |c| {
        let lc = c.comm(local_comm)?;
        if local_leader < 0 || local_leader as u32 >= lc.size {
            return Err((
                abi::err::RANK,
                format!("local leader {local_leader} is not in the communicator"),
            ));
        }
        let local = lc.member_list().to_vec();
        // The leaders trade their groups over the peer communicator (a count, then the
        // ranks), and each tells its group.
        let mut remote_len: c_int = 0;
        if lc.rank as c_int == local_leader {
            let n = local.len() as c_int;
            let mut q = [0usize; 1];
            isend(
                c,
                &n as *const c_int as *const c_void,
                1,
                abi::INT as usize,
                remote_leader,
                tag,
                peer_comm,
                &mut q[0],
            )?;
            recv(
                c,
                &mut remote_len as *mut c_int as *mut c_void,
                1,
                abi::INT as usize,
                remote_leader,
                tag,
                peer_comm,
                std::ptr::null_mut(),
            )?;
            wait_all(c, &mut q, std::ptr::null_mut())?;
        }
        let p = bcast(
            c,
            &mut remote_len as *mut c_int as *mut c_void,
            1,
            abi::INT as usize,
            local_leader,
            local_comm,
        )?;
        blocking(c, p)?;
        if remote_len <= 0 {
            return Err((abi::err::ARG, "the remote group is empty".into()));
        }
        let mut remote = vec![0u32; remote_len as usize];
        if lc.rank as c_int == local_leader {
            let mine = ranks_bytes(&local);
            let mut q = [0usize; 1];
            isend(
                c,
                mine.as_ptr() as *const c_void,
                mine.len() as c_int,
                abi::BYTE as usize,
                remote_leader,
                tag,
                peer_comm,
                &mut q[0],
            )?;
            recv(
                c,
                remote.as_mut_ptr() as *mut c_void,
                remote_len * 4,
                abi::BYTE as usize,
                remote_leader,
                tag,
                peer_comm,
                std::ptr::null_mut(),
            )?;
            wait_all(c, &mut q, std::ptr::null_mut())?;
        }
        let p = bcast(
            c,
            remote.as_mut_ptr() as *mut c_void,
            remote_len * 4,
            abi::BYTE as usize,
            local_leader,
            local_comm,
        )?;
        blocking(c, p)?;
        let index = numbered(
            c,
            Call::Intercomm {
                local: local.clone(),
                remote: remote.clone(),
                tag,
            },
        )?;
        *newcomm = c.add_comm(index, Some(local.into()), Some(remote.into()))? as usize;
        Ok(())
    })
}

/// A string tag as a number (FNV-1a): the ranks that make one communicator name it
/// with the same string.
unsafe fn tag_of(tag: *const c_char) -> c_int {
    if tag.is_null() {
        return 0;
    }
    let mut h: u32 = 0x811c_9dc5;
    for &b in CStr::from_ptr(tag).to_bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h as c_int
}

/// # Safety
/// `stringtag` is a NUL-terminated string; `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Intercomm_create_from_groups(
    local_group: usize,
    _local_leader: c_int,
    remote_group: usize,
    _remote_leader: c_int,
    stringtag: *const c_char,
    _info: usize,
    _errhandler: usize,
    newcomm: *mut usize,
) -> c_int {
    entry("MPI_Intercomm_create_from_groups", |c| {
        // Every rank knows both groups: no leader needs to tell its group the other.
        let (local, remote) = (c.group(local_group)?, c.group(remote_group)?);
        if !local.contains(&c.rank) {
            return Err((abi::err::GROUP, "this rank is not in its local group".into()));
        }
        let call = Call::Intercomm {
            local: local.to_vec(),
            remote: remote.to_vec(),
            tag: tag_of(stringtag),
        };
        let index = numbered(c, call)?;
        *newcomm = c.add_comm(index, Some(local), Some(remote))? as usize;
        Ok(())
    })
}

/// # Safety
/// `stringtag` is a NUL-terminated string; `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_create_from_group(
    group: usize,
    stringtag: *const c_char,
    _info: usize,
    _errhandler: usize,
    newcomm: *mut usize,
) -> c_int {
    entry("MPI_Comm_create_from_group", |c| {
        let g = c.group(group)?;
        if !g.contains(&c.rank) {
            *newcomm = abi::COMM_NULL as usize;
            return Ok(());
        }
        let call = Call::GroupComm {
            members: g.to_vec(),
            tag: tag_of(stringtag),
        };
        let index = numbered(c, call)?;
        *newcomm = c.add_comm(index, Some(g), None)? as usize;
        Ok(())
    })
}

/// # Safety
/// `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Intercomm_merge(intercomm: usize, high: c_int, newcomm: *mut usize) -> c_int {
    entry("MPI_Intercomm_merge", |c| {
        inter(c, intercomm)?;
        let data = c_int::from(high != 0).to_le_bytes().to_vec();
        *newcomm = make(c, intercomm, CollKind::Merge, data)? as usize;
        Ok(())
    })
}

/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_set_name(comm: usize, name: *const c_char) -> c_int {
    entry("MPI_Comm_set_name", |c| {
        c.comm(comm)?;
        if name.is_null() {
            return Err((abi::err::ARG, "a null name".into()));
        }
        let text = CStr::from_ptr(name).to_string_lossy().into_owned();
        let mut names = NAMES.get().lock().unwrap_or_else(|p| p.into_inner());
        names.get_or_insert_with(HashMap::new).insert(comm as u64, text);
        Ok(())
    })
}

/// # Safety
/// `name` holds MPI_MAX_OBJECT_NAME (128) bytes; `len` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_get_name(comm: usize, name: *mut c_char, len: *mut c_int) -> c_int {
    entry("MPI_Comm_get_name", |c| {
        if comm as u64 == abi::COMM_NULL {
            crate::env::put_str("MPI_COMM_NULL", name, 128, len);
            return Ok(());
        }
        c.comm(comm)?;
        let names = NAMES.get().lock().unwrap_or_else(|p| p.into_inner());
        let given = names.as_ref().and_then(|n| n.get(&(comm as u64))).cloned();
        let text = given.unwrap_or_else(|| match comm as u64 {
            abi::COMM_WORLD => "MPI_COMM_WORLD".into(),
            abi::COMM_SELF => "MPI_COMM_SELF".into(),
            _ => String::new(),
        });
        crate::env::put_str(&text, name, 128, len);
        Ok(())
    })
}
