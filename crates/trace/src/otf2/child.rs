//! The decoder process: runs the OTF2 library on the archive and sends what its
//! callbacks report, as [`wire`](super::wire) records, to the reader. It runs in a child
//! forked by `sandbox.rs`, because the library crashes or loops on some malformed files:
//! the child dies, the reader reports an error naming the file.
//!
//! Order of work (the library's documented reading sequence): open the anchor, read the
//! global definitions (sent as they come), wait for the locations to read, open their
//! local definitions (whose mapping tables the library applies to their events) and
//! event readers, then serve requests for up to N events of one location.
//!
//! Only this thread exists in the child; it never returns to the parent's code: it ends
//! with `_exit`.

use super::ffi::*;
use super::wire::{Coll, Def, Ev, Kind, Msg, Out, Outcome, P2p, Stage, REQ_READ, REQ_SELECT};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr};

/// Frames are sent once they hold this many bytes (and at the end of each answer).
const FRAME: usize = 1 << 20;

thread_local! {
    /// The library's error messages since the last operation began.
    static ERRORS: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The library's error callback: keeps the message instead of printing it.
unsafe extern "C" fn on_error(
    _user: *mut c_void,
    _file: *const c_char,
    _line: u64,
    _function: *const c_char,
    code: ErrorCode,
    format: *const c_char,
    args: *mut c_void,
) -> ErrorCode {
    let mut buf = [0 as c_char; 512];
    if !format.is_null() {
        vsnprintf(buf.as_mut_ptr(), buf.len(), format, args);
    }
    let text = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
    ERRORS.with(|e| {
        let mut e = e.borrow_mut();
        if e.len() < 2048 && !text.is_empty() {
            if !e.is_empty() {
                e.push_str("; ");
            }
            e.push_str(text.trim());
        }
    });
    code
}

fn write_all(fd: c_int, mut data: &[u8]) -> bool {
    while !data.is_empty() {
        let n = unsafe { libc::write(fd, data.as_ptr() as *const c_void, data.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
        data = &data[n as usize..];
    }
    true
}

fn read_exact(fd: c_int, buf: &mut [u8]) -> bool {
    let mut at = 0;
    while at < buf.len() {
        let n = unsafe { libc::read(fd, buf[at..].as_mut_ptr() as *mut c_void, buf.len() - at) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if n <= 0 {
            return false;
        }
        at += n as usize;
    }
    true
}

/// Where callbacks put their records: the pipe to the reader and the frame being built.
struct Sink {
    out: Out,
    fd: c_int,
    /// Position of the last event a callback reported.
    last_pos: u64,
}

impl Sink {
    /// Sends the records so far as one frame; a reader that went away ends the process.
    fn flush(&mut self) {
        if self.out.buf.is_empty() {
            return;
        }
        let len = (self.out.buf.len() as u32).to_le_bytes();
        if !write_all(self.fd, &len) || !write_all(self.fd, &self.out.buf) {
            unsafe { libc::_exit(0) };
        }
        self.out.buf.clear();
    }

    fn push(&mut self, m: &Msg) {
        self.out.msg(m);
        if self.out.buf.len() >= FRAME {
            self.flush();
        }
    }

    fn event(&mut self, time: u64, pos: u64, kind: Kind) -> CallbackCode {
        // The library counts positions from 1 in OTF2 3.0; keep whatever it says.
        self.last_pos = pos;
        self.push(&Msg::Event(Ev { time, pos, kind }));
        CALLBACK_SUCCESS
    }

    /// Sends why `stage` failed: the library's messages, else its error code's name.
    fn fail(&mut self, stage: Stage, location: u64, code: ErrorCode) {
        let mut message = ERRORS.with(|e| std::mem::take(&mut *e.borrow_mut()));
        if message.is_empty() {
            message = unsafe {
                let name = OTF2_Error_GetName(code);
                let what = OTF2_Error_GetDescription(code);
                match (name.is_null(), what.is_null()) {
                    (false, false) => format!(
                        "{} ({})",
                        CStr::from_ptr(what).to_string_lossy(),
                        CStr::from_ptr(name).to_string_lossy()
                    ),
                    _ => format!("error code {code}"),
                }
            };
        }
        let position = if stage == Stage::Events { self.last_pos } else { 0 };
        self.push(&Msg::Failed {
            stage,
            location,
            position,
            message,
        });
        self.flush();
    }
}

unsafe fn sink<'a>(user: *mut c_void) -> &'a mut Sink {
    &mut *(user as *mut Sink)
}

unsafe extern "C" fn def_clock(
    user: *mut c_void,
    resolution: u64,
    offset: u64,
    length: u64,
    _real: u64,
) -> CallbackCode {
    sink(user).push(&Msg::Def(Def::Clock {
        resolution,
        offset,
        length,
    }));
    CALLBACK_SUCCESS
}

unsafe extern "C" fn def_string(user: *mut c_void, id: u32, text: *const c_char) -> CallbackCode {
    let s = sink(user);
    if text.is_null() {
        s.out.string(id, b"");
    } else {
        // Bounded: a string without its terminator must not be read to the end of memory.
        let n = libc::strnlen(text, super::wire::MAX_STRING);
        s.out.string(id, std::slice::from_raw_parts(text as *const u8, n));
    }
    if s.out.buf.len() >= FRAME {
        s.flush();
    }
    CALLBACK_SUCCESS
}

unsafe extern "C" fn def_location(
    user: *mut c_void,
    id: u64,
    name: u32,
    _kind: u8,
    events: u64,
    _group: u32,
) -> CallbackCode {
    sink(user).push(&Msg::Def(Def::Location { id, name, events }));
    CALLBACK_SUCCESS
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn def_region(
    user: *mut c_void,
    id: u32,
    name: u32,
    _canonical: u32,
    _description: u32,
    role: u8,
    paradigm: u8,
    _flags: u32,
    _file: u32,
    _begin: u32,
    _end: u32,
) -> CallbackCode {
    sink(user).push(&Msg::Def(Def::Region {
        id,
        name,
        role,
        paradigm,
    }));
    CALLBACK_SUCCESS
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn def_group(
    user: *mut c_void,
    id: u32,
    _name: u32,
    kind: u8,
    paradigm: u8,
    flags: u32,
    n: u32,
    members: *const u64,
) -> CallbackCode {
    let members = if members.is_null() || n == 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(members, n as usize).to_vec()
    };
    sink(user).push(&Msg::Def(Def::Group {
        id,
        kind,
        paradigm,
        global: flags & 1 != 0,
        members,
    }));
    CALLBACK_SUCCESS
}

unsafe extern "C" fn def_comm(
    user: *mut c_void,
    id: u32,
    name: u32,
    group: u32,
    _parent: u32,
    _flags: u32,
) -> CallbackCode {
    sink(user).push(&Msg::Def(Def::Comm { id, name, group }));
    CALLBACK_SUCCESS
}

unsafe extern "C" fn def_intercomm(
    user: *mut c_void,
    id: u32,
    _name: u32,
    _a: u32,
    _b: u32,
    _common: u32,
    _flags: u32,
) -> CallbackCode {
    sink(user).push(&Msg::Def(Def::InterComm { id }));
    CALLBACK_SUCCESS
}

type Attrs = *mut OTF2_AttributeList;

unsafe extern "C" fn ev_enter(_l: u64, t: u64, pos: u64, user: *mut c_void, _a: Attrs, region: u32) -> CallbackCode {
    sink(user).event(t, pos, Kind::Enter(region))
}

unsafe extern "C" fn ev_leave(_l: u64, t: u64, pos: u64, user: *mut c_void, _a: Attrs, region: u32) -> CallbackCode {
    sink(user).event(t, pos, Kind::Leave(region))
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ev_send(
    _l: u64,
    t: u64,
    pos: u64,
    user: *mut c_void,
    _a: Attrs,
    peer: u32,
    comm: u32,
    tag: u32,
    len: u64,
) -> CallbackCode {
    sink(user).event(t, pos, Kind::Send(P2p { peer, comm, tag, len }))
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ev_recv(
    _l: u64,
    t: u64,
    pos: u64,
    user: *mut c_void,
    _a: Attrs,
    peer: u32,
    comm: u32,
    tag: u32,
    len: u64,
) -> CallbackCode {
    sink(user).event(t, pos, Kind::Recv(P2p { peer, comm, tag, len }))
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ev_isend(
    _l: u64,
    t: u64,
    pos: u64,
    user: *mut c_void,
    _a: Attrs,
    peer: u32,
    comm: u32,
    tag: u32,
    len: u64,
    req: u64,
) -> CallbackCode {
    sink(user).event(t, pos, Kind::Isend(P2p { peer, comm, tag, len }, req))
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ev_irecv(
    _l: u64,
    t: u64,
    pos: u64,
    user: *mut c_void,
    _a: Attrs,
    peer: u32,
    comm: u32,
    tag: u32,
    len: u64,
    req: u64,
) -> CallbackCode {
    sink(user).event(t, pos, Kind::Irecv(P2p { peer, comm, tag, len }, req, false))
}

unsafe extern "C" fn ev_isend_complete(
    _l: u64,
    t: u64,
    pos: u64,
    user: *mut c_void,
    _a: Attrs,
    req: u64,
) -> CallbackCode {
    sink(user).event(t, pos, Kind::IsendComplete(req))
}

unsafe extern "C" fn ev_irecv_request(
    _l: u64,
    t: u64,
    pos: u64,
    user: *mut c_void,
    _a: Attrs,
    req: u64,
) -> CallbackCode {
    sink(user).event(t, pos, Kind::IrecvRequest(req, Outcome::Pending))
}

unsafe extern "C" fn ev_test(_l: u64, t: u64, pos: u64, user: *mut c_void, _a: Attrs, req: u64) -> CallbackCode {
    sink(user).event(t, pos, Kind::RequestTest(req))
}

unsafe extern "C" fn ev_cancelled(_l: u64, t: u64, pos: u64, user: *mut c_void, _a: Attrs, req: u64) -> CallbackCode {
    sink(user).event(t, pos, Kind::RequestCancelled(req))
}

unsafe extern "C" fn ev_coll_begin(_l: u64, t: u64, pos: u64, user: *mut c_void, _a: Attrs) -> CallbackCode {
    sink(user).event(t, pos, Kind::CollectiveBegin)
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ev_coll_end(
    _l: u64,
    t: u64,
    pos: u64,
    user: *mut c_void,
    _a: Attrs,
    op: u8,
    comm: u32,
    root: u32,
    sent: u64,
    received: u64,
) -> CallbackCode {
    let c = Coll {
        op,
        comm,
        root,
        sent,
        received,
    };
    sink(user).event(t, pos, Kind::CollectiveEnd(c))
}

unsafe extern "C" fn ev_nbc_request(_l: u64, t: u64, pos: u64, user: *mut c_void, _a: Attrs, req: u64) -> CallbackCode {
    sink(user).event(t, pos, Kind::CollectiveRequest(req, Outcome::Pending))
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ev_nbc_complete(
    _l: u64,
    t: u64,
    pos: u64,
    user: *mut c_void,
    _a: Attrs,
    op: u8,
    comm: u32,
    root: u32,
    sent: u64,
    received: u64,
    req: u64,
) -> CallbackCode {
    let c = Coll {
        op,
        comm,
        root,
        sent,
        received,
    };
    sink(user).event(t, pos, Kind::CollectiveComplete(c, req, false))
}

unsafe extern "C" fn ev_measurement(_l: u64, t: u64, pos: u64, user: *mut c_void, _a: Attrs, mode: u8) -> CallbackCode {
    // OTF2_MEASUREMENT_OFF is 2; anything else counts as on.
    sink(user).event(t, pos, Kind::Measurement(mode != 2))
}

unsafe extern "C" fn ev_flush(_l: u64, t: u64, pos: u64, user: *mut c_void, _a: Attrs, stop: u64) -> CallbackCode {
    sink(user).event(t, pos, Kind::BufferFlush(stop))
}

/// Runs the decoder on the archive whose anchor file is `anchor`, answering requests
/// read from `input` on `output`; never returns.
pub fn serve(anchor: &CStr, output: c_int, input: c_int) -> ! {
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { run(anchor, output, input) }));
    unsafe { libc::_exit(if ok.is_ok() { 0 } else { 101 }) }
}

unsafe fn run(anchor: &CStr, output: c_int, input: c_int) {
    OTF2_Error_RegisterCallback(Some(on_error), std::ptr::null_mut());
    // The library keeps every location's files open: as many as the system allows.
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
        lim.rlim_cur = lim.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
    }
    let mut sink = Box::new(Sink {
        out: Out::default(),
        fd: output,
        last_pos: 0,
    });
    let user = &mut *sink as *mut Sink as *mut c_void;
    let reader = OTF2_Reader_Open(anchor.as_ptr());
    if reader.is_null() {
        sink.fail(Stage::Anchor, 0, 0);
        return;
    }
    macro_rules! check {
        ($call:expr, $stage:expr, $loc:expr) => {{
            let rc = $call;
            if rc != SUCCESS {
                sink.fail($stage, $loc, rc);
                return;
            }
        }};
    }
    check!(OTF2_Reader_SetSerialCollectiveCallbacks(reader), Stage::Anchor, 0);
    let mut locations = 0u64;
    check!(
        OTF2_Reader_GetNumberOfLocations(reader, &mut locations),
        Stage::Anchor,
        0
    );
    let gdr = OTF2_Reader_GetGlobalDefReader(reader);
    if gdr.is_null() {
        sink.fail(Stage::GlobalDefs, 0, 0);
        return;
    }
    let cbs = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cbs, Some(def_clock));
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cbs, Some(def_string));
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cbs, Some(def_location));
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cbs, Some(def_region));
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cbs, Some(def_group));
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cbs, Some(def_comm));
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cbs, Some(def_intercomm));
    check!(
        OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, cbs, user),
        Stage::GlobalDefs,
        0
    );
    OTF2_GlobalDefReaderCallbacks_Delete(cbs);
    let mut read = 0u64;
    check!(
        OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &mut read),
        Stage::GlobalDefs,
        0
    );
    sink.push(&Msg::DefsEnd(locations));
    sink.flush();

    // The locations to read.
    let mut head = [0u8; 9];
    if !read_exact(input, &mut head) || head[0] != REQ_SELECT {
        return;
    }
    let n = u64::from_le_bytes(head[1..9].try_into().expect("8 bytes"));
    let mut locs = Vec::new();
    for _ in 0..n {
        let mut b = [0u8; 8];
        if !read_exact(input, &mut b) {
            return;
        }
        locs.push(u64::from_le_bytes(b));
    }
    for &l in &locs {
        check!(OTF2_Reader_SelectLocation(reader, l), Stage::Events, l);
    }
    // Local definitions are optional; their mapping tables, if any, translate the
    // location's references.
    let defs_open = OTF2_Reader_OpenDefFiles(reader) == SUCCESS;
    ERRORS.with(|e| e.borrow_mut().clear());
    check!(
        OTF2_Reader_OpenEvtFiles(reader),
        Stage::Events,
        locs.first().copied().unwrap_or(0)
    );
    let ecbs = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(ecbs, Some(ev_enter));
    OTF2_EvtReaderCallbacks_SetLeaveCallback(ecbs, Some(ev_leave));
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecbs, Some(ev_send));
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecbs, Some(ev_isend));
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecbs, Some(ev_isend_complete));
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecbs, Some(ev_irecv_request));
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecbs, Some(ev_recv));
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecbs, Some(ev_irecv));
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(ecbs, Some(ev_test));
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(ecbs, Some(ev_cancelled));
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecbs, Some(ev_coll_begin));
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecbs, Some(ev_coll_end));
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(ecbs, Some(ev_nbc_request));
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(ecbs, Some(ev_nbc_complete));
    OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(ecbs, Some(ev_measurement));
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(ecbs, Some(ev_flush));
    let mut readers = Vec::with_capacity(locs.len());
    for (i, &l) in locs.iter().enumerate() {
        // An empty frame now and then: opening thousands of files takes a while, and
        // the reader takes silence for a stuck library.
        if i % 64 == 63 && !write_all(output, &0u32.to_le_bytes()) {
            return;
        }
        if defs_open {
            let dr = OTF2_Reader_GetDefReader(reader, l);
            if !dr.is_null() {
                let mut n = 0u64;
                check!(
                    OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &mut n),
                    Stage::LocalDefs,
                    l
                );
                OTF2_Reader_CloseDefReader(reader, dr);
            }
        }
        let er = OTF2_Reader_GetEvtReader(reader, l);
        if er.is_null() {
            sink.fail(Stage::Events, l, 0);
            return;
        }
        check!(
            OTF2_Reader_RegisterEvtCallbacks(reader, er, ecbs, user),
            Stage::Events,
            l
        );
        readers.push(er);
    }
    OTF2_EvtReaderCallbacks_Delete(ecbs);
    if defs_open {
        OTF2_Reader_CloseDefFiles(reader);
    }
    sink.push(&Msg::Ready);
    sink.flush();

    let mut positions = vec![0u64; readers.len()];
    loop {
        let mut req = [0u8; 9];
        if !read_exact(input, &mut req) || req[0] != REQ_READ {
            return;
        }
        let index = u32::from_le_bytes(req[1..5].try_into().expect("4 bytes")) as usize;
        let max = u32::from_le_bytes(req[5..9].try_into().expect("4 bytes")) as u64;
        let Some(&er) = readers.get(index) else { return };
        ERRORS.with(|e| e.borrow_mut().clear());
        sink.last_pos = positions[index];
        let mut got = 0u64;
        let rc = OTF2_Reader_ReadLocalEvents(reader, er, max, &mut got);
        positions[index] = sink.last_pos;
        if rc != SUCCESS {
            sink.fail(Stage::Events, locs[index], rc);
            return;
        }
        sink.push(&Msg::BatchEnd(got));
        sink.flush();
    }
}
