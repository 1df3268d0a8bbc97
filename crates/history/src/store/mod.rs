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
//!
//! The recorder writes each flush in one transaction (by default `record` flushes every sample);
//! the database is in WAL mode with `synchronous = NORMAL`, so a recorder killed mid-write
//! leaves every committed sample readable and a commit costs no fsync.

pub mod frame;
pub mod lock;

use crate::time::format_ms;
use frame::{ExtState, Extra, State, Vals, KEYFRAME_EVERY};
use gpuledger_model::{
    balance, redact_arg_list, Device, Host, Process, Snapshot, SourceState, SourceStatus, Usage,
    Vendor,
};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub use lock::{LockError, RecorderLock};

/// `processes.last_ms` is written when it has moved this far (and exactly at stop and before a
/// prune): with a commit per sample, updating 200 rows every sample was most of its cost.
/// Pruning keeps this much slack, so a row is never dropped while a kept sample names it.
const LAST_SEEN_STEP_MS: i64 = 10_000;

/// The schema this build writes; the database's `user_version` after migration.
pub const SCHEMA_VERSION: i64 = 2;

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
];

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `msg` already carries SQLite's words: the error is not also chained as a source, which
    /// printed them twice.
    #[error("{path}: {msg}")]
    Db {
        path: String,
        msg: String,
        sqlite: Option<rusqlite::Error>,
    },
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("{path}: {0}", path = .1)]
    Frame(frame::FrameError, String),
}

type Result<T> = std::result::Result<T, StoreError>;

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
            msg,
            sqlite: Some(e),
        }
    }
}

