//! CSV: one vocabulary of column names for every CSV gpuledger writes (`snapshot --format csv`,
//! `history --format csv`, the live view's `e` export), the JSON contract's names flattened, and
//! the snapshot as CSV. RFC 4180 quoting (the csv crate), RFC 3339 timestamps, unknown values as
//! empty fields (never 0) with the reason in a `*_unavailable_reason` column.
//!
//! The snapshot has one row per device (`kind=device`, memory = used), one per process on a
//! device (`kind=process`), and one per device for what no process accounts for
//! (`kind=unattributed`), so the books balance in a spreadsheet too.
//!
//! Every CSV gpuledger writes goes through [`Writer`] or [`encode_record`]: each field's control
//! characters (ESC, CR, LF, C1, bidi overrides) become visible `\u001b`-style escapes, as in every
//! other text output ([`gpuledger_model::term_safe`]), so a process that names itself
//! `ESC]0;…` retitles no terminal a CSV is printed on, and a name never breaks its row.

use gpuledger_model::{redact_arg_list, redact_text, term_safe, Device, Snapshot};
use std::io::Write;

/// The one CSV writer: RFC 4180 quoting (the csv crate) of fields escaped by [`term_safe`].
pub struct Writer<W: Write> {
    w: ::csv::Writer<W>,
}

impl<W: Write> Writer<W> {
    pub fn from_writer(out: W) -> Self {
        Writer {
            w: ::csv::Writer::from_writer(out),
        }
    }

    /// One record, each field escaped.
    pub fn write_record<I, F>(&mut self, fields: I) -> Result<(), ::csv::Error>
    where
        I: IntoIterator<Item = F>,
        F: AsRef<str>,
    {
        self.w.write_record(
            fields
                .into_iter()
                .map(|f| term_safe(f.as_ref()).into_owned()),
        )
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }

    /// The destination, after flushing what is buffered.
    pub fn into_inner(self) -> Result<W, ::csv::Error> {
        self.w.into_inner().map_err(|e| e.into_error().into())
    }
}

/// One record as bytes, without the record terminator, escaped and quoted as [`Writer`] does:
/// for writers that encode a row's constant part once and reuse it (`history --format csv`).
pub fn encode_record<I, F>(fields: I) -> Vec<u8>
where
    I: IntoIterator<Item = F>,
    F: AsRef<str>,
{
    let mut w = Writer::from_writer(Vec::new());
    // Writing into a Vec cannot fail.
    let _ = w.write_record(fields);
    let mut v = w.into_inner().unwrap_or_default();
    if v.last() == Some(&b'\n') {
        v.pop();
    }
    v
}

/// Column names. One name per fact, the same in every CSV and as close to the JSON path as a
/// flat name can be (`usage.engines.sm_percent` → `sm_percent`).
pub mod col {
    pub const TAKEN_AT: &str = "taken_at";
    pub const KIND: &str = "kind";
    pub const DEVICE_INDEX: &str = "device_index";
    pub const DEVICE_UUID: &str = "device_uuid";
    pub const DEVICE_NAME: &str = "device_name";
    pub const DEVICE_TOTAL_BYTES: &str = "device_total_bytes";
    pub const DEVICE_USED_BYTES: &str = "device_used_bytes";
    pub const DEVICE_FREE_BYTES: &str = "device_free_bytes";
    /// The device's utilisation (`utilization.gpu_percent`).
    pub const GPU_PERCENT: &str = "gpu_percent";
    /// The device's memory-controller (bandwidth) utilisation (`utilization.memory_percent`).
    pub const MEMORY_BANDWIDTH_PERCENT: &str = "memory_bandwidth_percent";
    pub const TEMPERATURE_C: &str = "temperature_c";
    pub const POWER_WATTS: &str = "power_watts";
    pub const PID: &str = "pid";
    pub const START_TIME: &str = "start_time";
    pub const NAME: &str = "name";
    pub const USER: &str = "user";
    pub const WORKLOAD: &str = "workload";
    pub const TYPE: &str = "type";
    pub const MEMORY_BYTES: &str = "memory_bytes";
    pub const MEMORY_SOURCE: &str = "memory_source";
    pub const MEMORY_UNAVAILABLE_REASON: &str = "memory_unavailable_reason";
    /// A process's share of the device's compute time (`usage.engines.sm_percent`).
    pub const SM_PERCENT: &str = "sm_percent";
    pub const SM_UNAVAILABLE_REASON: &str = "sm_unavailable_reason";
    pub const CPU_PERCENT: &str = "cpu_percent";
    pub const RSS_BYTES: &str = "rss_bytes";
    pub const HOST_UNAVAILABLE_REASON: &str = "host_unavailable_reason";
    pub const COMMAND: &str = "command";
    /// Who the process belongs to beyond its user (`owner.label`: `ns/pod/container`,
    /// `job 4711 (alice)`, `unit ollama.service`). Last, so that older readers' positions hold.
    pub const OWNER: &str = "owner";
}

