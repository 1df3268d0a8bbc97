//! One recorder per database file, whatever name reaches it.
//!
//! On Unix the lock is `flock(2)` on the database file itself, so a symlink or a hard link to the
//! same file meets the same lock (a lock on a name did not: two recorders once wrote one file
//! concurrently). The kernel drops it when the holder exits, however it exits (kill -9
//! included), so a stale lock cannot block a new recorder. `flock` and SQLite's own `fcntl`
//! locks are independent on local file systems; the descriptor stays open until the recorder's
//! connection is closed (closing any descriptor of a file drops the process's `fcntl` locks on
//! it). A note `<db>.lock` (also flocked, as older versions lock it) holds the holder's pid and
//! start time for the message; through another name the holder is found in `/proc/locks`
//! (Linux). Elsewhere the fallback is the note created exclusively, per name, which a crash
//! leaves behind: the message says which file to remove.

use std::fs::File;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct RecorderLock {
    /// The database file itself, flocked (Unix).
    _db: Option<File>,
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
        #[cfg(unix)]
        let db_file = Some(lock_db_file(db)?);
        #[cfg(not(unix))]
        let db_file = None;
        let mut file = open(&path, db, io)?;
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        file.write_all(holder.as_bytes()).map_err(io)?;
        file.flush().map_err(io)?;
        Ok(RecorderLock {
            _db: db_file,
            _file: file,
            path,
        })
    }
}

/// `flock` without waiting: `Ok(false)` when another open file holds it.
#[cfg(unix)]
fn try_flock(file: &File, op: libc::c_int) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor we own; no memory is shared with the call.
    if unsafe { libc::flock(file.as_raw_fd(), op | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::EWOULDBLOCK) => Ok(false),
        _ => Err(err),
    }
}

/// Locks the database file itself (created when absent, as SQLite would), so that every name
/// of it meets the same lock.
#[cfg(unix)]
fn lock_db_file(db: &Path) -> Result<File, LockError> {
    let io = |source| LockError::Io {
        path: db.display().to_string(),
        source,
    };
    let file = match File::open(db) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(db),
        other => other,
    }
    .map_err(io)?;
    if try_flock(&file, libc::LOCK_EX).map_err(io)? {
        return Ok(file);
    }
    Err(LockError::Held {
        db: db.display().to_string(),
        holder: holder_of(db, &file),
    })
}

/// Who holds the database: the note of a recorder that is still running (beside this name or
/// beside the file's real path), else the kernel's list of locks (Linux), else unknown.
#[cfg(unix)]
fn holder_of(db: &Path, file: &File) -> String {
    use std::io::Read;
    let notes = [
        Some(lock_path(db)),
        std::fs::canonicalize(db).ok().map(|p| lock_path(&p)),
    ];
    for note in notes.into_iter().flatten() {
        let Ok(mut f) = File::open(&note) else {
            continue;
        };
        // A note nobody holds is left from a recorder that ended: not the holder.
        if try_flock(&f, libc::LOCK_SH).unwrap_or(true) {
            continue;
        }
        let mut text = String::new();
        let _ = (&mut f).take(512).read_to_string(&mut text);
        if !text.trim().is_empty() {
            return text.trim().to_string();
        }
    }
    let another = "through another name for this file (a symlink or a hard link)";
    match flock_holder(file) {
        Some(pid) => format!("pid {pid}, {another}"),
        None => format!("holder unknown, {another}"),
    }
}

/// The pid holding a write `flock` on `file`, from `/proc/locks`
/// (`1: FLOCK  ADVISORY  WRITE 1234 fe:00:5825261 0 EOF`: major and minor in hex, the inode).
#[cfg(unix)]
fn flock_holder(file: &File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let md = file.metadata().ok()?;
    #[cfg(target_os = "linux")]
    let (major, minor) = (libc::major(md.dev()), libc::minor(md.dev()));
    #[cfg(not(target_os = "linux"))]
    let (major, minor): (u32, u32) = (u32::MAX, u32::MAX);
    let id = format!("{major:02x}:{minor:02x}:{}", md.ino());
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        let i = w.iter().position(|x| *x == "FLOCK")?;
        (w.get(i + 2) == Some(&"WRITE") && w.get(i + 4) == Some(&id.as_str()))
            .then(|| w.get(i + 3)?.parse().ok())
            .flatten()
    })
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
