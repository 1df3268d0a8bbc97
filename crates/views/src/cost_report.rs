//! What `gpuledger probe` measured, as the table it prints: the device, what a CUDA context
//! costs, then one row per way of allocating memory with its VRAM cost and whether it came back.

use crate::columns::{or_unknown_with, Align, Columns};
use gpuledger_lang::Lang;
use gpuledger_model::probe_report::{Method, ProbeReport, Row};
use gpuledger_model::units::human_bytes;
use gpuledger_model::words;

/// `-12 MiB`, `256 MiB`: a VRAM change, negative when free memory grew.
pub fn signed_bytes(v: i64) -> String {
    if v < 0 {
        format!("-{}", human_bytes(v.unsigned_abs()))
    } else {
        human_bytes(v as u64)
    }
}

/// The table's columns, in the order of [`cells`].
const HEADER: [&str; 7] = [
    "report-probe-col-method",
    "report-probe-col-host-bytes",
    "report-probe-col-delta-driver",
    "report-probe-col-delta-nvml",
    "report-probe-col-ratio-driver",
    "report-probe-col-ratio-nvml",
    "report-probe-col-released",
];

/// The human-readable table `gpuledger probe` prints, its words in `lang`; the notes are the
/// probe's own sentences (English, as `--json` has them).
pub fn render_table(r: &ProbeReport, lang: Lang) -> String {
    let unknown = || words::UNKNOWN.into();
    let args = [
        ("device", r.device.name.as_str().into()),
        ("ordinal", r.device.ordinal.to_string().into()),
        ("total", human_bytes(r.device.total_bytes).into()),
        (
            "driver",
            r.driver_version.as_deref().map_or_else(unknown, Into::into),
        ),
        (
            "cuda",
            r.cuda_driver_version
                .as_deref()
                .map_or_else(unknown, Into::into),
        ),
        ("os", r.os.as_str().into()),
        ("at", r.measured_at.as_str().into()),
        (
            "first_nvml",
            or_unknown_with(r.context.first_by_nvml, signed_bytes).into(),
        ),
        (
            "second_driver",
            signed_bytes(r.context.second_by_driver).into(),
        ),
        (
            "second_nvml",
            or_unknown_with(r.context.second_by_nvml, signed_bytes).into(),
        ),
    ];
    let mut out = String::new();
    for key in ["report-probe-title", "report-probe-versions"] {
        out.push_str(&lang.t_args(key, &args));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&lang.t_args("report-probe-context", &args));
    out.push_str("\n\n");
    let mut rows = vec![HEADER.iter().map(|k| lang.t(k)).collect::<Vec<_>>()];
    rows.extend(r.rows.iter().map(|row| cells(row, lang)));
    let mut align = [Align::Right; 7];
    align[0] = Align::Left;
    align[6] = Align::Left;
    out.push_str(&Columns::new(&align).render(&rows));
    for n in &r.notes {
        out.push('\n');
        out.push_str(&lang.t_args("report-probe-note", &[("text", n.in_lang(lang).into())]));
    }
    if !r.notes.is_empty() {
        out.push('\n');
    }
    out
}

/// A way of allocating, named by its CUDA call and, in the reader's language, what it is.
fn method_label(m: Method, lang: Lang) -> String {
    lang.t(match m {
        Method::DeviceAlloc => "report-probe-method-device",
        Method::HostAlloc => "report-probe-method-pinned",
        Method::HostAllocDevicemap => "report-probe-method-devicemap",
        Method::HostRegister => "report-probe-method-register",
    })
}

