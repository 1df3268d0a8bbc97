//! CSV for one snapshot (`gpuledger snapshot --format csv`): a header row, RFC 4180 quoting (the
//! csv crate), RFC 3339 timestamps, unknown values as empty fields (never 0).
//!
//! One row per device (`kind=device`, memory = used), one per process on a device
//! (`kind=process`), and one per device for what no process accounts for (`kind=unattributed`),
//! so the books balance in a spreadsheet too.

use gpuledger_model::{redact_arg_list, Snapshot};

pub const SNAPSHOT_HEADER: [&str; 16] = [
    "taken_at",
    "kind",
    "device_index",
    "device_uuid",
    "device_name",
    "device_total_bytes",
    "device_used_bytes",
    "pid",
    "start_time",
    "name",
    "user",
    "memory_bytes",
    "memory_source",
    "unavailable_reason",
    "gpu_percent",
    "command",
];

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// The snapshot as CSV text.
pub fn snapshot_csv(snap: &Snapshot) -> Result<String, ::csv::Error> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(SNAPSHOT_HEADER)?;
    for d in &snap.devices {
        let dev = [
            snap.taken_at.clone(),
            String::new(),
            d.index.to_string(),
            d.uuid.clone(),
            d.name.clone().unwrap_or_default(),
            opt(d.memory.total_bytes),
            opt(d.memory.used_bytes),
        ];
        let mut row = dev.to_vec();
        row[1] = "device".into();
        row.extend([
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            opt(d.memory.used_bytes),
            d.source.clone(),
            d.unavailable
                .get("memory.used_bytes")
                .cloned()
                .unwrap_or_default(),
            opt(d.utilization.gpu_percent),
            String::new(),
        ]);
        w.write_record(&row)?;
        for p in &snap.processes {
            for u in p.usage.iter().filter(|u| u.device == d.uuid) {
                let mut row = dev.to_vec();
                row[1] = "process".into();
                let command = p
                    .cmdline
                    .as_ref()
                    .map(|c| redact_arg_list(c).join(" "))
                    .unwrap_or_default();
                row.extend([
                    p.pid.to_string(),
                    opt(p.start_time),
                    p.name.clone().unwrap_or_default(),
                    p.user.clone().unwrap_or_default(),
                    opt(u.memory_bytes),
                    u.memory_source.clone(),
                    u.unavailable_reason.clone().unwrap_or_default(),
                    opt(u.engines.sm_percent),
                    command,
                ]);
                w.write_record(&row)?;
            }
        }
        let mut row = dev.to_vec();
        row[1] = "unattributed".into();
        let why = if d.ledger.over_attributed {
            "processes add up to more than the device uses (shared memory counted twice)"
        } else if d.ledger.unattributed_bytes.is_none() {
            "device used memory unknown"
        } else {
            ""
        };
        row.extend([
            String::new(),
            String::new(),
            "unattributed (driver/system/other users)".into(),
            String::new(),
            opt(d.ledger.unattributed_bytes),
            "ledger".into(),
            why.into(),
            String::new(),
            String::new(),
        ]);
        w.write_record(&row)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes).expect("csv of UTF-8 strings is UTF-8"))
}

// ---------------------------------------------------------------------------------------------
// History export: one row per sample and process on a device, or per sample and device.

use crate::store::{DeviceRow, ProcRow};
use crate::time::format_ms;
use std::io::Write;

/// Process rows. The changing values come first and the per-process constants after them, so a
/// row is the sample's time, two numbers, and a pre-encoded tail.
pub const PROCESS_HEADER: [&str; 12] = [
    "timestamp",
    "memory_bytes",
    "sm_percent",
    "device_uuid",
    "device_index",
    "pid",
    "start_time",
    "name",
    "user",
    "memory_source",
    "unavailable_reason",
    "command",
];

pub const DEVICE_HEADER: [&str; 11] = [
    "timestamp",
    "device_uuid",
    "device_index",
    "device_name",
    "total_bytes",
    "used_bytes",
    "free_bytes",
    "gpu_percent",
    "memory_util_percent",
    "temperature_c",
    "power_watts",
];

/// Fields quoted by the csv crate (RFC 4180), without the record terminator.
fn encode_fields<I, F>(fields: I) -> Vec<u8>
where
    I: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    let mut w = ::csv::Writer::from_writer(Vec::new());
    // Writing into a Vec cannot fail.
    let _ = w.write_record(fields);
    let mut v = w.into_inner().unwrap_or_default();
    if v.last() == Some(&b'\n') {
        v.pop();
    }
    v
}

