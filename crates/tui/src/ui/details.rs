//! The details panes: measured facts, the estimated ledger (apart), the evidence chain.

use super::text::{fit_right, opt};
use crate::app::{App, Row};
use gpuledger_model::units::{human_bytes, human_opt};
use gpuledger_model::words;
use gpuledger_model::{term_safe, EstimatedMemory, Process};
use gpuledger_views::estimate::{difference, gap_cause, reported_value};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

pub(crate) fn draw_measured(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let block =
        Block::bordered().title(Span::styled(" Measured (what counters reported) ", t.title));
    let Some(r) = app.selected_row().copied() else {
        f.render_widget(Paragraph::new("no process selected").block(block), area);
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
    let (Some(g), Some(snap)) = (app.group(root), app.snapshot.as_ref()) else {
        return Vec::new();
    };
    let est = match g.estimated_bytes {
        Some(b) if g.estimated_is_floor => format!("≥ {}", human_bytes(b)),
        Some(b) => human_bytes(b),
        None => "n/a (no member carries an estimate)".into(),
    };
    let mut v = vec![
        Line::from(vec![
            Span::styled(format!("Workload group {} ", term_safe(&g.label)), t.title),
            Span::raw(format!("root PID {root} · {} processes", g.members.len())),
        ]),
        Line::raw(format!(
            "measured {} (driver) · estimated {est} (calculated)",
            human_opt(g.measured_bytes)
        )),
    ];
    for p in snap.processes.iter().filter(|p| g.members.contains(&p.pid)) {
        let role = p.workload.as_ref().and_then(|w| w.member.as_ref());
        let mem: Option<u64> = p.usage.iter().map(|u| u.memory_bytes).sum();
        v.push(Line::raw(format!(
            "  PID {} {}  {}",
            p.pid,
            role.map_or("member", |m| m.role.as_str()),
            human_opt(mem)
        )));
    }
    v.push(Line::styled(
        "T / K signal the root; below, the first member's own details",
        t.dim,
    ));
    v.push(Line::raw(""));
    v
}

pub fn measured_lines(app: &App, r: &Row) -> Vec<Line<'static>> {
    let t = &app.theme;
    let p = app.process(r);
    let snap = app.snapshot.as_ref().unwrap();
    let mut v = vec![Line::from(vec![
        Span::styled(format!("PID {} ", p.pid), t.title),
        Span::raw(format!(
            "{}  user {}  ppid {}",
            p.display_name(),
            p.user.as_deref().unwrap_or("n/a"),
            opt(p.ppid, "")
        )),
    ])];
    if let Some(s) = &p.started_at {
        v.push(Line::raw(format!("started {s}")));
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
    let h = app.host.get(&p.pid);
    v.push(Line::raw(format!(
        "host CPU {}  RSS {}{} [procfs]",
        h.and_then(|h| h.cpu_percent)
            .map(|c| format!("{c:.1}%"))
            .unwrap_or_else(|| "n/a".into()),
        human_opt(h.and_then(|h| h.rss_bytes)),
        // The share only beside a known RSS: "n/a (n/a of RAM)" says nothing twice.
        h.and_then(|h| h.mem_percent)
            .map(|c| format!(" ({c:.1}% of RAM)"))
            .unwrap_or_default(),
    )));
    if let Some(exe) = &p.exe {
        v.push(Line::raw(format!("exe {exe}")));
    }
    v.push(Line::raw(format!(
        "cmd {}",
        words::or_unknown(app.command_line(r).as_deref())
    )));
    for (what, why) in app.unknown_reasons() {
        v.push(Line::styled(format!("n/a {what}: {why}"), t.dim));
    }
    v
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
            " ESTIMATE (calculated, not measured) ",
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
    let block = Block::bordered().title(Span::styled(" Workload · evidence ", t.title));
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
    let Some(n) = &p.no_estimate else {
        let why = match (&p.workload, &p.metadata_unavailable) {
            (Some(w), _) if gpuledger_workloads::runtimes::is_ai(w.kind) => {
                "no estimate: the model or settings could not be read (`gpuledger explain PID` says which)".into()
            }
            // Unseen is not "not AI": what it runs is unknown.
            (_, Some(unseen)) => format!(
                "no estimate: what this process runs is unknown ({})",
                term_safe(unseen)
            ),
            _ => "no estimate: not an AI runtime gpuledger has a recipe for".into(),
        };
        return vec![Line::styled(why, t.dim)];
    };
    let mut v: Vec<Line<'static>> = n
        .reported
        .iter()
        .map(|r| {
            let value = reported_value(r, human_bytes);
            Line::raw(term_safe(&format!("runtime reports {} {value}", r.what)).into_owned())
        })
        .collect();
    v.push(Line::styled(
        format!("no estimate: {}", term_safe(&n.why)),
        t.dim,
    ));
    v
}

pub fn estimate_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let Some(p) = app.selected_row().map(|r| app.process(r)) else {
        return vec![Line::styled("no process selected", t.dim)];
    };
    let Some(e) = &p.estimate else {
        return no_estimate_lines(app, p);
    };
    let head = match e.n_ctx {
        Some(n) => format!("{} · context {n}", e.recipe),
        None => e.recipe.clone(),
    };
    // The answer first (total, beside the measurement), then the parts, then the sentence: a
    // short pane still shows the totals.
    let mut v = vec![
        Line::styled(head, t.estimate),
        Line::styled(
            format!("total GPU {:>10}  (estimated)", e.total_text()),
            t.estimate,
        ),
    ];
    v.extend(measured_line(app, p, e));
    // The same word `explain` uses, from the estimate's own flag.
    let word = gpuledger_views::estimate::compute_precision(e.compute_exact);
    let compute = match &e.compute_label {
        Some(l) => format!("({l}, {word})"),
        None => format!("({word})"),
    };
    v.extend([
        Line::raw(format!(
            "weights   {:>10}",
            human_opt(Some(e.weights_gpu_bytes))
        )),
        Line::raw(format!("KV cache  {:>10}", human_opt(e.kv_cache_gpu_bytes))),
        Line::raw(format!(
            "compute   {:>10}  {compute}",
            human_opt(e.compute_gpu_bytes)
        )),
        Line::raw(format!(
            "overhead  {:>10}  (`explain` says from what)",
            human_opt(e.overhead_gpu_bytes)
        )),
    ]);
    v.extend(estimate_notes(app, e));
    v
}

