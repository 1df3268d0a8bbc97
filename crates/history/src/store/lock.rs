//! One recorder per database: an advisory lock on `<db>.lock`.
//!
//! On Unix the lock is `flock(2)`: the kernel drops it when the holder exits, however it exits
//! (kill -9 included), so a stale lock cannot block a new recorder; the file's contents (pid,
//! start time) only serve the message that names the live holder. Elsewhere the fallback is a lock
//! file created exclusively, which a crash leaves behind: the message says which file to remove.

use std::fs::File;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct RecorderLock {
    _file: File,
    path: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{db}: another gpuledger recorder is writing to this database ({holder}); stop it first, or record into another file with --db")]
    Held { db: String, holder: String },
    #[error("{path}: cannot create the recorder lock file: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

pub fn lock_path(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

impl RecorderLock {
    /// Take the lock for `db`, writing `holder` (e.g. `pid 1234 since 2026-...`) into it.
    pub fn acquire(db: &Path, holder: &str) -> Result<Self, LockError> {
        let path = lock_path(db);
        let io = |source| LockError::Io {
            path: path.display().to_string(),
            source,
        };
        let mut file = open(&path, db, io)?;
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        file.write_all(holder.as_bytes()).map_err(io)?;
        file.flush().map_err(io)?;
        Ok(RecorderLock { _file: file, path })
    }
}

#[cfg(unix)]
fn open(
    path: &Path,
    db: &Path,
    io: impl Fn(std::io::Error) -> LockError,
) -> Result<File, LockError> {
    use std::io::Read;
    use std::os::unix::io::AsRawFd;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(&io)?;
    // SAFETY: flock on a descriptor we own; no memory is shared with the call.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc != 0 {
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
            let mut holder = String::new();
            let _ = (&mut file).take(512).read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(LockError::Held {
                db: db.display().to_string(),
                holder: if holder.is_empty() {
                    "holder unknown".into()
                } else {
                    holder.to_string()
                },
            });
        }
        return Err(io(err));
    }
    Ok(file)
}

#[cfg(not(unix))]
fn open(
    path: &Path,
    db: &Path,
    io: impl Fn(std::io::Error) -> LockError,
) -> Result<File, LockError> {
    match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(f) => Ok(f),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let holder = std::fs::read_to_string(path).unwrap_or_default();
            Err(LockError::Held {
                db: db.display().to_string(),
                holder: format!(
                    "{}; if no recorder is running, delete {}",
                    holder.trim(),
                    path.display()
                ),
            })
        }
        Err(e) => Err(io(e)),
    }
}

impl Drop for RecorderLock {
    fn drop(&mut self) {
        // Unix: the lock goes with the descriptor; the file may stay. Elsewhere the file is the lock.
        #[cfg(not(unix))]
        let _ = std::fs::remove_file(&self.path);
        #[cfg(unix)]
        let _ = &self.path;
    }
}