/// Streams process rows as CSV. A day holds millions of rows, so the quoting work is done once:
/// the timestamp once per sample, the constant tail (device, process, source, reason, command)
/// once per process and device and change of its values, each quoted by the csv crate.
pub struct HistoryCsv<W: Write> {
    out: W,
    ts: i64,
    ts_text: Vec<u8>,
    /// (process id, device id) → the values last written and the row after the timestamp.
    /// FxHash: a lookup per row, and the keys are small integers we assigned ourselves.
    rows: rustc_hash::FxHashMap<(u32, u32), (Option<crate::store::frame::Vals>, Vec<u8>)>,
    /// (process id, device id, source id, reason id) → the quoted constant columns.
    tails: rustc_hash::FxHashMap<(u32, u32, u32, Option<u32>), Vec<u8>>,
    num: itoa::Buffer,
}

impl<W: Write> HistoryCsv<W> {
    pub fn processes(mut out: W) -> std::io::Result<Self> {
        out.write_all(&encode_fields(PROCESS_HEADER))?;
        out.write_all(b"\n")?;
        Ok(HistoryCsv {
            out,
            ts: i64::MIN,
            ts_text: Vec::new(),
            rows: Default::default(),
            tails: Default::default(),
            num: itoa::Buffer::new(),
        })
    }

    pub fn process_row(&mut self, r: &ProcRow) -> std::io::Result<()> {
        if r.ts_ms != self.ts {
            self.ts = r.ts_ms;
            self.ts_text = encode_fields([format_ms(r.ts_ms)]);
        }
        // Most processes hold still between samples: their whole row after the timestamp is
        // reused until a value changes; then only the two numbers are formatted again, in front
        // of the constant tail (quoted once per process, device, source and reason).
        let entry = self
            .rows
            .entry((r.process.id, r.device.id))
            .or_insert_with(|| (None, Vec::new()));
        if entry.0 != Some(*r.vals) {
            let tail = self
                .tails
                .entry((r.process.id, r.device.id, r.vals.source, r.vals.reason))
                .or_insert_with(|| {
                    let p = r.process;
                    let command = p
                        .cmdline
                        .as_ref()
                        .map(|c| redact_arg_list(c).join(" "))
                        .unwrap_or_default();
                    encode_fields([
                        r.device.uuid.clone(),
                        r.device.index.to_string(),
                        p.pid.to_string(),
                        opt(p.start_time),
                        p.name.clone().unwrap_or_default(),
                        p.user.clone().unwrap_or_default(),
                        r.source.to_string(),
                        r.reason.unwrap_or("").to_string(),
                        command,
                    ])
                });
            let row = &mut entry.1;
            row.clear();
            row.push(b',');
            if let Some(m) = r.vals.memory_bytes {
                row.extend_from_slice(self.num.format(m).as_bytes());
            }
            row.push(b',');
            if let Some(sm) = r.vals.sm_percent {
                row.extend_from_slice(self.num.format(sm).as_bytes());
            }
            row.push(b',');
            row.extend_from_slice(tail);
            row.push(b'\n');
            entry.0 = Some(*r.vals);
        }
        self.out.write_all(&self.ts_text)?;
        self.out.write_all(&entry.1)
    }

    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Device rows (one per device per sample: few enough to go through the csv writer directly).
pub struct DeviceCsv<W: Write> {
    w: ::csv::Writer<W>,
}

impl<W: Write> DeviceCsv<W> {
    pub fn new(out: W) -> Result<Self, ::csv::Error> {
        let mut w = ::csv::Writer::from_writer(out);
        w.write_record(DEVICE_HEADER)?;
        Ok(DeviceCsv { w })
    }

    pub fn device_row(&mut self, r: &DeviceRow) -> Result<(), ::csv::Error> {
        self.w.write_record([
            format_ms(r.ts_ms),
            r.device.uuid.clone(),
            r.device.index.to_string(),
            r.device.name.clone().unwrap_or_default(),
            opt(r.device.total_bytes),
            opt(r.vals.used),
            opt(r.vals.free),
            opt(r.vals.gpu),
            opt(r.vals.mem_util),
            opt(r.vals.temp),
            r.vals
                .power_mw
                .map(|mw| format!("{:.3}", mw as f64 / 1000.0))
                .unwrap_or_default(),
        ])
    }

