//! `gpuledger verify`'s report: what was allocated where, what each source should have seen,
//! and each source's verdict (lined up by the one aligner, [`Columns`]). The frame is in the
//! reader's language; the judge's verdicts, the paths' reasons and the notes are its own
//! sentences, in English as the saved record (and `--json`) keeps them.

use crate::columns::{Align, Columns};
use gpuledger_lang::{Lang, Said, Value};
use gpuledger_model::units::human_bytes;
use gpuledger_model::verdict::{SourceScope, VerdictKind};

/// The device the verification workload ran on, as its API names it.
#[derive(Debug, Clone)]
pub enum VerifyDevice<'a> {
    Cuda {
        ordinal: i32,
        name: &'a str,
        uuid: Option<&'a str>,
        cuda_version: Option<&'a str>,
    },
    Vulkan {
        ordinal: i32,
        name: &'a str,
        /// `cpu`, `discrete-gpu`, ...
        device_type: &'a str,
        driver_name: Option<&'a str>,
        driver_info: Option<&'a str>,
        pci_bus_id: Option<&'a str>,
        api_version: &'a str,
    },
}

/// One source's verdict.
#[derive(Debug, Clone)]
pub struct VerdictLine<'a> {
    /// `nvml (per process)`, `nvidia-smi`, ...
    pub source: &'a str,
    /// `ok`, `off`, `cannot see`, `not implemented`, `not run`, `not installed`.
    pub verdict: VerdictKind,
    /// The verdict in words.
    pub text: &'a gpuledger_lang::Said,
    /// Another tool's reading beside gpuledger's own (it does not count for the exit status).
    pub witness: bool,
}

/// Everything the text report shows.
#[derive(Debug, Clone, Default)]
pub struct VerifyReport<'a> {
    /// A replayed record: its path and when it was recorded.
    pub replay: Option<(&'a str, &'a str)>,
    pub size_bytes: u64,
    pub tolerance_bytes: u64,
    pub child_pid: Option<u32>,
    pub device: Option<VerifyDevice<'a>>,
    /// Each workload path (`cuda`, `vulkan`) and what became of it.
    pub paths: Vec<(&'a str, &'a Said)>,
    /// Why the verdicts are judged on system memory (GTT), when they are.
    pub system_ledger: Option<Said>,
    /// The CPU device the workload ran on, when it did (no source can see its memory).
    pub cpu_device: Option<String>,
    pub verdicts: Vec<VerdictLine<'a>>,
    pub notes: &'a [Said],
    pub lang: Lang,
}

pub fn render_verify(r: &VerifyReport) -> String {
    let lang = r.lang;
    let mut s = String::new();
    let mut line = |indent: &str, key: &str, args: &[(&str, Value)]| {
        s.push_str(indent);
        s.push_str(&lang.t_args(key, args));
        s.push('\n');
    };
    if let Some((path, taken_at)) = r.replay {
        let args = [("path", path.into()), ("taken_at", taken_at.into())];
        line("", "report-verify-replay", &args);
    }
    let dev = r
        .device
        .as_ref()
        .map_or_else(|| "?".into(), |d| device_line(d, lang));
    let size = human_bytes(r.size_bytes);
    let pid = r.child_pid.map_or_else(|| "?".into(), |p| p.to_string());
    let args = [
        ("size", size.as_str().into()),
        ("pid", pid.into()),
        ("device", dev.into()),
    ];
    line("", "report-verify-title", &args);
    for (path, why) in &r.paths {
        line(
            "  ",
            "report-verify-path",
            &[
                ("path", (*path).into()),
                ("why", why.in_lang(r.lang).into()),
            ],
        );
    }
    if let Some(why) = &r.system_ledger {
        line(
            "  ",
            "report-verify-system-ledger",
            &[("why", why.as_str().into())],
        );
    }
    if let Some(driver) = &r.cpu_device {
        line(
            "",
            "report-verify-expected-cpu",
            &[("device", driver.as_str().into())],
        );
    } else {
        let tolerance = human_bytes(r.tolerance_bytes);
        let args = [
            ("size", size.as_str().into()),
            ("tolerance", tolerance.into()),
        ];
        line("", "report-verify-expected", &args);
    }
    s.push('\n');
    let rows: Vec<Vec<String>> = r
        .verdicts
        .iter()
        .map(|v| vec![source_text(v.source, lang), verdict_text(v, lang)])
        .collect();
    s.push_str(
        &Columns::new(&[Align::Left, Align::Left])
            .indent("  ")
            .render(&rows),
    );
    for n in r.notes {
        s.push_str(&lang.t_args("report-verify-note", &[("text", n.in_lang(lang).into())]));
        s.push('\n');
    }
    s
}

/// Which workload `verify` was asked to run (`--path`), for the hint after "nothing can be
/// verified".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    Any,
    Cuda,
    Vulkan,
}

/// No workload could start (or the one that did cannot be verified): each path with why, then
/// what verify needs.
pub fn render_unverifiable(tried: &[(&str, &Said)], asked: Option<Asked>, lang: Lang) -> String {
    let mut s = lang.t("report-verify-nothing");
    s.push('\n');
    for (path, why) in tried {
        s.push_str(&format!("  {path}: {}\n", why.in_lang(lang)));
    }
    if let Some(a) = asked {
        s.push_str(&lang.t(match a {
            Asked::Any => "report-verify-needs-any",
            Asked::Cuda => "report-verify-needs-cuda",
            Asked::Vulkan => "report-verify-needs-vulkan",
        }));
        s.push('\n');
    }
    s
}

