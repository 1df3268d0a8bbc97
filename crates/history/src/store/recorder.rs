//! Writing: one recorder per database, samples added in memory and committed per sample (or
//! batched), retention pruning.

use super::write::{
    due, write_abouts, write_devices, write_last_seen, write_new_processes, write_samples,
    write_strings, DeviceVals, Pending,
};
use super::{
    check_file, db_err, fail, file_identity, format_ms, frame, get_u64, migrate, Connection,
    Device, ExtState, Extra, Host, Process, RecorderLock, Result, Snapshot, State, Vals,
    KEYFRAME_EVERY, LAST_SEEN_STEP_MS,
};
use rusqlite::params;
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;

/// What was pruned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pruned {
    pub samples: usize,
    pub device_samples: usize,
    pub processes: usize,
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
    /// Identifications (schema 3) to write, and what was last written per process row.
    new_abouts: Vec<(u32, Option<String>)>,
    abouts: super::about::AboutCache,
    seen: HashMap<u32, i64>,
    /// The `last_ms` each process row holds now.
    last_written: HashMap<u32, i64>,
    host: Option<Host>,
    /// (device, inode) of the database when opened: a file deleted or replaced under a running
    /// recorder must stop it, not let it report samples that went nowhere.
    identity: Option<(u64, u64)>,
    /// Set once the file is found gone: nothing more is written, not even on drop.
    lost: bool,
    /// The samples of this run committed so far.
    kept: Kept,
}

/// The samples a recorder has committed since it was opened: how many, the first and the last
/// time. What a stop on error (a full disk) says was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Kept {
    pub samples: u64,
    pub first_ms: Option<i64>,
    pub last_ms: Option<i64>,
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
            new_abouts: Vec::new(),
            abouts: Default::default(),
            seen: HashMap::new(),
            last_written: HashMap::new(),
            host: None,
            identity: file_identity(path),
            lost: false,
            kept: Kept::default(),
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
            devs.push((id, device_vals(d)));
        }
        let (state, ext) = self.process_state(snap, ts, &dev_ids);
        self.push_frame(ts, state, ext, devs);
    }

    /// Each process's values per device, with ids for its strings; marks the processes seen.
    fn process_state(
        &mut self,
        snap: &Snapshot,
        ts: i64,
        dev_ids: &HashMap<&str, u32>,
    ) -> (State, ExtState) {
        let mut state = State::new();
        let mut ext = ExtState::new();
        for p in &snap.processes {
            let pid = self.proc_id(p, ts);
            self.seen.insert(pid, ts);
            if let Some(about) = self.abouts.changed(pid, p) {
                self.new_abouts.push((pid, about));
            }
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
                    let extra = Extra {
                        system_memory_bytes: u.system_memory_bytes,
                        engines,
                    };
                    ext.insert((pid, dev), extra);
                }
            }
        }
        (state, ext)
    }

    /// Encode the sample as a keyframe or as a delta from the previous one, and buffer it.
    fn push_frame(
        &mut self,
        ts: i64,
        state: State,
        ext: ExtState,
        devices: Vec<(u32, DeviceVals)>,
    ) {
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
            devices,
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
                && self.new_abouts.is_empty()
                && (!exact || self.seen.is_empty()))
        {
            return Ok(());
        }
        self.check_file_is_ours()?;
        let path = self.path.clone();
        let e = db_err(&path, "cannot write samples");
        let tx = self.conn.transaction().map_err(&e)?;
        write_strings(&tx, &self.new_strings).map_err(&e)?;
        write_devices(&tx, &self.new_devices).map_err(&e)?;
        write_new_processes(&tx, &self.new_procs).map_err(&e)?;
        write_abouts(&tx, &self.new_abouts).map_err(&e)?;
        write_last_seen(&tx, &self.seen, &self.last_written, exact).map_err(&e)?;
        write_samples(&tx, &self.pending).map_err(&e)?;
        if let Some(h) = &self.host {
            tx.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('host', ?1)",
                params![serde_json::to_string(h).unwrap_or_default()],
            )
            .map_err(&e)?;
        }
        tx.commit().map_err(&e)?;
        self.written(exact);
        Ok(())
    }

    /// One stat per flush: SQLite would go on writing into a deleted file's inode.
    fn check_file_is_ours(&mut self) -> Result<()> {
        if self.identity.is_none() || file_identity(&self.path) == self.identity {
            return Ok(());
        }
        self.lost = true;
        let n = self.pending.len();
        self.pending.clear();
        Err(fail(
            &self.path,
            format!(
                "the database file was deleted or replaced while recording; stopped ({n} sample{} not written). Start `gpuledger record` again to create a new one",
                if n == 1 { "" } else { "s" }
            ),
        ))
    }

    /// The samples of this run committed so far.
    pub fn kept(&self) -> Kept {
        self.kept
    }

    /// After a commit: what was written is done; the rest waits for a later flush.
    fn written(&mut self, exact: bool) {
        if let (Some(a), Some(b)) = (self.pending.first(), self.pending.last()) {
            self.kept.samples += self.pending.len() as u64;
            self.kept.first_ms.get_or_insert(a.ts);
            self.kept.last_ms = Some(b.ts);
        }
        self.pending.clear();
        self.new_strings.clear();
        self.new_devices.clear();
        for (id, _, ts) in &self.new_procs {
            self.last_written.insert(*id, *ts);
        }
        self.new_procs.clear();
        self.new_abouts.clear();
        let last_written = &mut self.last_written;
        self.seen.retain(|id, ts| {
            let written = last_written.entry(*id).or_insert(i64::MIN);
            if *ts > *written && due(*ts, *written, exact) {
                *written = *ts;
                return false;
            }
            *ts > *written
        });
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
            self.abouts.clear();
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

/// A device's values in one sample.
fn device_vals(d: &Device) -> DeviceVals {
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
    }
}
