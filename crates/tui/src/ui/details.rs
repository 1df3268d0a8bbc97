//! The details panes: measured facts, the estimated ledger (apart), the evidence chain.

use super::text::{fit_right, opt};
use crate::app::{App, Row};
use gpuledger_lang::Lang;
use gpuledger_model::units::{human_bytes, human_opt};
use gpuledger_model::words;
use gpuledger_model::{term_safe, EstimatedMemory, Process};
use gpuledger_views::columns::{display_width as width_of, pad_end};
use gpuledger_views::estimate::{compute_precision_in, difference, gap_cause_key, reported_value};
use gpuledger_views::labels::{evidence_label, role_label, workload_label};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

pub(crate) fn draw_measured(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let title = format!(" {} ", app.lang.t("tui-det-measured-title"));
    let block = Block::bordered().title(Span::styled(title, t.title));
    let Some(r) = app.selected_row().copied() else {
        let none = app.lang.t("tui-det-none-selected");
        f.render_widget(Paragraph::new(none).block(block), area);
        return;
    };
    f.render_widget(
        Paragraph::new(measured_lines(app, &r))
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}

/// The measured ledger of the selected process, one line per fact.
/// The details of a workload group's row: the group (root, measured total beside the members'
/// estimated shares summed, never added together), each member with its role and memory; then
/// the first member's own details follow.
pub fn group_lines(app: &App, root: u32) -> Vec<Line<'static>> {
    let t = &app.theme;
    let lang = app.lang;
    let (Some(g), Some(snap)) = (app.group(root), app.snapshot.as_ref()) else {
        return Vec::new();
    };
    let est = match g.estimated_bytes {
        Some(b) if g.estimated_is_floor => format!("≥ {}", human_bytes(b)),
        Some(b) => human_bytes(b),
        None => lang.t("tui-det-group-no-estimate"),
    };
    let label = term_safe(&g.label).into_owned();
    let head = lang.t_args("tui-det-group", &[("label", label.into())]);
    let root_line = lang.t_args(
        "tui-det-group-root",
        &[
            ("root", root.to_string().into()),
            ("n", g.members.len().to_string().into()),
        ],
    );
    let figures = lang.t_args(
        "tui-det-group-figures",
        &[
            ("measured", human_opt(g.measured_bytes).into()),
            ("estimated", est.into()),
        ],
    );
    let mut v = vec![
        Line::from(vec![
            Span::styled(format!("{head} "), t.title),
            Span::raw(root_line),
        ]),
        Line::raw(figures),
    ];
    let member = lang.t("tui-det-member");
    for p in snap.processes.iter().filter(|p| g.members.contains(&p.pid)) {
        let role = p.workload.as_ref().and_then(|w| w.member.as_ref());
        let mem: Option<u64> = p.usage.iter().map(|u| u.memory_bytes).sum();
        v.push(Line::raw(format!(
            "  PID {} {}  {}",
            p.pid,
            role.map_or(member.clone(), |m| role_label(&m.role, lang)),
            human_opt(mem)
        )));
    }
    v.push(Line::styled(lang.t("tui-det-group-note"), t.dim));
    v.push(Line::raw(""));
    v
}

