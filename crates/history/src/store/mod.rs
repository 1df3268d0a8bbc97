//! The recording: samples of device and per-process usage in SQLite.
//!
//! Layout (schema version in `PRAGMA user_version`, migrated forward on open):
//! - `devices`, `processes`, `strings`: each device, process (pid, start time, name, user, redacted
//!   command line) and source/reason string stored once and referenced by id;
//! - `device_samples`: one row per device per sample (memory, utilisation, temperature, power);
//! - `samples`: one row per sample holding the process usage as a compact frame (see [`frame`]).
//!
//! - `samples.ext` (schema 2): the fields only some sources report (system memory, busy % per
//!   engine type) as a second frame, NULL when nothing changed.
//! - `processes.about` (schema 3): what the process was identified as (workload, estimate, C/G
//!   per device) as JSON, the last one seen, rewritten when it changes ([`about`]).
//!
//! The recorder writes each flush in one transaction (by default `record` flushes every sample);
//! the database is in WAL mode with `synchronous = NORMAL`, so a recorder killed mid-write
//! leaves every committed sample readable and a commit costs no fsync.
//!
//! Writing is `recorder` (its SQL per table in `write`), reading rows back `reader`, a snapshot
//! at a moment `replay`; the frame codec is [`frame`] and the one-recorder-per-file lock [`lock`].

pub mod about;
pub mod frame;
pub mod lock;
mod reader;
mod recorder;
mod replay;
mod write;

use reader::{check_ts, get_u64};
pub use reader::{DeviceRow, ProcRow, Query, Reader, RecordedDevice, RecordedProcess, Skipped};
pub use recorder::{Kept, Pruned, Recorder};
pub use replay::not_kept_note;
pub use write::DeviceVals;

use crate::time::format_ms;
use frame::{ExtState, Extra, State, Vals, KEYFRAME_EVERY};
use gpuledger_model::{
    balance, redact_arg_list, redact_text, Device, Host, Process, Snapshot, SourceState,
    SourceStatus, Usage, Vendor,
};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};

pub use lock::{LockError, RecorderLock};

/// `processes.last_ms` is written when it has moved this far (and exactly at stop and before a
/// prune): with a commit per sample, updating 200 rows every sample was most of its cost.
/// Pruning keeps this much slack, so a row is never dropped while a kept sample names it.
const LAST_SEEN_STEP_MS: i64 = 10_000;

/// The schema this build writes; the database's `user_version` after migration.
pub const SCHEMA_VERSION: i64 = 3;

/// Migration `i` takes a database from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE strings(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
CREATE TABLE devices(
    id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, idx INTEGER NOT NULL, vendor TEXT NOT NULL,
    name TEXT, total_bytes INTEGER, source TEXT NOT NULL);
CREATE TABLE processes(
    id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, start_time INTEGER, name TEXT, user TEXT,
    cmdline TEXT, first_ms INTEGER NOT NULL, last_ms INTEGER NOT NULL);
CREATE INDEX processes_last ON processes(last_ms);
CREATE TABLE samples(ts INTEGER PRIMARY KEY, keyframe INTEGER NOT NULL, procs BLOB NOT NULL);
CREATE TABLE device_samples(
    ts INTEGER NOT NULL, device INTEGER NOT NULL, used INTEGER, free INTEGER, gpu INTEGER,
    mem_util INTEGER, temp INTEGER, power_mw INTEGER, PRIMARY KEY(ts, device)) WITHOUT ROWID;
INSERT INTO meta VALUES('application', 'gpuledger');
",
    "
ALTER TABLE samples ADD COLUMN ext BLOB;
ALTER TABLE device_samples ADD COLUMN sys_total INTEGER;
ALTER TABLE device_samples ADD COLUMN sys_used INTEGER;
",
    "
ALTER TABLE processes ADD COLUMN about TEXT;
",
];

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `msg` already carries SQLite's words: the error is not also chained as a source, which
    /// printed them twice.
    #[error("{path}: {msg}")]
    Db {
        path: String,
        /// A sentence the CLI says in its reader's language ([`StoreError::in_lang`]); boxed,
        /// as every store call returns this error.
        msg: Box<gpuledger_lang::Said>,
        sqlite: Option<rusqlite::Error>,
    },
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("{path}: {0}", path = .1)]
    Frame(frame::FrameError, String),
}

type Result<T> = std::result::Result<T, StoreError>;

impl StoreError {
    /// The error in `lang`: its sentence where it has one, the rest as written.
    pub fn in_lang(&self, lang: gpuledger_lang::Lang) -> String {
        match self {
            StoreError::Db { path, msg, .. } => format!("{path}: {}", msg.in_lang(lang)),
            other => other.to_string(),
        }
    }
}

