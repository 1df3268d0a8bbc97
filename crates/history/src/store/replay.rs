//! A recording as a snapshot as it was at a moment (`--replay DB --at TIME`), saying what a
//! recording does not keep.

use super::{
    balance, check_ts, db_err, fail, format_ms, Device, DeviceRow, Host, ProcRow, Process, Query,
    Reader, Result, Snapshot, SourceState, SourceStatus, StoreError, Usage, Vendor,
};
use gpuledger_lang::said::Said;
use rusqlite::OptionalExtension;
use std::collections::BTreeMap;

impl Reader {
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
            return Err(self.nothing_at(at_ms)?);
        };
        let host = self.host()?;
        let mut snap = Snapshot::new(format_ms(ts), host);
        let q = Query {
            since_ms: Some(ts),
            until_ms: Some(ts),
            ..Query::default()
        };
        self.for_each_device_row(&q, |r| snap.devices.push(device_at(r)))?;
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
            p.usage.push(usage_at(r));
        })?;
        // What each was identified as, once its usage rows are there (the kinds go on them).
        for (id, p) in procs.iter_mut() {
            if let Some(a) = self.processes.get(id).and_then(|r| r.about.as_ref()) {
                a.apply_to(p);
            }
        }
        snap.processes = procs.into_values().collect();
        snap.sources.push(SourceStatus::new(
            "recording",
            SourceState::Ok,
            Said::new(
                "report-src-recording",
                vec![
                    ("at", format_ms(ts).into()),
                    ("path", self.path.display().to_string().into()),
                ],
            ),
        ));
        snap.notes.push(not_kept_note(self.version));
        balance(&mut snap);
        Ok(snap)
    }

    /// The samples from `since_ms` to `until_ms`, at most `max` of them spread evenly over the
    /// range (the last one always), as lean snapshots for a chart: device figures and each
    /// process's PID, start time and use per device, no names or command lines.
    pub fn snapshots_between(
        &self,
        since_ms: i64,
        until_ms: i64,
        max: usize,
    ) -> Result<Vec<Snapshot>> {
        let e = db_err(&self.path, "cannot read samples");
        let mut st = self
            .conn
            .prepare("SELECT ts FROM samples WHERE ts >= ?1 AND ts <= ?2 ORDER BY ts")
            .map_err(&e)?;
        let all: Vec<i64> = st
            .query_map([since_ms, until_ms], |r| r.get(0))
            .map_err(&e)?
            .collect::<rusqlite::Result<_>>()
            .map_err(&e)?;
        let (Some(&first), Some(&last)) = (all.first(), all.last()) else {
            return Ok(Vec::new());
        };
        let (first, last) = (check_ts(&self.path, first)?, check_ts(&self.path, last)?);
        let step = all.len().div_ceil(max.max(1));
        let mut snaps: BTreeMap<i64, Snapshot> = all
            .iter()
            .rev()
            .step_by(step)
            .map(|&ts| (ts, Snapshot::new(format_ms(ts), Host::default())))
            .collect();
        let q = Query {
            since_ms: Some(first),
            until_ms: Some(last),
            ..Query::default()
        };
        self.for_each_device_row(&q, |r| {
            if let Some(s) = snaps.get_mut(&r.ts_ms) {
                s.devices.push(device_at(r));
            }
        })?;
        self.for_each_process_row(&q, |r| {
            let Some(s) = snaps.get_mut(&r.ts_ms) else {
                return;
            };
            let at = s
                .processes
                .iter()
                .position(|p| p.pid == r.process.pid && p.start_time == r.process.start_time);
            let i = at.unwrap_or_else(|| {
                let mut p = Process::new(r.process.pid);
                p.start_time = r.process.start_time;
                s.processes.push(p);
                s.processes.len() - 1
            });
            s.processes[i].usage.push(usage_at(r));
        })?;
        Ok(snaps.into_values().collect())
    }

    /// The recorder's host, as it recorded it.
    fn host(&self) -> Result<Host> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'host'", [], |r| {
                r.get::<_, String>(0)
            })
            .optional()
            .map_err(db_err(&self.path, "cannot read samples"))?
            .and_then(|h| serde_json::from_str(&h).ok())
            .unwrap_or_default())
    }

    /// The error when no sample is at or before `at_ms`, saying what the recording covers.
    fn nothing_at(&self, at_ms: i64) -> Result<StoreError> {
        let range = self.range()?;
        Ok(fail(
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
        ))
    }
}

/// A recorded device row as the snapshot's device.
fn device_at(r: &DeviceRow) -> Device {
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
    dev
}

/// A recorded process row's use of its device, as the snapshot's usage.
fn usage_at(r: &ProcRow) -> Usage {
    let mut u = Usage::new(r.device.uuid.clone(), r.source);
    u.memory_bytes = r.vals.memory_bytes;
    u.engines.sm_percent = r.vals.sm_percent;
    u.unavailable_reason = r.reason.map(gpuledger_lang::Said::from);
    u.system_memory_bytes = r.extra.and_then(|x| x.system_memory_bytes);
    u.engines_by_type = r.engines_by_type();
    u
}

/// A replayed snapshot says what a recording does not keep, so a missing field reads as "not
/// recorded" rather than "not measured".
pub fn not_kept_note(version: i64) -> gpuledger_lang::Said {
    // One whole sentence per recording version, so each language can order it its own way.
    let key = match version {
        ..=1 => "report-note-replay-v1",
        2 => "report-note-replay-v2",
        _ => "report-note-replay",
    };
    gpuledger_lang::Said::new(key, vec![])
}

#[cfg(test)]
mod note_tests {
    use super::not_kept_note;
    use gpuledger_lang::Lang;

    /// The English is the one the note had before it had a key (recordings and JSON compare it).
    #[test]
    fn not_kept_note_english_unchanged_and_translated() {
        let old = [
            (1, "replayed from a recording, which keeps per device memory, GPU %, memory-controller %, temperature and power, and per process its name, user, command line, device memory, SM %; it does not keep workload identification, estimates, listening ports, owners (pods, Slurm jobs, containers, units), ROCm /dev/kfd use, encoder/decoder %, per-source readings, device clocks, PCIe links or power limits, nor (recorded by an older gpuledger) system memory and busy % per engine type, nor (recorded by an older gpuledger) the type (C/G) of each use"),
            (2, "replayed from a recording, which keeps per device memory, GPU %, memory-controller %, temperature and power, and per process its name, user, command line, device memory, SM %, system memory and busy % per engine type; it does not keep workload identification, estimates, listening ports, owners (pods, Slurm jobs, containers, units), ROCm /dev/kfd use, encoder/decoder %, per-source readings, device clocks, PCIe links or power limits, nor (recorded by an older gpuledger) the type (C/G) of each use"),
            (3, "replayed from a recording, which keeps per device memory, GPU %, memory-controller %, temperature and power, and per process its name, user, command line, device memory, SM %, system memory and busy % per engine type, and the workload, estimate and type (C/G) last identified for each process; it does not keep listening ports, owners (pods, Slurm jobs, containers, units), ROCm /dev/kfd use, encoder/decoder %, per-source readings, device clocks, PCIe links or power limits"),
        ];
        for (v, text) in old {
            assert_eq!(not_kept_note(v).as_str(), text, "version {v}");
        }
        assert_eq!(not_kept_note(0).as_str(), old[0].1);
        assert_eq!(not_kept_note(9).as_str(), old[2].1);
        let zh = not_kept_note(3).in_lang(Lang::ZhCn);
        assert!(zh.starts_with("从录制回放"), "{zh}");
    }
}
