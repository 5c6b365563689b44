//! The messages a rank's process sends `simpi run` (and back): the simulator decodes
//! bytes written by the user's program into shared memory, so any bytes must decode to
//! a message or an error. A decoded message must encode and decode to itself; so must
//! a new communicator's description, which ranks decode from a reply's data.

use simpi_wire::{NewComm, Reply, Request};

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
    // A new communicator in a reply's data, as a rank reads it.
    if let Ok(c) = NewComm::decode(data) {
        assert_eq!(
            NewComm::decode(&c.encode()),
            Ok(c),
            "a new communicator changed through encode and decode"
        );
    }
}
