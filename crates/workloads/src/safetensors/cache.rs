//! Headers read once per file version: the collection-time annotator asks again every refresh,
//! and a header only changes when the file does. A file is known by what it is (device and
//! inode), not by the name it was reached through, so a thousand links to one file are one
//! entry; its length and modification time say when it changed. A refusal that the unchanged
//! file would earn again (not safetensors, over a budget of one file) is remembered too, so a
//! hostile file costs one read, not one per refresh.

use super::{err, read_open, ErrorKind, Header, Round, SafetensorsError};
use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

/// Files remembered, and the bytes their entries keep; past either the cache starts over (a
/// machine with more model files than this open at once re-reads headers, which stays correct).
/// An entry keeps totals, not the header: a few hundred bytes.
const MAX_ENTRIES: usize = 4096;
const MAX_KEPT_BYTES: u64 = 4 << 20;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Id {
    Node(u64, u64),
    /// Where the platform gives no inode: the resolved path.
    Path(PathBuf),
}

type Key = (Id, u64, Option<SystemTime>);

/// What is kept of one file: its header's totals (the path left out: it is the name asked
/// through, given back), or the refusal it earned.
type Entry = Result<Header, (ErrorKind, String)>;

/// How much the cache holds, and how many headers it has parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    pub entries: usize,
    /// Bytes the entries keep (their own size, the per-dtype totals, refusal messages).
    pub kept_bytes: u64,
    /// Headers parsed since the cache was made (hits and remembered refusals cost none).
    pub parses: u64,
}

#[derive(Default)]
struct Inner {
    map: HashMap<Key, Entry>,
    stats: CacheStats,
}

/// Headers by file identity, bounded in entries and bytes.
#[derive(Default)]
pub struct HeaderCache {
    inner: Mutex<Inner>,
}

/// Bytes one entry keeps.
fn kept(key: &Key, e: &Entry) -> u64 {
    let own = std::mem::size_of::<Key>() + std::mem::size_of::<Entry>();
    let path = match &key.0 {
        Id::Path(p) => p.as_os_str().len(),
        Id::Node(..) => 0,
    };
    let extra = match e {
        Ok(h) => h.by_dtype.len() * std::mem::size_of::<(super::Dtype, u64)>(),
        Err((_, what)) => what.len(),
    };
    (own + path + extra) as u64
}

impl HeaderCache {
    pub fn new() -> HeaderCache {
        HeaderCache::default()
    }

    /// The process-wide cache the collector and `explain` use.
    pub fn global() -> &'static HeaderCache {
        static C: OnceLock<HeaderCache> = OnceLock::new();
        C.get_or_init(HeaderCache::new)
    }

    pub fn stats(&self) -> CacheStats {
        self.inner.lock().map(|i| i.stats).unwrap_or_default()
    }

    /// The header of the open file `f` (reached as `shown`): remembered, or read within the
    /// round's budget and remembered with its refusal when the same file would earn it again.
    pub(super) fn header(
        &self,
        f: File,
        md: &Metadata,
        shown: &Path,
        round: &Round,
    ) -> Result<Header, SafetensorsError> {
        let id = match crate::confine::identity(md) {
            Some((dev, ino)) => Id::Node(dev, ino),
            None => Id::Path(shown.to_path_buf()),
        };
        let key = (id, md.len(), md.modified().ok());
        let known = self
            .inner
            .lock()
            .ok()
            .and_then(|i| i.map.get(&key).cloned());
        let entry = match known {
            Some(e) => e,
            None => {
                round
                    .admit()
                    .map_err(|w| err(shown, ErrorKind::Round, format!("skipped: {w}")))?;
                let read = read_open(f, md.len(), shown, round.budget(), Some(round), false);
                let entry = match read {
                    Ok((mut h, _)) => {
                        h.path = PathBuf::new();
                        Ok(h)
                    }
                    Err(e) => Err((e.kind, e.what)),
                };
                self.store(key, &entry);
                entry
            }
        };
        match entry {
            Ok(mut h) => {
                h.path = shown.to_path_buf();
                Ok(h)
            }
            Err((kind, what)) => Err(err(shown, kind, what)),
        }
    }

    /// Count one parse; remember its entry unless it may change on its own (round, I/O).
    fn store(&self, key: Key, e: &Entry) {
        let Ok(mut i) = self.inner.lock() else {
            return;
        };
        i.stats.parses += 1;
        if let Err((kind, _)) = e {
            if !kind.lasts() {
                return;
            }
        }
        let size = kept(&key, e);
        if i.map.len() >= MAX_ENTRIES || i.stats.kept_bytes + size > MAX_KEPT_BYTES {
            i.map.clear();
            i.stats.kept_bytes = 0;
        }
        i.stats.kept_bytes += size;
        i.map.insert(key, e.clone());
        i.stats.entries = i.map.len();
    }
}