pub fn measured_lines(app: &App, r: &Row) -> Vec<Line<'static>> {
    let t = &app.theme;
    let lang = app.lang;
    let p = app.process(r);
    let snap = app.snapshot.as_ref().unwrap();
    let who = lang.t_args(
        "tui-det-who",
        &[
            ("name", p.display_name().to_string().into()),
            ("user", p.user.as_deref().unwrap_or("n/a").into()),
            ("ppid", opt(p.ppid, "").into()),
        ],
    );
    let mut v = vec![Line::from(vec![
        Span::styled(format!("PID {} ", p.pid), t.title),
        Span::raw(who),
    ])];
    if let Some(s) = &p.started_at {
        v.push(Line::raw(
            lang.t_args("tui-det-started", &[("time", s.as_str().into())]),
        ));
    }
    for u in &p.usage {
        let dev = snap
            .device_by_uuid(&u.device)
            .map(|d| format!("GPU{}", d.index))
            .unwrap_or_else(|| u.device.clone());
        v.push(Line::from(vec![
            Span::raw(format!("{dev} {} ", u.kinds_label())),
            Span::styled(
                fit_right(&human_opt(u.memory_bytes), 9),
                if u.memory_bytes.is_some() {
                    t.mem_line
                } else {
                    t.warn
                },
            ),
            Span::styled(format!(" [{}]", u.memory_source), t.dim),
            Span::raw(format!(
                "  SM% {}  MEM% {}  ENC% {}  DEC% {}",
                opt(u.engines.sm_percent, ""),
                opt(u.engines.memory_percent, ""),
                opt(u.engines.encoder_percent, ""),
                opt(u.engines.decoder_percent, ""),
            )),
        ]));
    }
    v.push(Line::raw(host_line(app, p.pid)));
    if let Some(exe) = &p.exe {
        v.push(Line::raw(
            lang.t_args("tui-det-exe", &[("exe", exe.as_str().into())]),
        ));
    }
    let cmd = words::or_unknown(app.command_line(r).as_deref()).to_string();
    v.push(Line::raw(
        lang.t_args("tui-det-cmd", &[("cmd", cmd.into())]),
    ));
    for (what, why) in app.unknown_reasons() {
        let args = [("what", what.into()), ("why", why.into())];
        v.push(Line::styled(lang.t_args("tui-det-na", &args), t.dim));
    }
    v
}

/// The host's figures of a process: CPU %, RSS and, beside a known RSS, its share of RAM ("n/a
/// (n/a of RAM)" says nothing twice).
fn host_line(app: &App, pid: u32) -> String {
    let h = app.host.get(&pid);
    let cpu = h
        .and_then(|h| h.cpu_percent)
        .map(|c| format!("{c:.1}%"))
        .unwrap_or_else(|| "n/a".into());
    let rss = human_opt(h.and_then(|h| h.rss_bytes));
    match h.and_then(|h| h.mem_percent) {
        Some(ram) => app.lang.t_args(
            "tui-det-host-ram",
            &[
                ("cpu", cpu.into()),
                ("rss", rss.into()),
                ("ram", format!("{ram:.1}").into()),
            ],
        ),
        None => app
            .lang
            .t_args("tui-det-host", &[("cpu", cpu.into()), ("rss", rss.into())]),
    }
}

/// Rows for the estimate pane: its lines, the border and a row for wrapping; small when empty.
pub(crate) fn estimate_height(app: &App) -> u16 {
    (estimate_lines(app).len() as u16 + 4).clamp(4, 13)
}

