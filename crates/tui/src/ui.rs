//! Drawing. Reads the [`App`], never changes what it shows (only the remembered geometry for
//! mouse hits and scrolling). Rows are drawn by hand, and only the visible ones, so a frame with
//! hundreds of processes stays cheap.

use crate::app::{fmt_interval, App, Column, Overlay, Row};
use crate::history::Series;
use gpuledger_model::units::human_bytes;
use gpuledger_model::{bar_fraction, Device, SourceState};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, Block, Borders, Chart, Clear, Dataset, GraphType, Paragraph, Sparkline, Wrap,
};
use ratatui::Frame;
use std::collections::HashSet;
use std::time::Instant;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Below this size the cards become one line per device and the bottom panes are hidden.
pub const COMPACT_BELOW: (u16, u16) = (100, 32);
const CARD_MIN_WIDTH: u16 = 56;

pub fn draw(f: &mut Frame, app: &App, now: Instant) {
    let area = f.area();
    let compact = area.width < COMPACT_BELOW.0 || area.height < COMPACT_BELOW.1;
    let ndev = app.snapshot.as_ref().map_or(0, |s| s.devices.len()) as u16;

    let cards_h = if ndev == 0 {
        1
    } else if compact {
        ndev.min((area.height / 4).max(1))
    } else {
        let per_row = (area.width / CARD_MIN_WIDTH).clamp(1, ndev);
        let rows = ndev.div_ceil(per_row);
        (rows * 5).min(area.height / 3)
    };
    let notes = notes(app, now);
    // Compact: as many note lines as the table leaves free (at least one, at most three).
    let table_wants = app.rows.len().max(1) as u16 + 1;
    let spare = area.height.saturating_sub(1 + cards_h + table_wants + 2);
    let notes_h = (notes.len() as u16).min(if compact { spare.clamp(1, 3) } else { 3 });
    // The bottom panes take the rows the table does not need (their text wraps; blank rows
    // under a short table helped nobody), never less than their usual share.
    let bottom_h = if !compact && area.height >= 36 {
        let usual = (area.height * 2 / 5).clamp(12, 26);
        let left = area
            .height
            .saturating_sub(1 + cards_h + notes_h + table_wants.max(3) + 2);
        usual.max(left)
    } else {
        0
    };
    // A message longer than the line (an export's full path) gets a second row, not a cut.
    let footer_h = match &app.message {
        Some(m)
            if app.overlay == Overlay::None
                && !app.filter_editing
                && width_of(m) > area.width as usize
                && area.height >= 10 =>
        {
            2
        }
        _ => 1,
    };
    let [title, cards, notes_area, table, bottom, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(cards_h),
        Constraint::Length(notes_h),
        Constraint::Min(3),
        Constraint::Length(bottom_h),
        Constraint::Length(footer_h),
    ])
    .areas(area);

    draw_title(f, app, title, now);
    draw_cards(f, app, cards, compact);
    let lines: Vec<Line> = notes
        .into_iter()
        .take(notes_h as usize)
        .map(|(s, warn)| {
            Line::styled(
                fit_words(&s, area.width as usize),
                if warn { app.theme.warn } else { app.theme.dim },
            )
        })
        .collect();
    f.render_widget(Paragraph::new(lines), notes_area);
    draw_table(f, app, table);
    if bottom_h > 0 {
        draw_bottom(f, app, bottom, now);
    }
    draw_footer(f, app, footer);
    draw_overlay(f, app, area);
}

// ---- text helpers -----------------------------------------------------------------------------

