//! Headers read once per file version: the collection-time annotator asks again every refresh,
//! and a header only changes when the file does (same path, length and modification time).

use super::{read_header, read_model_with, Header, Model, SafetensorsError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

/// Files remembered; past this the cache starts over (a machine with more model files than this
/// open at once re-reads headers, which stays correct).
const MAX_ENTRIES: usize = 4096;

type Key = (PathBuf, u64, Option<SystemTime>);

fn cache() -> &'static Mutex<HashMap<Key, Header>> {
    static C: OnceLock<Mutex<HashMap<Key, Header>>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(HashMap::new()))
}

/// [`read_header`] through the cache.
pub fn cached_header(path: &Path) -> Result<Header, SafetensorsError> {
    let md = std::fs::metadata(path).map_err(|e| SafetensorsError {
        path: path.to_path_buf(),
        what: format!("cannot read: {e}"),
    })?;
    let key = (path.to_path_buf(), md.len(), md.modified().ok());
    if let Some(h) = cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(h);
    }
    let h = read_header(path)?;
    if let Ok(mut c) = cache().lock() {
        if c.len() >= MAX_ENTRIES {
            c.clear();
        }
        c.insert(key, h.clone());
    }
    Ok(h)
}

/// [`super::read_model`] with every header through the cache.
pub fn cached_model(path: &Path) -> Result<Model, SafetensorsError> {
    read_model_with(path, &|p| cached_header(p))
}
