//! Any byte string as a safetensors header: the parser returns a header or an error naming the
//! file, never panics or allocates without bound; the index parser likewise.
#![no_main]

use std::path::Path;

use gpuledger_workloads::safetensors::{parse_header, parse_index};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = Path::new("fuzz.safetensors");
    // The file is "as long as the header plus a few data bytes", so offsets are checked too.
    if let Ok(h) = parse_header(data, data.len() as u64 + 8 + 64, p) {
        assert!(h.tensor_bytes() <= 64);
    }
    let _ = parse_index(data, Path::new("model.safetensors.index.json"));
});
