//! The snapshot as aligned text a person reads at a glance: devices, then processes by memory, then
//! the unattributed rows, then what could not be seen and why.

use crate::columns::{or_unknown_with, Align, Columns};
use crate::estimate::reported_value;
pub use gpuledger_lang::Lang;
use gpuledger_model::units::{human_bytes, human_opt};
use gpuledger_model::words;
use gpuledger_model::{term_safe, term_safe_text};
use gpuledger_model::{Device, Process, Snapshot, SourceState};
use std::fmt::Write;

#[derive(Debug, Clone, Default)]
pub struct TableOptions {
    /// Set when rendering a recorded snapshot: the header says so, loudly.
    pub replay: Option<String>,
    /// Do not shorten command lines.
    pub wide: bool,
    /// The language of the words (figures, names and the sources' own reasons stay as they are).
    pub lang: Lang,
}

const COMMAND_WIDTH: usize = 60;

pub fn render_table(snap: &Snapshot, opts: &TableOptions) -> String {
    // Everything else (host name, reasons, notes, sources) is escaped as a whole at the end.
    term_safe_text(&render_raw(snap, opts)).into_owned()
}

fn render_raw(snap: &Snapshot, opts: &TableOptions) -> String {
    let mut out = String::new();
    // The host name and the time come from the machine or from a replayed file: one field
    // each, a newline in them escaped (the header stays one line).
    let lang = opts.lang;
    let taken_at = term_safe(&snap.taken_at);
    if let Some(src) = &opts.replay {
        let file = term_safe(src);
        let args = [("file", (&*file).into()), ("taken", (&*taken_at).into())];
        let _ = writeln!(out, "{}", lang.t_args("report-replay", &args));
    }
    let unknown_host = lang.t("report-unknown-host");
    let host = term_safe(snap.host.hostname.as_deref().unwrap_or(&unknown_host));
    let args = [("host", (&*host).into()), ("taken", (&*taken_at).into())];
    let title = if snap.host.wsl {
        "report-title-wsl"
    } else {
        "report-title"
    };
    let _ = writeln!(out, "{}", lang.t_args(title, &args));
    out.push('\n');

    devices_section(&mut out, snap, lang);
    processes_section(&mut out, snap, opts);
    unattributed_section(&mut out, snap, lang);
    estimated_section(&mut out, snap, lang);

    let cannot = cannot_see(snap, lang);
    if !cannot.is_empty() {
        let _ = writeln!(out, "{}", lang.t("report-notes"));
        for c in cannot {
            let _ = writeln!(out, "  - {c}");
        }
        out.push('\n');
    }
    let sources: Vec<String> = snap
        .sources
        .iter()
        .map(|s| {
            let st = lang.t(match s.status {
                SourceState::Ok => "report-source-ok",
                SourceState::Unavailable => "report-source-unavailable",
                SourceState::Error => "report-source-error",
            });
            // The source's own sentence, in `lang` where it has a key.
            let detail = s.detail.in_lang(lang);
            let args = [("state", st.into()), ("detail", detail.into())];
            format!(
                "  {:<8} {}",
                s.name,
                lang.t_args("report-source-line", &args)
            )
        })
        .collect();
    if !sources.is_empty() {
        let _ = writeln!(out, "{}", lang.t("report-sources"));
        out.push_str(&sources.join("\n"));
        out.push('\n');
    }
    out
}

