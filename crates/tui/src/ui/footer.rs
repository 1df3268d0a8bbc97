//! The footer (keys, prompts, messages) and the overlays (help, confirmations).

use super::details::{estimate_lines, evidence_lines, measured_lines};
use super::text::{fit, tagged_count, tail_fit, width_of};
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
    let line = if let Overlay::Export(path) = &app.overlay {
        prompt_line(
            app,
            "Export CSV to:",
            path,
            "Enter writes (never overwrites) · Esc cancels",
            area.width,
        )
    } else if app.table.filter_editing {
        prompt_line(
            app,
            "filter:",
            &app.table.filter,
            "Enter keep · Esc clear",
            area.width,
        )
    } else if let Some(m) = &app.message {
        Line::styled(m.clone(), t.warn)
    } else {
        // Whole key hints only, as many as fit: a narrow terminal drops the last ones. A
        // replay or a remote view does not offer what acts on this machine (LIVE_KEYS).
        const KEYS: [&str; 13] = [
            "q quit",
            "? help",
            "/ filter",
            "s sort",
            "r reverse",
            "t tree",
            "Enter details",
            "T term",
            "K kill",
            "e env",
            "h/l scroll",
            "x export",
            "c copy",
        ];
        let mut text = String::new();
        let live = app.not_live().is_none();
        let interval = app.replay.is_none().then_some(&"+/- interval");
        let keys = KEYS
            .iter()
            .filter(|k| live || !acts_live(k))
            .chain(interval);
        for k in keys {
            let sep = if text.is_empty() { "" } else { "  " };
            if width_of(&text) + sep.len() + width_of(k) > area.width as usize {
                break;
            }
            text.push_str(sep);
            text.push_str(k);
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

/// Under the keys: what the names on screen mean (the snapshot table's names); each line fits
/// an 80-column terminal.
pub const HELP_NOTES: &[&str] = &[
    "TYPE C compute, G graphics, C+G both · SM% the process's share of the GPU",
    "MEM% memory controller busy · bars: device share · n/a = unknown, never 0",
];

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
    Some(format!(
        "{why}: T K Space e o{interval} act on the live machine, not here"
    ))
}

/// Keys and what they do; each line fits an 80-column terminal.
pub const HELP: &[(&str, &str)] = &[
    (
        "q Esc Ctrl-C",
        "quit (Esc first clears a filter or a message)",
    ),
    ("? F1", "this help"),
    (
        "↑↓ j k PgUp/Dn g G",
        "move; the selection follows its process",
    ),
    (
        "s > →  < ←  r",
        "sort by next / previous column; r reverses the order",
    ),
    ("/", "filter: PID, user, name, command, device"),
    (
        "t  f",
        "tree view: children under their parent; f folds a group",
    ),
    ("D", "group the rows per GPU (the sort applies within each)"),
    (
        "Enter i",
        "details, why each n/a is unknown (↑↓ PgUp/PgDn scroll)",
    ),
    (
        "T F9  /  K",
        "terminate / force kill the selected process (asks)",
    ),
    (
        "Space",
        "tag / untag, then down; with tags T/K act on tagged only",
    ),
    (
        "e v",
        "the process's environment (safe names' values), nvitop's e",
    ),
    (
        "h l",
        "scroll rows left / right; help is ? or F1, not nvitop's h",
    ),
    ("c", "copy the PID (OSC 52)"),
    ("o", "open the executable's folder in the file manager"),
    (
        "x",
        "export the rows as shown to CSV (in the data directory)",
    ),
    ("+ -", "refresh interval longer / shorter (100 ms minimum)"),
    (
        "w  C  m",
        "history window 1/5/10 min  /  theme  /  monochrome",
    ),
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
                Span::raw(*d),
            ])
        })
        .collect();
    lines.extend(not_live_help(app).map(|l| Line::styled(l, t.warn)));
    // What the columns and cards mean, in the snapshot table's names.
    for l in HELP_NOTES {
        lines.push(Line::styled(*l, t.dim));
    }
    let r = centered(area, 100, lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(
            Block::bordered().title(Span::styled(" Help — any of ? F1 Esc closes ", t.title)),
        ),
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
    lines.push(Line::styled(
        "ESTIMATE (calculated, not measured)",
        t.estimate,
    ));
    lines.extend(estimate_lines(app));
    lines.push(Line::raw(""));
    lines.push(Line::styled("Workload · evidence", t.header));
    lines.extend(evidence_lines(app));
    let w = area.width.saturating_sub(4).min(110);
    let para = Paragraph::new(lines).wrap(Wrap { trim: false });
    let total = para.line_count(w.saturating_sub(2)).min(u16::MAX as usize) as u16;
    let r = centered(area, w, area.height.saturating_sub(2).min(total + 2));
    let page = r.height.saturating_sub(2);
    let max = total.saturating_sub(page);
    let at = at.min(max);
    let mut block = Block::bordered().title(Span::styled(" Details — Esc closes ", t.title));
    if max > 0 {
        block = block.title_bottom(Span::styled(
            format!(
                " lines {}–{} of {total} · ↑↓ PgUp/PgDn Home/End ",
                at + 1,
                at + page
            ),
            t.dim,
        ));
    }
    f.render_widget(Clear, r);
    f.render_widget(para.scroll((at, 0)).block(block), r);
    (max, page)
}