pub(crate) fn draw_estimated(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let block = Block::bordered()
        .border_style(t.estimate)
        .title(Span::styled(
            format!(" {} ", app.lang.t("tui-details-estimate")),
            t.estimate.add_modifier(Modifier::BOLD),
        ));
    f.render_widget(
        Paragraph::new(estimate_lines(app))
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}

pub(crate) fn draw_evidence(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let title = format!(" {} ", app.lang.t("tui-details-evidence"));
    let block = Block::bordered().title(Span::styled(title, t.title));
    f.render_widget(
        Paragraph::new(evidence_lines(app))
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}

/// Why a process has no estimate (the reason collection found), and what its runtime reported
/// of it meanwhile, as the runtime's figures.
fn no_estimate_lines(app: &App, p: &Process) -> Vec<Line<'static>> {
    let t = &app.theme;
    let lang = app.lang;
    let Some(n) = &p.no_estimate else {
        let why = match (&p.workload, &p.metadata_unavailable) {
            (Some(w), _) if gpuledger_workloads::runtimes::is_ai(w.kind) => {
                lang.t("tui-det-no-estimate-unread")
            }
            // Unseen is not "not AI": what it runs is unknown.
            (_, Some(unseen)) => lang.t_args(
                "tui-det-no-estimate-unseen",
                &[("why", term_safe(&unseen.in_lang(lang)).into_owned().into())],
            ),
            _ => lang.t("tui-det-no-estimate-not-ai"),
        };
        return vec![Line::styled(why, t.dim)];
    };
    let mut v: Vec<Line<'static>> = n
        .reported
        .iter()
        .map(|r| {
            let value = reported_value(r, human_bytes, lang);
            let args = [
                ("what", r.what.in_lang(lang).into()),
                ("value", value.into()),
            ];
            Line::raw(term_safe(&lang.t_args("tui-det-runtime-reports", &args)).into_owned())
        })
        .collect();
    let why = term_safe(&n.why.in_lang(lang)).into_owned();
    v.push(Line::styled(
        lang.t_args("tui-det-no-estimate", &[("why", why.into())]),
        t.dim,
    ));
    v
}

pub fn estimate_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let lang = app.lang;
    let Some(p) = app.selected_row().map(|r| app.process(r)) else {
        return vec![Line::styled(lang.t("tui-det-none-selected"), t.dim)];
    };
    let Some(e) = &p.estimate else {
        return no_estimate_lines(app, p);
    };
    let head = match e.n_ctx {
        Some(n) => lang.t_args(
            "tui-det-recipe-context",
            &[
                ("recipe", e.recipe.as_str().into()),
                ("n", n.to_string().into()),
            ],
        ),
        None => e.recipe.clone(),
    };
    // The answer first (total, beside the measurement), then the parts, then the sentence: a
    // short pane still shows the totals.
    let total = ledger_line(lang, "tui-det-total", &e.total_text());
    let mut v = vec![
        Line::styled(head, t.estimate),
        Line::styled(
            format!("{total}  {}", lang.t("tui-det-estimated-note")),
            t.estimate,
        ),
    ];
    v.extend(measured_line(app, p, e));
    // The same word `explain` uses, from the estimate's own flag.
    let word = compute_precision_in(e.compute_exact, lang);
    let compute = match &e.compute_label {
        Some(l) => lang.t_args(
            "tui-det-compute-labelled",
            &[("label", l.in_lang(lang).into()), ("word", word.into())],
        ),
        None => lang.t_args("tui-det-compute-word", &[("word", word.into())]),
    };
    let part = |key: &str, b: Option<u64>| ledger_line(lang, key, &human_opt(b));
    v.extend([
        Line::raw(part("tui-det-weights", Some(e.weights_gpu_bytes))),
        Line::raw(part("tui-det-kv", e.kv_cache_gpu_bytes)),
        Line::raw(format!(
            "{}  {compute}",
            part("tui-det-compute", e.compute_gpu_bytes)
        )),
        Line::raw(format!(
            "{}  {}",
            part("tui-det-overhead", e.overhead_gpu_bytes),
            lang.t("tui-det-overhead-note")
        )),
    ]);
    v.extend(estimate_notes(app, e));
    v
}

/// A ledger line: its label in ten columns (by display width, so a CJK label lines up too),
/// then the figure right-aligned in ten.
fn ledger_line(lang: Lang, key: &str, figure: &str) -> String {
    let label = lang.t(key);
    // At least one blank after a label of ten columns or more (none is, in English).
    let w = 10.max(width_of(&label) + 1);
    format!("{}{figure:>10}", pad_end(&label, w))
}

