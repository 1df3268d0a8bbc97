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
/// [`super::MAX_HEADER_BYTES`] (100 MB) of JSON, more than this whole budget.
const MAX_ENTRIES: usize = 4096;
const MAX_CACHED_BYTES: u64 = 64 << 20;

type Key = (PathBuf, u64, Option<SystemTime>);

#[derive(Default)]
struct Cache {
    headers: HashMap<Key, Header>,
    bytes: u64,
}

impl Cache {
    /// Remember `h`, starting over when the entries or bytes would pass their bounds. A header
    /// over the whole byte budget is not stored, and does not empty the cache for the others.
    fn store(&mut self, key: Key, h: &Header, max_bytes: u64) {
        if h.header_bytes > max_bytes {
            return;
        }
        if self.headers.len() >= MAX_ENTRIES || self.bytes + h.header_bytes > max_bytes {
            *self = Cache::default();
        }
        self.bytes += h.header_bytes;
        self.headers.insert(key, h.clone());
    }
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
        c.store(key, &h, MAX_CACHED_BYTES);
    }
    Ok(h)
}

/// [`super::read_model`] with every header through the cache.
pub fn cached_model(path: &Path) -> Result<Model, SafetensorsError> {
    read_model_with(path, &|p| cached_header(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, header_bytes: u64) -> (Key, Header) {
        let path = PathBuf::from(name);
        let h = Header {
            path: path.clone(),
            header_bytes,
            file_bytes: header_bytes + 8,
            metadata: Default::default(),
            tensors: Vec::new(),
        };
        ((path, header_bytes + 8, None), h)
    }

    #[test]
    fn a_header_over_the_budget_is_not_stored_and_keeps_the_others() {
        let mut c = Cache::default();
        let (ka, a) = header("a", 40);
        let (kb, b) = header("b", 50);
        c.store(ka.clone(), &a, 100);
        c.store(kb.clone(), &b, 100);
        // Over the whole budget: neither stored nor a reason to forget a and b.
        let (kh, huge) = header("huge", 101);
        c.store(kh.clone(), &huge, 100);
        assert!(!c.headers.contains_key(&kh));
        assert!(c.headers.contains_key(&ka) && c.headers.contains_key(&kb));
        assert_eq!(c.bytes, 90);
        // One that fits the budget but not beside the others starts the cache over.
        let (kc, h) = header("c", 60);
        c.store(kc.clone(), &h, 100);
        assert_eq!(c.headers.len(), 1);
        assert_eq!(c.bytes, 60);
    }
}