fn confirm_box(f: &mut Frame, app: &App, area: Rect, c: &Confirm) {
    let t = &app.theme;
    let verb = if c.force { "Force kill" } else { "Terminate" };
    let mut lines = if c.tagged {
        tagged_lines(app, area, c, verb)
    } else {
        vec![
            Line::styled(format!("{verb} PID {} ({})?", c.pid, c.name), t.warn),
            Line::raw(term_safe(&c.detail).into_owned()),
            Line::raw(format!("It holds {}.", c.memory)),
        ]
    };
    if c.stage == 2 {
        if let Some(w) = &c.warning {
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                format!("SECOND CONFIRMATION: {} {w}.", c.name),
                t.warn,
            ));
            lines.push(Line::styled(
                format!(
                    "Really {} it? y = yes, anything else = no",
                    verb.to_lowercase()
                ),
                t.warn,
            ));
        }
    } else {
        lines.push(Line::raw("y = yes, anything else = no"));
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
fn tagged_lines(app: &App, area: Rect, c: &Confirm, verb: &str) -> Vec<Line<'static>> {
    let t = &app.theme;
    let n = c.also.len() + 1;
    let mut lines = vec![Line::styled(
        format!("{verb} the {}?", tagged_count(n)),
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
        lines.push(Line::raw(format!(
            "  and PIDs {} ({} more)",
            rest.join(", "),
            rest.len()
        )));
    }
    lines.push(Line::styled(
        "Only these are signalled (the row under the cursor only if tagged).",
        t.dim,
    ));
    lines
}

fn env_box(f: &mut Frame, app: &App, area: Rect, v: &EnvView) {
    let t = &app.theme;
    let title = format!(
        " Environment of PID {} ({}) · values of safe names only ",
        v.pid, v.name
    );
    let inner_h = area.height.saturating_sub(6).max(3);
    let lines: Vec<Line> = match &v.lines {
        Ok(l) if l.is_empty() => vec![Line::styled("(empty environment)", t.dim)],
        Ok(l) => l
            .iter()
            .skip(v.scroll)
            .take(inner_h as usize)
            .map(|x| Line::raw(term_safe(x).into_owned()))
            .chain(std::iter::once(Line::styled(
                format!(
                    "{}–{} of {} · ↑↓ PgUp/PgDn scroll · any other key closes",
                    (v.scroll + 1).min(l.len()),
                    (v.scroll + inner_h as usize).min(l.len()),
                    l.len()
                ),
                t.dim,
            )))
            .collect(),
        Err(why) => vec![
            Line::styled(format!("n/a: {}", term_safe(why)), t.warn),
            Line::styled("any key closes", t.dim),
        ],
    };
    let r = centered(area, area.width.saturating_sub(4), lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(Span::styled(title, t.title))),
        r,
    );
}