fn fail(path: &Path, msg: impl Into<String>) -> StoreError {
    StoreError::Db {
        path: path.display().to_string(),
        msg: msg.into(),
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

/// What was pruned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pruned {
    pub samples: usize,
    pub device_samples: usize,
    pub processes: usize,
}

struct Pending {
    ts: i64,
    keyframe: bool,
    blob: Vec<u8>,
    ext: Option<Vec<u8>>,
    devices: Vec<(u32, DeviceVals)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeviceVals {
    pub used: Option<u64>,
    pub free: Option<u64>,
    pub gpu: Option<u32>,
    pub mem_util: Option<u32>,
    pub temp: Option<i32>,
    pub power_mw: Option<u64>,
    /// System memory (GTT / shared) the device uses and may use, where the source reports it.
    pub sys_total: Option<u64>,
    pub sys_used: Option<u64>,
}

/// (pid, start time) → (name, id): the name rides along so a lookup does not allocate.
type ProcIdent = (u32, Option<u64>);

/// Writes samples. Holds the recorder lock for its lifetime.
pub struct Recorder {
    conn: Connection,
    path: PathBuf,
    _lock: RecorderLock,
    strings: HashMap<String, u32>,
    devices: HashMap<String, (u32, Option<u64>, Option<String>)>,
    procs: HashMap<ProcIdent, (Option<String>, u32)>,
    next_proc: u32,
    next_string: u32,
    next_device: u32,
    prev: Option<State>,
    prev_ext: ExtState,
    since_key: u32,
    last_ts: i64,
    pending: Vec<Pending>,
    new_strings: Vec<(u32, String)>,
    new_devices: Vec<(u32, Device)>,
    new_procs: Vec<(u32, Process, i64)>,
    seen: HashMap<u32, i64>,
    /// The `last_ms` each process row holds now.
    last_written: HashMap<u32, i64>,
    host: Option<Host>,
    /// (device, inode) of the database when opened: a file deleted or replaced under a running
    /// recorder must stop it, not let it report samples that went nowhere.
    identity: Option<(u64, u64)>,
    /// Set once the file is found gone: nothing more is written, not even on drop.
    lost: bool,
}

fn i(v: Option<u64>) -> Option<i64> {
    v.map(|x| x.min(i64::MAX as u64) as i64)
}

impl Recorder {
    /// Open (creating and migrating as needed) and lock `path` for recording.
    pub fn open(path: &Path) -> Result<Self> {
        check_file(path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                fail(
                    path,
                    format!("cannot create the directory {}: {e}", dir.display()),
                )
            })?;
        }
        let holder = format!(
            "gpuledger record, pid {}, since {}",
            std::process::id(),
            format_ms(crate::time::now_ms())
        );
        let lock = RecorderLock::acquire(path, &holder)?;
        let mut conn = Connection::open(path).map_err(db_err(path, "cannot open"))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(db_err(path, "cannot open"))?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(db_err(path, "cannot switch to WAL"))?;
        if mode != "wal" {
            return Err(fail(
                path,
                format!("cannot switch to WAL (journal mode {mode})"),
            ));
        }
        // WAL + NORMAL: a crash loses at most the last commit, never the database.
        conn.execute_batch("PRAGMA synchronous = NORMAL")
            .map_err(db_err(path, "cannot set synchronous"))?;
        migrate(&mut conn, path)?;

        let mut r = Recorder {
            conn,
            path: path.to_path_buf(),
            _lock: lock,
            strings: HashMap::new(),
            devices: HashMap::new(),
            procs: HashMap::new(),
            next_proc: 1,
            next_string: 1,
            next_device: 1,
            prev: None,
            prev_ext: ExtState::new(),
            since_key: 0,
            last_ts: i64::MIN,
            pending: Vec::new(),
            new_strings: Vec::new(),
            new_devices: Vec::new(),
            new_procs: Vec::new(),
            seen: HashMap::new(),
            last_written: HashMap::new(),
            host: None,
            identity: file_identity(path),
            lost: false,
        };
        r.load_ids()?;
        Ok(r)
    }

    fn load_ids(&mut self) -> Result<()> {
        let p = self.path.clone();
        let e = db_err(&p, "cannot read the recording");
        {
            let mut st = self
                .conn
                .prepare("SELECT id, text FROM strings")
                .map_err(&e)?;
            let rows = st
                .query_map([], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?)))
                .map_err(&e)?;
            for row in rows {
                let (id, text) = row.map_err(&e)?;
                self.next_string = self.next_string.max(id + 1);
                self.strings.insert(text, id);
            }
            let mut st = self
                .conn
                .prepare("SELECT id, uuid, total_bytes, name FROM devices")
                .map_err(&e)?;
            let rows = st
                .query_map([], |r| {
                    Ok((
                        r.get::<_, u32>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, Option<i64>>(2)?,
                        r.get::<_, Option<String>>(3)?,
                    ))
                })
                .map_err(&e)?;
            for row in rows {
                let (id, uuid, total, name) = row.map_err(&e)?;
                self.next_device = self.next_device.max(id + 1);
                self.devices
                    .insert(uuid, (id, total.map(|t| t as u64), name));
            }
        }
        self.load_procs()?;
        let last: Option<i64> = self
            .conn
            .query_row("SELECT max(ts) FROM samples", [], |r| r.get(0))
            .map_err(&e)?;
        if let Some(t) = last.filter(|t| !crate::time::in_range(*t)) {
            // Timestamps are kept increasing: every new sample would land on this one.
            return Err(fail(
                &self.path,
                format!(
                    "the last sample is timed {} (a damaged recording or a wrong clock); record into another file with --db",
                    format_ms(t)
                ),
            ));
        }
        self.last_ts = last.unwrap_or(i64::MIN);
        Ok(())
    }

    /// Process identities from the table: a process still running across a recorder restart
    /// keeps its row; after pruning, rows that went are forgotten here too.
    fn load_procs(&mut self) -> Result<()> {
        let p = self.path.clone();
        let e = db_err(&p, "cannot read the recording");
        self.procs.clear();
        let mut st = self
            .conn
            .prepare("SELECT id, pid, start_time, name FROM processes")
            .map_err(&e)?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, u32>(0)?,
                    r.get::<_, u32>(1)?,
                    get_u64(r, 2)?,
                    r.get::<_, Option<String>>(3)?,
                ))
            })
            .map_err(&e)?;
        for row in rows {
            let (id, pid, start, name) = row.map_err(&e)?;
            self.next_proc = self.next_proc.max(id + 1);
            self.procs.insert((pid, start), (name, id));
        }
        Ok(())
    }

    fn string_id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.strings.get(s) {
            return id;
        }
        let id = self.next_string;
        self.next_string += 1;
        self.strings.insert(s.to_string(), id);
        self.new_strings.push((id, s.to_string()));
        id
    }

    fn device_id(&mut self, d: &Device) -> u32 {
        if let Some((id, total, name)) = self.devices.get(&d.uuid) {
            if *total == d.memory.total_bytes && *name == d.name {
                return *id;
            }
            let id = *id;
            // Same device, new facts (total now known): update the row at the next flush.
            self.devices
                .insert(d.uuid.clone(), (id, d.memory.total_bytes, d.name.clone()));
            self.new_devices.push((id, d.clone()));
            return id;
        }
        let id = self.next_device;
        self.next_device += 1;
        self.devices
            .insert(d.uuid.clone(), (id, d.memory.total_bytes, d.name.clone()));
        self.new_devices.push((id, d.clone()));
        id
    }

    fn proc_id(&mut self, p: &Process, ts: i64) -> u32 {
        if let Some((name, id)) = self.procs.get(&(p.pid, p.start_time)) {
            if *name == p.name {
                return *id;
            }
        }
        let id = self.next_proc;
        self.next_proc += 1;
        self.procs
            .insert((p.pid, p.start_time), (p.name.clone(), id));
        self.new_procs.push((id, p.clone(), ts));
        id
    }

    /// Buffer one sample taken at `ts_ms`. Nothing is written until [`Recorder::flush`].
    pub fn add(&mut self, snap: &Snapshot, ts_ms: i64) {
        // Strictly increasing timestamps: the sample table is keyed by time.
        let ts = ts_ms.max(self.last_ts.saturating_add(1));
        self.last_ts = ts;
        if self.host.as_ref() != Some(&snap.host) {
            self.host = Some(snap.host.clone());
        }
        let mut devs = Vec::with_capacity(snap.devices.len());
        let mut dev_ids: HashMap<&str, u32> = HashMap::new();
        for d in &snap.devices {
            let id = self.device_id(d);
            dev_ids.insert(d.uuid.as_str(), id);
            devs.push((
                id,
                DeviceVals {
                    used: d.memory.used_bytes,
                    free: d.memory.free_bytes,
                    gpu: d.utilization.gpu_percent,
                    mem_util: d.utilization.memory_percent,
                    temp: d.temperature_c,
                    power_mw: d
                        .power
                        .usage_watts
                        .map(|w| (w * 1000.0).round().max(0.0) as u64),
                    sys_total: d.system_memory.as_ref().and_then(|m| m.total_bytes),
                    sys_used: d.system_memory.as_ref().and_then(|m| m.used_bytes),
                },
            ));
        }
        let mut state = State::new();
        let mut ext = ExtState::new();
        for p in &snap.processes {
            let pid = self.proc_id(p, ts);
            self.seen.insert(pid, ts);
            for u in &p.usage {
                let Some(&dev) = dev_ids.get(u.device.as_str()) else {
                    continue;
                };
                let source = self.string_id(&u.memory_source);
                let reason = u.unavailable_reason.as_deref().map(|r| self.string_id(r));
                state.insert(
                    (pid, dev),
                    Vals {
                        memory_bytes: u.memory_bytes,
                        sm_percent: u.engines.sm_percent,
                        source,
                        reason,
                    },
                );
                if u.system_memory_bytes.is_some() || !u.engines_by_type.is_empty() {
                    let mut engines: Vec<(u32, u32)> = u
                        .engines_by_type
                        .iter()
                        .map(|(name, pct)| (self.string_id(name), *pct))
                        .collect();
                    engines.sort_unstable();
                    ext.insert(
                        (pid, dev),
                        Extra {
                            system_memory_bytes: u.system_memory_bytes,
                            engines,
                        },
                    );
                }
            }
        }
        let keyframe = self.prev.is_none() || self.since_key + 1 >= KEYFRAME_EVERY;
        let blob = match (&self.prev, keyframe) {
            (Some(prev), false) => frame::encode_delta(prev, &state),
            _ => frame::encode_key(&state),
        };
        let ext_blob = if keyframe {
            frame::encode_ext(&ExtState::new(), &ext)
        } else {
            frame::encode_ext(&self.prev_ext, &ext)
        };
        self.since_key = if keyframe { 0 } else { self.since_key + 1 };
        self.prev = Some(state);
        self.prev_ext = ext;
        self.pending.push(Pending {
            ts,
            keyframe,
            blob,
            ext: ext_blob,
            devices: devs,
        });
    }

    /// Samples buffered and not yet written.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Write everything buffered in one transaction.
    pub fn flush(&mut self) -> Result<()> {
        self.write(false)
    }

    /// `exact`: also bring every process's `last_ms` up to date (at stop, before pruning).
    fn write(&mut self, exact: bool) -> Result<()> {
        if self.lost
            || (self.pending.is_empty()
                && self.new_procs.is_empty()
                && (!exact || self.seen.is_empty()))
        {
            return Ok(());
        }
        // One stat per flush: SQLite would go on writing into a deleted file's inode.
        if self.identity.is_some() && file_identity(&self.path) != self.identity {
            self.lost = true;
            let n = self.pending.len();
            self.pending.clear();
            return Err(fail(
                &self.path,
                format!(
                    "the database file was deleted or replaced while recording; stopped ({n} sample{} not written). Start `gpuledger record` again to create a new one",
                    if n == 1 { "" } else { "s" }
                ),
            ));
        }
        let path = self.path.clone();
        let e = db_err(&path, "cannot write samples");
        let tx = self.conn.transaction().map_err(&e)?;
        {
            let mut st = tx
                .prepare_cached("INSERT OR REPLACE INTO strings(id, text) VALUES (?1, ?2)")
                .map_err(&e)?;
            for (id, s) in &self.new_strings {
                st.execute(params![id, s]).map_err(&e)?;
            }
            let mut st = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO devices(id, uuid, idx, vendor, name, total_bytes, source)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .map_err(&e)?;
            for (id, d) in &self.new_devices {
                st.execute(params![
                    id,
                    d.uuid,
                    d.index,
                    d.vendor.as_str(),
                    d.name,
                    i(d.memory.total_bytes),
                    d.source
                ])
                .map_err(&e)?;
            }
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO processes(id, pid, start_time, name, user, cmdline, first_ms, last_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                )
                .map_err(&e)?;
            for (id, p, ts) in &self.new_procs {
                // Redacted again: never store a raw secret, whoever built the snapshot.
                let cmd = p
                    .cmdline
                    .as_ref()
                    .map(|c| serde_json::to_string(&redact_arg_list(c)).unwrap_or_default());
                st.execute(params![id, p.pid, i(p.start_time), p.name, p.user, cmd, ts])
                    .map_err(&e)?;
            }
            let mut st = tx
                .prepare_cached("UPDATE processes SET last_ms = ?2 WHERE id = ?1")
                .map_err(&e)?;
            for (id, ts) in &self.seen {
                let written = self.last_written.get(id).copied().unwrap_or(i64::MIN);
                if *ts > written && (exact || ts.saturating_sub(written) >= LAST_SEEN_STEP_MS) {
                    st.execute(params![id, ts]).map_err(&e)?;
                }
            }
            let mut st = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO samples(ts, keyframe, procs, ext) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(&e)?;
            let mut sd = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO device_samples(ts, device, used, free, gpu, mem_util, temp, power_mw, sys_total, sys_used)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )
                .map_err(&e)?;
            for s in &self.pending {
                st.execute(params![s.ts, s.keyframe as i64, s.blob, s.ext])
                    .map_err(&e)?;
                for (dev, v) in &s.devices {
                    sd.execute(params![
                        s.ts,
                        dev,
                        i(v.used),
                        i(v.free),
                        v.gpu,
                        v.mem_util,
                        v.temp,
                        i(v.power_mw),
                        i(v.sys_total),
                        i(v.sys_used)
                    ])
                    .map_err(&e)?;
                }
            }
            if let Some(h) = &self.host {
                tx.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('host', ?1)",
                    params![serde_json::to_string(h).unwrap_or_default()],
                )
                .map_err(&e)?;
            }
        }
        tx.commit().map_err(&e)?;
        self.pending.clear();
        self.new_strings.clear();
        self.new_devices.clear();
        for (id, _, ts) in &self.new_procs {
            self.last_written.insert(*id, *ts);
        }
        self.new_procs.clear();
        // What was written is done; the rest waits for a later flush.
        let last_written = &mut self.last_written;
        self.seen.retain(|id, ts| {
            let written = last_written.entry(*id).or_insert(i64::MIN);
            if *ts > *written && (exact || ts.saturating_sub(*written) >= LAST_SEEN_STEP_MS) {
                *written = *ts;
                return false;
            }
            *ts > *written
        });
        Ok(())
    }

    /// Drop what is older than `cutoff_ms`. Keeps the keyframe a later delta frame depends on,
    /// and the processes still referenced. Returns what went.
    pub fn prune(&mut self, cutoff_ms: i64) -> Result<Pruned> {
        self.write(true)?;
        let path = self.path.clone();
        let e = db_err(&path, "cannot prune");
        let tx = self.conn.transaction().map_err(&e)?;
        // The first sample kept must be a keyframe, so keep from the latest keyframe at or
        // before the first sample inside the retention (at most KEYFRAME_EVERY samples of
        // slack). When every sample is older than the cutoff, all of them go.
        let keep_from: Option<i64> = tx
            .query_row(
                "SELECT CASE WHEN first IS NULL THEN ?1 ELSE
                     (SELECT max(ts) FROM samples WHERE keyframe = 1 AND ts <= first) END
                 FROM (SELECT min(ts) AS first FROM samples WHERE ts >= ?1)",
                [cutoff_ms],
                |r| r.get(0),
            )
            .map_err(&e)?;
        let mut out = Pruned::default();
        if let Some(k) = keep_from {
            out.samples = tx
                .execute("DELETE FROM samples WHERE ts < ?1", [k])
                .map_err(&e)?;
            out.processes = tx
                .execute(
                    "DELETE FROM processes WHERE last_ms < ?1",
                    [k.saturating_sub(LAST_SEEN_STEP_MS)],
                )
                .map_err(&e)?;
        }
        out.device_samples = tx
            .execute("DELETE FROM device_samples WHERE ts < ?1", [cutoff_ms])
            .map_err(&e)?;
        tx.commit().map_err(&e)?;
        if out.processes > 0 {
            self.load_procs()?;
        }
        // Give the freed pages back so disk use follows the retention.
        self.conn
            .execute_batch("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);")
            .map_err(&e)?;
        Ok(out)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let _ = self.write(true);
    }
}

