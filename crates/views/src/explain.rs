//! `gpuledger explain PID` as text: the measured ledger, what the process is (with its
//! evidence), the live state, and the estimated ledger apart, then the three side by side. The
//! workload's processes and the side-by-side figures line up through the one aligner
//! ([`Columns`]).

use crate::columns::{Align, Columns};
use crate::estimate::measured_vs_estimated_in;
use crate::estimate::recorded::render_recorded_in;
use crate::estimate::runtime::render_beside_measured_in;
use crate::estimate::{render_comparison_in, render_text_in};
use crate::term_safe;
use gpuledger_lang::{Lang, Value};
use gpuledger_model::explain::{EstimatedLedger, Explanation};
use gpuledger_model::units::{human_bytes, human_opt};
use gpuledger_model::{words, Snapshot};
use std::fmt::Write;

/// `"  " + the message` on a line of its own.
fn say(out: &mut String, lang: Lang, key: &str, args: &[(&str, Value<'_>)]) {
    let _ = writeln!(out, "  {}", lang.t_args(key, args));
}

/// A section's heading, after an empty line.
fn heading(out: &mut String, lang: Lang, key: &str) {
    let _ = writeln!(out, "\n{}", lang.t(key));
}

/// The report as JSON (the explanation itself, pretty-printed).
pub fn render_explain_json(e: &Explanation) -> String {
    let mut s =
        serde_json::to_string_pretty(e).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    s.push('\n');
    s
}

/// The whole report in `lang`; `snap` names the devices the process's memory is on.
pub fn render_explain(e: &Explanation, snap: &Snapshot, lang: Lang) -> String {
    let mut out = String::new();
    let p = e.process.as_ref();
    let args = [
        ("pid", e.pid.to_string().into()),
        (
            "name",
            term_safe(p.map(|p| p.display_name()).unwrap_or(words::UNKNOWN)).into(),
        ),
        (
            "user",
            term_safe(p.and_then(|p| p.user.as_deref()).unwrap_or(words::UNKNOWN)).into(),
        ),
    ];
    let title = if e.replay {
        "report-explain-title-replay"
    } else {
        "report-explain-title"
    };
    let _ = writeln!(out, "{}", lang.t_args(title, &args));
    if let Some(cmd) = p.and_then(|p| p.cmdline.as_ref()) {
        // One line whatever the process put in its arguments.
        let command = term_safe(&cmd.join(" ")).into_owned();
        say(
            &mut out,
            lang,
            "report-explain-command",
            &[("command", command.into())],
        );
    }
    if let Some(why) = p.and_then(|p| p.metadata_unavailable.as_ref()) {
        say(
            &mut out,
            lang,
            "report-explain-metadata-na",
            &[("reason", why.in_lang(lang).into())],
        );
    }
    if let Some(o) = p.and_then(|p| p.owner.as_ref()) {
        owner_lines(&mut out, o, lang);
    }
    measured_section(&mut out, e, snap, lang);
    identification_section(&mut out, e, lang);
    group_section(&mut out, e, lang);
    live_section(&mut out, e, lang);
    if let Some(est) = &e.estimated {
        estimated_section(&mut out, est, lang);
        side_by_side(&mut out, est, lang);
    }
    out
}

/// Who the process belongs to, and the cgroup that says so (names from paths, escaped).
fn owner_lines(out: &mut String, o: &gpuledger_model::Owner, lang: Lang) {
    let safe = |s: &str| -> Value<'static> { term_safe(s).into_owned().into() };
    let args = [("label", safe(&o.label)), ("cgroup", safe(&o.cgroup))];
    say(out, lang, "report-explain-owner", &args);
    if let Some(why) = &o.names_unavailable_reason {
        say(
            out,
            lang,
            "report-explain-pod-names-na",
            &[("reason", safe(&why.in_lang(lang)))],
        );
    }
    if let Some(from) = &o.slurm_source {
        say(
            out,
            lang,
            "report-explain-slurm-names",
            &[("source", safe(from))],
        );
    }
    if let Some(note) = &o.note {
        say(
            out,
            lang,
            "report-explain-owner-note",
            &[("note", safe(&note.in_lang(lang)))],
        );
    }
    if !o.assigned_devices.is_empty() {
        let devices = safe(&o.assigned_devices.join(", "));
        say(
            out,
            lang,
            "report-explain-kubelet-devices",
            &[("devices", devices)],
        );
    }
}

/// What the driver reported, per device.
fn measured_section(out: &mut String, e: &Explanation, snap: &Snapshot, lang: Lang) {
    let p = e.process.as_ref();
    heading(out, lang, "report-explain-measured");
    match (&e.not_measured, p) {
        (Some(why), _) => {
            let _ = writeln!(out, "  {}", why.in_lang(lang));
        }
        (None, Some(p)) => {
            for u in &p.usage {
                let dev = snap
                    .device_by_uuid(&u.device)
                    .map(|d| d.label())
                    .unwrap_or_else(|| u.device.clone());
                let _ = write!(
                    out,
                    "  {dev}: {} ({}, {})",
                    human_opt(u.memory_bytes),
                    u.memory_source,
                    u.kinds_label()
                );
                if let Some(sm) = u.engines.sm_percent {
                    let _ = write!(out, ", SM {sm}%");
                }
                out.push('\n');
                if let Some(r) = &u.unavailable_reason {
                    let _ = writeln!(
                        out,
                        "    {}",
                        lang.t_args(
                            "report-explain-memory-na",
                            &[("reason", r.in_lang(lang).into())]
                        )
                    );
                }
            }
        }
        _ => {}
    }
}

/// What the process is, with every piece of evidence and every missing link.
fn identification_section(out: &mut String, e: &Explanation, lang: Lang) {
    heading(out, lang, "report-explain-what-it-is");
    match &e.workload {
        Some(w) => {
            let confidence = crate::labels::confidence_label(w.confidence, lang);
            let args = [
                ("label", crate::labels::workload_label(w, lang).into()),
                ("confidence", confidence.into()),
            ];
            say(out, lang, "report-explain-identified", &args);
            for ev in &w.evidence {
                let _ = writeln!(
                    out,
                    "    [{}] {}  — {}",
                    crate::labels::evidence_label(ev.kind, lang),
                    ev.shown(lang),
                    ev.source
                );
            }
            for m in &w.missing {
                let what = m.in_lang(lang);
                let missing = lang.t_args("report-explain-missing", &[("what", what.into())]);
                let _ = writeln!(out, "    {missing}");
            }
            if let Some(m) = &w.member {
                let word = lang.t("report-evidence-workload");
                let how = m.evidence.in_lang(lang);
                let role = crate::labels::role_label(&m.role, lang);
                let line = lang.t_args(
                    "report-explain-member",
                    &[("role", role.into()), ("how", how.into())],
                );
                let _ = writeln!(out, "    [{word}] {line}");
            }
        }
        None => say(out, lang, "report-explain-not-identified", &[]),
    }
}

/// The workload's processes as measured: which of them hold the memory, on which GPU.
fn group_section(out: &mut String, e: &Explanation, lang: Lang) {
    let Some(g) = &e.group else {
        return;
    };
    let mut args = vec![
        ("pid", g.root_pid.to_string().into()),
        ("measured", human_bytes(g.measured_gpu_bytes).into()),
    ];
    let key = match g.estimated_gpu_bytes {
        Some(b) => {
            args.push(("estimated", human_bytes(b).into()));
            "report-explain-workload-estimated"
        }
        None => "report-explain-workload",
    };
    let _ = writeln!(out, "\n{}", lang.t_args(key, &args));
    let this = format!("  {}", lang.t("report-explain-this-process"));
    let rows: Vec<Vec<String>> = g
        .members
        .iter()
        .map(|m| {
            let this = if m.pid == e.pid { this.as_str() } else { "" };
            vec![
                m.pid.to_string(),
                term_safe(&crate::labels::role_label(&m.role, lang)).into_owned(),
                format!(
                    "{}{}{this}",
                    member_usage(&m.usage, lang),
                    member_share(m.estimated_gpu_bytes, lang)
                ),
            ]
        })
        .collect();
    // A pid of up to 7 digits; roles 15 columns wide unless a longer one widens them all.
    let cols = Columns::new(&[Align::Right, Align::Left])
        .indent("  ")
        .min_width(0, 7)
        .min_width(1, 15);
    out.push_str(&cols.render(&rows));
}

/// `GPU0 21 GiB, GPU1 n/a`, or `no GPU memory`.
fn member_usage(usage: &[(Option<u32>, Option<u64>)], lang: Lang) -> String {
    if usage.is_empty() {
        return lang.t("report-explain-no-gpu-memory");
    }
    usage
        .iter()
        .map(|(gpu, bytes)| {
            let gpu = gpu.map_or_else(|| "GPU n/a".to_string(), |i| format!("GPU{i}"));
            format!("{gpu} {}", human_opt(*bytes))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each member's estimated share beside its own measured memory.
fn member_share(estimated: Option<u64>, lang: Lang) -> String {
    estimated
        .map(|b| {
            let share = lang.t_args("report-explain-share", &[("bytes", human_bytes(b).into())]);
            format!("  {share}")
        })
        .unwrap_or_default()
}

/// The runtime's own API, asked on loopback (or why not).
fn live_section(out: &mut String, e: &Explanation, lang: Lang) {
    heading(out, lang, "report-explain-live");
    let na = |out: &mut String, why: &str| {
        say(out, lang, "report-explain-na", &[("reason", why.into())])
    };
    match (&e.live, &e.live_unavailable) {
        (Some(l), _) => {
            let args = [
                ("server", l.server.as_str().into()),
                ("port", l.port.to_string().into()),
            ];
            say(out, lang, "report-explain-live-server", &args);
            if l.auth_required {
                say(out, lang, "report-explain-auth", &[]);
            }
            if let Some(c) = l.n_ctx {
                say(
                    out,
                    lang,
                    "report-explain-context-size",
                    &[("n", c.to_string().into())],
                );
            }
            match (l.slots_busy, l.total_slots) {
                (Some(b), Some(t)) => {
                    let args = [
                        ("busy", b.to_string().into()),
                        ("total", t.to_string().into()),
                    ];
                    say(out, lang, "report-explain-slots-busy", &args);
                }
                (None, Some(t)) => {
                    say(
                        out,
                        lang,
                        "report-explain-slots",
                        &[("total", t.to_string().into())],
                    );
                }
                _ => {}
            }
            if let Some(t) = l.tokens_per_second {
                let rate = format!("{t:.1}");
                say(
                    out,
                    lang,
                    "report-explain-tokens-per-second",
                    &[("rate", rate.into())],
                );
            }
            // The path and the names come from the runtime's HTTP API: escape control bytes.
            if let Some(m) = &l.model_path {
                say(
                    out,
                    lang,
                    "report-explain-model",
                    &[("path", term_safe(m).into())],
                );
            }
            for m in &l.models {
                let args = [
                    ("name", term_safe(&m.name).into()),
                    ("vram", human_opt(m.vram_bytes).into()),
                    ("context", words::or_unknown(m.context_length).into()),
                ];
                say(out, lang, "report-explain-loaded", &args);
            }
            for u in &l.unavailable {
                na(out, u);
            }
        }
        (None, Some(why)) => na(out, &why.in_lang(lang)),
        (None, None) => {}
    }
}

/// " (+N.N%)": measured − estimated as a share of the estimate; nothing for an estimate of 0
/// bytes (there is no share of nothing, and "+0.0%" would read as a perfect match).
fn percent_off(d: i64, estimated: u64) -> String {
    if estimated == 0 {
        return String::new();
    }
    format!(" ({:+.1}%)", d as f64 * 100.0 / estimated as f64)
}

/// The estimated ledger, apart from the measured one.
fn estimated_section(out: &mut String, est: &EstimatedLedger, lang: Lang) {
    // vLLM serving a GGUF file reads its header, not config.json (its weights input says so).
    let from_gguf = est
        .runtime
        .as_ref()
        .is_some_and(|r| r.inputs.iter().any(|i| i.source.is_gguf_header()));
    let key = if est.runtime.is_some() && !from_gguf {
        "report-explain-estimated-config"
    } else if est.runtime.is_some() {
        "report-explain-estimated-gguf-runtime"
    } else {
        "report-explain-estimated-gguf-server"
    };
    heading(out, lang, key);
    if let Some(r) = &est.runtime {
        indented(
            out,
            &render_beside_measured_in(r, est.measured_gpu_bytes, lang),
        );
    }
    match (&est.estimate, &est.unavailable) {
        (Some(x), _) => {
            indented(out, &render_text_in(x, lang));
            if let (Some(m), Some(d)) = (est.measured_gpu_bytes, est.measured_minus_estimated_bytes)
            {
                let _ = writeln!(
                    out,
                    "  {}{}",
                    measured_vs_estimated_in(
                        lang,
                        m,
                        "",
                        x.total_gpu_bytes,
                        Some(x.weights.gpu_bytes)
                    ),
                    percent_off(d, x.total_gpu_bytes)
                );
            }
        }
        (None, Some(why)) if est.recorded.is_none() => {
            let why = why.in_lang(lang);
            say(out, lang, "report-explain-na", &[("reason", why.into())]);
        }
        _ => {}
    }
    if let Some(r) = &est.recorded {
        indented(out, &render_recorded_in(r, est.measured_gpu_bytes, lang));
    }
    if let Some(r) = &est.recipe {
        say(out, lang, "report-explain-recipe", &[("recipe", r.into())]);
    }
    for n in &est.not_modelled {
        say(
            out,
            lang,
            "report-explain-not-modelled",
            &[("what", n.in_lang(lang).into())],
        );
    }
    if let Some(why) = &est.runtime_api_unavailable {
        say(
            out,
            lang,
            "report-explain-runtime-api-na",
            &[("reason", why.in_lang(lang).into())],
        );
    }
}

/// Measured, reported and estimated side by side, never added; then the runtime's log lines.
fn side_by_side(out: &mut String, est: &EstimatedLedger, lang: Lang) {
    heading(out, lang, "report-explain-side-by-side");
    let mut rows = vec![vec![
        lang.t("report-explain-measured-driver"),
        human_opt(est.measured_gpu_bytes),
    ]];
    let reported = lang.t("report-explain-reported-runtime");
    if est.reported.is_empty() {
        rows.push(vec![
            reported.clone(),
            lang.t("report-explain-reported-none"),
        ]);
    }
    for r in &est.reported {
        let name = r.what.in_lang(lang);
        let what = match (r.bytes, &r.text) {
            (Some(b), _) => format!("{name} {}", human_bytes(b)),
            (None, Some(t)) => format!("{name}: {}", t.in_lang(lang)),
            (None, None) => name,
        };
        rows.push(vec![
            reported.clone(),
            format!("{}  — {}", term_safe(&what), r.source),
        ]);
    }
    // The same total the estimate's own section shows: llama.cpp's, a runtime recipe's (a floor
    // when a part is unknown), or the one the snapshot recorded.
    let floor = |partial: bool| if partial { "≥ " } else { "" };
    let estimated = match (&est.estimate, &est.runtime, &est.recorded) {
        (Some(x), _, _) => human_bytes(x.total_gpu_bytes),
        (None, Some(r), _) => format!(
            "{}{}",
            floor(r.summary.is_partial()),
            human_bytes(r.summary.total_gpu_bytes)
        ),
        (None, None, Some(r)) => {
            let bytes = format!(
                "{}{}",
                floor(r.is_partial()),
                human_bytes(r.total_gpu_bytes)
            );
            lang.t_args("report-explain-recorded", &[("bytes", bytes.into())])
        }
        (None, None, None) => match &est.unavailable {
            Some(why) => format!("{} ({})", words::UNKNOWN, term_safe(&why.in_lang(lang))),
            None => words::UNKNOWN.into(),
        },
    };
    rows.push(vec![lang.t("report-explain-estimated-recipe"), estimated]);
    out.push_str(&Columns::new(&[]).indent("  ").gap(3).render(&rows));
    if let Some(why) = est
        .why
        .as_ref()
        .or(est.recorded.as_ref().and_then(|r| r.why.as_ref()))
    {
        say(
            out,
            lang,
            "report-explain-why",
            &[("why", term_safe(&why.in_lang(lang)).into())],
        );
    }
    if !est.runtime_reported.is_empty() {
        heading(out, lang, "report-explain-runtime-reported");
        indented(out, &render_comparison_in(&est.runtime_reported, lang));
    }
}

/// Each line of a view's text, two spaces in, under this section's heading.
fn indented(out: &mut String, text: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "  {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::explain::{Group, GroupMember};
    use gpuledger_model::live::{LiveState, LoadedModel};

    fn explanation(pid: u32) -> Explanation {
        Explanation {
            group: None,
            pid,
            process: None,
            not_measured: None,
            workload: None,
            live: None,
            live_unavailable: None,
            estimated: None,
            replay: false,
        }
    }

    fn member(pid: u32, role: &str, gib: Option<u64>) -> GroupMember {
        GroupMember {
            pid,
            role: role.into(),
            usage: gib.map(|g| (Some(0), Some(g << 30))).into_iter().collect(),
            estimated_gpu_bytes: None,
        }
    }

    #[test]
    fn workload_processes_keep_their_columns_and_a_long_role_widens_them_all() {
        let mut e = explanation(20);
        e.group = Some(Group {
            root_pid: 10,
            members: vec![
                member(10, "server", None),
                member(20, "worker TP0/2", Some(21)),
            ],
            measured_gpu_bytes: 21 << 30,
            estimated_gpu_bytes: None,
        });
        let mut out = String::new();
        group_section(&mut out, &e, Lang::En);
        assert!(
            out.ends_with(
                "       10  server           no GPU memory\n       20  worker TP0/2     GPU0 21 GiB  ← this process\n"
            ),
            "{out}"
        );
        e.group.as_mut().unwrap().members[0].role = "engine (node helper)".into();
        let mut out = String::new();
        group_section(&mut out, &e, Lang::En);
        assert!(
            out.ends_with(
                "       10  engine (node helper)  no GPU memory\n       20  worker TP0/2          GPU0 21 GiB  ← this process\n"
            ),
            "{out}"
        );
    }

    #[test]
    fn a_runtime_serving_a_gguf_file_says_its_weights_come_from_the_header() {
        use gpuledger_model::estimate_input::{Input, InputSource};
        use gpuledger_model::runtime_estimate::RuntimeEstimate;
        let weights = |source: InputSource| {
            let mut est = EstimatedLedger::default();
            est.set_runtime(RuntimeEstimate {
                summary: Default::default(),
                inputs: vec![Input::new("weights", "1.00 GiB", source)],
            });
            let mut out = String::new();
            estimated_section(&mut out, &est, Lang::En);
            out
        };
        let gguf = weights(InputSource::gguf_header());
        assert!(
            gguf.starts_with(
                "\nESTIMATED (computed from the GGUF header and the runtime's settings"
            ),
            "{gguf}"
        );
        let st = weights(InputSource::Tensors {
            detail: "safetensors headers".into(),
        });
        assert!(
            st.starts_with("\nESTIMATED (computed from config.json, safetensors headers"),
            "{st}"
        );
    }

    #[test]
    fn side_by_side_figures_line_up_under_their_labels() {
        let est = EstimatedLedger {
            measured_gpu_bytes: Some(7 << 30),
            ..EstimatedLedger::default()
        };
        let mut out = String::new();
        side_by_side(&mut out, &est, Lang::En);
        assert_eq!(
            out,
            "\nSIDE BY SIDE (never added together)\n  measured (driver):    7 GiB\n  reported (runtime):   n/a (the runtime publishes no figure here)\n  estimated (recipe):   n/a\n"
        );
    }

    /// A vLLM worker's runtime recipe: the side-by-side line shows its total (a floor when a
    /// part is unknown), not `n/a` under an estimate of 40 GiB.
    #[test]
    fn side_by_side_shows_a_runtime_recipes_total() {
        let mut est = EstimatedLedger {
            measured_gpu_bytes: Some(41 << 30),
            ..EstimatedLedger::default()
        };
        let mut summary = gpuledger_model::EstimatedMemory {
            total_gpu_bytes: 40 << 30,
            kv_cache_gpu_bytes: Some(20 << 30),
            compute_gpu_bytes: Some(1 << 30),
            overhead_included: true,
            ..Default::default()
        };
        est.set_runtime(gpuledger_model::runtime_estimate::RuntimeEstimate {
            summary: summary.clone(),
            inputs: Vec::new(),
        });
        let mut out = String::new();
        side_by_side(&mut out, &est, Lang::En);
        assert!(out.contains("estimated (recipe):   40 GiB\n"), "{out}");
        summary.kv_cache_gpu_bytes = None;
        est.set_runtime(gpuledger_model::runtime_estimate::RuntimeEstimate {
            summary,
            inputs: Vec::new(),
        });
        let mut out = String::new();
        side_by_side(&mut out, &est, Lang::En);
        assert!(out.contains("estimated (recipe):   ≥ 40 GiB\n"), "{out}");
    }

    #[test]
    fn no_percentage_of_an_estimate_of_nothing() {
        assert_eq!(percent_off(50, 1000), " (+5.0%)");
        assert_eq!(percent_off(-50, 1000), " (-5.0%)");
        assert_eq!(percent_off(4096, 0), "");
    }

    #[test]
    fn the_runtimes_model_path_and_names_are_escaped() {
        let e = Explanation {
            live: Some(LiveState {
                server: "ollama".into(),
                port: 11434,
                model_path: Some("/m/x.gguf\n  loaded: forged\u{1b}[2J".into()),
                models: vec![LoadedModel {
                    name: "llama\u{1b}]0;pwned\u{7}\nfake line".into(),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..explanation(1)
        };
        let mut out = String::new();
        live_section(&mut out, &e, Lang::En);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
        assert!(!out.contains("\n  loaded: forged"), "{out:?}");
        assert!(!out.contains("\nfake line"), "{out:?}");
    }
}