pub const SNAPSHOT_HEADER: [&str; 18] = [
    col::TAKEN_AT,
    col::KIND,
    col::DEVICE_INDEX,
    col::DEVICE_UUID,
    col::DEVICE_NAME,
    col::DEVICE_TOTAL_BYTES,
    col::DEVICE_USED_BYTES,
    col::PID,
    col::START_TIME,
    col::NAME,
    col::USER,
    col::MEMORY_BYTES,
    col::MEMORY_SOURCE,
    col::MEMORY_UNAVAILABLE_REASON,
    col::GPU_PERCENT,
    col::SM_PERCENT,
    col::COMMAND,
    col::OWNER,
];

/// The live view's export (`e`): the snapshot's columns, in its order, for each row shown, then
/// what only the view has: the workload and type it shows, why SM % is unknown, and the host
/// figures it samples. A spreadsheet that reads `snapshot --format csv` reads these too.
pub const VIEW_EXTRA: [&str; 6] = [
    col::WORKLOAD,
    col::TYPE,
    col::SM_UNAVAILABLE_REASON,
    col::CPU_PERCENT,
    col::RSS_BYTES,
    col::HOST_UNAVAILABLE_REASON,
];

/// A value as a CSV field: empty when unknown, never 0. Every CSV gpuledger writes spells
/// unknown this way (the reason goes in a `*_unavailable_reason` column).
pub fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// The first seven fields of every row: the snapshot's time, the row's kind (filled in by the
/// row) and the device; for a device the snapshot does not list, only its id.
fn device_fields(taken_at: &str, uuid: &str, d: Option<&Device>) -> [String; 7] {
    [
        taken_at.to_string(),
        String::new(),
        opt(d.map(|d| d.index)),
        uuid.to_string(),
        opt(d.and_then(|d| d.name.clone())),
        opt(d.and_then(|d| d.memory.total_bytes)),
        opt(d.and_then(|d| d.memory.used_bytes)),
    ]
}

/// One process on one device as the snapshot CSV writes it (`kind=process`, the columns of
/// [`SNAPSHOT_HEADER`]): the same row whichever CSV writes it.
pub fn process_record(
    snap: &Snapshot,
    p: &gpuledger_model::Process,
    u: &gpuledger_model::Usage,
) -> Vec<String> {
    let dev = device_fields(&snap.taken_at, &u.device, snap.device_by_uuid(&u.device));
    process_row(&dev, p, u)
}

/// One process row: the device's leading fields, then the process on it.
fn process_row(
    dev: &[String; 7],
    p: &gpuledger_model::Process,
    u: &gpuledger_model::Usage,
) -> Vec<String> {
    let mut row = dev.to_vec();
    row[1] = "process".into();
    // Stored redacted by the sources; a snapshot read from a file is redacted on loading; and
    // redacted again here, whoever built the snapshot.
    let command = p
        .cmdline
        .as_ref()
        .map(|c| redact_arg_list(c).join(" "))
        .unwrap_or_default();
    row.extend([
        p.pid.to_string(),
        opt(p.start_time),
        p.name.as_deref().map(redact_text).unwrap_or_default(),
        p.user.clone().unwrap_or_default(),
        opt(u.memory_bytes),
        u.memory_source.clone(),
        u.unavailable_reason
            .as_deref()
            .unwrap_or_default()
            .to_string(),
        String::new(),
        opt(u.engines.sm_percent),
        command,
        p.owner
            .as_ref()
            .map(|o| redact_text(&o.label))
            .unwrap_or_default(),
    ]);
    row
}

/// The snapshot as CSV text: per device its own row, its processes, its unattributed row; then
/// the processes on devices the snapshot does not list.
pub fn snapshot_csv(snap: &Snapshot) -> Result<String, ::csv::Error> {
    let mut w = Writer::from_writer(Vec::new());
    w.write_record(SNAPSHOT_HEADER)?;
    for d in &snap.devices {
        let dev = device_fields(&snap.taken_at, &d.uuid, Some(d));
        w.write_record(device_row(&dev, d))?;
        for p in &snap.processes {
            for u in p.usage.iter().filter(|u| u.device == d.uuid) {
                w.write_record(process_row(&dev, p, u))?;
            }
        }
        w.write_record(unattributed_row(&dev, d))?;
    }
    // A usage on a device the snapshot does not list is still a row (device fields empty but
    // its id), not dropped.
    for p in &snap.processes {
        for u in p
            .usage
            .iter()
            .filter(|u| snap.device_by_uuid(&u.device).is_none())
        {
            w.write_record(process_record(snap, p, u))?;
        }
    }
    let bytes = w.into_inner()?;
    Ok(String::from_utf8(bytes).expect("csv of UTF-8 strings is UTF-8"))
}

/// The device's own row: its leading fields, then its used memory and utilisation.
fn device_row(dev: &[String; 7], d: &Device) -> Vec<String> {
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
        String::new(),
        String::new(),
    ]);
    row
}