/// Columns `s` takes on screen: CJK and emoji take two, combining marks none.
pub fn width_of(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Fit `s` into `w` columns: cut with `…` or pad on the right. Counts display width, so a
/// CJK name is cut at the right cell and the next column still lines up.
pub fn fit(s: &str, w: usize) -> String {
    let n = width_of(s);
    if n <= w {
        return format!("{s}{}", " ".repeat(w - n));
    }
    if w == 0 {
        return String::new();
    }
    let mut t = String::new();
    let mut used = 0;
    for ch in s.chars() {
        let cw = UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + cw > w - 1 {
            break;
        }
        t.push(ch);
        used += cw;
    }
    t.push('…');
    // A wide character that did not fit leaves one cell: pad it so the width is exact.
    t.push_str(&" ".repeat(w - 1 - used));
    t
}

fn fit_right(s: &str, w: usize) -> String {
    let n = width_of(s);
    if n <= w {
        format!("{}{s}", " ".repeat(w - n))
    } else {
        fit(s, w)
    }
}

/// A bar of `w` cells, `frac` full, in eighths.
pub fn bar(frac: f64, w: usize) -> (String, String) {
    const PART: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths = (frac.clamp(0.0, 1.0) * w as f64 * 8.0).round() as usize;
    let full = eighths / 8;
    let mut filled = "█".repeat(full);
    let mut used = full;
    if full < w && !eighths.is_multiple_of(8) {
        filled.push_str(PART[eighths % 8]);
        used += 1;
    }
    (filled, "░".repeat(w.saturating_sub(used)))
}

fn opt<T: ToString>(v: Option<T>, suffix: &str) -> String {
    v.map(|x| format!("{}{suffix}", x.to_string()))
        .unwrap_or_else(|| "n/a".into())
}

fn short_bytes(b: Option<u64>) -> String {
    b.map(human_bytes).unwrap_or_else(|| "n/a".into())
}

// ---- title and notes ----------------------------------------------------------------------------

fn draw_title(f: &mut Frame, app: &App, area: Rect, now: Instant) {
    let t = &app.theme;
    let mut spans = vec![Span::styled(" gpuledger ", t.title)];
    if let Some(src) = &app.replay {
        spans.push(Span::styled(
            format!(" REPLAY {src} "),
            t.warn.add_modifier(Modifier::REVERSED),
        ));
    }
    if let Some(url) = &app.remote {
        spans.push(Span::styled(
            format!(" REMOTE {url} (read-only) "),
            t.warn.add_modifier(Modifier::REVERSED),
        ));
    }
    if let Some(age) = app.stale_age(now) {
        spans.push(Span::styled(
            format!(" STALE {} s ", age.as_secs()),
            t.warn.add_modifier(Modifier::REVERSED),
        ));
    }
    if let Some(s) = &app.snapshot {
        if let Some(h) = &s.host.hostname {
            spans.push(Span::raw(format!(" {h} ")));
        }
        spans.push(Span::styled(format!(" {} ", s.taken_at), t.dim));
    } else {
        spans.push(Span::styled(" collecting the first round… ", t.dim));
    }
    if app.replay.is_none() {
        spans.push(Span::raw(format!(" every {} ", fmt_interval(app.interval))));
    }
    spans.push(Span::styled(
        format!(
            " sort {} {} ",
            app.sort.title(),
            if app.descending { "▼" } else { "▲" }
        ),
        t.dim,
    ));
    if app.by_device {
        spans.push(Span::styled(" per GPU ", t.accent));
    }
    if app.tree {
        spans.push(Span::styled(" tree ", t.accent));
    }
    if !app.filter.is_empty() {
        spans.push(Span::styled(format!(" filter: {} ", app.filter), t.accent));
    }
    spans.push(Span::styled(" ? help ", t.dim));
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

/// Lines under the cards: what the view cannot see or must qualify. `true` = a warning.
pub fn notes(app: &App, now: Instant) -> Vec<(String, bool)> {
    let mut v: Vec<(String, bool)> = app
        .active_alerts
        .iter()
        .map(|a| (format!("ALERT {a}"), true))
        .collect();
    if let Some(age) = app.stale_age(now) {
        v.push((
            format!(
                "no new round for {} s: a source is not answering; {}",
                age.as_secs(),
                app.snapshot
                    .as_ref()
                    .map_or("nothing collected yet".to_string(), |s| format!(
                        "the values shown are from {}",
                        s.taken_at
                    ))
            ),
            true,
        ));
    }
    let Some(s) = &app.snapshot else { return v };
    for d in &s.devices {
        if d.ledger.over_attributed {
            v.push((
                format!(
                    "GPU{}: processes sum to {} over device used (shared memory counted in each) · bars normalised, labels are raw",
                    d.index,
                    short_bytes(d.ledger.over_attributed_bytes)
                ),
                true,
            ));
        }
    }
    // A source that found nothing while another found the devices is a fact, not a warning
    // (no DRM devices on an NVIDIA-only machine): it goes last and plain. With no device at all,
    // or a source that failed, it is a warning and goes first.
    let mut quiet = Vec::new();
    for src in &s.sources {
        let line = format!("{}: {}", src.name, src.detail);
        match src.status {
            SourceState::Ok => {}
            SourceState::Unavailable if !s.devices.is_empty() => quiet.push((line, false)),
            _ => v.push((line, true)),
        }
    }
    for n in &s.notes {
        v.push((n.clone(), false));
    }
    v.extend(quiet);
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

// ---- device cards ------------------------------------------------------------------------------

fn power_text(d: &Device) -> String {
    match (d.power.usage_watts, d.power.limit_watts) {
        (Some(u), Some(l)) => format!("{u:.0}/{l:.0} W"),
        (Some(u), None) => format!("{u:.0} W / limit n/a"),
        (None, Some(l)) => format!("n/a / {l:.0} W"),
        (None, None) => "power n/a".into(),
    }
}

fn books_text(d: &Device) -> String {
    let l = &d.ledger;
    let mut s = format!("processes {}", human_bytes(l.attributed_bytes));
    match (l.unattributed_bytes, l.over_attributed) {
        (Some(u), _) => s.push_str(&format!(" · unattributed {}", human_bytes(u))),
        (None, true) => s.push_str(" · over-attributed (shared)"),
        (None, false) => s.push_str(" · unattributed n/a"),
    }
    if l.unknown_processes > 0 {
        s.push_str(&format!(" · {} n/a", l.unknown_processes));
    }
    s
}

fn mem_frac(d: &Device) -> Option<f64> {
    let (u, t) = (d.memory.used_bytes?, d.memory.total_bytes?);
    (t > 0).then(|| u as f64 / t as f64)
}

fn spark_data(
    s: Option<&Series>,
    width: usize,
    f: impl Fn(&crate::history::Point) -> Option<u64>,
) -> Vec<Option<u64>> {
    let Some(s) = s else { return vec![] };
    let skip = s.points.len().saturating_sub(width);
    s.points.iter().skip(skip).map(f).collect()
}

fn draw_cards(f: &mut Frame, app: &App, area: Rect, compact: bool) {
    let t = &app.theme;
    let Some(snap) = &app.snapshot else {
        f.render_widget(
            Paragraph::new(Span::styled(
                "waiting for the first collection round…",
                t.dim,
            )),
            area,
        );
        return;
    };
    if snap.devices.is_empty() {
        f.render_widget(
            Paragraph::new(Span::styled(
                "no GPU found (see `gpuledger selftest`)",
                t.warn,
            )),
            area,
        );
        return;
    }
    if compact {
        let shown = area.height as usize;
        for (i, d) in snap.devices.iter().enumerate().take(shown) {
            let row = Rect::new(area.x, area.y + i as u16, area.width, 1);
            let line = if i + 1 == shown && snap.devices.len() > shown {
                vec![Span::styled(
                    format!(
                        "+{} more devices: enlarge the terminal, or see `gpuledger snapshot`",
                        snap.devices.len() - shown + 1
                    ),
                    t.dim,
                )]
            } else {
                compact_card(app, d, area.width)
            };
            f.render_widget(Paragraph::new(Line::from(line)), row);
        }
        return;
    }
    let n = snap.devices.len() as u16;
    let per_row = (area.width / CARD_MIN_WIDTH).clamp(1, n);
    let rows = area.height / 5;
    let w = area.width / per_row;
    for (i, d) in snap.devices.iter().enumerate() {
        let (r, c) = (i as u16 / per_row, i as u16 % per_row);
        if r >= rows {
            break;
        }
        let width = if c + 1 == per_row {
            area.width - c * w
        } else {
            w
        };
        let rect = Rect::new(area.x + c * w, area.y + r * 5, width, 5);
        draw_card(f, app, d, rect);
    }
}

/// Memory used of total as a percentage, for the cards.
fn mem_pct(d: &Device) -> String {
    mem_frac(d).map_or_else(|| "n/a".into(), |f| format!("{:.0}%", f * 100.0))
}

/// `18.1/24.0 GiB` when both are in the same unit, else `512 MiB/24.0 GiB`.
fn used_of_total(d: &Device) -> String {
    let (u, t) = (
        short_bytes(d.memory.used_bytes),
        short_bytes(d.memory.total_bytes),
    );
    match (u.rsplit_once(' '), t.rsplit_once(' ')) {
        (Some((un, uu)), Some((tn, tu))) if uu == tu => format!("{un}/{tn} {tu}"),
        _ => format!("{u}/{t}"),
    }
}

/// One line per device. Items are placed whole, most important first (memory with its %, GPU %,
/// the books), and one that does not fit is left out rather than cut mid-word.
fn compact_card(app: &App, d: &Device, width: u16) -> Vec<Span<'static>> {
    let t = &app.theme;
    let (fill, empty) = bar(mem_frac(d).unwrap_or(0.0), 6);
    let name = d
        .name
        .clone()
        .unwrap_or_default()
        .replace("NVIDIA ", "")
        .replace("GeForce ", "");
    let mut spans = vec![
        Span::styled(format!("GPU{} ", d.index), t.title),
        Span::raw(fit(&name, 9)),
    ];
    // Below 90 columns the bar gives way to the books; the % says the same thing.
    if width >= 90 {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(fill, t.bar));
        spans.push(Span::styled(empty, t.bar_empty));
    }
    spans.push(Span::raw(format!(" {} {}", used_of_total(d), mem_pct(d))));
    let l = &d.ledger;
    // The books stay one item: processes without the unattributed rest would not balance.
    let mut items = vec![
        format!("GPU {}", opt(d.utilization.gpu_percent, "%")),
        format!(
            "procs {} · {}",
            human_bytes(l.attributed_bytes),
            match (l.unattributed_bytes, l.over_attributed) {
                (Some(u), _) => format!("unattr {}", human_bytes(u)),
                (None, true) => "over-attributed".into(),
                (None, false) => "unattr n/a".into(),
            }
        ),
    ];
    if l.unknown_processes > 0 {
        items.push(format!("{} n/a", l.unknown_processes));
    }
    items.extend([
        format!("MBW {}", opt(d.utilization.memory_percent, "%")),
        d.temperature_c
            .map_or("temp n/a".into(), |c| format!("{c}°C")),
        power_text(d),
    ]);
    let mut used: usize = spans.iter().map(|s| width_of(&s.content)).sum();
    for item in items {
        let piece = format!(" · {item}");
        let w = width_of(&piece);
        if used + w <= width as usize {
            used += w;
            spans.push(Span::raw(piece));
        }
    }
    spans
}

fn draw_card(f: &mut Frame, app: &App, d: &Device, rect: Rect) {
    let t = &app.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(format!(" {} ", d.label()), t.title));
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    if inner.height < 3 || inner.width < 20 {
        return;
    }
    let w = inner.width as usize;
    // Line 1: memory bar.
    let label = format!(
        " {} / {} {}",
        short_bytes(d.memory.used_bytes),
        short_bytes(d.memory.total_bytes),
        mem_pct(d)
    );
    let bw = w.saturating_sub(4 + label.chars().count());
    let (fill, empty) = match mem_frac(d) {
        Some(fr) => bar(fr, bw),
        None => (String::new(), "?".repeat(bw)),
    };
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::raw("MEM "),
            Span::styled(fill, t.bar),
            Span::styled(empty, t.bar_empty),
            Span::raw(label),
        ])),
        Rect::new(inner.x, inner.y, inner.width, 1),
    );
    // Line 2: utilisation, temperature, power; sparkline of GPU % to the right.
    let l2 = format!(
        "GPU {}  MBW {}  {}  {}",
        opt(d.utilization.gpu_percent, "%"),
        opt(d.utilization.memory_percent, "%"),
        d.temperature_c
            .map_or("temp n/a".into(), |c| format!("{c}°C")),
        power_text(d)
    );
    // Line 3: the books; sparkline of memory used to the right.
    let l3 = books_text(d);
    let series = app.history.devices.get(&d.uuid);
    for (i, (text, which)) in [(l2, 0), (l3, 1)].into_iter().enumerate() {
        let y = inner.y + 1 + i as u16;
        let tw = text.chars().count() as u16;
        f.render_widget(Paragraph::new(text), Rect::new(inner.x, y, inner.width, 1));
        let spark_w = inner.width.saturating_sub(tw + 2);
        if spark_w >= 6 {
            let data = if which == 0 {
                spark_data(series, spark_w as usize, |p| p.gpu_percent.map(u64::from))
            } else {
                spark_data(series, spark_w as usize, |p| p.memory_bytes)
            };
            let max = if which == 0 {
                Some(100)
            } else {
                d.memory.total_bytes
            };
            let mut sp = Sparkline::default().data(data).style(if which == 0 {
                t.gpu_line
            } else {
                t.mem_line
            });
            if let Some(m) = max {
                sp = sp.max(m);
            }
            f.render_widget(
                sp,
                Rect::new(inner.x + inner.width - spark_w, y, spark_w, 1),
            );
        }
    }
}

