//! Any byte string as a GGUF file: the reader returns a header or an error, never panics or
//! allocates without bound; a header that parses also goes through the recipe and the renderer.
#![no_main]

use std::io::Cursor;
use std::path::Path;

use gpuledger_workloads::gguf::{parse, GgufModel, ReadOptions};
use gpuledger_views::estimate::render_text;
use gpuledger_workloads::{estimate, LlamaSettings};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    if let Ok(f) = parse(Cursor::new(data), len, Path::new("fuzz.gguf"), &ReadOptions::default()) {
        let m = GgufModel { parts: vec![f] };
        if let Ok(e) = estimate(&m, &LlamaSettings::default()) {
            let _ = render_text(&e);
        }
    }
});
