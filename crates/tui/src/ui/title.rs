//! The title line and the notes under it (stale data, source warnings, alerts).

use super::text::{fit, width_of};
use crate::app::{fmt_interval, App};
use gpuledger_model::units::{human_bytes, human_opt};
use gpuledger_model::SourceState;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::time::Instant;

pub(crate) fn draw_title(f: &mut Frame, app: &App, area: Rect, now: Instant) {
    let mut spans = vec![Span::styled(" gpuledger ", app.theme.title)];
    spans.extend(marker_spans(app, now));
    spans.extend(moment_spans(app));
    spans.extend(context_spans(app));
    spans.extend(table_spans(app));
    // Items whole, in order, skipping one that does not fit (a narrow terminal loses the time
    // before it shows half of it). The first two (name, REPLAY/REMOTE marker) are always kept.
    let w = area.width as usize;
    let mut used = 0;
    let mut kept = Vec::new();
    for (i, sp) in spans.into_iter().enumerate() {
        let sw = width_of(&sp.content);
        if used + sw <= w {
            used += sw;
            kept.push(sp);
        } else if i < 2 {
            let room = w.saturating_sub(used);
            used = w;
            kept.push(Span::styled(fit(&sp.content, room), sp.style));
        }
    }
    f.render_widget(Paragraph::new(Line::from(kept)), area);
}

/// One title item: the message padded with a blank each side.
fn item(text: String, style: Style) -> Span<'static> {
    Span::styled(format!(" {text} "), style)
}

/// What is not this machine live, reversed: REPLAY, REMOTE, STALE.
fn marker_spans(app: &App, now: Instant) -> Vec<Span<'static>> {
    let (lang, style) = (app.lang, app.theme.warn.add_modifier(Modifier::REVERSED));
    let mut spans = Vec::new();
    if let Some(src) = &app.replay {
        let args = [("src", src.as_str().into())];
        spans.push(item(lang.t_args("tui-title-replay", &args), style));
    }
    if let Some(url) = &app.remote {
        let args = [("url", url.as_str().into())];
        spans.push(item(lang.t_args("tui-title-remote", &args), style));
    }
    if let Some(age) = app.stale_age(now) {
        let args = [("secs", age.as_secs().to_string().into())];
        spans.push(item(lang.t_args("tui-title-stale", &args), style));
    }
    spans
}

/// The host and the snapshot's time (or that the first round is coming), and the interval.
fn moment_spans(app: &App) -> Vec<Span<'static>> {
    let (lang, t) = (app.lang, &app.theme);
    let mut spans = Vec::new();
    if let Some(s) = &app.snapshot {
        if let Some(h) = &s.host.hostname {
            spans.push(Span::raw(format!(" {h} ")));
        }
        spans.push(item(s.taken_at.clone(), t.dim));
    } else {
        spans.push(item(lang.t("tui-title-collecting"), t.dim));
    }
    if app.replay.is_none() {
        let args = [("interval", fmt_interval(app.interval).into())];
        spans.push(item(
            lang.t_args("tui-title-every", &args),
            Style::default(),
        ));
    }
    spans
}

/// How the table is shown (sort, per GPU, tree, filter), then where the help is.
fn table_spans(app: &App) -> Vec<Span<'static>> {
    let (lang, t) = (app.lang, &app.theme);
    let arrow = if app.table.descending { "▼" } else { "▲" };
    let sort = [
        ("column", app.table.sort.title_in(lang).into()),
        ("arrow", arrow.into()),
    ];
    let mut spans = vec![item(lang.t_args("tui-title-sort", &sort), t.dim)];
    if app.table.by_device {
        spans.push(item(lang.t("tui-title-per-gpu"), t.accent));
    }
    if app.table.tree {
        spans.push(item(lang.t("tui-title-tree"), t.accent));
    }
    if !app.table.filter.is_empty() {
        let args = [("filter", app.table.filter.as_str().into())];
        spans.push(item(lang.t_args("tui-title-filter", &args), t.accent));
    }
    spans.push(item(lang.t("tui-title-help"), t.dim));
    spans
}