// ---- process table -----------------------------------------------------------------------------

/// How the process table uses its width this frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableLayout {
    /// Columns in display order with their widths (one space between columns).
    pub cols: Vec<(Column, u16)>,
    /// Inside GPU MEM: the bar (0 = no bar), the byte label, the source (0 = not per row).
    pub bar_w: u16,
    pub label_w: u16,
    pub src_w: u16,
    /// The one source every row's memory came from, named once in the header instead.
    pub common_source: Option<String>,
}

impl TableLayout {
    pub fn width(&self, c: Column) -> Option<u16> {
        self.cols.iter().find(|x| x.0 == c).map(|x| x.1)
    }
}

/// Longest display width of a column's cells (tree indentation included for NAME).
fn content_width(app: &App, c: Column) -> u16 {
    app.rows
        .iter()
        .map(|r| {
            let indent = if c == Column::Name && r.depth > 0 {
                2 * r.depth as usize
            } else {
                0
            };
            width_of(&app.cell_text(r, c)) + indent
        })
        .max()
        .unwrap_or(0)
        .min(u16::MAX as usize) as u16
}

/// WORKLOAD grows to its longest label up to this; `llama.cpp · Qwen3-8B-Q4_K_M` is 27.
pub const WORKLOAD_MAX: u16 = 40;
const NAME_MAX: u16 = 20;
const COMMAND_MIN: u16 = 12;

