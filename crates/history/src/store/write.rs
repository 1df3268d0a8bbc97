//! The recorder's writes, one function per table, each within the caller's transaction.

use super::{redact_arg_list, redact_text, Device, Process, LAST_SEEN_STEP_MS};
use rusqlite::params;
use rusqlite::Transaction;
use std::collections::HashMap;

/// A count or size as SQLite stores it: an i64, saturating.
pub(super) fn i(v: Option<u64>) -> Option<i64> {
    v.map(|x| x.min(i64::MAX as u64) as i64)
}

/// One device's figures in a sample, as stored.
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

/// One sample the recorder has taken and not yet committed.
pub(super) struct Pending {
    pub(super) ts: i64,
    pub(super) keyframe: bool,
    pub(super) blob: Vec<u8>,
    pub(super) ext: Option<Vec<u8>>,
    pub(super) devices: Vec<(u32, DeviceVals)>,
}

/// Whether a process's `last_ms` is written now: at stop (`exact`) whenever it moved, else in
/// steps of [`LAST_SEEN_STEP_MS`], so a long recording does not rewrite every row every flush.
pub(super) fn due(seen: i64, written: i64, exact: bool) -> bool {
    exact || seen.saturating_sub(written) >= LAST_SEEN_STEP_MS
}

pub(super) fn write_strings(tx: &Transaction, strings: &[(u32, String)]) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached("INSERT OR REPLACE INTO strings(id, text) VALUES (?1, ?2)")?;
    for (id, s) in strings {
        st.execute(params![id, s])?;
    }
    Ok(())
}

pub(super) fn write_devices(tx: &Transaction, devices: &[(u32, Device)]) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached(
        "INSERT OR REPLACE INTO devices(id, uuid, idx, vendor, name, total_bytes, source)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (id, d) in devices {
        st.execute(params![
            id,
            d.uuid,
            d.index,
            d.vendor.as_str(),
            d.name,
            i(d.memory.total_bytes),
            d.source
        ])?;
    }
    Ok(())
}

pub(super) fn write_new_processes(
    tx: &Transaction,
    procs: &[(u32, Process, i64)],
) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached(
        "INSERT INTO processes(id, pid, start_time, name, user, cmdline, first_ms, last_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
    )?;
    for (id, p, ts) in procs {
        // Redacted again: never store a raw secret, whoever built the snapshot.
        let cmd = p
            .cmdline
            .as_ref()
            .map(|c| serde_json::to_string(&redact_arg_list(c)).unwrap_or_default());
        let name = p.name.as_deref().map(redact_text);
        st.execute(params![id, p.pid, i(p.start_time), name, p.user, cmd, ts])?;
    }
    Ok(())
}

/// Each process row's identification that changed (`NULL` when it went away).
pub(super) fn write_abouts(
    tx: &Transaction,
    abouts: &[(u32, Option<String>)],
) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached("UPDATE processes SET about = ?2 WHERE id = ?1")?;
    for (id, text) in abouts {
        st.execute(params![id, text])?;
    }
    Ok(())
}

pub(super) fn write_last_seen(
    tx: &Transaction,
    seen: &HashMap<u32, i64>,
    last_written: &HashMap<u32, i64>,
    exact: bool,
) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached("UPDATE processes SET last_ms = ?2 WHERE id = ?1")?;
    for (id, ts) in seen {
        let written = last_written.get(id).copied().unwrap_or(i64::MIN);
        if *ts > written && due(*ts, written, exact) {
            st.execute(params![id, ts])?;
        }
    }
    Ok(())
}

pub(super) fn write_samples(tx: &Transaction, pending: &[Pending]) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached(
        "INSERT OR REPLACE INTO samples(ts, keyframe, procs, ext) VALUES (?1, ?2, ?3, ?4)",
    )?;
    let mut sd = tx.prepare_cached(
        "INSERT OR REPLACE INTO device_samples(ts, device, used, free, gpu, mem_util, temp, power_mw, sys_total, sys_used)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for s in pending {
        st.execute(params![s.ts, s.keyframe as i64, s.blob, s.ext])?;
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
            ])?;
        }
    }
    Ok(())
}
