//! The part of the OTF2 library's C reader API (`otf2/OTF2_Reader.h` and the callback
//! headers of OTF2 3.0) that the decoder process uses, declared by hand: opening an
//! archive, reading global and local definitions, and reading a location's events
//! through callbacks. Only the definitions and events simpi reads have callbacks here.
//!
//! Types follow the headers: references are `uint32_t` (locations `uint64_t`), enums
//! stored in records are `uint8_t`, and the error and callback codes are C enums (`int`).

#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void};

/// `OTF2_ErrorCode` (`OTF2_SUCCESS` is 0).
pub type ErrorCode = c_int;
/// `OTF2_CallbackCode` (`OTF2_CALLBACK_SUCCESS` is 0).
pub type CallbackCode = c_int;
/// `OTF2_CALLBACK_SUCCESS`.
pub const CALLBACK_SUCCESS: CallbackCode = 0;
/// `OTF2_SUCCESS`.
pub const SUCCESS: ErrorCode = 0;

/// Opaque `OTF2_Reader`.
#[repr(C)]
pub struct OTF2_Reader {
    _private: [u8; 0],
}
/// Opaque `OTF2_GlobalDefReader`.
#[repr(C)]
pub struct OTF2_GlobalDefReader {
    _private: [u8; 0],
}
/// Opaque `OTF2_DefReader`.
#[repr(C)]
pub struct OTF2_DefReader {
    _private: [u8; 0],
}
/// Opaque `OTF2_EvtReader`.
#[repr(C)]
pub struct OTF2_EvtReader {
    _private: [u8; 0],
}
/// Opaque `OTF2_GlobalDefReaderCallbacks`.
#[repr(C)]
pub struct OTF2_GlobalDefReaderCallbacks {
    _private: [u8; 0],
}
/// Opaque `OTF2_EvtReaderCallbacks`.
#[repr(C)]
pub struct OTF2_EvtReaderCallbacks {
    _private: [u8; 0],
}
/// Opaque `OTF2_AttributeList` (never looked into).
#[repr(C)]
pub struct OTF2_AttributeList {
    _private: [u8; 0],
}

/// `OTF2_ErrorCallback`: the `va_list` is passed on as the pointer it decays to.
pub type ErrorCallback = unsafe extern "C" fn(
    user: *mut c_void,
    file: *const c_char,
    line: u64,
    function: *const c_char,
    code: ErrorCode,
    format: *const c_char,
    args: *mut c_void,
) -> ErrorCode;

/// `OTF2_GlobalDefReaderCallback_ClockProperties`.
pub type ClockPropertiesCb = unsafe extern "C" fn(*mut c_void, u64, u64, u64, u64) -> CallbackCode;
/// `OTF2_GlobalDefReaderCallback_String`.
pub type StringCb = unsafe extern "C" fn(*mut c_void, u32, *const c_char) -> CallbackCode;
/// `OTF2_GlobalDefReaderCallback_Location`.
pub type LocationCb = unsafe extern "C" fn(*mut c_void, u64, u32, u8, u64, u32) -> CallbackCode;
/// `OTF2_GlobalDefReaderCallback_Region`.
pub type RegionCb = unsafe extern "C" fn(*mut c_void, u32, u32, u32, u32, u8, u8, u32, u32, u32, u32) -> CallbackCode;
/// `OTF2_GlobalDefReaderCallback_Group`.
pub type GroupCb = unsafe extern "C" fn(*mut c_void, u32, u32, u8, u8, u32, u32, *const u64) -> CallbackCode;
/// `OTF2_GlobalDefReaderCallback_Comm`.
pub type CommCb = unsafe extern "C" fn(*mut c_void, u32, u32, u32, u32, u32) -> CallbackCode;
/// `OTF2_GlobalDefReaderCallback_InterComm`.
pub type InterCommCb = unsafe extern "C" fn(*mut c_void, u32, u32, u32, u32, u32, u32) -> CallbackCode;

/// The arguments every event callback starts with: location, time, position in the
/// location's events, user data, attributes.
macro_rules! event_cb {
    ($name:ident $(, $arg:ty)*) => {
        #[doc = concat!("`OTF2_EvtReaderCallback_", stringify!($name), "`.")]
        pub type $name = unsafe extern "C" fn(u64, u64, u64, *mut c_void, *mut OTF2_AttributeList $(, $arg)*) -> CallbackCode;
    };
}
event_cb!(RegionEventCb, u32);
event_cb!(P2pCb, u32, u32, u32, u64);
event_cb!(P2pRequestCb, u32, u32, u32, u64, u64);
event_cb!(RequestCb, u64);
event_cb!(BareCb);
event_cb!(CollectiveEndCb, u8, u32, u32, u64, u64);
event_cb!(CollectiveCompleteCb, u8, u32, u32, u64, u64, u64);
event_cb!(MeasurementCb, u8);
event_cb!(FlushCb, u64);