/// Column widths for a table `width` wide, from what the rows hold. What answers "who and why"
/// comes first: PID, NAME, WORKLOAD, GPU MEM and GPU% are placed before anything else and grow
/// to their content (WORKLOAD up to [`WORKLOAD_MAX`]); then, while there is room, the bar, USER,
/// TYPE, CPU%, COMMAND, RSS, RAM%, TIME; COMMAND takes what is left. The memory source is per row only when
/// the rows' sources differ; otherwise it is named once in the header.
pub fn layout_columns(app: &App, width: u16) -> TableLayout {
    use Column::*;
    let title_w = |c: Column| width_of(c.title()) as u16;
    let ndev = app.snapshot.as_ref().map_or(0, |s| s.devices.len());
    let sources: HashSet<&str> = app
        .rows
        .iter()
        .map(|r| app.usage(r).memory_source.as_str())
        .collect();
    let common_source = (sources.len() == 1).then(|| sources.iter().next().unwrap().to_string());
    let src_want = if sources.len() > 1 {
        sources
            .iter()
            .map(|s| width_of(s))
            .max()
            .unwrap_or(0)
            .min(10) as u16
    } else {
        0
    };

    let pid_w = content_width(app, Pid).max(3);
    let name_want = content_width(app, Name).clamp(4, NAME_MAX);
    let wl_want = content_width(app, Workload).clamp(8, WORKLOAD_MAX);
    let label_w = content_width(app, Memory).max(7);
    let gpu_w = content_width(app, Gpu).max(4);
    // The minimum the essential columns may shrink to on a very narrow terminal.
    let name_min = name_want.min(8);
    let wl_min = wl_want.min(10);

    let mut w = TableWidths {
        avail: width,
        used: 0,
    };
    // Essentials, at their minimum. DEV is essential when there is more than one device.
    let mut dev = ndev > 1 && w.take(3);
    let pid = w.take(pid_w);
    let mut name = if w.take(name_min) { name_min } else { 0 };
    let mut wl = if w.take(wl_min) { wl_min } else { 0 };
    let mem = w.take(label_w);
    let gpu = w.take(gpu_w);
    // Then NAME and WORKLOAD grow to what they hold, before any optional column exists.
    if name > 0 {
        name += w.grow(name_want - name);
    }
    if wl > 0 {
        wl += w.grow(wl_want - wl);
    }
    // Optional columns, most useful first, each only if it fits whole.
    let mut bar_w: u16 = if w.take(4) { 4 } else { 0 };
    let src_w = if src_want > 0 && w.take(src_want) {
        src_want
    } else {
        0
    };
    let user_want = content_width(app, User).clamp(4, 10);
    let user = if w.take(user_want) { user_want } else { 0 };
    let typ = w.take(title_w(Type));
    if !dev && ndev == 1 {
        dev = w.take(3);
    }
    let cpu = w.take(5);
    let mut command = if w.take(COMMAND_MIN) { COMMAND_MIN } else { 0 };
    let rss_want = content_width(app, Rss).max(5);
    let rss = w.take(rss_want);
    // RAM% and TIME only where they leave 20 cells to widen the bar and COMMAND.
    let ram = w.fits(5 + 21) && w.take(5);
    let time_want = content_width(app, Time).max(4);
    let time = w.fits(time_want + 21) && w.take(time_want);
    // Spare width: a longer bar first (up to 10 cells), then everything to COMMAND.
    if bar_w > 0 {
        bar_w += w.grow(10 - bar_w);
    }
    if command > 0 {
        command += w.grow(u16::MAX);
    }

    let mem_w =
        label_w + if bar_w > 0 { bar_w + 1 } else { 0 } + if src_w > 0 { src_w + 1 } else { 0 };
    let mut cols = Vec::new();
    let mut put = |on: bool, c: Column, cw: u16| {
        if on && cw > 0 {
            cols.push((c, cw));
        }
    };
    put(dev, Device, 3);
    put(pid, Pid, pid_w);
    put(user > 0, User, user);
    put(true, Name, name);
    put(true, Workload, wl);
    put(typ, Type, title_w(Type));
    put(mem, Memory, mem_w);
    put(gpu, Gpu, gpu_w);
    put(cpu, Cpu, 5);
    put(rss, Rss, rss_want);
    put(ram, HostMem, 5);
    put(time, Time, time_want);
    put(true, Command, command);
    TableLayout {
        cols,
        bar_w,
        label_w,
        src_w,
        common_source,
    }
}

/// Width bookkeeping for [`layout_columns`]: each column costs its width plus one separator.
struct TableWidths {
    avail: u16,
    used: u16,
}