/// The measurement beside the estimate, with the difference when the estimate is whole.
fn measured_line(app: &App, p: &Process, e: &EstimatedMemory) -> Option<Line<'static>> {
    let t = &app.theme;
    let measured: Option<u64> = p.usage.iter().map(|u| u.memory_bytes).sum();
    match measured {
        Some(m) if !e.is_partial() => {
            let (d, side) = difference(m, e.total_gpu_bytes);
            let cause = gap_cause(m, e.total_gpu_bytes, Some(e.weights_gpu_bytes))
                .map(|c| format!("; {c}"))
                .unwrap_or_default();
            Some(Line::styled(
                format!(
                    "measured  {:>10}  (driver; {} {side} than estimated{cause})",
                    human_bytes(m),
                    human_bytes(d),
                ),
                t.dim,
            ))
        }
        // A part unknown: the estimate is a floor, no difference is stated.
        Some(m) => Some(Line::styled(
            format!("measured  {:>10}  (driver)", human_bytes(m)),
            t.dim,
        )),
        None => None,
    }
}

/// Below the parts: why, what is not modelled, and what the runtime itself reported.
fn estimate_notes(app: &App, e: &EstimatedMemory) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut v = Vec::new();
    if let Some(why) = &e.why {
        v.push(Line::raw(format!("why: {}", term_safe(why))));
    }
    for part in &e.not_modelled {
        v.push(Line::styled(
            format!("not modelled: {}", term_safe(part)),
            t.dim,
        ));
    }
    for r in &e.reported {
        let value = reported_value(r, human_bytes);
        v.push(Line::styled(
            term_safe(&format!("runtime says {}: {value}", r.what)).into_owned(),
            t.dim,
        ));
    }
    v
}

/// Identification of the selected process: the conclusion, each evidence item with where it was
/// read, and the links that were looked for and not found.
pub fn evidence_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut v = Vec::new();
    match app
        .selected_row()
        .and_then(|r| app.process(r).workload.as_ref())
    {
        Some(w) => {
            v.push(Line::from(vec![
                Span::styled(w.short_label(), t.title),
                Span::styled(format!("  confidence {}", w.confidence.word()), t.dim),
            ]));
            if w.evidence.is_empty() {
                v.push(Line::styled("no evidence items", t.dim));
            }
            for e in &w.evidence {
                v.push(Line::from(vec![
                    Span::raw(format!("• {}: ", e.kind.label())),
                    Span::raw(e.shown().to_string()),
                    Span::styled(format!(" [{}]", e.source), t.dim),
                ]));
            }
            for m in &w.missing {
                v.push(Line::styled(format!("missing: {m}"), t.dim));
            }
        }
        None if app.replay.is_some() => {
            v.push(Line::styled("not identified in this saved snapshot", t.dim))
        }
        None => v.push(Line::styled(
            "not identified: no evidence pointed to a known runtime",
            t.dim,
        )),
    }
    v.push(Line::styled(
        "live server state: not shown here yet (gpuledger explain PID)",
        t.dim,
    ));
    v
}
