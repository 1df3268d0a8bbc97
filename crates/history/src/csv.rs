//! CSV of a recording (`gpuledger history --format csv`): one row per sample and process on a
//! device, or per sample and device, in the column vocabulary of [`gpuledger_views::csv::col`],
//! through the one CSV writer ([`gpuledger_views::csv::Writer`]), which escapes control
//! characters in every field.

use crate::store::{DeviceRow, ProcRow};
use crate::time::format_ms;
use gpuledger_model::{redact_arg_list, redact_text};
use gpuledger_views::csv::{col, encode_record as encode_fields, opt, Writer};
use std::io::Write;

/// Process rows. The changing values come first and the per-process constants after them, so a
/// row is the sample's time, two numbers, and a pre-encoded tail.
pub const PROCESS_HEADER: [&str; 12] = [
    col::TAKEN_AT,
    col::MEMORY_BYTES,
    col::SM_PERCENT,
    col::DEVICE_UUID,
    col::DEVICE_INDEX,
    col::PID,
    col::START_TIME,
    col::NAME,
    col::USER,
    col::MEMORY_SOURCE,
    col::MEMORY_UNAVAILABLE_REASON,
    col::COMMAND,
];

pub const DEVICE_HEADER: [&str; 11] = [
    col::TAKEN_AT,
    col::DEVICE_UUID,
    col::DEVICE_INDEX,
    col::DEVICE_NAME,
    col::DEVICE_TOTAL_BYTES,
    col::DEVICE_USED_BYTES,
    col::DEVICE_FREE_BYTES,
    col::GPU_PERCENT,
    col::MEMORY_BANDWIDTH_PERCENT,
    col::TEMPERATURE_C,
    col::POWER_WATTS,
];

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
                        p.name.as_deref().map(redact_text).unwrap_or_default(),
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
    w: Writer<W>,
}

impl<W: Write> DeviceCsv<W> {
    pub fn new(out: W) -> Result<Self, ::csv::Error> {
        let mut w = Writer::from_writer(out);
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
        self.w.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_rows_quote_like_the_csv_crate() {
        use crate::store::{ProcRow, RecordedDevice, RecordedProcess};
        let p = RecordedProcess {
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
            about: None,
        };
        let d = RecordedDevice {
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

    /// Issue 40, item 8: a recorded name with ESC, CR and LF is escaped as `snapshot --format
    /// csv` escapes it; device names too.
    #[test]
    fn control_characters_in_recorded_names_are_escaped() {
        use crate::store::{DeviceRow, ProcRow, RecordedDevice, RecordedProcess};
        let evil = "\u{1b}]0;PWNED\u{7}a\rb\nc";
        let p = RecordedProcess {
            id: 1,
            pid: 42,
            start_time: None,
            name: Some(evil.into()),
            user: None,
            cmdline: Some(vec![evil.into()]),
            about: None,
        };
        let d = RecordedDevice {
            id: 1,
            uuid: "GPU-1".into(),
            index: 0,
            vendor: "nvidia".into(),
            name: Some(evil.into()),
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
        w.process_row(&ProcRow {
            ts_ms: 1_795_939_200_000,
            process: &p,
            device: &d,
            vals: &v,
            source: "nvml",
            reason: None,
            extra: None,
            strings: &[],
        })
        .unwrap();
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        let escaped = "\\u001b]0;PWNED\\u0007a\\u000db\\u000ac";
        assert_eq!(text.lines().count(), 2, "{text:?}");
        assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
        assert!(text.contains(&format!(",{escaped},")), "{text:?}");
        // The same field as the snapshot's CSV writes it.
        assert_eq!(
            gpuledger_views::csv::encode_record([evil]),
            escaped.as_bytes()
        );

        let mut w = DeviceCsv::new(Vec::new()).unwrap();
        w.device_row(&DeviceRow {
            ts_ms: 1_795_939_200_000,
            device: &d,
            vals: Default::default(),
        })
        .unwrap();
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
        assert!(text.contains(escaped), "{text:?}");
    }
}