/// The measurement beside the estimate, with the difference when the estimate is whole.
fn measured_line(app: &App, p: &Process, e: &EstimatedMemory) -> Option<Line<'static>> {
    let t = &app.theme;
    let lang = app.lang;
    let measured: Option<u64> = p.usage.iter().map(|u| u.memory_bytes).sum();
    let m = measured?;
    let label = ledger_line(lang, "tui-det-measured", &human_bytes(m));
    // A part unknown: the estimate is a floor, no difference is stated.
    let note = if e.is_partial() {
        lang.t("tui-det-driver")
    } else {
        let (d, side) = difference(m, e.total_gpu_bytes);
        let cause = gap_cause_key(m, e.total_gpu_bytes, Some(e.weights_gpu_bytes));
        let key = match (side == "more", cause.is_some()) {
            (true, false) => "tui-det-driver-more",
            (true, true) => "tui-det-driver-more-cause",
            (false, false) => "tui-det-driver-less",
            (false, true) => "tui-det-driver-less-cause",
        };
        let cause = cause.map(|c| lang.t(c)).unwrap_or_default();
        let args = [
            ("difference", human_bytes(d).into()),
            ("cause", cause.into()),
        ];
        lang.t_args(key, &args)
    };
    Some(Line::styled(format!("{label}  {note}"), t.dim))
}

/// Below the parts: why, what is not modelled, and what the runtime itself reported.
fn estimate_notes(app: &App, e: &EstimatedMemory) -> Vec<Line<'static>> {
    let t = &app.theme;
    let lang = app.lang;
    let mut v = Vec::new();
    if let Some(why) = &e.why {
        let why = term_safe(&why.in_lang(lang)).into_owned();
        v.push(Line::raw(
            lang.t_args("tui-det-why", &[("why", why.into())]),
        ));
    }
    for part in &e.not_modelled {
        let part = term_safe(&part.in_lang(lang)).into_owned();
        v.push(Line::styled(
            lang.t_args("tui-det-not-modelled", &[("part", part.into())]),
            t.dim,
        ));
    }
    for r in &e.reported {
        let value = reported_value(r, human_bytes, lang);
        let args = [
            ("what", r.what.in_lang(lang).into()),
            ("value", value.into()),
        ];
        v.push(Line::styled(
            term_safe(&lang.t_args("tui-det-runtime-says", &args)).into_owned(),
            t.dim,
        ));
    }
    v
}

/// Identification of the selected process: the conclusion, each evidence item with where it was
/// read, and the links that were looked for and not found.
pub fn evidence_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let lang = app.lang;
    let mut v = Vec::new();
    match app
        .selected_row()
        .and_then(|r| app.process(r).workload.as_ref())
    {
        Some(w) => {
            let word = lang.t(match w.confidence {
                gpuledger_model::Confidence::High => "report-confidence-high",
                gpuledger_model::Confidence::Medium => "report-confidence-medium",
                gpuledger_model::Confidence::Low => "report-confidence-low",
            });
            let confidence = lang.t_args("tui-det-confidence", &[("word", word.into())]);
            v.push(Line::from(vec![
                Span::styled(workload_label(w, lang), t.title),
                Span::styled(format!("  {confidence}"), t.dim),
            ]));
            if w.evidence.is_empty() {
                v.push(Line::styled(lang.t("tui-det-no-evidence"), t.dim));
            }
            for e in &w.evidence {
                v.push(Line::from(vec![
                    Span::raw(format!(
                        "• {}",
                        lang.t_args(
                            "tui-det-evidence-kind",
                            &[("kind", evidence_label(e.kind, lang).into())]
                        )
                    )),
                    Span::raw(e.shown(lang)),
                    Span::styled(format!(" [{}]", e.source), t.dim),
                ]));
            }
            for m in &w.missing {
                let missing = lang.t_args("tui-det-missing", &[("what", m.in_lang(lang).into())]);
                v.push(Line::styled(missing, t.dim));
            }
        }
        None if app.replay.is_some() => {
            v.push(Line::styled(lang.t("tui-det-not-identified-saved"), t.dim))
        }
        None => v.push(Line::styled(lang.t("tui-det-not-identified"), t.dim)),
    }
    v.push(Line::styled(lang.t("tui-det-live-state"), t.dim));
    v
}