/// Devices: memory with the books balanced, utilisation, temperature, power.
fn devices_section(out: &mut String, snap: &Snapshot, lang: Lang) {
    if snap.devices.is_empty() {
        let _ = writeln!(out, "{}", lang.t("report-no-gpu"));
    } else {
        let _ = writeln!(out, "{}", lang.t("report-devices"));
        let mut rows = vec![row(
            lang,
            &[
                "report-col-gpu",
                "report-col-name",
                "report-col-memory-used-total",
                "report-col-gpu-pct",
                "report-col-mem-pct",
                "report-col-temp",
                "report-col-power-limit",
                "report-col-processes",
                "report-col-unattributed",
            ],
        )];
        for d in &snap.devices {
            rows.push(vec![
                d.index.to_string(),
                words::or_unknown(d.name.as_deref()),
                memory_cell(d),
                match d.power_state.as_deref() {
                    Some("suspended") => lang.t("report-power-suspended"),
                    Some("suspending") => lang.t("report-power-suspending"),
                    _ => pct(d.utilization.gpu_percent),
                },
                pct(d.utilization.memory_percent),
                or_unknown_with(d.temperature_c, |t| format!("{t}°C")),
                power_cell(d),
                human_bytes(d.ledger.attributed_bytes),
                unattributed_cell(d, lang),
            ]);
            if let Some(sm) = &d.system_memory {
                let sl = d.system_ledger.unwrap_or_default();
                rows.push(vec![
                    String::new(),
                    format!("  {}", lang.t("report-system-memory-gtt")),
                    format!(
                        "{} / {}",
                        human_opt(sm.used_bytes),
                        human_opt(sm.total_bytes)
                    ),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    human_bytes(sl.attributed_bytes),
                    human_opt(sl.unattributed_bytes),
                ]);
            }
        }
        align(
            out,
            &rows,
            &[false, false, true, true, true, true, true, true, true],
        );
        out.push('\n');
    }
}

/// Processes, measured: one row per process and device, largest first.
fn processes_section(out: &mut String, snap: &Snapshot, opts: &TableOptions) {
    let mut procs: Vec<&Process> = snap.processes.iter().collect();
    procs.sort_by(|a, b| {
        Snapshot::process_memory(b)
            .cmp(&Snapshot::process_memory(a))
            .then(a.pid.cmp(&b.pid))
    });
    if !procs.is_empty() {
        let lang = opts.lang;
        let _ = writeln!(out, "{}", lang.t("report-processes-measured"));
        // Optional columns appear only when some process has a value for them: system memory
        // (GTT / shared, e.g. DRM fdinfo) and the owner (pod, Slurm job, container, unit) when
        // one says more than the USER column does.
        let any_sys = procs
            .iter()
            .flat_map(|p| &p.usage)
            .any(|u| u.system_memory_bytes.is_some());
        let any_owner = procs.iter().any(|p| {
            p.container.is_some() || p.owner.as_ref().is_some_and(|o| o.kind.beyond_user())
        });
        let (header, right) = process_columns(any_sys, any_owner);
        let mut rows = vec![row(lang, &header)];
        for p in procs {
            for u in &p.usage {
                let gpu = snap
                    .device_by_uuid(&u.device)
                    .map(|d| d.index.to_string())
                    .unwrap_or_else(|| words::UNKNOWN.into());
                let mut r = vec![
                    p.pid.to_string(),
                    words::or_unknown(p.user.as_deref()),
                    p.display_name().to_string(),
                    // Not identified: unknown, not "nothing applies".
                    p.workload
                        .as_ref()
                        .map(|w| crate::labels::workload_label(w, lang))
                        .unwrap_or_else(|| words::UNKNOWN.into()),
                    gpu,
                    u.kinds_label(),
                    human_opt(u.memory_bytes),
                ];
                if any_sys {
                    r.push(
                        u.system_memory_bytes
                            .map(human_bytes)
                            .unwrap_or_else(|| words::NOTHING.into()),
                    );
                }
                r.push(u.memory_source.clone());
                // ROCm (KFD) work is invisible to fdinfo: say so rather than print n/a or 0 %.
                r.push(if p.rocm_kfd && u.engines.sm_percent.is_none() {
                    format!("{} (kfd)", words::UNKNOWN)
                } else {
                    pct(u.engines.sm_percent)
                });
                if any_owner {
                    r.push(owner_cell(p));
                }
                r.push(command_cell(p, opts.wide));
                rows.push(r);
            }
        }
        align(out, &rows, &right);
        out.push('\n');
    }
}

/// The process table's column keys and which keep right: the optional ones only when needed.
fn process_columns(any_sys: bool, any_owner: bool) -> (Vec<&'static str>, Vec<bool>) {
    let mut header = vec![
        "report-col-pid",
        "report-col-user",
        "report-col-name",
        "report-col-workload",
        "report-col-gpu",
        "report-col-type",
        "report-col-memory",
    ];
    let mut right = vec![true, false, false, false, true, false, true];
    if any_sys {
        header.push("report-col-sys-gtt");
        right.push(true);
    }
    header.extend(["report-col-source", "report-col-sm-pct"]);
    right.extend([false, true]);
    if any_owner {
        header.push("report-col-owner");
        right.push(false);
    }
    header.push("report-col-command");
    right.push(false);
    (header, right)
}

