//! Reading a recording back: its devices, processes and strings, and process and device rows
//! for a time range (a snapshot at a moment is built from these in `replay`).

use super::{
    check_file, check_version, col, db_err, fail, format_ms, frame, redact_arg_list, redact_text,
    Connection, DeviceVals, ExtState, Extra, OpenFlags, Result, State, StoreError, Vals,
};
use rusqlite::params;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct RecordedProcess {
    pub id: u32,
    pub pid: u32,
    pub start_time: Option<u64>,
    pub name: Option<String>,
    pub user: Option<String>,
    /// Redacted arguments.
    pub cmdline: Option<Vec<String>>,
    /// What it was identified as, the last one recorded (schema 3; `None` before).
    pub about: Option<super::about::About>,
}

#[derive(Debug, Clone)]
pub struct RecordedDevice {
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
    pub process: &'a RecordedProcess,
    pub device: &'a RecordedDevice,
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
    pub device: &'a RecordedDevice,
    pub vals: DeviceVals,
}

/// Reads a recording (also while a recorder writes to it: WAL readers do not block writers).
pub struct Reader {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
    /// The recording's schema: 1 kept no extension frames and no device system memory.
    pub(super) version: i64,
    pub devices: Vec<RecordedDevice>,
    pub processes: HashMap<u32, RecordedProcess>,
    strings: HashMap<u32, String>,
}

pub(super) fn get_u64(r: &rusqlite::Row, i: usize) -> rusqlite::Result<Option<u64>> {
    Ok(col::<Option<i64>>(r, i)?.map(|v| v.max(0) as u64))
}