/// A verdict's source in the language: the record keeps the English label (`nvml (per process)`);
/// its scope is said here and the tool's name kept as written.
fn source_text(label: &str, lang: Lang) -> String {
    let Some((scope, name)) = SourceScope::split(label) else {
        return label.to_string();
    };
    let key = match (scope, name.is_empty()) {
        (SourceScope::PerProcess, _) => "report-verify-source-per-process",
        (SourceScope::DeviceUsed, _) => "report-verify-source-device-used",
        (SourceScope::Unattributed, true) => "report-verify-source-unattributed",
        (SourceScope::Unattributed, false) => "report-verify-source-unattributed-of",
    };
    lang.t_args(key, &[("name", name.into())])
}

/// The verdict in words (the judge's, English as the record keeps them); a witness that gave a
/// reading is marked as one.
fn verdict_text(v: &VerdictLine, lang: Lang) -> String {
    if v.witness && v.verdict.is_reading() {
        format!(
            "{}  {}",
            v.text.in_lang(lang),
            lang.t("report-verify-second-witness")
        )
    } else {
        v.text.in_lang(lang)
    }
}

/// `CUDA device 0 NVIDIA H200 (GPU-…), CUDA 12.4`, or the Vulkan device with its type, driver
/// and PCI address.
fn device_line(d: &VerifyDevice, lang: Lang) -> String {
    match d {
        VerifyDevice::Cuda {
            ordinal,
            name,
            uuid,
            cuda_version,
        } => {
            let uuid = uuid.map_or_else(|| lang.t("report-verify-no-uuid"), str::to_string);
            let args = [
                ("ordinal", ordinal.to_string().into()),
                ("name", (*name).into()),
                ("uuid", uuid.into()),
                ("cuda", cuda_version.unwrap_or("?").into()),
            ];
            lang.t_args("report-verify-cuda-device", &args)
        }
        VerifyDevice::Vulkan {
            ordinal,
            name,
            device_type,
            driver_name,
            driver_info,
            pci_bus_id,
            api_version,
        } => {
            // The type, then whatever the driver said of itself: names, not words to translate.
            let about: Vec<&str> = [Some(*device_type), *driver_name, *driver_info]
                .into_iter()
                .flatten()
                .collect();
            let pci =
                pci_bus_id.map_or_else(|| lang.t("report-verify-pci-unknown"), str::to_string);
            let args = [
                ("ordinal", ordinal.to_string().into()),
                ("name", (*name).into()),
                ("about", about.join(", ").into()),
                ("pci", pci.into()),
                ("vulkan", (*api_version).into()),
            ];
            lang.t_args("report-verify-vulkan-device", &args)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_lang::Said;

    #[test]
    fn verdicts_line_up_and_witnesses_with_a_reading_are_marked() {
        let (ok, missing) = (Said::from("ok"), Said::from("not installed"));
        let v = |source, verdict, text, witness| VerdictLine {
            source,
            verdict,
            text,
            witness,
        };
        let r = VerifyReport {
            size_bytes: 1 << 30,
            tolerance_bytes: 64 << 20,
            child_pid: Some(77),
            device: Some(VerifyDevice::Vulkan {
                ordinal: 0,
                name: "llvmpipe",
                device_type: "cpu",
                driver_name: Some("llvmpipe"),
                driver_info: None,
                pci_bus_id: None,
                api_version: "1.3.230",
            }),
            cpu_device: Some("llvmpipe".into()),
            verdicts: vec![
                v("nvml (per process)", VerdictKind::Ok, &ok, false),
                v("rocm-smi", VerdictKind::Ok, &ok, true),
                v("nvidia-smi", VerdictKind::NotInstalled, &missing, true),
            ],
            ..VerifyReport::default()
        };
        let s = render_verify(&r);
        assert!(
            s.contains(
                "on Vulkan device 0 llvmpipe (cpu, llvmpipe, PCI not reported), Vulkan 1.3.230\n"
            ),
            "{s}"
        );
        assert!(s.contains("llvmpipe is a CPU device"), "{s}");
        assert!(
            s.ends_with(
                "  nvml (per process)  ok\n  rocm-smi            ok  [second witness]\n  nvidia-smi          not installed\n"
            ),
            "{s}"
        );
        let zh = render_verify(&VerifyReport {
            lang: Lang::ZhTw,
            ..r
        });
        assert!(
            zh.contains(" 1 GiB，位於 Vulkan 裝置 0 llvmpipe（cpu, llvmpipe，PCI 未回報），Vulkan 1.3.230\n"),
            "{zh}"
        );
        assert!(zh.contains("llvmpipe 是 CPU 裝置"), "{zh}");
        assert!(zh.contains("  rocm-smi            ok  [旁證]\n"), "{zh}");
        // The scope in the language, lined up by display width (the Han characters are wide).
        assert!(zh.contains("\n  nvml（按處理程序）  ok\n"), "{zh}");
    }

    #[test]
    fn sources_say_their_scope_in_the_language_and_keep_the_tool_name() {
        for (label, en, zh) in [
            ("nvml (per process)", "nvml (per process)", "nvml（按进程）"),
            (
                "fdinfo GTT (device used)",
                "fdinfo GTT (device used)",
                "fdinfo GTT（设备已用）",
            ),
            ("unattributed", "unattributed", "未归属"),
            ("unattributed GTT", "unattributed GTT", "未归属 GTT"),
            ("nvidia-smi", "nvidia-smi", "nvidia-smi"),
        ] {
            assert_eq!(source_text(label, Lang::En), en);
            assert_eq!(source_text(label, Lang::ZhCn), zh);
        }
    }
}
