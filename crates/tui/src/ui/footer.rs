//! The footer (keys, prompts, messages) and the overlays (help, confirmations).

use super::details::{estimate_lines, evidence_lines, measured_lines};
use super::text::{fit, tail_fit, width_of};
use crate::app::{App, Confirm, EnvView, Overlay};
use gpuledger_model::term_safe;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

/// A modal prompt: what is asked, the text typed so far with a cursor, and the keys that end it.
/// The hint goes first when the line is short; the typed text never does.
pub fn prompt_line(app: &App, label: &str, text: &str, hint: &str, width: u16) -> Line<'static> {
    let t = &app.theme;
    let label = format!(" {label} ");
    let w = width as usize;
    let hint = format!("  {hint}");
    let fixed = width_of(&label) + 1;
    let show_hint = fixed + width_of(&hint) + 12 <= w;
    let room = w.saturating_sub(fixed + if show_hint { width_of(&hint) } else { 0 });
    let mut spans = vec![
        Span::styled(label, t.header.add_modifier(Modifier::REVERSED)),
        Span::styled(tail_fit(text, room), t.accent),
        Span::styled("█", t.accent),
    ];
    if show_hint {
        spans.push(Span::styled(hint, t.dim));
    }
    Line::from(spans)
}

pub(crate) fn draw_footer(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let lang = app.lang;
    let line = if let Overlay::Export(path) = &app.overlay {
        prompt_line(
            app,
            &lang.t("tui-prompt-export"),
            path,
            &lang.t("tui-prompt-export-hint"),
            area.width,
        )
    } else if app.table.filter_editing {
        prompt_line(
            app,
            &lang.t("tui-prompt-filter"),
            &app.table.filter,
            &lang.t("tui-prompt-filter-hint"),
            area.width,
        )
    } else if let Some(m) = &app.message {
        Line::styled(m.clone(), t.warn)
    } else {
        // Whole key hints only, as many as fit: a narrow terminal drops the last ones. A
        // replay or a remote view does not offer what acts on this machine (LIVE_KEYS).
        // Each hint is a key and the message saying what it does.
        const KEYS: [(&str, &str); 13] = [
            ("q", "tui-key-quit"),
            ("?", "tui-key-help"),
            ("/", "tui-key-filter"),
            ("s", "tui-key-sort"),
            ("r", "tui-key-reverse"),
            ("t", "tui-key-tree"),
            ("Enter", "tui-key-details"),
            ("T", "tui-key-term"),
            ("K", "tui-key-kill"),
            ("e", "tui-key-env"),
            ("h/l", "tui-key-scroll"),
            ("x", "tui-key-export"),
            ("c", "tui-key-copy"),
        ];
        let mut text = String::new();
        let live = app.not_live().is_none();
        let interval = app.replay.is_none().then_some(&("+/-", "tui-key-interval"));
        let keys = KEYS
            .iter()
            .filter(|(k, _)| live || !acts_live(k))
            .chain(interval);
        for (k, what) in keys {
            let hint = format!("{k} {}", lang.t(what));
            let sep = if text.is_empty() { "" } else { "  " };
            if width_of(&text) + sep.len() + width_of(&hint) > area.width as usize {
                break;
            }
            text.push_str(sep);
            text.push_str(&hint);
        }
        Line::styled(text, t.dim)
    };
    f.render_widget(Paragraph::new(line).wrap(Wrap { trim: false }), area);
}

pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Under the keys: what the names on screen mean (the snapshot table's names), as message
/// keys; each line fits an 80-column terminal.
pub const HELP_NOTES: &[&str] = &["tui-help-note-type", "tui-help-note-mem"];

/// The keys that act on this machine's live processes (the first word of a footer hint or a
/// help line): not offered in a replay or a remote view (pressed there, they say why not).
pub const LIVE_KEYS: &[&str] = &["T", "K", "e", "Space", "o"];

/// Whether a footer hint or help line names a key of [`LIVE_KEYS`].
fn acts_live(keys: &str) -> bool {
    keys.split_whitespace()
        .next()
        .is_some_and(|k| LIVE_KEYS.contains(&k))
}

/// What the help says instead of the keys a replay or a remote view leaves out.
fn not_live_help(app: &App) -> Option<String> {
    let why = app.not_live()?;
    let interval = if app.replay.is_some() { ", + -" } else { "" };
    Some(app.lang.t_args(
        "tui-help-not-live",
        &[("why", why.into()), ("keys", interval.into())],
    ))
}

/// Keys and the message saying what they do; each line fits an 80-column terminal.
pub const HELP: &[(&str, &str)] = &[
    ("q Esc Ctrl-C", "tui-help-quit"),
    ("? F1", "tui-help-help"),
    ("↑↓ j k PgUp/Dn g G", "tui-help-move"),
    ("s > →  < ←  r", "tui-help-sort"),
    ("/", "tui-help-filter"),
    ("t  f", "tui-help-tree"),
    ("D", "tui-help-per-gpu"),
    ("Enter i", "tui-help-details"),
    ("T F9  /  K", "tui-help-kill"),
    ("Space", "tui-help-tag"),
    ("e v", "tui-help-env"),
    ("h l", "tui-help-scroll"),
    ("c", "tui-help-copy"),
    ("o", "tui-help-open"),
    ("x", "tui-help-export"),
    ("+ -", "tui-help-interval"),
    ("w  C  m", "tui-help-window"),
];

/// Draws the open overlay. Returns how far the details pop-up can scroll and its page (0, 0
/// when it is not open), for the keys.
pub(crate) fn draw_overlay(f: &mut Frame, app: &App, area: Rect) -> (u16, u16) {
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help => help_box(f, app, area),
        Overlay::Details(at) => return details_box(f, app, area, *at),
        Overlay::Confirm(c) => confirm_box(f, app, area, c),
        Overlay::Env(v) => env_box(f, app, area, v),
        // Export is a prompt line in the footer (see draw_footer), not a box over the table.
        Overlay::Export(_) => {}
    }
    (0, 0)
}

fn help_box(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let live = app.not_live().is_none();
    let mut lines: Vec<Line> = HELP
        .iter()
        .filter(|(k, _)| live || !acts_live(k))
        .filter(|(k, _)| app.replay.is_none() || *k != "+ -")
        .map(|(k, d)| {
            Line::from(vec![
                Span::styled(format!("{k:>18}  "), t.header),
                Span::raw(app.lang.t(d)),
            ])
        })
        .collect();
    lines.extend(not_live_help(app).map(|l| Line::styled(l, t.warn)));
    // What the columns and cards mean, in the snapshot table's names.
    for l in HELP_NOTES {
        lines.push(Line::styled(app.lang.t(l), t.dim));
    }
    let r = centered(area, 100, lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(Span::styled(
                format!(" {} ", app.lang.t("tui-help-title")),
                t.title,
            ))),
        r,
    );
}

/// Every value of the selected row, the estimate and the evidence, from (wrapped) line `at`:
/// ↑↓ PgUp/PgDn Home/End scroll it when it is taller than the screen (at 80×24
/// the evidence was cut). Returns how far it can scroll and its page.
fn details_box(f: &mut Frame, app: &App, area: Rect, at: u16) -> (u16, u16) {
    let t = &app.theme;
    let Some(row) = app.selected_row().copied() else {
        return (0, 0);
    };
    let mut lines = match row.group {
        Some(root) => super::details::group_lines(app, root),
        None => Vec::new(),
    };
    lines.extend(measured_lines(app, &row));
    lines.push(Line::raw(""));
    lines.push(Line::styled(app.lang.t("tui-details-estimate"), t.estimate));
    lines.extend(estimate_lines(app));
    lines.push(Line::raw(""));
    lines.push(Line::styled(app.lang.t("tui-details-evidence"), t.header));
    lines.extend(evidence_lines(app));
    let w = area.width.saturating_sub(4).min(110);
    let para = Paragraph::new(lines).wrap(Wrap { trim: false });
    let total = para.line_count(w.saturating_sub(2)).min(u16::MAX as usize) as u16;
    let r = centered(area, w, area.height.saturating_sub(2).min(total + 2));
    let page = r.height.saturating_sub(2);
    let max = total.saturating_sub(page);
    let at = at.min(max);
    let title = format!(" {} ", app.lang.t("tui-details-title"));
    let mut block = Block::bordered().title(Span::styled(title, t.title));
    if max > 0 {
        let lines = app.lang.t_args(
            "tui-details-lines",
            &[
                ("from", (at + 1).to_string().into()),
                ("to", (at + page).to_string().into()),
                ("total", total.to_string().into()),
            ],
        );
        block = block.title_bottom(Span::styled(format!(" {lines} "), t.dim));
    }
    f.render_widget(Clear, r);
    f.render_widget(para.scroll((at, 0)).block(block), r);
    (max, page)
}