/// What no process on the device accounts for, with why it is empty when it is.
fn unattributed_row(dev: &[String; 7], d: &Device) -> Vec<String> {
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
        String::new(),
        String::new(),
    ]);
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::test_support::{device, process, snapshot, TAKEN_AT};

    #[test]
    fn quoting_of_commas_quotes_and_unknowns() {
        let mut d = device(0, "GPU-1", Some(1000), Some(700));
        d.name = Some("NVIDIA H200".into());
        let mut p = process(42, "GPU-1", Some(500));
        p.start_time = Some(77);
        p.name = Some("python3".into());
        p.cmdline = Some(vec![
            "python3".into(),
            "-c".into(),
            "print(\"a,b\")".into(),
            "--token=hf_SECRET".into(),
        ]);
        let s = snapshot(TAKEN_AT, vec![d], vec![p, process(43, "GPU-1", None)]);
        let text = snapshot_csv(&s).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], SNAPSHOT_HEADER.join(","));
        assert_eq!(
            lines[1],
            "2026-11-29T08:00:00Z,device,0,GPU-1,NVIDIA H200,1000,700,,,,,700,nvml,,,,,"
        );
        assert_eq!(
            lines[2],
            "2026-11-29T08:00:00Z,process,0,GPU-1,NVIDIA H200,1000,700,42,77,python3,,500,nvml,,,,\"python3 -c print(\"\"a,b\"\") --token=<redacted>\","
        );
        // Unknown memory is an empty field, not 0.
        assert_eq!(
            lines[3],
            "2026-11-29T08:00:00Z,process,0,GPU-1,NVIDIA H200,1000,700,43,,,,,nvml,,,,,"
        );
        assert_eq!(
            lines[4],
            "2026-11-29T08:00:00Z,unattributed,0,GPU-1,NVIDIA H200,1000,700,,,unattributed (driver/system/other users),,200,ledger,,,,,"
        );
        assert_eq!(lines.len(), 5);
        // And a CSV reader gets the command line back intact.
        let mut r = ::csv::Reader::from_reader(text.as_bytes());
        let rec = r.records().nth(1).unwrap().unwrap();
        assert_eq!(&rec[16], "python3 -c print(\"a,b\") --token=<redacted>");
    }

    /// A usage on a device the snapshot does not list is a row, not dropped.
    #[test]
    fn the_owner_is_the_last_column_of_a_process_row_and_empty_elsewhere() {
        use gpuledger_model::{Owner, OwnerKind};
        let mut p = process(7, "GPU-1", Some(42));
        let mut o = Owner::new(OwnerKind::Pod, "/kubepods/pod1234");
        o.namespace = Some("team-a".into());
        o.pod_name = Some("chat-0".into());
        o.relabel();
        let label = o.label.clone();
        p.owner = Some(o);
        let s = snapshot(
            TAKEN_AT,
            vec![device(0, "GPU-1", Some(1000), Some(700))],
            vec![p],
        );
        let text = snapshot_csv(&s).unwrap();
        let mut r = ::csv::Reader::from_reader(text.as_bytes());
        assert_eq!(r.headers().unwrap().iter().next_back(), Some(col::OWNER));
        let rows: Vec<::csv::StringRecord> = r.records().map(Result::unwrap).collect();
        let owner_of = |kind: &str| {
            let row = rows.iter().find(|x| &x[1] == kind).unwrap();
            row[row.len() - 1].to_string()
        };
        assert!(label.contains("chat-0"), "{label}");
        assert_eq!(owner_of("process"), label);
        assert_eq!(owner_of("device"), "");
        assert_eq!(owner_of("unattributed"), "");
    }

    /// Issue 40, item 8: a recorded name with ESC, CR and LF stays one escaped field on its row.
    #[test]
    fn control_characters_in_a_field_are_escaped() {
        let mut p = process(42, "GPU-1", Some(500));
        p.name = Some("\u{1b}]0;PWNED\u{7}a\rb\nc".into());
        let s = snapshot(
            TAKEN_AT,
            vec![device(0, "GPU-1", Some(1000), Some(700))],
            vec![p],
        );
        let text = snapshot_csv(&s).unwrap();
        assert!(!text.contains('\u{1b}') && !text.contains('\r') && !text.contains('\u{7}'));
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(
            text.contains(",\\u001b]0;PWNED\\u0007a\\u000db\\u000ac,"),
            "{text}"
        );
        assert_eq!(
            encode_record(["a\u{1b}", "b,c", "\n"]),
            b"a\\u001b,\"b,c\",\\u000a".to_vec()
        );
    }

    #[test]
    fn a_usage_on_an_unlisted_device_is_kept() {
        let s = snapshot(TAKEN_AT, vec![], vec![process(7, "GPU-gone", Some(42))]);
        let text = snapshot_csv(&s).unwrap();
        assert!(
            text.lines().any(
                |l| l.starts_with("2026-11-29T08:00:00Z,process,,GPU-gone,,,,7,")
                    && l.contains(",42,")
            ),
            "{text}"
        );
    }
}
