//! Error handlers and error classes: each communicator's handler (MPI_ERRORS_ARE_FATAL
//! unless set; a communicator without one uses MPI_COMM_WORLD's), handlers made from
//! the program's functions, and error classes, codes and strings the program adds.

use crate::client::{entry, Client, Failure};
use crate::env::put_str;
use simpi_wire::abi;
use std::ffi::{c_char, c_int, CStr};

/// The program's error handler function: (communicator, error code, ...).
pub type HandlerFn = unsafe extern "C" fn(*mut usize, *mut c_int);

/// The first handle of an error handler the program makes.
pub const FIRST_HANDLER: u64 = 0x1000;

/// The first error class or code the program adds (above MPI_ERR_LASTCODE).
pub const FIRST_CODE: c_int = 0x4000;

/// What an error on a communicator does.
#[derive(Clone, Copy, Debug)]
pub enum OnError {
    /// Ends the run (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT).
    Abort,
    /// Returns the error code (MPI_ERRORS_RETURN).
    Return,
    /// Calls the program's function, then returns the code.
    Call(HandlerFn),
}

impl Client {
    /// The handler of communicator handle `comm` (or of the world's, if it has none).
    pub fn on_error(&self, comm: u64) -> OnError {
        let h = self
            .errhandlers
            .get(&comm)
            .or_else(|| self.errhandlers.get(&abi::COMM_WORLD))
            .copied()
            .unwrap_or(abi::ERRORS_ARE_FATAL);
        match h {
            abi::ERRORS_RETURN => OnError::Return,
            h => match self.handler_fns.get(&h) {
                Some(&f) => OnError::Call(f),
                None => OnError::Abort,
            },
        }
    }

    pub(crate) fn check_handler(&self, h: usize) -> Result<u64, Failure> {
        match h as u64 {
            h @ (abi::ERRORS_RETURN | abi::ERRORS_ARE_FATAL | abi::ERRORS_ABORT) => Ok(h),
            h if self.handler_fns.contains_key(&h) => Ok(h),
            h => Err((abi::err::ARG, format!("error handler {h:#x} does not exist"))),
        }
    }
}

#[no_mangle]
pub extern "C" fn MPI_Comm_set_errhandler(comm: usize, handler: usize) -> c_int {
    entry("MPI_Comm_set_errhandler", |c| {
        c.comm(comm)?;
        let h = c.check_handler(handler)?;
        c.errhandlers.insert(comm as u64, h);
        Ok(())
    })
}

/// # Safety
/// `handler` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_get_errhandler(comm: usize, handler: *mut usize) -> c_int {
    entry("MPI_Comm_get_errhandler", |c| {
        c.comm(comm)?;
        let h = c
            .errhandlers
            .get(&(comm as u64))
            .or_else(|| c.errhandlers.get(&abi::COMM_WORLD))
            .copied()
            .unwrap_or(abi::ERRORS_ARE_FATAL);
        *handler = h as usize;
        Ok(())
    })
}

/// # Safety
/// `f` is an MPI_Comm_errhandler_function; `handler` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_create_errhandler(f: Option<HandlerFn>, handler: *mut usize) -> c_int {
    entry("MPI_Comm_create_errhandler", |c| {
        let f = f.ok_or((abi::err::ARG, "a null function".to_string()))?;
        let h = c.next_handler;
        c.next_handler += 1;
        c.handler_fns.insert(h, f);
        *handler = h as usize;
        Ok(())
    })
}

/// # Safety
/// `handler` points to a handler.
#[no_mangle]
pub unsafe extern "C" fn MPI_Errhandler_free(handler: *mut usize) -> c_int {
    entry("MPI_Errhandler_free", |c| {
        // Communicators that use it keep it: its function stays known.
        c.check_handler(*handler)?;
        *handler = ERRHANDLER_NULL;
        Ok(())
    })
}