    pub fn finish(mut self) -> Result<W, ::csv::Error> {
        self.w.flush()?;
        self.w.into_inner().map_err(|e| e.into_error().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::{balance, Device, Host, Process, Usage, Vendor};

    #[test]
    fn quoting_of_commas_quotes_and_unknowns() {
        let mut s = Snapshot::new("2026-11-29T08:00:00Z".into(), Host::default());
        let mut d = Device::new(0, Vendor::Nvidia, "GPU-1", "nvml");
        d.name = Some("NVIDIA H200".into());
        d.memory.total_bytes = Some(1000);
        d.memory.used_bytes = Some(700);
        s.devices.push(d);
        let mut p = Process::new(42);
        p.start_time = Some(77);
        p.name = Some("python3".into());
        p.cmdline = Some(vec![
            "python3".into(),
            "-c".into(),
            "print(\"a,b\")".into(),
            "--token=hf_SECRET".into(),
        ]);
        let mut u = Usage::new("GPU-1", "nvml");
        u.memory_bytes = Some(500);
        p.usage.push(u);
        s.processes.push(p);
        let mut q = Process::new(43);
        q.usage.push(Usage::new("GPU-1", "nvml"));
        s.processes.push(q);
        balance(&mut s);
        let text = snapshot_csv(&s).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], SNAPSHOT_HEADER.join(","));
        assert_eq!(
            lines[1],
            "2026-11-29T08:00:00Z,device,0,GPU-1,NVIDIA H200,1000,700,,,,,700,nvml,,,"
        );
        assert_eq!(
            lines[2],
            "2026-11-29T08:00:00Z,process,0,GPU-1,NVIDIA H200,1000,700,42,77,python3,,500,nvml,,,\"python3 -c print(\"\"a,b\"\") --token=<redacted>\""
        );
        // Unknown memory is an empty field, not 0.
        assert_eq!(
            lines[3],
            "2026-11-29T08:00:00Z,process,0,GPU-1,NVIDIA H200,1000,700,43,,,,,nvml,,,"
        );
        assert_eq!(
            lines[4],
            "2026-11-29T08:00:00Z,unattributed,0,GPU-1,NVIDIA H200,1000,700,,,unattributed (driver/system/other users),,200,ledger,,,"
        );
        assert_eq!(lines.len(), 5);
        // And a CSV reader gets the command line back intact.
        let mut r = ::csv::Reader::from_reader(text.as_bytes());
        let rec = r.records().nth(1).unwrap().unwrap();
        assert_eq!(&rec[15], "python3 -c print(\"a,b\") --token=<redacted>");
    }

    #[test]
    fn history_rows_quote_like_the_csv_crate() {
        use crate::store::{DevInfo, ProcInfo, ProcRow};
        let p = ProcInfo {
            id: 1,
            pid: 42,
            start_time: None,
            name: Some("a \"b\"".into()),
            user: None,
            cmdline: Some(vec![
                "x".into(),
                "a,b".into(),
                "--password".into(),
                "hunter2".into(),
            ]),
        };
        let d = DevInfo {
            id: 1,
            uuid: "GPU-1".into(),
            index: 0,
            vendor: "nvidia".into(),
            name: None,
            total_bytes: None,
            source: "nvml".into(),
        };
        let v = crate::store::frame::Vals {
            memory_bytes: Some(5),
            sm_percent: None,
            source: 1,
            reason: None,
        };
        let mut w = HistoryCsv::processes(Vec::new()).unwrap();
        for ts in [1_795_939_200_000, 1_795_939_200_500] {
            w.process_row(&ProcRow {
                ts_ms: ts,
                process: &p,
                device: &d,
                vals: &v,
                source: "nvml",
                reason: None,
                extra: None,
                strings: &[],
            })
            .unwrap();
        }
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], PROCESS_HEADER.join(","));
        assert_eq!(lines[1], "2026-11-29T08:00:00Z,5,,GPU-1,0,42,,\"a \"\"b\"\"\",,nvml,,\"x a,b --password <redacted>\"");
        assert_eq!(lines[2], "2026-11-29T08:00:00.500Z,5,,GPU-1,0,42,,\"a \"\"b\"\"\",,nvml,,\"x a,b --password <redacted>\"");
        assert_eq!(lines.len(), 3);
    }
}