/// What no process accounts for, per device (or that processes add up to more).
fn unattributed_section(out: &mut String, snap: &Snapshot, lang: Lang) {
    if !snap.devices.is_empty() {
        for d in &snap.devices {
            let l = &d.ledger;
            let (figure, key) = match (l.unattributed_bytes, l.over_attributed_bytes) {
                (Some(u), _) => (human_bytes(u), "report-unattributed-on"),
                (None, Some(over)) => (human_bytes(over), "report-over-attributed-on"),
                (None, None) => (words::UNKNOWN.into(), "report-unattributed-unknown"),
            };
            let words = lang.t_args(key, &[("gpu", d.index.to_string().into())]);
            let line = format!("{figure:>10}  {words}");
            out.push_str(&line);
            out.push('\n');
        }
        out.push('\n');
    }
}

/// The estimated ledger, in its own section after every measured figure: what a recipe computed
/// from the model file and settings, beside the process's measured total, never summed with it.
/// A large measured-vs-estimated gap of each process, with its likely cause (the sentence
/// explain writes).
fn gap_lines(with: &[&Process], lang: Lang) -> Vec<String> {
    with.iter()
        .filter_map(|p| {
            let g = crate::estimate::gaps::process_gap(p)?;
            let (m, e, w) = (g.measured_bytes, g.estimated_bytes, Some(g.weights_bytes));
            let text = crate::estimate::measured_vs_estimated_in(lang, m, "", e, w);
            Some(format!("  {}", pid_says(lang, p.pid, &text)))
        })
        .collect()
}

/// `pid 42: text`, in the language's order.
fn pid_says(lang: Lang, pid: u32, text: &str) -> String {
    let args = [("pid", pid.to_string().into()), ("text", text.into())];
    lang.t_args("report-pid-says", &args)
}

fn estimated_section(out: &mut String, snap: &Snapshot, lang: Lang) {
    let with: Vec<&Process> = snap
        .processes
        .iter()
        .filter(|p| p.estimate.is_some())
        .collect();
    let reported = reported_without_estimate(snap, lang);
    if with.is_empty() && reported.is_empty() {
        return;
    }
    let _ = writeln!(out, "{}", lang.t("report-estimated"));
    let mut rows = vec![row(
        lang,
        &[
            "report-col-pid",
            "report-col-name",
            "report-col-role",
            "report-col-gpu",
            "report-col-recipe",
            "report-col-context",
            "report-col-weights",
            "report-col-kv-cache",
            "report-col-compute",
            "report-col-overhead",
            "report-col-total",
            "report-col-measured",
        ],
    )];
    for p in &with {
        let Some(e) = &p.estimate else { continue };
        let measured: Option<u64> = p.usage.iter().map(|u| u.memory_bytes).sum();
        rows.push(vec![
            p.pid.to_string(),
            p.display_name().to_string(),
            p.workload
                .as_ref()
                .and_then(|w| Some(crate::labels::role_label(&w.member.as_ref()?.role, lang)))
                .unwrap_or_else(|| "-".into()),
            gpus_of(snap, p),
            e.recipe.clone(),
            words::or_unknown(e.n_ctx),
            human_bytes(e.weights_gpu_bytes),
            human_opt(e.kv_cache_gpu_bytes),
            human_opt(e.compute_gpu_bytes),
            human_opt(e.overhead_gpu_bytes),
            e.total_text(),
            human_opt(measured),
        ]);
    }
    let right = [
        true, false, false, false, false, true, true, true, true, true, true, true,
    ];
    if !with.is_empty() {
        align(out, &rows, &right);
    }
    for line in group_lines(&with, lang) {
        out.push_str(&term_safe(&line));
        out.push('\n');
    }
    let whys: Vec<String> = snap
        .processes
        .iter()
        .filter_map(|p| {
            let why = p.estimate.as_ref()?.why.as_ref()?.in_lang(lang);
            Some(format!("  {}", pid_says(lang, p.pid, &why)))
        })
        .collect();
    for w in whys
        .into_iter()
        .chain(gap_lines(&with, lang))
        .chain(reported)
    {
        out.push_str(&term_safe(&w));
        out.push('\n');
    }
    let _ = writeln!(out, "  {}\n", lang.t("report-explain-hint"));
}

