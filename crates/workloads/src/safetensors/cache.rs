//! Headers read once per file version: the collection-time annotator asks again every refresh,
//! and a header only changes when the file does (same path, length and modification time).

use super::{read_header, read_model_with, Header, Model, SafetensorsError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

/// Files remembered, and the header text they came from; past either the cache starts over (a
/// machine with more model files than this open at once re-reads headers, which stays correct).
/// The byte bound keeps a long-running collector's memory in proportion: one header may be
/// 100 MB of JSON.
const MAX_ENTRIES: usize = 4096;
const MAX_HEADER_BYTES: u64 = 64 << 20;

type Key = (PathBuf, u64, Option<SystemTime>);

#[derive(Default)]
struct Cache {
    headers: HashMap<Key, Header>,
    bytes: u64,
}

fn cache() -> &'static Mutex<Cache> {
    static C: OnceLock<Mutex<Cache>> = OnceLock::new();
    C.get_or_init(Default::default)
}

/// [`read_header`] through the cache.
pub fn cached_header(path: &Path) -> Result<Header, SafetensorsError> {
    let md = std::fs::metadata(path).map_err(|e| SafetensorsError {
        path: path.to_path_buf(),
        what: format!("cannot read: {e}"),
    })?;
    let key = (path.to_path_buf(), md.len(), md.modified().ok());
    if let Some(h) = cache()
        .lock()
        .ok()
        .and_then(|c| c.headers.get(&key).cloned())
    {
        return Ok(h);
    }
    let h = read_header(path)?;
    if let Ok(mut c) = cache().lock() {
        if c.headers.len() >= MAX_ENTRIES || c.bytes + h.header_bytes > MAX_HEADER_BYTES {
            *c = Cache::default();
        }
        if h.header_bytes <= MAX_HEADER_BYTES {
            c.bytes += h.header_bytes;
            c.headers.insert(key, h.clone());
        }
    }
    Ok(h)
}

/// [`super::read_model`] with every header through the cache.
pub fn cached_model(path: &Path) -> Result<Model, SafetensorsError> {
    read_model_with(path, &|p| cached_header(p))
}
