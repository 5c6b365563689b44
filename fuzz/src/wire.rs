//! The messages a rank's process sends `simpi run` (and back): the simulator decodes
//! bytes written by the user's program into shared memory, so any bytes must decode to
//! a message or an error. A decoded message must encode and decode to itself.

use simpi_wire::{Reply, Request};

/// Decodes `data` both as a request and as a reply.
pub fn wire(data: &[u8]) {
    if let Ok(q) = Request::decode(data) {
        let again = Request::decode(&q.encode()).expect("an encoded request decodes");
        assert_eq!(again, q, "a request changed through encode and decode");
    }
    if let Ok(r) = Reply::decode(data) {
        let bytes = r.encode();
        let again = Reply::decode(&bytes).expect("an encoded reply decodes");
        // Compared as bytes: a NaN compute scale is not equal to itself.
        assert_eq!(again.encode(), bytes, "a reply changed through encode and decode");
    }
}