impl TableWidths {
    fn fits(&self, w: u16) -> bool {
        self.used.saturating_add(w).saturating_add(1) <= self.avail
    }
    /// Place a column of `w` cells if it fits whole.
    fn take(&mut self, w: u16) -> bool {
        let ok = self.fits(w);
        if ok {
            self.used += w + 1;
        }
        ok
    }
    /// Widen something already placed by up to `w` cells; returns how many it got.
    fn grow(&mut self, w: u16) -> u16 {
        let g = w.min(self.avail.saturating_sub(self.used));
        self.used += g;
        g
    }
}

fn draw_table(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let lay = layout_columns(app, area.width);
    let cols = &lay.cols;
    // Header.
    let mut x = area.x;
    let mut spans = Vec::new();
    let mut cells = Vec::new();
    for &(c, w) in cols {
        let mut title = c.title().to_string();
        if c == app.sort {
            title.push(if app.descending { '▼' } else { '▲' });
        }
        if c == Column::Memory {
            // One source for every row: say it once here rather than on each row.
            if let Some(src) = &lay.common_source {
                let with = format!("{title} [{src}]");
                if width_of(&with) <= w as usize {
                    title = with;
                }
            }
        }
        spans.push(Span::styled(fit(&title, w as usize), t.header));
        spans.push(Span::raw(" "));
        cells.push((x, x + w, c));
        x += w + 1;
    }
    f.render_widget(
        Paragraph::new(Line::from(spans)),
        Rect::new(area.x, area.y, area.width, 1),
    );

    let body = Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(1),
    );
    let nrows = body.height as usize;
    let mut g = app.geometry.borrow_mut();
    g.header_y = Some(area.y);
    g.header_cells = cells;
    g.body_y = body.y;
    g.body_rows = nrows;
    // Keep the selection visible.
    if app.selected < g.offset {
        g.offset = app.selected;
    } else if nrows > 0 && app.selected >= g.offset + nrows {
        g.offset = app.selected + 1 - nrows;
    }
    g.offset = g.offset.min(app.rows.len().saturating_sub(nrows));
    let offset = g.offset;
    drop(g);

    if app.rows.is_empty() {
        let msg = if app.snapshot.is_none() {
            "waiting for data…".to_string()
        } else if app.filter.is_empty() {
            "no GPU processes listed by any source".to_string()
        } else {
            format!(
                "no process matches the filter {:?} (Esc clears it)",
                app.filter
            )
        };
        f.render_widget(Paragraph::new(Span::styled(msg, t.dim)), body);
        return;
    }
    for (i, row) in app.rows.iter().enumerate().skip(offset).take(nrows) {
        let mut line = Line::from(row_spans(app, row, &lay));
        if i == app.selected {
            line = line.style(t.selected);
        }
        let y = body.y + (i - offset) as u16;
        f.buffer_mut().set_line(body.x, y, &line, body.width);
    }
}

fn row_spans(app: &App, row: &Row, lay: &TableLayout) -> Vec<Span<'static>> {
    let t = &app.theme;
    let (bar_w, label_w, src_w) = (lay.bar_w, lay.label_w as usize, lay.src_w as usize);
    let mut spans = Vec::with_capacity(lay.cols.len() * 2 + 2);
    for &(c, w) in &lay.cols {
        let w = w as usize;
        match c {
            Column::Memory => {
                let u = app.usage(row);
                match u.memory_bytes {
                    Some(b) => {
                        let frac = app
                            .device_of(row)
                            .and_then(|d| bar_fraction(b, d))
                            .unwrap_or(0.0);
                        if bar_w > 0 {
                            let (fill, empty) = bar(frac, bar_w as usize);
                            spans.push(Span::styled(fill, t.bar));
                            spans.push(Span::styled(empty, t.bar_empty));
                            spans.push(Span::raw(" "));
                        }
                        spans.push(Span::raw(fit_right(&human_bytes(b), label_w)));
                    }
                    None => {
                        if bar_w > 0 {
                            spans.push(Span::raw(" ".repeat(bar_w as usize + 1)));
                        }
                        spans.push(Span::styled(fit_right("n/a", label_w), t.warn));
                    }
                }
                if src_w > 0 {
                    spans.push(Span::styled(
                        format!(" {}", fit(&u.memory_source, src_w)),
                        t.dim,
                    ));
                }
            }
            Column::Name if row.depth > 0 => {
                let prefix = format!("{}└─", "  ".repeat(row.depth as usize - 1));
                spans.push(Span::raw(fit(
                    &format!("{prefix}{}", app.cell_text(row, c)),
                    w,
                )));
            }
            Column::Pid
            | Column::Gpu
            | Column::Cpu
            | Column::Rss
            | Column::HostMem
            | Column::Time
            | Column::Device => {
                let s = app.cell_text(row, c);
                let style = if s == "n/a" { t.warn } else { Style::default() };
                spans.push(Span::styled(fit_right(&s, w), style));
            }
            _ => {
                let s = app.cell_text(row, c);
                let style = if s == "n/a" || s == "—" {
                    t.dim
                } else {
                    Style::default()
                };
                spans.push(Span::styled(fit(&s, w), style));
            }
        }
        spans.push(Span::raw(" "));
    }
    spans
}

// ---- history chart and details -----------------------------------------------------------------

fn draw_bottom(f: &mut Frame, app: &App, area: Rect, now: Instant) {
    if area.width >= 200 {
        let [c, m, r] = Layout::horizontal([
            Constraint::Percentage(44),
            Constraint::Percentage(31),
            Constraint::Percentage(25),
        ])
        .areas(area);
        let eh = estimate_height(app);
        let [e, ev] = Layout::vertical([Constraint::Length(eh), Constraint::Min(3)]).areas(r);
        draw_chart(f, app, c, now);
        draw_measured(f, app, m);
        draw_estimated(f, app, e);
        draw_evidence(f, app, ev);
    } else {
        let [c, d] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(area);
        let [m, e, ev] = Layout::vertical([
            Constraint::Min(4),
            Constraint::Length(estimate_height(app)),
            Constraint::Percentage(38),
        ])
        .areas(d);
        draw_chart(f, app, c, now);
        draw_measured(f, app, m);
        draw_estimated(f, app, e);
        draw_evidence(f, app, ev);
    }
}