fn db_err<'a>(path: &'a Path, what: &str) -> impl Fn(rusqlite::Error) -> StoreError + 'a {
    let what = what.to_string();
    move |e| {
        use rusqlite::Error as E;
        let msg = match &e {
            E::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase => {
                "not a gpuledger recording (not an SQLite database)".to_string()
            }
            // Our own words from `col`, which names the column.
            E::FromSqlConversionFailure(_, _, inner) => format!("{what}: {inner}"),
            E::InvalidColumnType(_, name, ty) => {
                format!("{what}: column {name} holds {ty} (a damaged or edited recording)")
            }
            _ => format!("{what}: {e}"),
        };
        StoreError::Db {
            path: path.display().to_string(),
            msg: Box::new(msg.into()),
            sqlite: Some(e),
        }
    }
}

fn fail(path: &Path, msg: impl Into<gpuledger_lang::Said>) -> StoreError {
    StoreError::Db {
        path: path.display().to_string(),
        msg: Box::new(msg.into()),
        sqlite: None,
    }
}

/// A column value whose error names the column (rusqlite names only the index of a value out
/// of range).
fn col<T: rusqlite::types::FromSql>(r: &rusqlite::Row, i: usize) -> rusqlite::Result<T> {
    r.get(i).map_err(|e| match e {
        rusqlite::Error::IntegralValueOutOfRange(i, v) => {
            let name = r.as_ref().column_name(i).unwrap_or("?").to_string();
            rusqlite::Error::FromSqlConversionFailure(
                i,
                rusqlite::types::Type::Integer,
                format!("column {name} holds {v}, out of range (a damaged or edited recording)")
                    .into(),
            )
        }
        e => e,
    })
}

/// Refuse what SQLite cannot sensibly open: a directory ("disk I/O error"), a FIFO or device
/// (opening it blocks or reads forever), a symlink loop (not "no such recording"). `Ok(false)`:
/// the file does not exist. The WAL and shared-memory files beside it are checked too.
fn check_file(path: &Path) -> Result<bool> {
    let exists = match std::fs::metadata(path) {
        Ok(md) if md.is_file() => true,
        Ok(md) => {
            return Err(fail(
                path,
                format!(
                    "is {}, not a recording file",
                    gpuledger_model::files::file_kind(&md.file_type())
                ),
            ))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return Err(fail(path, format!("cannot open: {e}"))),
    };
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut s = path.as_os_str().to_owned();
        s.push(suffix);
        let side = PathBuf::from(s);
        if let Ok(md) = std::fs::metadata(&side) {
            if !md.is_file() {
                return Err(fail(
                    path,
                    format!(
                        "{} is {}, where SQLite keeps the recording's {suffix} file",
                        side.display(),
                        gpuledger_model::files::file_kind(&md.file_type())
                    ),
                ));
            }
        }
    }
    Ok(exists)
}

/// The file's identity (device, inode), to notice that it was deleted or replaced under us.
#[cfg(unix)]
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    path.is_file().then_some((0, 0))
}

/// The default database: `$XDG_DATA_HOME/gpuledger/history.db`, else
/// `~/.local/share/gpuledger/history.db` (Windows: `%LOCALAPPDATA%\gpuledger\history.db`).
pub fn default_db_path() -> Option<PathBuf> {
    Some(gpuledger_model::files::data_dir_with(|k| std::env::var_os(k))?.join("history.db"))
}

/// True when the file starts with the SQLite header (a recording rather than a snapshot JSON).
/// Only a regular file is opened: opening a FIFO would block.
pub fn is_recording(path: &Path) -> bool {
    use std::io::Read;
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && &head == b"SQLite format 3\0"
}

fn check_version(conn: &Connection, path: &Path) -> Result<i64> {
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(db_err(path, "cannot read the schema version"))?;
    if v > SCHEMA_VERSION {
        return Err(fail(
            path,
            format!(
                "recorded by a newer gpuledger (schema {v}; this one reads up to {SCHEMA_VERSION})"
            ),
        ));
    }
    if v > 0 {
        let app: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key='application'", [], |r| {
                r.get(0)
            })
            .optional()
            .unwrap_or(None);
        if app.as_deref() != Some("gpuledger") {
            return Err(fail(
                path,
                "not a gpuledger recording (no gpuledger meta table)",
            ));
        }
    }
    Ok(v)
}

fn migrate(conn: &mut Connection, path: &Path) -> Result<()> {
    let v = check_version(conn, path)?;
    if v == 0 {
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .map_err(db_err(path, "cannot read the schema"))?;
        if tables > 0 {
            return Err(fail(
                path,
                "not a gpuledger recording (an SQLite database with other tables)",
            ));
        }
        // Must precede the first table: lets pruning give pages back to the file system.
        conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL")
            .map_err(db_err(path, "cannot set auto_vacuum"))?;
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(v as usize) {
        let tx = conn
            .transaction()
            .map_err(db_err(path, "cannot start the migration"))?;
        tx.execute_batch(sql)
            .map_err(db_err(path, "schema migration failed"))?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)
            .map_err(db_err(path, "schema migration failed"))?;
        tx.commit()
            .map_err(db_err(path, "schema migration failed"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