/// AI processes no recipe could estimate whose runtime reported figures of them all the same
/// (an Ollama engine gpuledger does not model): why, and what the runtime said, as its own.
fn reported_without_estimate(snap: &Snapshot, lang: Lang) -> Vec<String> {
    snap.processes
        .iter()
        .filter_map(|p| {
            let n = p.no_estimate.as_ref().filter(|n| !n.reported.is_empty())?;
            let figures: Vec<String> = n
                .reported
                .iter()
                .map(|r| {
                    format!(
                        "{} {}",
                        r.what.in_lang(lang),
                        reported_value(r, human_bytes, lang)
                    )
                })
                .collect();
            let args = [
                ("pid", p.pid.to_string().into()),
                ("name", p.display_name().into()),
                ("figures", figures.join(", ").into()),
                ("source", n.reported[0].source.as_str().into()),
            ];
            Some(format!(
                "  {}",
                lang.t_args("report-reported-no-estimate", &args)
            ))
        })
        .collect()
}

/// The GPUs the driver measured the process on (`GPU0,GPU1`), `-` where none.
fn gpus_of(snap: &Snapshot, p: &Process) -> String {
    let gpus: Vec<String> = p
        .usage
        .iter()
        .filter_map(|u| snap.device_by_uuid(&u.device))
        .map(|d| format!("GPU{}", d.index))
        .collect();
    if gpus.is_empty() {
        "-".into()
    } else {
        gpus.join(",")
    }
}

/// One line per workload whose estimate is split over several members (tensor-parallel
/// workers, ranks): the group's estimated total beside the sum of its members' measured memory.
/// Each member's own share sits on its row, beside its own GPU's measured memory.
fn group_lines(with: &[&Process], lang: Lang) -> Vec<String> {
    Snapshot::group_totals(with)
        .iter()
        .map(|g| {
            let estimated = match g.estimated_bytes {
                Some(b) => format!(
                    "{}{}",
                    if g.estimated_is_floor { "≥ " } else { "" },
                    human_bytes(b)
                ),
                None => lang.t("report-group-no-estimate"),
            };
            let args = [
                ("pid", g.root_pid.to_string().into()),
                ("label", g.label.as_str().into()),
                ("members", g.members.len().into()),
                ("estimated", estimated.into()),
                ("measured", human_opt(g.measured_bytes).into()),
            ];
            format!("  {}", lang.t_args("report-group", &args))
        })
        .collect()
}

/// Everything that is null in this snapshot, with its reason.
fn cannot_see(snap: &Snapshot, lang: Lang) -> Vec<String> {
    let mut v: Vec<String> = snap.notes.iter().map(|n| n.in_lang(lang)).collect();
    for d in &snap.devices {
        for (field, why) in &d.unavailable {
            v.push(format!("GPU{} {field}: {why}", d.index));
        }
        if d.ledger.unknown_processes > 0 {
            let args = [
                ("gpu", d.index.to_string().into()),
                ("count", d.ledger.unknown_processes.into()),
            ];
            v.push(lang.t_args("report-unknown-processes", &args));
        }
    }
    for p in &snap.processes {
        let pid = || ("pid", p.pid.to_string().into());
        let name = || ("name", p.display_name().into());
        for u in &p.usage {
            if let Some(r) = &u.unavailable_reason {
                let gpu = snap
                    .device_by_uuid(&u.device)
                    .map(|d| d.index.to_string())
                    .unwrap_or_else(|| words::UNKNOWN.into());
                let args = [
                    pid(),
                    name(),
                    ("gpu", gpu.into()),
                    ("reason", r.in_lang(lang).into()),
                ];
                v.push(lang.t_args("report-memory-na", &args));
            }
            if let Some(r) = &u.engines.unavailable_reason {
                let reason = ("reason", r.in_lang(lang).into());
                v.push(lang.t_args("report-engines-na", &[pid(), reason]));
            }
            if let Some(n) = &u.accounting_note {
                let args = [pid(), name(), ("note", n.in_lang(lang).into())];
                v.push(lang.t_args("report-process-note", &args));
            }
        }
        if let Some(r) = &p.metadata_unavailable {
            v.push(lang.t_args(
                "report-metadata-na",
                &[pid(), ("reason", r.in_lang(lang).into())],
            ));
        }
    }
    v.dedup();
    v
}