/// A round number at or above `v` bytes (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × a power of ten, in MiB
/// or GiB), so the memory axis reads cleanly.
pub fn nice_ceiling(v: u64) -> u64 {
    const MIB: f64 = (1u64 << 20) as f64;
    const GIB: f64 = (1u64 << 30) as f64;
    let v = v.max(1) as f64;
    let unit = if v >= GIB { GIB } else { MIB };
    let x = v / unit;
    let mag = 10f64.powf(x.log10().floor());
    let m = [1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .into_iter()
        .find(|m| m * mag >= x - 1e-9)
        .unwrap_or(10.0);
    (m * mag * unit).ceil() as u64
}

/// The memory axis's top: the data's peak with headroom, rounded, never above the card's total
/// (a lone process on an 80 GiB card must not lie flat on the bottom). `true` when the top is the
/// card's total.
pub fn memory_axis_top(peak: Option<u64>, total: Option<u64>) -> (u64, bool) {
    let want = peak.map(|p| nice_ceiling(p + p / 5));
    match (want, total) {
        (Some(w), Some(t)) if w < t => (w, false),
        (_, Some(t)) if t > 0 => (t, true),
        (Some(w), _) => (w.max(1), false),
        _ => (1, false),
    }
}

/// One legend entry: the glyph the series is drawn with, its name, its style.
pub struct LegendItem {
    pub glyph: &'static str,
    pub label: String,
    pub style: Style,
}

/// The chart's legend, drawn in every state (ratatui's own legend hides itself when space is
/// short, which left four series unnamed).
pub fn chart_legend(app: &App) -> Vec<LegendItem> {
    let t = &app.theme;
    let sel = app.selected_row().copied();
    let Some(dev) = sel
        .and_then(|r| app.device_of(&r))
        .or_else(|| app.snapshot.as_ref().and_then(|s| s.devices.first()))
    else {
        return vec![];
    };
    let mut v = vec![
        LegendItem {
            glyph: "━",
            label: format!("GPU{} memory", dev.index),
            style: t.mem_line,
        },
        LegendItem {
            glyph: "━",
            label: format!("GPU{} % (right)", dev.index),
            style: t.gpu_line,
        },
    ];
    if let Some(r) = sel {
        let p = app.process(&r);
        let who = format!("{} {}", p.pid, p.display_name());
        v.push(LegendItem {
            glyph: "•",
            label: format!("{who} memory"),
            style: t.accent,
        });
        v.push(LegendItem {
            glyph: "▄",
            label: format!("{} GPU %", p.pid),
            style: t.warn,
        });
    }
    v
}

fn draw_chart(f: &mut Frame, app: &App, area: Rect, now: Instant) {
    let t = &app.theme;
    let sel = app.selected_row().copied();
    let dev = sel
        .and_then(|r| app.device_of(&r))
        .or_else(|| app.snapshot.as_ref().and_then(|s| s.devices.first()));
    let Some(dev) = dev else {
        f.render_widget(Block::bordered().title(" History "), area);
        return;
    };
    let dev_series = app.history.devices.get(&dev.uuid);
    let proc_series = sel.and_then(|r| {
        let p = app.process(&r);
        app.history
            .processes
            .get(&(p.pid, p.start_time, app.usage(&r).device.clone()))
    });
    let now_t = dev_series.and_then(Series::last_t).unwrap_or(0.0);
    // Until the window has filled, show what there is rather than an empty left side.
    let first_t = dev_series
        .and_then(|s| s.points.front())
        .map_or(now_t, |p| p.t);
    let span = (app.chart_minutes as f64 * 60.0)
        .min(now_t - first_t)
        .max(10.0);
    let x0 = now_t - span;
    let peak = [dev_series, proc_series]
        .into_iter()
        .flatten()
        .flat_map(|s| s.points.iter().filter(|p| p.t >= x0))
        .filter_map(|p| p.memory_bytes)
        .max();
    let (top, top_is_total) = memory_axis_top(peak, dev.memory.total_bytes);
    let ymax = top as f64;
    let pts = |s: Option<&Series>, mem: bool| -> Vec<(f64, f64)> {
        s.map(|s| {
            s.points
                .iter()
                .filter(|p| p.t >= x0)
                .filter_map(|p| {
                    if mem {
                        p.memory_bytes.map(|m| (p.t, m as f64))
                    } else {
                        // GPU % is drawn on the memory scale and read on the right axis.
                        p.gpu_percent.map(|g| (p.t, g as f64 / 100.0 * ymax))
                    }
                })
                .collect()
        })
        .unwrap_or_default()
    };
    let (dm, dg, pm, pg) = (
        pts(dev_series, true),
        pts(dev_series, false),
        pts(proc_series, true),
        pts(proc_series, false),
    );
    let npoints = dev_series.map_or(0, |s| s.points.len());
    let mut sets = vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.mem_line)
            .data(&dm),
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.gpu_line)
            .data(&dg),
    ];
    if sel.is_some() {
        sets.push(
            Dataset::default()
                .marker(Marker::Dot)
                .graph_type(GraphType::Line)
                .style(t.accent)
                .data(&pm),
        );
        sets.push(
            Dataset::default()
                .marker(Marker::Bar)
                .graph_type(GraphType::Scatter)
                .style(t.warn)
                .data(&pg),
        );
    }
    let title = if app.replay.is_some() {
        format!(
            " History GPU{}: a saved snapshot is one moment, no history ",
            dev.index
        )
    } else if npoints < 2 {
        format!(" History GPU{}: builds up as rounds arrive ", dev.index)
    } else {
        format!(
            " History GPU{}, last {} min (w: window) ",
            dev.index, app.chart_minutes
        )
    };
    let block = Block::bordered().title(Span::styled(title, t.title));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.width < 20 || inner.height < 3 {
        return;
    }
    // The legend first, on as many rows as it needs: it is there in every state. Items are
    // placed whole, row by row, so none is cut in the middle of its name.
    let total_note = match dev.memory.total_bytes {
        Some(total) if !top_is_total => format!("card total {} (off scale)", human_bytes(total)),
        Some(total) => format!("top = card total {}", human_bytes(total)),
        None => "card total n/a".to_string(),
    };
    let mut items: Vec<Vec<Span>> = chart_legend(app)
        .into_iter()
        .map(|i| {
            vec![
                Span::styled(format!("{} ", i.glyph), i.style),
                Span::raw(i.label),
            ]
        })
        .collect();
    items.push(vec![Span::styled(total_note, t.dim)]);
    let mut rows: Vec<Vec<Span>> = vec![vec![]];
    let mut x = 0usize;
    for item in items {
        let w: usize = item.iter().map(|s| width_of(&s.content)).sum();
        let last = rows.last_mut().unwrap();
        if x > 0 && x + 2 + w > inner.width as usize {
            rows.push(item);
            x = w;
        } else {
            if x > 0 {
                last.push(Span::raw("  "));
                x += 2;
            }
            last.extend(item);
            x += w;
        }
    }
    let legend_h = (rows.len() as u16).min(inner.height);
    for (i, row) in rows.into_iter().take(legend_h as usize).enumerate() {
        f.render_widget(
            Paragraph::new(Line::from(row)),
            Rect::new(inner.x, inner.y + i as u16, inner.width, 1),
        );
    }
    if inner.height < legend_h + 4 {
        return;
    }
    let inner = Rect::new(
        inner.x,
        inner.y + legend_h,
        inner.width,
        inner.height - legend_h,
    );
    // Leave a strip on the right for the GPU % axis labels.
    let chart_area = Rect::new(inner.x, inner.y, inner.width - 5, inner.height);
    let chart = Chart::new(sets)
        .legend_position(None)
        .x_axis(
            Axis::default()
                .bounds([x0, now_t.max(x0 + 1.0)])
                .labels([format!("-{}", fmt_span(span)), "now".to_string()])
                .style(t.dim),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, ymax])
                .labels(["0".to_string(), human_bytes(top / 2), human_bytes(top)])
                .style(t.dim),
        );
    f.render_widget(chart, chart_area);
    // Right axis: the plot spans the chart's rows above the two x-axis rows.
    let top_y = inner.y;
    let bottom = inner.y + inner.height.saturating_sub(3);
    let strip_x = inner.x + inner.width - 5;
    for (y, label) in [
        (top_y, "100%"),
        ((top_y + bottom) / 2, " 50%"),
        (bottom, "  0%"),
    ] {
        f.buffer_mut()
            .set_string(strip_x, y, format!("┤{label}"), t.dim);
    }
    let _ = now;
}