// ---------------------------------------------------------------------------------------------
// Reading

#[derive(Debug, Clone)]
pub struct ProcInfo {
    pub id: u32,
    pub pid: u32,
    pub start_time: Option<u64>,
    pub name: Option<String>,
    pub user: Option<String>,
    /// Redacted arguments.
    pub cmdline: Option<Vec<String>>,
}

#[derive(Debug, Clone)]
pub struct DevInfo {
    pub id: u32,
    pub uuid: String,
    pub index: u32,
    pub vendor: String,
    pub name: Option<String>,
    pub total_bytes: Option<u64>,
    pub source: String,
}

/// What to read. Times are Unix ms, inclusive.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
    pub pid: Option<u32>,
    pub name: Option<String>,
    pub device: Option<String>,
}

/// One process on one device at one sample.
pub struct ProcRow<'a> {
    pub ts_ms: i64,
    pub process: &'a ProcInfo,
    pub device: &'a DevInfo,
    pub vals: &'a Vals,
    pub source: &'a str,
    pub reason: Option<&'a str>,
    /// System memory and per-engine busy % where the source reported them.
    pub extra: Option<&'a Extra>,
    /// The recording's string table by id (engine type names in `extra`).
    pub strings: &'a [Option<&'a String>],
}

impl ProcRow<'_> {
    /// The busy % per engine type, by name.
    pub fn engines_by_type(&self) -> BTreeMap<String, u32> {
        self.extra
            .map(|x| {
                x.engines
                    .iter()
                    .filter_map(|(id, pct)| {
                        let name = self.strings.get(*id as usize).copied().flatten()?;
                        Some((name.clone(), *pct))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// One device at one sample.
pub struct DeviceRow<'a> {
    pub ts_ms: i64,
    pub device: &'a DevInfo,
    pub vals: DeviceVals,
}

/// Reads a recording (also while a recorder writes to it: WAL readers do not block writers).
pub struct Reader {
    conn: Connection,
    path: PathBuf,
    /// The recording's schema: 1 kept no extension frames and no device system memory.
    version: i64,
    pub devices: Vec<DevInfo>,
    pub processes: HashMap<u32, ProcInfo>,
    strings: HashMap<u32, String>,
}

fn get_u64(r: &rusqlite::Row, i: usize) -> rusqlite::Result<Option<u64>> {
    Ok(col::<Option<i64>>(r, i)?.map(|v| v.max(0) as u64))
}

/// A sample time outside 1970–9999 cannot be shown as a date, and arithmetic on it overflows:
/// say which it is instead of reading on.
fn check_ts(path: &Path, ts: i64) -> Result<i64> {
    if crate::time::in_range(ts) {
        return Ok(ts);
    }
    Err(fail(
        path,
        format!(
            "a sample is timed at Unix ms {ts}, outside the years 1970 to 9999 (a damaged recording or a wrong clock); read the samples before it with --until (or --at)"
        ),
    ))
}

impl Reader {
    pub fn open(path: &Path) -> Result<Self> {
        if !check_file(path)? {
            return Err(fail(
                path,
                "no such recording (start one with `gpuledger record`)",
            ));
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(db_err(path, "cannot open"))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(db_err(path, "cannot open"))?;
        let v = check_version(&conn, path)?;
        if v == 0 {
            return Err(fail(
                path,
                "not a gpuledger recording (empty or another SQLite database)",
            ));
        }
        let e = db_err(path, "cannot read the devices table");
        let devices = {
            let mut st = conn
                .prepare("SELECT id, uuid, idx, vendor, name, total_bytes, source FROM devices ORDER BY idx, id")
                .map_err(&e)?;
            let rows = st
                .query_map([], |r| {
                    Ok(DevInfo {
                        id: col(r, 0)?,
                        uuid: col(r, 1)?,
                        index: col(r, 2)?,
                        vendor: col(r, 3)?,
                        name: col(r, 4)?,
                        total_bytes: get_u64(r, 5)?,
                        source: col(r, 6)?,
                    })
                })
                .map_err(&e)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(&e)?
        };
        let e = db_err(path, "cannot read the processes table");
        let processes = {
            let mut st = conn
                .prepare("SELECT id, pid, start_time, name, user, cmdline FROM processes")
                .map_err(&e)?;
            let rows = st
                .query_map([], |r| {
                    let cmd: Option<String> = col(r, 5)?;
                    Ok(ProcInfo {
                        id: col(r, 0)?,
                        pid: col(r, 1)?,
                        start_time: get_u64(r, 2)?,
                        name: col(r, 3)?,
                        user: col(r, 4)?,
                        cmdline: cmd.and_then(|c| serde_json::from_str(&c).ok()),
                    })
                })
                .map_err(&e)?;
            rows.map(|r| r.map(|p| (p.id, p)))
                .collect::<rusqlite::Result<HashMap<_, _>>>()
                .map_err(&e)?
        };
        let e = db_err(path, "cannot read the strings table");
        let strings = {
            let mut st = conn.prepare("SELECT id, text FROM strings").map_err(&e)?;
            let rows = st
                .query_map([], |r| Ok((col::<u32>(r, 0)?, col::<String>(r, 1)?)))
                .map_err(&e)?;
            rows.collect::<rusqlite::Result<HashMap<_, _>>>()
                .map_err(&e)?
        };
        Ok(Reader {
            conn,
            path: path.to_path_buf(),
            version: v,
            devices,
            processes,
            strings,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// First and last sample times, `None` when nothing is recorded.
    pub fn range(&self) -> Result<Option<(i64, i64)>> {
        let r: (Option<i64>, Option<i64>) = self
            .conn
            .query_row("SELECT min(ts), max(ts) FROM samples", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(db_err(&self.path, "cannot read the recording"))?;
        Ok(r.0.zip(r.1))
    }

    fn device_filter(&self, q: &Query) -> Result<Option<u32>> {
        match &q.device {
            None => Ok(None),
            Some(u) => match self.devices.iter().find(|d| &d.uuid == u) {
                Some(d) => Ok(Some(d.id)),
                None => Err(fail(
                    &self.path,
                    format!(
                        "no device {u:?} in this recording (recorded: {})",
                        self.devices
                            .iter()
                            .map(|d| gpuledger_model::term_safe(&d.uuid))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )),
            },
        }
    }

    /// Every (sample, process, device) in the query, in time order, then process and device id.
    /// A stretch that cannot be decoded (no keyframe before it: a damaged recording) is an error
    /// when nothing else in the range could be read, and otherwise counted in the result.
    pub fn for_each_process_row(&self, q: &Query, mut f: impl FnMut(&ProcRow)) -> Result<Skipped> {
        let e = db_err(&self.path, "cannot read samples");
        let dev_filter = self.device_filter(q)?;
        let wanted = |p: &ProcInfo| {
            q.pid.is_none_or(|pid| p.pid == pid)
                && q.name.as_ref().is_none_or(|n| p.name.as_ref() == Some(n))
        };
        // Ids are ours and dense: index by id instead of hashing for every one of the millions
        // of rows a day holds. Processes filtered out are simply absent.
        fn dense<'a, T>(
            items: impl Iterator<Item = (u32, &'a T)>,
            path: &Path,
        ) -> Result<Vec<Option<&'a T>>> {
            let items: Vec<(u32, &T)> = items.collect();
            let max = items.iter().map(|x| x.0).max().unwrap_or(0) as usize;
            if max > 64 * items.len() + 65_536 {
                return Err(fail(
                    path,
                    "corrupt recording: ids far beyond the number of rows",
                ));
            }
            let mut v = vec![None; max + 1];
            for (id, t) in items {
                v[id as usize] = Some(t);
            }
            Ok(v)
        }
        let procs = dense(
            self.processes
                .iter()
                .filter(|(_, p)| wanted(p))
                .map(|(id, p)| (*id, p)),
            &self.path,
        )?;
        let devs = dense(
            self.devices
                .iter()
                .filter(|d| dev_filter.is_none_or(|f| f == d.id))
                .map(|d| (d.id, d)),
            &self.path,
        )?;
        let strings = dense(self.strings.iter().map(|(id, s)| (*id, s)), &self.path)?;
        let string = |id: u32| {
            strings
                .get(id as usize)
                .copied()
                .flatten()
                .map(String::as_str)
        };
        let since = q.since_ms.unwrap_or(i64::MIN);
        let until = q.until_ms.unwrap_or(i64::MAX);
        let start: Option<i64> = self
            .conn
            .query_row(
                "SELECT max(ts) FROM samples WHERE keyframe = 1 AND ts <= ?1",
                [since],
                |r| r.get(0),
            )
            .map_err(&e)?;
        let ext_col = if self.version >= 2 { "ext" } else { "NULL" };
        let mut st = self
            .conn
            .prepare(&format!(
                "SELECT ts, keyframe, procs, {ext_col} FROM samples WHERE ts >= ?1 AND ts <= ?2 ORDER BY ts"
            ))
            .map_err(&e)?;
        let mut rows = st
            .query(params![start.unwrap_or(i64::MIN), until])
            .map_err(&e)?;
        let mut state = State::new();
        let mut ext = ExtState::new();
        let mut started = false;
        let mut skipped = Skipped::default();
        while let Some(r) = rows.next().map_err(&e)? {
            let ts: i64 = check_ts(&self.path, col(r, 0).map_err(&e)?)?;
            let key: bool = col::<i64>(r, 1).map_err(&e)? != 0;
            if !started && !key {
                // No keyframe to decode from (only a damaged or edited recording lacks one:
                // pruning and every recorder start keep one). Counted, and said.
                if ts >= since {
                    skipped.samples += 1;
                    skipped.first.get_or_insert(ts);
                    skipped.last = Some(ts);
                }
                continue;
            }
            started = true;
            let blob = r
                .get_ref(2)
                .map_err(&e)?
                .as_blob()
                .map_err(|x| e(x.into()))?;
            let frame_err = |fe| StoreError::Frame(fe, self.path.display().to_string());
            frame::apply(&mut state, key, blob).map_err(frame_err)?;
            let ext_blob = r
                .get_ref(3)
                .map_err(&e)?
                .as_blob_or_null()
                .map_err(|x| e(x.into()))?;
            frame::apply_ext(&mut ext, key, ext_blob, &state).map_err(frame_err)?;
            if ts < since {
                continue;
            }
            for ((pid, did), v) in &state {
                let (Some(Some(p)), Some(Some(d))) =
                    (procs.get(*pid as usize), devs.get(*did as usize))
                else {
                    continue;
                };
                f(&ProcRow {
                    ts_ms: ts,
                    process: p,
                    device: d,
                    vals: v,
                    source: string(v.source).unwrap_or("?"),
                    reason: v.reason.and_then(string),
                    extra: ext.get(&(*pid, *did)),
                    strings: &strings,
                });
            }
        }
        if skipped.samples > 0 && !started {
            return Err(fail(
                &self.path,
                format!(
                    "{} sample{} from {} to {} cannot be read: no keyframe precedes them (a damaged or edited recording)",
                    skipped.samples,
                    if skipped.samples == 1 { "" } else { "s" },
                    format_ms(skipped.first.unwrap_or_default()),
                    format_ms(skipped.last.unwrap_or_default())
                ),
            ));
        }
        Ok(skipped)
    }

    /// Every (sample, device) in the query, in time order.
    pub fn for_each_device_row(&self, q: &Query, mut f: impl FnMut(&DeviceRow)) -> Result<()> {
        let e = db_err(&self.path, "cannot read samples");
        let dev_filter = self.device_filter(q)?;
        let devs: HashMap<u32, &DevInfo> = self.devices.iter().map(|d| (d.id, d)).collect();
        let mut st = self
            .conn
            .prepare(&format!(
                "SELECT ts, device, used, free, gpu, mem_util, temp, power_mw, {} FROM device_samples
                 WHERE ts >= ?1 AND ts <= ?2 ORDER BY ts, device",
                if self.version >= 2 {
                    "sys_total, sys_used"
                } else {
                    "NULL, NULL"
                }
            ))
            .map_err(&e)?;
        let mut rows = st
            .query(params![
                q.since_ms.unwrap_or(i64::MIN),
                q.until_ms.unwrap_or(i64::MAX)
            ])
            .map_err(&e)?;
        while let Some(r) = rows.next().map_err(&e)? {
            let ts = check_ts(&self.path, col(r, 0).map_err(&e)?)?;
            let did: u32 = col(r, 1).map_err(&e)?;
            if dev_filter.is_some_and(|d| d != did) {
                continue;
            }
            let Some(d) = devs.get(&did) else { continue };
            let vals = DeviceVals {
                used: get_u64(r, 2).map_err(&e)?,
                free: get_u64(r, 3).map_err(&e)?,
                gpu: col(r, 4).map_err(&e)?,
                mem_util: col(r, 5).map_err(&e)?,
                temp: col(r, 6).map_err(&e)?,
                power_mw: get_u64(r, 7).map_err(&e)?,
                sys_total: get_u64(r, 8).map_err(&e)?,
                sys_used: get_u64(r, 9).map_err(&e)?,
            };
            f(&DeviceRow {
                ts_ms: ts,
                device: d,
                vals,
            });
        }
        Ok(())
    }

    /// The recording as a snapshot at the latest sample at or before `at_ms`.
    pub fn snapshot_at(&self, at_ms: i64) -> Result<Snapshot> {
        let e = db_err(&self.path, "cannot read samples");
        let ts: Option<i64> = self
            .conn
            .query_row("SELECT max(ts) FROM samples WHERE ts <= ?1", [at_ms], |r| {
                r.get(0)
            })
            .map_err(&e)?;
        let ts = ts.map(|t| check_ts(&self.path, t)).transpose()?;
        let Some(ts) = ts else {
            let range = self.range()?;
            return Err(fail(
                &self.path,
                match range {
                    Some((a, b)) => format!(
                        "nothing recorded at or before {} (the recording covers {} to {})",
                        format_ms(at_ms),
                        format_ms(a),
                        format_ms(b)
                    ),
                    None => "the recording has no samples yet".into(),
                },
            ));
        };
        let host: Host = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'host'", [], |r| {
                r.get::<_, String>(0)
            })
            .optional()
            .map_err(&e)?
            .and_then(|h| serde_json::from_str(&h).ok())
            .unwrap_or_default();
        let mut snap = Snapshot::new(format_ms(ts), host);
        let q = Query {
            since_ms: Some(ts),
            until_ms: Some(ts),
            ..Query::default()
        };
        self.for_each_device_row(&q, |r| {
            let d = r.device;
            let vendor = serde_json::from_value(serde_json::Value::String(d.vendor.clone()))
                .unwrap_or(Vendor::Unknown);
            let mut dev = Device::new(d.index, vendor, d.uuid.clone(), &d.source);
            dev.name = d.name.clone();
            dev.memory.total_bytes = d.total_bytes;
            dev.memory.used_bytes = r.vals.used;
            dev.memory.free_bytes = r.vals.free;
            dev.utilization.gpu_percent = r.vals.gpu;
            dev.utilization.memory_percent = r.vals.mem_util;
            dev.temperature_c = r.vals.temp;
            dev.power.usage_watts = r.vals.power_mw.map(|mw| mw as f64 / 1000.0);
            if r.vals.sys_total.is_some() || r.vals.sys_used.is_some() {
                dev.system_memory = Some(gpuledger_model::Memory {
                    total_bytes: r.vals.sys_total,
                    used_bytes: r.vals.sys_used,
                    free_bytes: r
                        .vals
                        .sys_total
                        .zip(r.vals.sys_used)
                        .map(|(t, u)| t.saturating_sub(u)),
                    ..Default::default()
                });
            }
            snap.devices.push(dev);
        })?;
        let mut procs: BTreeMap<u32, Process> = BTreeMap::new();
        self.for_each_process_row(&q, |r| {
            let p = procs.entry(r.process.id).or_insert_with(|| {
                let mut p = Process::new(r.process.pid);
                p.start_time = r.process.start_time;
                p.name = r.process.name.clone();
                p.user = r.process.user.clone();
                p.cmdline = r.process.cmdline.clone();
                p
            });
            let mut u = Usage::new(r.device.uuid.clone(), r.source);
            u.memory_bytes = r.vals.memory_bytes;
            u.engines.sm_percent = r.vals.sm_percent;
            u.unavailable_reason = r.reason.map(str::to_string);
            u.system_memory_bytes = r.extra.and_then(|x| x.system_memory_bytes);
            u.engines_by_type = r.engines_by_type();
            p.usage.push(u);
        })?;
        snap.processes = procs.into_values().collect();
        snap.sources.push(SourceStatus::new(
            "recording",
            SourceState::Ok,
            format!("sample at {} from {}", format_ms(ts), self.path.display()),
        ));
        snap.notes.push(not_kept_note(self.version));
        balance(&mut snap);
        Ok(snap)
    }
}

/// What [`Reader::for_each_process_row`] could not decode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    pub samples: usize,
    pub first: Option<i64>,
    pub last: Option<i64>,
}

/// A replayed snapshot says what a recording does not keep, so a missing field reads as "not
/// recorded" rather than "not measured".
pub fn not_kept_note(version: i64) -> String {
    let mut s = String::from(
        "replayed from a recording, which keeps per device memory, GPU %, memory-controller %, temperature and power, and per process its name, user, command line, device memory, SM %",
    );
    if version >= 2 {
        s.push_str(", system memory and busy % per engine type");
    }
    s.push_str(
        "; it does not keep workload identification, estimates, listening ports, containers, ROCm /dev/kfd use, encoder/decoder %, per-source readings, device clocks, PCIe links or power limits",
    );
    if version < 2 {
        s.push_str(
            ", nor (recorded by an older gpuledger) system memory and busy % per engine type",
        );
    }
    s
}

#[cfg(test)]
mod tests;