/// One measured allocation's cells, in [`HEADER`]'s order.
fn cells(row: &Row, lang: Lang) -> Vec<String> {
    let rel = &row.release;
    let released = if rel.released {
        lang.t_args("report-probe-released", &[("reads", rel.reads.into())])
    } else {
        let args = [
            ("missing", signed_bytes(rel.residual_bytes).into()),
            ("reads", rel.reads.into()),
        ];
        lang.t_args("report-probe-not-released", &args)
    };
    vec![
        method_label(row.method, lang),
        human_bytes(row.host_bytes),
        signed_bytes(row.vram_delta_driver),
        or_unknown_with(row.vram_delta_nvml, signed_bytes),
        format!("{:.2}", row.ratio_driver),
        or_unknown_with(row.ratio_nvml, |x| format!("{x:.2}")),
        released,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed() {
        assert_eq!(signed_bytes(-(12 << 20)), "-12 MiB");
        assert_eq!(signed_bytes(256 << 20), "256 MiB");
        assert_eq!(signed_bytes(0), "0 B");
    }

    fn report() -> ProbeReport {
        use gpuledger_model::probe_report::{ContextCost, DeviceInfo, Release};
        let rel = |released, residual_bytes| Release {
            reads: 3,
            released,
            residual_bytes,
        };
        ProbeReport {
            schema: 1,
            measured_at: "2026-11-29T08:00:00Z".into(),
            os: "linux".into(),
            cuda_lib: "libcuda.so.1".into(),
            device: DeviceInfo {
                ordinal: 0,
                name: "NVIDIA H200".into(),
                uuid: None,
                total_bytes: 140 << 30,
            },
            cuda_driver_version: Some("12.4".into()),
            driver_version: None,
            settle_ms: 10,
            context: ContextCost {
                first_by_nvml: Some(500 << 20),
                second_by_driver: 2 << 20,
                second_by_nvml: None,
            },
            rows: vec![
                Row::new(
                    Method::DeviceAlloc,
                    256 << 20,
                    256 << 20,
                    None,
                    rel(true, 0),
                ),
                Row::new(
                    Method::HostAlloc,
                    256 << 20,
                    2 << 20,
                    None,
                    rel(false, 2 << 20),
                ),
            ],
            notes: vec!["NVML could not be loaded: x".into()],
        }
    }

    /// The English labels are the model's (what `probe --save`'s label and the docs use).
    #[test]
    fn english_method_labels_are_the_models() {
        for m in Method::ALL {
            assert_eq!(method_label(m, Lang::En), m.label(), "{m:?}");
        }
    }

    /// The table in each language: its words translated, figures as they are, the columns in
    /// line by display width.
    #[test]
    fn the_table_in_each_language() {
        let en = render_table(&report(), Lang::En);
        assert!(en.starts_with("gpuledger probe: NVIDIA H200 (CUDA device 0), 140 GiB of VRAM\n"));
        assert!(
            en.contains("\ncontext cost: 500 MiB by NVML (first context); 2 MiB by driver"),
            "{en}"
        );
        assert!(en.contains("NO: 2 MiB still missing after 3 reads"), "{en}");
        assert!(
            en.ends_with("\nnote: NVML could not be loaded: x\n"),
            "{en}"
        );
        let zh = render_table(&report(), Lang::ZhCn);
        assert!(zh.contains("140 GiB 显存"), "{zh}");
        assert!(zh.contains("cuMemHostAlloc（锁页内存）"), "{zh}");
        assert!(zh.contains("否：读取 3 次后仍少 2 MiB"), "{zh}");
        // The probe's note, read back from its file, is a catalogue sentence: said again.
        assert!(zh.ends_with("\n注：无法加载 NVML：x\n"), "{zh}");
        let tw = render_table(&report(), Lang::ZhTw);
        assert!(tw.contains("140 GiB 顯示記憶體"), "{tw}");
        use unicode_width::UnicodeWidthStr;
        let lines: Vec<&str> = tw.lines().skip(5).take(3).collect();
        let col = |l: &str, cell: &str| l[..l.find(cell).unwrap()].width();
        assert_eq!(col(lines[1], "256 MiB"), col(lines[2], "256 MiB"), "{tw}");
    }
}