/// A header row: each key's words in the language.
fn row(lang: Lang, keys: &[&str]) -> Vec<String> {
    keys.iter().map(|k| lang.t(k)).collect()
}

fn pct(v: Option<u32>) -> String {
    or_unknown_with(v, |v| format!("{v}%"))
}

fn memory_cell(d: &Device) -> String {
    let m = &d.memory;
    let share = match (m.used_bytes, m.total_bytes) {
        (Some(u), Some(t)) if t > 0 => format!(" ({:.0}%)", u as f64 * 100.0 / t as f64),
        _ => String::new(),
    };
    format!(
        "{} / {}{share}",
        human_opt(m.used_bytes),
        human_opt(m.total_bytes)
    )
}

fn power_cell(d: &Device) -> String {
    let w = |v: Option<f64>| or_unknown_with(v, |w| format!("{w:.0} W"));
    format!("{} / {}", w(d.power.usage_watts), w(d.power.limit_watts))
}

fn unattributed_cell(d: &Device, lang: Lang) -> String {
    match (d.ledger.unattributed_bytes, d.ledger.over_attributed) {
        (Some(u), _) => human_bytes(u),
        (None, true) => lang.t("report-over-attributed"),
        (None, false) => words::UNKNOWN.into(),
    }
}

/// The owner's short label (`pod 3f2a1b9c…/ctr 9b1c0d2e…`, `job 4711 (alice)`); for a
/// snapshot recorded before owners, the container: `docker://<64 hex>` → `docker:8f2a6c3e1b4d`
/// (the short id docker and podman print).
fn owner_cell(p: &Process) -> String {
    if let Some(o) = &p.owner {
        return o.label.clone();
    }
    match p.container.as_deref() {
        None => words::NOTHING.into(),
        Some(c) => match c.split_once("://") {
            Some((rt, id)) => format!("{rt}:{}", id.chars().take(12).collect::<String>()),
            None => c.to_string(),
        },
    }
}

fn command_cell(p: &Process, wide: bool) -> String {
    let Some(args) = &p.cmdline else {
        return p.exe.clone().unwrap_or_else(|| words::UNKNOWN.into());
    };
    let s = args.join(" ");
    if wide {
        s
    } else {
        crate::columns::cut_to_width(&s, COMMAND_WIDTH)
    }
}