// Linked by build.rs (static, found with pkg-config or otf2-config).
extern "C" {
    pub fn OTF2_Error_RegisterCallback(cb: Option<ErrorCallback>, user: *mut c_void) -> Option<ErrorCallback>;
    pub fn OTF2_Error_GetName(code: ErrorCode) -> *const c_char;
    pub fn OTF2_Error_GetDescription(code: ErrorCode) -> *const c_char;

    pub fn OTF2_Reader_Open(anchor: *const c_char) -> *mut OTF2_Reader;
    pub fn OTF2_Reader_SetSerialCollectiveCallbacks(r: *mut OTF2_Reader) -> ErrorCode;
    pub fn OTF2_Reader_GetNumberOfLocations(r: *mut OTF2_Reader, n: *mut u64) -> ErrorCode;
    pub fn OTF2_Reader_GetGlobalDefReader(r: *mut OTF2_Reader) -> *mut OTF2_GlobalDefReader;
    pub fn OTF2_Reader_RegisterGlobalDefCallbacks(
        r: *mut OTF2_Reader,
        d: *mut OTF2_GlobalDefReader,
        cbs: *const OTF2_GlobalDefReaderCallbacks,
        user: *mut c_void,
    ) -> ErrorCode;
    pub fn OTF2_Reader_ReadAllGlobalDefinitions(
        r: *mut OTF2_Reader,
        d: *mut OTF2_GlobalDefReader,
        read: *mut u64,
    ) -> ErrorCode;
    pub fn OTF2_Reader_SelectLocation(r: *mut OTF2_Reader, loc: u64) -> ErrorCode;
    pub fn OTF2_Reader_OpenDefFiles(r: *mut OTF2_Reader) -> ErrorCode;
    pub fn OTF2_Reader_CloseDefFiles(r: *mut OTF2_Reader) -> ErrorCode;
    pub fn OTF2_Reader_OpenEvtFiles(r: *mut OTF2_Reader) -> ErrorCode;
    pub fn OTF2_Reader_GetDefReader(r: *mut OTF2_Reader, loc: u64) -> *mut OTF2_DefReader;
    pub fn OTF2_Reader_ReadAllLocalDefinitions(
        r: *mut OTF2_Reader,
        d: *mut OTF2_DefReader,
        read: *mut u64,
    ) -> ErrorCode;
    pub fn OTF2_Reader_CloseDefReader(r: *mut OTF2_Reader, d: *mut OTF2_DefReader) -> ErrorCode;
    pub fn OTF2_Reader_GetEvtReader(r: *mut OTF2_Reader, loc: u64) -> *mut OTF2_EvtReader;
    pub fn OTF2_Reader_RegisterEvtCallbacks(
        r: *mut OTF2_Reader,
        e: *mut OTF2_EvtReader,
        cbs: *const OTF2_EvtReaderCallbacks,
        user: *mut c_void,
    ) -> ErrorCode;
    pub fn OTF2_Reader_ReadLocalEvents(
        r: *mut OTF2_Reader,
        e: *mut OTF2_EvtReader,
        n: u64,
        read: *mut u64,
    ) -> ErrorCode;

    pub fn OTF2_GlobalDefReaderCallbacks_New() -> *mut OTF2_GlobalDefReaderCallbacks;
    pub fn OTF2_GlobalDefReaderCallbacks_Delete(c: *mut OTF2_GlobalDefReaderCallbacks);
    pub fn OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(
        c: *mut OTF2_GlobalDefReaderCallbacks,
        f: Option<ClockPropertiesCb>,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetStringCallback(
        c: *mut OTF2_GlobalDefReaderCallbacks,
        f: Option<StringCb>,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetLocationCallback(
        c: *mut OTF2_GlobalDefReaderCallbacks,
        f: Option<LocationCb>,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetRegionCallback(
        c: *mut OTF2_GlobalDefReaderCallbacks,
        f: Option<RegionCb>,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetGroupCallback(
        c: *mut OTF2_GlobalDefReaderCallbacks,
        f: Option<GroupCb>,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetCommCallback(
        c: *mut OTF2_GlobalDefReaderCallbacks,
        f: Option<CommCb>,
    ) -> ErrorCode;
    pub fn OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(
        c: *mut OTF2_GlobalDefReaderCallbacks,
        f: Option<InterCommCb>,
    ) -> ErrorCode;

    pub fn OTF2_EvtReaderCallbacks_New() -> *mut OTF2_EvtReaderCallbacks;
    pub fn OTF2_EvtReaderCallbacks_Delete(c: *mut OTF2_EvtReaderCallbacks);
    pub fn OTF2_EvtReaderCallbacks_SetEnterCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<RegionEventCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetLeaveCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<RegionEventCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiSendCallback(c: *mut OTF2_EvtReaderCallbacks, f: Option<P2pCb>) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiIsendCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<P2pRequestCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<RequestCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<RequestCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiRecvCallback(c: *mut OTF2_EvtReaderCallbacks, f: Option<P2pCb>) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<P2pRequestCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<RequestCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<RequestCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<BareCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<CollectiveEndCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<RequestCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<CollectiveCompleteCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetBufferFlushCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<FlushCb>,
    ) -> ErrorCode;
    pub fn OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(
        c: *mut OTF2_EvtReaderCallbacks,
        f: Option<MeasurementCb>,
    ) -> ErrorCode;
}

extern "C" {
    /// C's `vsnprintf`, to format the library's error messages (the `va_list` as above).
    pub fn vsnprintf(buf: *mut c_char, size: usize, format: *const c_char, args: *mut c_void) -> c_int;
}
