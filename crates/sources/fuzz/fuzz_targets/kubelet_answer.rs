//! Any byte string as what the kubelet's socket answers a `List` call: the HTTP/2 client, its
//! HPACK decoder, the gRPC status and the protobuf decoder return pods or an error, never panic,
//! never allocate without bound, and never put a control character (a forged line, an escape
//! sequence) into the error text the table's notes show.
#![no_main]

use gpuledger_sources::owner::kubelet::list_from_server_bytes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = list_from_server_bytes(data) {
        assert!(!e.chars().any(char::is_control), "control character in {e:?}");
    }
});