fn fmt_span(secs: f64) -> String {
    if secs >= 60.0 {
        format!("{:.0}m", secs / 60.0)
    } else {
        format!("{secs:.0}s")
    }
}

fn draw_measured(f: &mut Frame, app: &App, area: Rect) {
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
                fit_right(&short_bytes(u.memory_bytes), 9),
                if u.memory_bytes.is_some() {
                    t.mem_line
                } else {
                    t.warn
                },
            ),
            Span::styled(format!(" [{}]", u.memory_source), t.dim),
            Span::raw(format!(
                "  SM {}  mem {}  enc {}  dec {}",
                opt(u.engines.sm_percent, "%"),
                opt(u.engines.memory_percent, "%"),
                opt(u.engines.encoder_percent, "%"),
                opt(u.engines.decoder_percent, "%"),
            )),
        ]));
    }
    let h = app.host.get(&p.pid);
    v.push(Line::raw(format!(
        "host CPU {}  RSS {}{} [procfs]",
        h.and_then(|h| h.cpu_percent)
            .map(|c| format!("{c:.1}%"))
            .unwrap_or_else(|| "n/a".into()),
        short_bytes(h.and_then(|h| h.rss_bytes)),
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
        app.cell_text(r, Column::Command)
    )));
    for (what, why) in app.unknown_reasons() {
        v.push(Line::styled(format!("n/a {what}: {why}"), t.dim));
    }
    v
}

/// Rows for the estimate pane: its lines, the border and a row for wrapping; small when empty.
fn estimate_height(app: &App) -> u16 {
    (estimate_lines(app).len() as u16 + 3).clamp(4, 11)
}