/// The host's CPU and RAM (live only: a snapshot does not hold them) and the driver.
fn context_spans(app: &App) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    if let Some(m) = &app.machine {
        spans.push(Span::raw(format!(" {} ", machine_text(app.lang, m))));
    }
    if let Some(driver) = app
        .snapshot
        .as_ref()
        .and_then(|s| gpuledger_views::context::driver_item(&s.devices, app.lang))
    {
        spans.push(Span::styled(format!(" {driver} "), app.theme.dim));
    }
    spans
}

/// `CPU 12% RAM 31.2/125 GiB`: the host as nvitop's header shows it, `n/a` where unread.
pub fn machine_text(lang: gpuledger_lang::Lang, m: &crate::hostwide::Machine) -> String {
    let cpu = m
        .cpu_percent
        .map_or_else(|| "n/a".to_string(), |c| format!("{c:.0}%"));
    let ram = match (m.mem_used_bytes, m.mem_total_bytes) {
        (Some(u), Some(t)) => format!("{}/{}", human_bytes(u), human_bytes(t)),
        (None, Some(t)) => format!("n/a/{}", human_bytes(t)),
        _ => "n/a".to_string(),
    };
    lang.t_args(
        "tui-title-machine",
        &[("cpu", cpu.into()), ("ram", ram.into())],
    )
}

/// Lines under the cards: what the view cannot see or must qualify. `true` = a warning.
pub fn notes(app: &App, now: Instant) -> Vec<(String, bool)> {
    let mut v: Vec<(String, bool)> = app
        .active_alerts
        .iter()
        .map(|a| {
            let alert = app
                .lang
                .t_args("tui-note-alert", &[("alert", a.as_str().into())]);
            (alert, true)
        })
        .collect();
    if let Some(age) = app.stale_age(now) {
        let secs = age.as_secs().to_string();
        v.push((
            match &app.snapshot {
                None => app
                    .lang
                    .t_args("tui-note-stale-nothing", &[("secs", secs.into())]),
                Some(s) => app.lang.t_args(
                    "tui-note-stale-from",
                    &[
                        ("secs", secs.into()),
                        ("time", s.taken_at.to_string().into()),
                    ],
                ),
            },
            true,
        ));
    }
    let Some(s) = &app.snapshot else { return v };
    for d in &s.devices {
        if d.ledger.over_attributed {
            v.push((
                app.lang.t_args(
                    "tui-note-over-attributed",
                    &[
                        ("gpu", d.index.to_string().into()),
                        ("bytes", human_opt(d.ledger.over_attributed_bytes).into()),
                    ],
                ),
                true,
            ));
        }
    }
    // A source that is simply absent while another found the devices (no DRM devices on an
    // NVIDIA-only machine) is not news: `gpuledger selftest` lists it, the screen does not (it
    // took a row of every screen). With no device at all, or a source that failed, it is a
    // warning and goes first.
    for src in &s.sources {
        match src.status {
            SourceState::Ok => {}
            SourceState::Unavailable if !s.devices.is_empty() => {}
            _ => v.push((
                format!("{}: {}", src.name, src.detail.in_lang(app.lang)),
                true,
            )),
        }
    }
    for n in &s.notes {
        // The cards' line already says no GPU was found (with what to try instead).
        // (A replayed note has no key: its English is all there is to ask.)
        let no_gpu = n.key() == Some("report-note-no-gpu") || n.starts_with("no GPU found");
        if s.devices.is_empty() && no_gpu {
            continue;
        }
        v.push((n.in_lang(app.lang), false));
    }
    v
}

/// `s` in `w` columns, cut at a word boundary with `…` when too long (never mid-word unless a
/// single word is wider than the line).
pub fn fit_words(s: &str, w: usize) -> String {
    if width_of(s) <= w {
        return s.to_string();
    }
    let cut = fit(s, w);
    let body = cut.trim_end().trim_end_matches('…');
    match body.rfind(' ') {
        Some(i) if i > 0 => format!("{}…", body[..i].trim_end_matches([' ', ',', ';', ':', '·'])),
        _ => cut,
    }
}