/// Pad columns to their widest cell; `right[i]` right-aligns column i. The last column is not padded.
fn align(out: &mut String, rows: &[Vec<String>], right: &[bool]) {
    debug_assert!(
        rows.iter().all(|r| r.len() == right.len()),
        "every row needs a cell per column"
    );
    // Cells come from outside (names, command lines): each is escaped on its own, so a newline
    // in a process name cannot break the table's lines, and widths count what is printed.
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| term_safe(c).into_owned()).collect())
        .collect();
    let align: Vec<Align> = right
        .iter()
        .map(|&r| if r { Align::Right } else { Align::Left })
        .collect();
    out.push_str(&Columns::new(&align).indent("  ").render(&rows));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::llama_workload;
    use gpuledger_model::test_support::{
        device, named_process, process, snapshot, usage, TAKEN_AT,
    };
    use gpuledger_model::*;

    /// One H200 (100 GiB, 20 GiB used) with three processes whose command lines were redacted:
    /// `small` (1 GiB), `big` (16 GiB) and `hidden` (memory unknown under WDDM).
    fn snap() -> Snapshot {
        let mut d = device(0, "GPU-A", Some(100 << 30), Some(20 << 30));
        d.name = Some("NVIDIA H200".into());
        d.utilization.gpu_percent = Some(37);
        d.mark_unavailable(
            "power.usage_watts",
            "nvmlDeviceGetPowerUsage: Not Supported",
        );
        let procs = [
            (10, "small", Some(1u64 << 30)),
            (20, "big", Some(16 << 30)),
            (30, "hidden", None),
        ]
        .map(|(pid, name, mem)| {
            let mut u = usage("GPU-A", mem);
            u.kinds = vec![UsageKind::Compute];
            if mem.is_none() {
                u.unavailable_reason = Some("not available under WDDM".into());
            }
            let mut p = named_process(pid, name, vec![u]);
            p.cmdline = Some(vec![name.into(), "--api-key".into(), "<redacted>".into()]);
            p
        });
        let mut s = snapshot(TAKEN_AT, vec![d], procs.into());
        s.host.hostname = Some("box".into());
        s.host.os = "linux".into();
        s
    }

    #[test]
    fn tensor_parallel_workers_carry_their_share_beside_their_own_gpu() {
        // vLLM TP 2: the API server holds no GPU memory; VLLM::Worker_TP0/1 each hold one GPU
        // and carry the rank's estimate.
        let mut s = snap();
        s.processes.clear();
        s.devices.push(device(1, "GPU-B", Some(100 << 30), None));
        for (pid, gpu, mem) in [(41u32, "GPU-A", 88u64 << 30), (42, "GPU-B", 87 << 30)] {
            let mut p = process(pid, gpu, Some(mem));
            p.name = Some(format!("VLLM::Worker_TP{}", pid - 41));
            let mut w = llama_workload("Qwen2-72B");
            w.kind = WorkloadKind::Vllm;
            w.member = Some(Member {
                root_pid: Some(40),
                role: format!("worker TP{}/2", pid - 41),
                role_kind: gpuledger_model::RoleKind::Worker,
                evidence: "test".into(),
            });
            p.workload = Some(std::sync::Arc::new(w));
            p.estimate = Some(std::sync::Arc::new(EstimatedMemory {
                recipe: "vllm".into(),
                total_gpu_bytes: 90 << 30,
                weights_gpu_bytes: 68 << 30,
                overhead_included: true,
                ..Default::default()
            }));
            s.processes.push(p);
        }
        balance(&mut s);
        let t = render_table(&s, &TableOptions::default());
        let row = t
            .lines()
            .find(|l| l.contains("VLLM::Worker_TP1") && l.contains("vllm"))
            .unwrap();
        assert!(row.contains("worker TP1/2") && row.contains("GPU1"), "{t}");
        assert!(row.contains("90 GiB") && row.contains("87 GiB"), "{t}");
        assert!(
            t.contains("group of pid 40 (vLLM · Qwen2-72B): 2 members, estimated ≥ 180 GiB in all beside 175 GiB measured"),
            "{t}"
        );
    }

    #[test]
    fn devices_processes_by_memory_unattributed_and_reasons() {
        let t = render_table(&snap(), &TableOptions::default());
        assert!(t.contains("NVIDIA H200"), "{t}");
        assert!(t.contains("20 GiB / 100 GiB (20%)"), "{t}");
        let big = t.find("big").unwrap();
        let small = t.find("small").unwrap();
        assert!(big < small, "sorted by memory:\n{t}");
        assert!(t.contains("3 GiB  unattributed on GPU0"), "{t}");
        assert!(
            t.contains("pid 30 (hidden) on GPU0: memory n/a: not available under WDDM"),
            "{t}"
        );
        assert!(
            t.contains("GPU0 power.usage_watts: nvmlDeviceGetPowerUsage: Not Supported"),
            "{t}"
        );
        assert!(t.contains("n/a / n/a"), "unknown power is n/a, not 0:\n{t}");
        assert!(!t.contains("REPLAY"));
    }

    #[test]
    fn replay_is_labelled_and_over_attribution_explained() {
        let mut s = snap();
        s.devices[0].memory.used_bytes = Some(10 << 30);
        balance(&mut s);
        let t = render_table(
            &s,
            &TableOptions {
                replay: Some("x.json".into()),
                ..TableOptions::default()
            },
        );
        assert!(t.starts_with("REPLAY of x.json"), "{t}");
        assert!(t.contains("over-attributed on GPU0"), "{t}");
        assert!(
            t.contains("7 GiB"),
            "17 GiB attributed vs 10 GiB used:\n{t}"
        );
    }

    #[test]
    fn columns_line_up_under_their_headers() {
        let mut s = snap();
        s.processes[1].workload = Some(llama_workload("/m/Qwen3-8B.gguf").into());
        let t = render_table(&s, &TableOptions::default());
        let header = t
            .lines()
            .find(|l| l.contains("WORKLOAD"))
            .expect("WORKLOAD header");
        let row = t
            .lines()
            .find(|l| l.contains("llama.cpp · Qwen3-8B"))
            .expect("workload cell");
        // Columns in characters, not bytes: the workload label has a multi-byte `·`.
        let col = |line: &str, pat: &str| line.find(pat).map(|i| line[..i].chars().count());
        assert_eq!(
            col(header, "WORKLOAD"),
            col(row, "llama.cpp"),
            "\n{header}\n{row}"
        );
        assert_eq!(col(header, "SOURCE"), col(row, "nvml"), "\n{header}\n{row}");
        assert_eq!(
            col(header, "COMMAND"),
            col(row, "big --api-key"),
            "\n{header}\n{row}"
        );
    }

    /// CJK names take two columns a character: every column still starts at the same display
    /// column on every row, and a long CJK command is cut to the command column's width.
    #[test]
    fn cjk_names_keep_the_columns_in_line() {
        use crate::columns::display_width;
        let mut s = snap();
        s.processes[0].name = Some("通义千问".into());
        s.processes[0].user = Some("张三".into());
        s.processes[0].cmdline = Some(vec![format!("./通义千问-7B-Chat {}", "参数".repeat(40))]);
        s.processes[1].workload = Some(llama_workload("/m/通义千问-7B-Chat.gguf").into());
        let t = render_table(&s, &TableOptions::default());
        let lines: Vec<&str> = t.lines().collect();
        let header = lines.iter().position(|l| l.contains("WORKLOAD")).unwrap();
        // The display column where each header starts, and where each row's cell starts.
        let at = |line: &str, pat: &str| line.find(pat).map(|i| display_width(&line[..i]));
        let rows = &lines[header + 1..header + 1 + s.processes.len()];
        let source = at(lines[header], "SOURCE");
        for row in rows {
            assert_eq!(at(row, "nvml"), source, "\n{}\n{row}", lines[header]);
        }
        let cjk = rows.iter().find(|r| r.contains("张三")).unwrap();
        assert_eq!(at(cjk, "./通义"), at(lines[header], "COMMAND"), "{cjk}");
        // Cut to the column's 60 display columns, not 60 characters (which would be 119).
        let command = &cjk[cjk.find("./通义").unwrap()..];
        assert!(
            command.ends_with('…') && display_width(command) <= 60,
            "{command}"
        );
    }

    #[test]
    fn long_commands_are_shortened_unless_wide() {
        let mut s = snap();
        s.processes[0].cmdline = Some(vec!["x".repeat(200)]);
        let t = render_table(&s, &TableOptions::default());
        assert!(t.contains('…'));
        let t = render_table(
            &s,
            &TableOptions {
                wide: true,
                ..TableOptions::default()
            },
        );
        assert!(t.contains(&"x".repeat(200)));
    }

    #[test]
    fn owner_column_shows_pods_jobs_and_units_not_mere_sessions() {
        let mut s = snap();
        let session = |p: &mut Process| {
            let mut o = Owner::new(
                OwnerKind::Session,
                "/user.slice/user-1000.slice/session-3.scope",
            );
            o.session = Some("3".into());
            o.relabel();
            p.owner = Some(o);
        };
        for p in &mut s.processes {
            session(p);
        }
        let t = render_table(&s, &TableOptions::default());
        assert!(
            !t.contains("OWNER"),
            "a session says no more than USER:\n{t}"
        );

        let mut pod = Owner::new(OwnerKind::Pod, "/kubepods/burstable/pod3f2a1b9c/x");
        pod.pod_uid = Some("3f2a1b9c-5d6e-4f70-8a9b-0c1d2e3f4a5b".into());
        pod.container_id = Some("9b1c0d2e".repeat(8));
        pod.runtime = Some("containerd".into());
        pod.relabel();
        s.processes[1].owner = Some(pod);
        let mut job = Owner::new(
            OwnerKind::SlurmJob,
            "/system.slice/slurmstepd.scope/job_4711",
        );
        job.slurm_job = Some(4711);
        job.user = Some("alice".into());
        job.relabel();
        s.processes[0].owner = Some(job);
        let t = render_table(&s, &TableOptions::default());
        let header = t.lines().find(|l| l.contains("PID")).unwrap();
        assert!(header.contains("OWNER"), "{t}");
        let row = |name: &str| t.lines().find(|l| l.contains(name)).unwrap().to_string();
        assert!(row(" big ").contains("pod 3f2a1b9c…/ctr 9b1c0d2e…"), "{t}");
        assert!(row(" small ").contains("job 4711 (alice)"), "{t}");
        assert!(row(" hidden ").contains("session 3"), "{t}");
    }

    #[test]
    fn fdinfo_columns_kfd_container_and_suspended_device() {
        let mut s = snap();
        let mut d = Device::new(1, Vendor::Amd, "pci-0000:03:00.0", "sysfs");
        d.memory.used_bytes = Some(8 << 30);
        d.system_memory = Some(Memory {
            total_bytes: Some(16 << 30),
            used_bytes: Some(5 << 30),
            ..Memory::default()
        });
        s.devices.push(d);
        let mut asleep = Device::new(2, Vendor::Amd, "pci-0000:07:00.0", "sysfs");
        asleep.power_state = Some("suspended".into());
        s.devices.push(asleep);
        let mut p = Process::new(77);
        p.name = Some("python3".into());
        p.rocm_kfd = true;
        p.container = Some(format!("podman://{}", "c0ffee01".repeat(8)));
        let mut u = Usage::new("pci-0000:03:00.0", "fdinfo");
        u.memory_bytes = Some(200 << 20);
        u.system_memory_bytes = Some(4 << 30);
        u.engines.unavailable_reason = Some("ROCm compute (/dev/kfd open)".into());
        u.accounting_note = Some("shares DRM client 3 with pid 1".into());
        p.usage.push(u);
        s.processes.push(p);
        balance(&mut s);
        let t = render_table(&s, &TableOptions::default());
        let line = t.lines().find(|l| l.contains("python3")).unwrap();
        assert!(line.contains("200 MiB"), "{line}");
        assert!(line.contains("4 GiB"), "GTT column:\n{t}");
        assert!(line.contains("n/a (kfd)"), "{line}");
        assert!(line.contains("podman:c0ffee01c0ff"), "{line}");
        assert!(t.contains("SYS/GTT") && t.contains("OWNER"), "{t}");
        // NVML rows have no system-memory figure: the "nothing applies" mark, not 0.
        let nv = t.lines().find(|l| l.contains(" big ")).unwrap();
        assert!(nv.contains(" — "), "{nv}");
        let dev2 = t
            .lines()
            .find(|l| l.trim_start().starts_with("2 "))
            .unwrap();
        assert!(dev2.contains("suspended"), "{dev2}");
        assert!(
            t.contains("pid 77 (python3): shares DRM client 3 with pid 1"),
            "{t}"
        );
    }

    #[test]
    fn terminal_escapes_from_outside_are_shown_not_acted_on() {
        let mut s = snap();
        s.host.hostname = Some("box\u{1b}]0;PWNED\u{7}".into());
        s.devices[0].name = Some("H200\u{1b}[2J".into());
        s.processes[0].name = Some("\u{1b}]0;PWNED\u{7}\u{1b}[2J".into());
        s.processes[0].cmdline = Some(vec!["a\nb\rc".into(), "\u{9b}31m".into()]);
        s.notes.push("note \u{1b}[31m".into());
        let t = render_table(&s, &TableOptions::default());
        assert!(!t.chars().any(|c| c.is_control() && c != '\n'), "{t:?}");
        assert!(t.contains("\\u001b]0;PWNED\\u0007\\u001b[2J"), "{t}");
        assert!(t.contains("a\\u000ab\\u000dc \\u009b31m"), "{t}");
        assert!(t.contains("box\\u001b]0;PWNED"), "{t}");
    }

    #[test]
    fn no_gpu_is_a_clear_message() {
        let s = Snapshot::new("t".into(), Host::default());
        assert!(render_table(&s, &TableOptions::default()).contains("No GPU found"));
    }
}