fn confirm_box(f: &mut Frame, app: &App, area: Rect, c: &Confirm) {
    let t = &app.theme;
    let lang = app.lang;
    // Whole sentences per signal (the verb's place and form differ by language).
    let (verb, ask, really) = if c.force {
        (
            "tui-kill-force",
            "tui-confirm-force",
            "tui-confirm-really-force",
        )
    } else {
        (
            "tui-kill-term",
            "tui-confirm-term",
            "tui-confirm-really-term",
        )
    };
    let verb = lang.t(verb);
    let mut lines = if c.tagged {
        tagged_lines(app, area, c)
    } else {
        let args = [
            ("pid", c.pid.to_string().into()),
            ("name", c.name.as_str().into()),
        ];
        let holds = [("memory", c.memory.as_str().into())];
        vec![
            Line::styled(lang.t_args(ask, &args), t.warn),
            Line::raw(term_safe(&c.detail).into_owned()),
            Line::raw(lang.t_args("tui-confirm-holds", &holds)),
        ]
    };
    if c.stage == 2 {
        if let Some(w) = &c.warning {
            let args = [
                ("name", c.name.as_str().into()),
                ("warning", w.as_str().into()),
            ];
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                lang.t_args("tui-confirm-second", &args),
                t.warn,
            ));
            lines.push(Line::styled(lang.t(really), t.warn));
        }
    } else {
        lines.push(Line::raw(lang.t("tui-confirm-yes-no")));
    }
    // The command line may wrap onto a second row.
    let r = centered(area, 76, lines.len() as u16 + 5);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(Span::styled(format!(" {verb} "), t.warn))),
        r,
    );
}

/// The tagged processes a confirmation signals, every one of them: one line each while they
/// fit, then the remaining PIDs on one wrapped line.
fn tagged_lines(app: &App, area: Rect, c: &Confirm) -> Vec<Line<'static>> {
    let t = &app.theme;
    let n = c.also.len() + 1;
    let ask = if c.force {
        "tui-confirm-tagged-force"
    } else {
        "tui-confirm-tagged-term"
    };
    let mut lines = vec![Line::styled(
        app.lang.t_args(ask, &[("n", n.into())]),
        t.warn,
    )];
    let all = std::iter::once((c.pid, &c.name, &c.detail))
        .chain(c.also.iter().map(|a| (a.pid, &a.name, &a.detail)));
    let room = (area.height as usize).saturating_sub(10).max(3);
    let shown = if n <= room { n } else { room - 1 };
    let mut rest = Vec::new();
    for (i, (pid, name, detail)) in all.enumerate() {
        if i < shown {
            let l = format!("  PID {pid} ({name}) {detail}");
            lines.push(Line::raw(fit(&term_safe(&l), 72)));
        } else {
            rest.push(pid.to_string());
        }
    }
    if !rest.is_empty() {
        let more = app.lang.t_args(
            "tui-confirm-and-pids",
            &[
                ("pids", rest.join(", ").into()),
                ("more", rest.len().to_string().into()),
            ],
        );
        lines.push(Line::raw(format!("  {more}")));
    }
    lines.push(Line::styled(app.lang.t("tui-confirm-only-these"), t.dim));
    lines
}

fn env_box(f: &mut Frame, app: &App, area: Rect, v: &EnvView) {
    let t = &app.theme;
    let lang = app.lang;
    let title = lang.t_args(
        "tui-env-title",
        &[
            ("pid", v.pid.to_string().into()),
            ("name", v.name.as_str().into()),
        ],
    );
    let title = format!(" {title} ");
    let inner_h = area.height.saturating_sub(6).max(3);
    let lines: Vec<Line> = match &v.lines {
        Ok(l) if l.is_empty() => vec![Line::styled(lang.t("tui-env-empty"), t.dim)],
        Ok(l) => l
            .iter()
            .skip(v.scroll)
            .take(inner_h as usize)
            .map(|x| Line::raw(term_safe(x).into_owned()))
            .chain(std::iter::once(Line::styled(
                lang.t_args(
                    "tui-env-scroll",
                    &[
                        ("from", (v.scroll + 1).min(l.len()).to_string().into()),
                        (
                            "to",
                            (v.scroll + inner_h as usize)
                                .min(l.len())
                                .to_string()
                                .into(),
                        ),
                        ("total", l.len().to_string().into()),
                    ],
                ),
                t.dim,
            )))
            .collect(),
        Err(why) => vec![
            Line::styled(format!("n/a: {}", term_safe(why)), t.warn),
            Line::styled(lang.t("tui-env-closes"), t.dim),
        ],
    };
    let r = centered(area, area.width.saturating_sub(4), lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(Span::styled(title, t.title))),
        r,
    );
}