/// MPI_ERRHANDLER_NULL.
const ERRHANDLER_NULL: usize = 0x140;

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_call_errhandler(comm: usize, code: c_int) -> c_int {
    entry("MPI_Comm_call_errhandler", |c| {
        c.comm(comm)?;
        // The handler runs as for an error of the call: through the entry's path.
        Err((code, format!("MPI_Comm_call_errhandler with error code {code}")))
    });
    abi::err::SUCCESS
}

/// The class of error code `code`.
fn class_of(c: Option<&Client>, code: c_int) -> c_int {
    c.and_then(|c| c.codes.get(&code).map(|e| e.0)).unwrap_or(code)
}

/// # Safety
/// `class` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Error_class(code: c_int, class: *mut c_int) -> c_int {
    let mut k = code;
    let known = crate::client::with(|c| k = class_of(Some(c), code));
    if !known {
        k = class_of(None, code);
    }
    *class = k;
    abi::err::SUCCESS
}

/// The text of a predefined error class.
fn predefined_text(code: c_int) -> String {
    match code {
        abi::err::SUCCESS => "no error".to_string(),
        abi::err::BUFFER => "invalid buffer".into(),
        abi::err::COUNT => "invalid count".into(),
        abi::err::TYPE => "invalid datatype".into(),
        abi::err::TAG => "invalid tag".into(),
        abi::err::COMM => "invalid communicator".into(),
        abi::err::RANK => "invalid rank".into(),
        abi::err::REQUEST => "invalid request".into(),
        abi::err::ROOT => "invalid root".into(),
        abi::err::GROUP => "invalid group".into(),
        abi::err::OP => "invalid operation".into(),
        abi::err::TOPOLOGY => "invalid topology".into(),
        abi::err::DIMS => "invalid dimensions".into(),
        abi::err::ARG => "invalid argument".into(),
        abi::err::TRUNCATE => "message truncated".into(),
        abi::err::OTHER => "other error".into(),
        abi::err::INTERN => "internal error".into(),
        abi::err::UNSUPPORTED_OPERATION => "operation not simulated by simpi yet".into(),
        c => format!("MPI error {c}"),
    }
}

/// # Safety
/// `buf` holds MPI_MAX_ERROR_STRING (512) bytes; `len` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Error_string(code: c_int, buf: *mut c_char, len: *mut c_int) -> c_int {
    let mut text = None;
    crate::client::with(|c| text = c.codes.get(&code).map(|e| e.1.clone()));
    put_str(&text.unwrap_or_else(|| predefined_text(code)), buf, 512, len);
    abi::err::SUCCESS
}

/// # Safety
/// `class` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Add_error_class(class: *mut c_int) -> c_int {
    entry("MPI_Add_error_class", |c| {
        let k = c.next_code;
        c.next_code += 1;
        c.codes.insert(k, (k, String::new()));
        *class = k;
        Ok(())
    })
}

/// # Safety
/// `code` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Add_error_code(class: c_int, code: *mut c_int) -> c_int {
    entry("MPI_Add_error_code", |c| {
        if !c.codes.contains_key(&class) && !(0..FIRST_CODE).contains(&class) {
            return Err((abi::err::ARG, format!("error class {class} does not exist")));
        }
        let k = c.next_code;
        c.next_code += 1;
        c.codes.insert(k, (class, String::new()));
        *code = k;
        Ok(())
    })
}

/// # Safety
/// `text` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn MPI_Add_error_string(code: c_int, text: *const c_char) -> c_int {
    entry("MPI_Add_error_string", |c| {
        if text.is_null() {
            return Err((abi::err::ARG, "a null string".into()));
        }
        let t = CStr::from_ptr(text).to_string_lossy().into_owned();
        match c.codes.get_mut(&code) {
            Some(e) => e.1 = t,
            None => return Err((abi::err::ARG, format!("error code {code} was not added"))),
        }
        Ok(())
    })
}