fn draw_estimated(f: &mut Frame, app: &App, area: Rect) {
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

fn draw_evidence(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let block = Block::bordered().title(Span::styled(" Workload · evidence ", t.title));
    f.render_widget(
        Paragraph::new(evidence_lines(app))
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}

pub fn estimate_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let Some(p) = app.selected_row().map(|r| app.process(r)) else {
        return vec![Line::styled("no process selected", t.dim)];
    };
    let Some(e) = &p.estimate else {
        let why = match &p.workload {
            Some(w) if w.kind.is_ai() => {
                "no estimate: the model or settings could not be read (`gpuledger explain PID` says which)"
            }
            _ => "no estimate: not an AI runtime gpuledger has a recipe for",
        };
        return vec![Line::styled(why, t.dim)];
    };
    let b = |x: Option<u64>| x.map_or("n/a".to_string(), gpuledger_model::units::human_bytes);
    let head = match e.n_ctx {
        Some(n) => format!("{} · context {n}", e.recipe),
        None => e.recipe.clone(),
    };
    let mut v = vec![Line::styled(head, t.estimate)];
    if let Some(why) = &e.why {
        v.push(Line::raw(why.clone()));
    }
    let compute = e.compute_label.as_deref().unwrap_or("compute");
    v.extend([
        Line::raw(format!("weights   {:>10}", b(Some(e.weights_gpu_bytes)))),
        Line::raw(format!("KV cache  {:>10}", b(e.kv_cache_gpu_bytes))),
        Line::raw(format!(
            "compute   {:>10}  ({compute}, approximate)",
            b(e.compute_gpu_bytes)
        )),
        Line::raw(format!(
            "overhead  {:>10}  ({})",
            b(e.overhead_gpu_bytes),
            e.overhead_source
        )),
        Line::styled(
            format!("total GPU {:>10}  (estimated)", b(Some(e.total_gpu_bytes))),
            t.estimate,
        ),
    ]);
    for part in &e.not_modelled {
        v.push(Line::styled(format!("not modelled: {part}"), t.dim));
    }
    for r in &e.reported {
        let value = match (r.bytes, &r.text) {
            (Some(x), Some(text)) => format!("{} · {text}", b(Some(x))),
            (Some(x), None) => b(Some(x)),
            (None, Some(text)) => text.clone(),
            (None, None) => "n/a".into(),
        };
        v.push(Line::styled(
            format!("runtime says {}: {value}", r.what),
            t.dim,
        ));
    }
    let measured: Option<u64> = p.usage.iter().map(|u| u.memory_bytes).sum();
    if let Some(m) = measured {
        let d = m as i64 - e.total_gpu_bytes as i64;
        v.push(Line::styled(
            format!(
                "measured  {:>10}  (driver; {} {} than estimated)",
                b(Some(m)),
                b(Some(d.unsigned_abs())),
                if d >= 0 { "more" } else { "less" }
            ),
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
                Span::styled(
                    format!("  confidence {:?}", w.confidence).to_lowercase(),
                    t.dim,
                ),
            ]));
            if w.evidence.is_empty() {
                v.push(Line::styled("no evidence items", t.dim));
            }
            for e in &w.evidence {
                v.push(Line::from(vec![
                    Span::raw(format!("• {:?}: ", e.kind).to_lowercase()),
                    Span::raw(e.showed.clone()),
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

// ---- footer and overlays -----------------------------------------------------------------------

/// The end of `s` that fits `w` cells, with `…` in front when cut: the cursor end of a typed
/// text is the part the user is working on.
fn tail_fit(s: &str, w: usize) -> String {
    if width_of(s) <= w {
        return s.to_string();
    }
    if w == 0 {
        return String::new();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 0;
    for ch in s.chars().rev() {
        let cw = UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + cw > w - 1 {
            break;
        }
        kept.push(ch);
        used += cw;
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

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

fn draw_footer(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let line = if let Overlay::Export(path) = &app.overlay {
        prompt_line(
            app,
            "Export CSV to:",
            path,
            "Enter writes (never overwrites) · Esc cancels",
            area.width,
        )
    } else if app.filter_editing {
        prompt_line(
            app,
            "filter:",
            &app.filter,
            "Enter keep · Esc clear",
            area.width,
        )
    } else if let Some(m) = &app.message {
        Line::styled(m.clone(), t.warn)
    } else {
        // Whole key hints only, as many as fit: a narrow terminal drops the last ones.
        const KEYS: [&str; 11] = [
            "q quit",
            "? help",
            "/ filter",
            "s sort",
            "r reverse",
            "t tree",
            "Enter details",
            "T term",
            "K kill",
            "c copy",
            "e export",
        ];
        let mut text = String::new();
        for k in KEYS.iter().chain(["+/- interval"].iter()) {
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

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
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
        "s > →  < ←",
        "sort by next / previous column (or click a header)",
    ),
    ("r", "reverse the sort order"),
    ("/", "filter: PID, user, name, command, device"),
    ("t", "tree view: children under their parent"),
    ("D", "group the rows per GPU (the sort applies within each)"),
    ("Enter i", "details, and why each n/a is unknown"),
    (
        "T F9  /  K",
        "terminate / force kill the selected process (asks)",
    ),
    ("c", "copy the PID to the clipboard (OSC 52)"),
    ("o", "open the executable's folder in the file manager"),
    (
        "e",
        "export the rows as shown to CSV (in the data directory)",
    ),
    ("+ -", "refresh interval longer / shorter (100 ms minimum)"),
    ("w", "history window: 1, 5 or 10 minutes"),
    ("C  m", "theme dark → light → mono  /  monochrome on/off"),
];

fn draw_overlay(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help => {
            let mut lines: Vec<Line> = HELP
                .iter()
                .map(|(k, d)| {
                    Line::from(vec![
                        Span::styled(format!("{k:>18}  "), t.header),
                        Span::raw(*d),
                    ])
                })
                .collect();
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                "n/a = unknown, never 0 (Enter says why). Bars: share of the device.",
                t.dim,
            ));
            let r = centered(area, 100, lines.len() as u16 + 2);
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                    Block::bordered()
                        .title(Span::styled(" Help — any of ? F1 Esc closes ", t.title)),
                ),
                r,
            );
        }
        Overlay::Details => {
            let Some(row) = app.selected_row().copied() else {
                return;
            };
            let mut lines = measured_lines(app, &row);
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                "ESTIMATE (calculated, not measured)",
                t.estimate,
            ));
            lines.extend(estimate_lines(app));
            lines.push(Line::raw(""));
            lines.push(Line::styled("Workload · evidence", t.header));
            lines.extend(evidence_lines(app));
            let r = centered(
                area,
                area.width.saturating_sub(4).min(110),
                area.height.saturating_sub(2).min(lines.len() as u16 + 6),
            );
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                    Block::bordered().title(Span::styled(" Details — Esc closes ", t.title)),
                ),
                r,
            );
        }
        Overlay::Confirm(c) => {
            let verb = if c.force { "Force kill" } else { "Terminate" };
            let mut lines = vec![Line::styled(
                format!("{verb} PID {} ({})?", c.pid, c.name),
                t.warn,
            )];
            lines.push(Line::raw(format!("It holds {}.", c.memory)));
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
            let r = centered(area, 76, lines.len() as u16 + 4);
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(lines)
                    .wrap(Wrap { trim: false })
                    .block(Block::bordered().title(Span::styled(format!(" {verb} "), t.warn))),
                r,
            );
        }
        // Export is a prompt line in the footer (see draw_footer), not a box over the table.
        Overlay::Export(_) => {}
    }
}