/// A sample time outside 1970–9999 cannot be shown as a date, and arithmetic on it overflows:
/// say which it is instead of reading on.
pub(super) fn check_ts(path: &Path, ts: i64) -> Result<i64> {
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

fn read_devices(conn: &Connection, path: &Path) -> Result<Vec<RecordedDevice>> {
    let e = db_err(path, "cannot read the devices table");
    let mut st = conn
        .prepare(
            "SELECT id, uuid, idx, vendor, name, total_bytes, source FROM devices ORDER BY idx, id",
        )
        .map_err(&e)?;
    let rows = st
        .query_map([], |r| {
            Ok(RecordedDevice {
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
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(&e)
}

fn read_processes(
    conn: &Connection,
    path: &Path,
    version: i64,
) -> Result<HashMap<u32, RecordedProcess>> {
    let e = db_err(path, "cannot read the processes table");
    let about = if version >= 3 { "about" } else { "NULL" };
    let mut st = conn
        .prepare(&format!(
            "SELECT id, pid, start_time, name, user, cmdline, {about} FROM processes"
        ))
        .map_err(&e)?;
    let rows = st
        .query_map([], |r| {
            let cmd: Option<String> = col(r, 5)?;
            let name: Option<String> = col(r, 3)?;
            // A recording made by an older version (or edited) may hold what today's detector
            // hides: redacted once here, for every reader (history, replay, CSV, JSON).
            Ok(RecordedProcess {
                id: col(r, 0)?,
                pid: col(r, 1)?,
                start_time: get_u64(r, 2)?,
                name: name.as_deref().map(redact_text),
                user: col(r, 4)?,
                cmdline: cmd
                    .and_then(|c| serde_json::from_str::<Vec<String>>(&c).ok())
                    .map(|c| redact_arg_list(&c)),
                about: col::<Option<String>>(r, 6)?
                    .as_deref()
                    .and_then(super::about::About::parse),
            })
        })
        .map_err(&e)?;
    rows.map(|r| r.map(|p| (p.id, p)))
        .collect::<rusqlite::Result<HashMap<_, _>>>()
        .map_err(&e)
}

fn read_strings(conn: &Connection, path: &Path) -> Result<HashMap<u32, String>> {
    let e = db_err(path, "cannot read the strings table");
    let mut st = conn.prepare("SELECT id, text FROM strings").map_err(&e)?;
    let rows = st
        .query_map([], |r| Ok((col::<u32>(r, 0)?, col::<String>(r, 1)?)))
        .map_err(&e)?;
    rows.collect::<rusqlite::Result<HashMap<_, _>>>()
        .map_err(&e)
}

/// Ids are ours and dense: index by id instead of hashing for every one of the millions of rows
/// a day holds. Items filtered out are simply absent.
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

/// The processes, devices and strings a query reads, indexed by id (see [`dense`]).
struct Tables<'a> {
    procs: Vec<Option<&'a RecordedProcess>>,
    devs: Vec<Option<&'a RecordedDevice>>,
    strings: Vec<Option<&'a String>>,
}

impl Tables<'_> {
    fn string(&self, id: u32) -> Option<&str> {
        self.strings
            .get(id as usize)
            .copied()
            .flatten()
            .map(String::as_str)
    }
}

/// Hands `f` every (process, device) of the decoded state the query wants.
fn emit(ts: i64, t: &Tables, state: &State, ext: &ExtState, f: &mut impl FnMut(&ProcRow)) {
    for ((pid, did), v) in state {
        let (Some(Some(p)), Some(Some(d))) =
            (t.procs.get(*pid as usize), t.devs.get(*did as usize))
        else {
            continue;
        };
        f(&ProcRow {
            ts_ms: ts,
            process: p,
            device: d,
            vals: v,
            source: t.string(v.source).unwrap_or("?"),
            reason: v.reason.and_then(|id| t.string(id)),
            extra: ext.get(&(*pid, *did)),
            strings: &t.strings,
        });
    }
}

/// The error when no sample in the range could be decoded.
fn undecodable(path: &Path, skipped: &Skipped) -> StoreError {
    fail(
        path,
        format!(
            "{} sample{} from {} to {} cannot be read: no keyframe precedes them (a damaged or edited recording)",
            skipped.samples,
            if skipped.samples == 1 { "" } else { "s" },
            format_ms(skipped.first.unwrap_or_default()),
            format_ms(skipped.last.unwrap_or_default())
        ),
    )
}

impl Reader {
    pub fn open(path: &Path) -> Result<Self> {
        if !check_file(path)? {
            return Err(fail(
                path,
                gpuledger_lang::Said::new("report-history-no-recording", vec![]),
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
        let devices = read_devices(&conn, path)?;
        let processes = read_processes(&conn, path, v)?;
        let strings = read_strings(&conn, path)?;
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

    /// Whether the query can be answered (its device is in the recording), before any row is
    /// read: a caller writes its header only after this.
    pub fn check(&self, q: &Query) -> Result<()> {
        self.device_filter(q).map(|_| ())
    }

    /// The recorded device a query names, by UUID or by index (as `snapshot` numbers them); an
    /// index that named several devices over the recording is ambiguous and said so.
    fn device_filter(&self, q: &Query) -> Result<Option<u32>> {
        let Some(u) = &q.device else { return Ok(None) };
        if let Some(d) = self.devices.iter().find(|d| &d.uuid == u) {
            return Ok(Some(d.id));
        }
        let listed = || {
            self.devices
                .iter()
                .map(|d| format!("GPU{} {}", d.index, gpuledger_model::term_safe(&d.uuid)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let by_index: Vec<&RecordedDevice> = match u.parse::<u32>() {
            Ok(i) => self.devices.iter().filter(|d| d.index == i).collect(),
            Err(_) => Vec::new(),
        };
        match by_index.as_slice() {
            [d] => Ok(Some(d.id)),
            [] => Err(fail(
                &self.path,
                format!("no device {u:?} in this recording (recorded: {})", listed()),
            )),
            _ => Err(fail(
                &self.path,
                format!(
                    "device index {u} names several devices in this recording: give the UUID \
                     (recorded: {})",
                    listed()
                ),
            )),
        }
    }

    /// Every (sample, process, device) in the query, in time order, then process and device id.
    /// A stretch that cannot be decoded (no keyframe before it: a damaged recording) is an error
    /// when nothing else in the range could be read, and otherwise counted in the result.
    pub fn for_each_process_row(&self, q: &Query, mut f: impl FnMut(&ProcRow)) -> Result<Skipped> {
        let e = db_err(&self.path, "cannot read samples");
        let t = self.tables(q)?;
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
            self.decode(r, key, &mut state, &mut ext)?;
            if ts >= since {
                emit(ts, &t, &state, &ext, &mut f);
            }
        }
        if skipped.samples > 0 && !started {
            return Err(undecodable(&self.path, &skipped));
        }
        Ok(skipped)
    }

    /// The processes, devices and strings the query reads, by id.
    fn tables(&self, q: &Query) -> Result<Tables<'_>> {
        let dev_filter = self.device_filter(q)?;
        let wanted = |p: &RecordedProcess| {
            q.pid.is_none_or(|pid| p.pid == pid)
                && q.name.as_ref().is_none_or(|n| p.name.as_ref() == Some(n))
        };
        Ok(Tables {
            procs: dense(
                self.processes
                    .iter()
                    .filter(|(_, p)| wanted(p))
                    .map(|(id, p)| (*id, p)),
                &self.path,
            )?,
            devs: dense(
                self.devices
                    .iter()
                    .filter(|d| dev_filter.is_none_or(|f| f == d.id))
                    .map(|d| (d.id, d)),
                &self.path,
            )?,
            strings: dense(self.strings.iter().map(|(id, s)| (*id, s)), &self.path)?,
        })
    }

    /// Applies one sample's process frame and extension frame to the running state.
    fn decode(
        &self,
        r: &rusqlite::Row,
        key: bool,
        state: &mut State,
        ext: &mut ExtState,
    ) -> Result<()> {
        let e = db_err(&self.path, "cannot read samples");
        let blob = r
            .get_ref(2)
            .map_err(&e)?
            .as_blob()
            .map_err(|x| e(x.into()))?;
        let frame_err = |fe| StoreError::Frame(fe, self.path.display().to_string());
        frame::apply(state, key, blob).map_err(frame_err)?;
        let ext_blob = r
            .get_ref(3)
            .map_err(&e)?
            .as_blob_or_null()
            .map_err(|x| e(x.into()))?;
        frame::apply_ext(ext, key, ext_blob, state).map_err(frame_err)
    }

    /// Every (sample, device) in the query, in time order.
    pub fn for_each_device_row(&self, q: &Query, mut f: impl FnMut(&DeviceRow)) -> Result<()> {
        let e = db_err(&self.path, "cannot read samples");
        let dev_filter = self.device_filter(q)?;
        let devs: HashMap<u32, &RecordedDevice> = self.devices.iter().map(|d| (d.id, d)).collect();
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
}

/// What [`Reader::for_each_process_row`] could not decode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    pub samples: usize,
    pub first: Option<i64>,
    pub last: Option<i64>,
}
