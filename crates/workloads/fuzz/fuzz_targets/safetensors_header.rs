//! Any byte string as a safetensors header: the parser returns a header or an error naming the
//! file, never panics or allocates without bound; the index parser likewise.
#![no_main]

use std::path::Path;

use gpuledger_workloads::safetensors::{parse_header, parse_index, parse_tensors};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = Path::new("fuzz.safetensors");
    // The file is "as long as the header plus a few data bytes", so offsets are checked too.
    let file_bytes = data.len() as u64 + 8 + 64;
    let totals = parse_header(data, file_bytes, p);
    if let Ok(h) = &totals {
        // Tensors do not overlap: together they fit in the data.
        assert!(h.tensor_bytes <= 64);
        assert!(h.by_dtype.iter().map(|(_, b)| b).sum::<u64>() == h.tensor_bytes);
    }
    // The walk that keeps every tensor agrees with the one that keeps totals.
    match (parse_tensors(data, file_bytes, p), totals) {
        (Ok(all), Ok(h)) => {
            assert_eq!(all.header, h);
            assert_eq!(all.tensors.len() as u64, h.tensor_count);
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        (a, b) => panic!("the two walks disagree: {a:?} vs {b:?}"),
    }
    let _ = parse_index(data, Path::new("model.safetensors.index.json"));
});
