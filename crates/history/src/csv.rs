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

pub const PROCESS_HEADER: [&str; 12] = [
    "timestamp",
    "device_uuid",
    "device_index",
    "pid",
    "start_time",
    "name",
    "user",
    "memory_bytes",
    "memory_source",
    "unavailable_reason",
    "sm_percent",
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

/// Streams history rows as CSV. The timestamp text is formatted once per sample, and each
/// process's command line once per process, as a day holds millions of rows.
pub struct HistoryCsv<W: Write> {
    w: ::csv::Writer<W>,
    ts: i64,
    ts_text: String,
    commands: std::collections::HashMap<u32, String>,
    num: itoa::Buffer,
}

impl<W: Write> HistoryCsv<W> {
    pub fn processes(out: W) -> Result<Self, ::csv::Error> {
        Self::with_header(out, &PROCESS_HEADER)
    }

    pub fn devices(out: W) -> Result<Self, ::csv::Error> {
        Self::with_header(out, &DEVICE_HEADER)
    }

    fn with_header(out: W, header: &[&str]) -> Result<Self, ::csv::Error> {
        let mut w = ::csv::WriterBuilder::new()
            .buffer_capacity(1 << 16)
            .from_writer(out);
        w.write_record(header)?;
        Ok(HistoryCsv {
            w,
            ts: i64::MIN,
            ts_text: String::new(),
            commands: Default::default(),
            num: itoa::Buffer::new(),
        })
    }

    fn stamp(&mut self, ts: i64) {
        if ts != self.ts {
            self.ts = ts;
            self.ts_text = format_ms(ts);
        }
    }

    fn num_field<N: itoa::Integer>(&mut self, v: Option<N>) -> Result<(), ::csv::Error> {
        match v {
            Some(n) => {
                let s = self.num.format(n);
                self.w.write_field(s)
            }
            None => self.w.write_field(""),
        }
    }

    pub fn process_row(&mut self, r: &ProcRow) -> Result<(), ::csv::Error> {
        self.stamp(r.ts_ms);
        self.w.write_field(&self.ts_text)?;
        self.w.write_field(&r.device.uuid)?;
        self.num_field(Some(r.device.index))?;
        self.num_field(Some(r.process.pid))?;
        self.num_field(r.process.start_time)?;
        self.w
            .write_field(r.process.name.as_deref().unwrap_or(""))?;
        self.w
            .write_field(r.process.user.as_deref().unwrap_or(""))?;
        self.num_field(r.vals.memory_bytes)?;
        self.w.write_field(r.source)?;
        self.w.write_field(r.reason.unwrap_or(""))?;
        self.num_field(r.vals.sm_percent)?;
        let cmd = self.commands.entry(r.process.id).or_insert_with(|| {
            r.process
                .cmdline
                .as_ref()
                .map(|c| redact_arg_list(c).join(" "))
                .unwrap_or_default()
        });
        self.w.write_field(cmd.as_str())?;
        self.w.write_record(None::<&[u8]>)
    }

    pub fn device_row(&mut self, r: &DeviceRow) -> Result<(), ::csv::Error> {
        self.stamp(r.ts_ms);
        self.w.write_field(&self.ts_text)?;
        self.w.write_field(&r.device.uuid)?;
        self.num_field(Some(r.device.index))?;
        self.w.write_field(r.device.name.as_deref().unwrap_or(""))?;
        self.num_field(r.device.total_bytes)?;
        self.num_field(r.vals.used)?;
        self.num_field(r.vals.free)?;
        self.num_field(r.vals.gpu)?;
        self.num_field(r.vals.mem_util)?;
        self.num_field(r.vals.temp)?;
        match r.vals.power_mw {
            Some(mw) => self.w.write_field(format!("{:.3}", mw as f64 / 1000.0))?,
            None => self.w.write_field("")?,
        }
        self.w.write_record(None::<&[u8]>)
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
}
