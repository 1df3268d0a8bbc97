//! The process table: column layout by what matters first, drawn with ratatui's `Table`.

use super::text::*;
use crate::app::Geometry;
use crate::app::{App, Column, Row};
use gpuledger_model::bar_fraction;
use gpuledger_model::units::bytes_one_decimal;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Flex, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row as TableRow, StatefulWidget, Table, TableState};
use ratatui::Frame;
use std::collections::HashSet;

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
pub(crate) fn content_width(app: &App, c: Column) -> u16 {
    app.rows
        .iter()
        .map(|r| {
            let indent = if c == Column::Name && r.depth > 0 {
                2 * r.depth as usize
            } else {
                0
            };
            let text = if c == Column::Command {
                app.command_cell(r)
            } else {
                app.cell_text(r, c)
            };
            width_of(&text) + indent
        })
        .max()
        .unwrap_or(0)
        .min(u16::MAX as usize) as u16
}

/// WORKLOAD grows to its longest label up to this; `llama.cpp · Qwen3-8B-Q4_K_M` is 27.
pub const WORKLOAD_MAX: u16 = 40;
pub(crate) const NAME_MAX: u16 = 20;
/// OWNER grows to its longest label up to this; `pod 3f2a1b9c…/ctr 9b1c0d2e…` is 27.
pub(crate) const OWNER_MAX: u16 = 28;
pub(crate) const COMMAND_MIN: u16 = 12;

/// Spare width: the bar as long as the header's title with the rows' one memory source
/// (`GPU MEM▼ [nvml]`: every number says where it came from), COMMAND up to its longest line,
/// a longer bar (up to 10 cells), then the rest to COMMAND.
fn spread_spare(
    app: &App,
    w: &mut TableWidths,
    e: &Essentials,
    (src_w, common_source): (u16, Option<&str>),
    bar_w: &mut u16,
    command: &mut u16,
) {
    if *bar_w > 0 {
        if let Some(src) = common_source {
            let title = width_of(&format!("{}▼ [{src}]", Column::Memory.title())) as u16;
            let mem_w = e.label_w + *bar_w + 1 + if src_w > 0 { src_w + 1 } else { 0 };
            *bar_w += w.grow(title.saturating_sub(mem_w).min(10 - *bar_w));
        }
    }
    if *command > 0 {
        let want = content_width(app, Column::Command);
        *command += w.grow(want.saturating_sub(*command));
    }
    if *bar_w > 0 {
        *bar_w += w.grow(10 - *bar_w);
    }
    if *command > 0 {
        *command += w.grow(u16::MAX);
    }
}

/// Column widths for a table `width` wide, from what the rows hold. What answers "who and why"
/// comes first: PID, NAME, WORKLOAD, GPU MEM and GPU% are placed before anything else and grow
/// to their content (WORKLOAD up to [`WORKLOAD_MAX`]); then, while there is room, the bar, USER,
/// OWNER (when a process has a pod, job, container or unit), TYPE, COMMAND, CPU%, RSS, RAM%,
/// TIME. The width left goes to COMMAND up to its longest line (what tells two `python3` jobs
/// apart), then to a longer bar, then to COMMAND again. Host columns are left out where no row
/// can have them (a replay, a remote view). The memory source is per row only when the rows'
/// sources differ; otherwise it is named once in the header.
pub fn layout_columns(app: &App, width: u16) -> TableLayout {
    use Column::*;
    let title_w = |c: Column| width_of(c.title()) as u16;
    let ndev = app.snapshot.as_ref().map_or(0, |s| s.devices.len());
    let (common_source, src_want) = memory_sources(app);
    let mut w = TableWidths {
        avail: width,
        used: 0,
    };
    let e = essentials(app, &mut w, ndev);
    let mut dev = e.dev;
    // Optional columns, most useful first, each only if it fits whole.
    let mut bar_w: u16 = if w.take(4) { 4 } else { 0 };
    let src_w = if src_want > 0 && w.take(src_want) {
        src_want
    } else {
        0
    };
    let user_want = content_width(app, User).clamp(4, 10);
    let user = if w.take(user_want) { user_want } else { 0 };
    // OWNER only where some process has one that says more than USER (a pod, a job, a unit).
    let owner_want = if any_owner(app) {
        content_width(app, Owner).clamp(5, OWNER_MAX)
    } else {
        0
    };
    let owner = owner_want > 0 && w.take(owner_want);
    let typ = w.take(title_w(Type));
    if !dev && ndev == 1 {
        dev = w.take(3);
    }
    let mut command = if w.take(COMMAND_MIN) { COMMAND_MIN } else { 0 };
    let host_cols = app.replay.is_none() && app.remote.is_none();
    let cpu = host_cols && w.take(5);
    let rss_want = content_width(app, Rss).max(5);
    let rss = host_cols && w.take(rss_want);
    // RAM% and TIME only where they leave 20 cells to widen the bar and COMMAND.
    let ram = host_cols && w.fits(5 + 21) && w.take(5);
    let time_want = content_width(app, Time).max(4);
    let time = w.fits(time_want + 21) && w.take(time_want);
    spread_spare(
        app,
        &mut w,
        &e,
        (src_w, common_source.as_deref()),
        &mut bar_w,
        &mut command,
    );
    let label_w = e.label_w;
    let mem_w =
        label_w + if bar_w > 0 { bar_w + 1 } else { 0 } + if src_w > 0 { src_w + 1 } else { 0 };
    let mut cols = Vec::new();
    let mut put = |on: bool, c: Column, cw: u16| {
        if on && cw > 0 {
            cols.push((c, cw));
        }
    };
    put(dev, Device, 3);
    put(e.pid, Pid, e.pid_w);
    put(user > 0, User, user);
    put(owner, Owner, owner_want);
    put(true, Name, e.name);
    put(true, Workload, e.wl);
    put(typ, Type, title_w(Type));
    put(e.mem, Memory, mem_w);
    put(e.gpu, Gpu, e.gpu_w);
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

/// Does some process have an owner worth a column (not only sessions and users)?
fn any_owner(app: &App) -> bool {
    app.snapshot.as_ref().is_some_and(|s| {
        s.processes
            .iter()
            .any(|p| p.owner.as_ref().is_some_and(|o| o.kind.beyond_user()))
    })
}

/// The memory source of every row when they share one (named once in the header), else the
/// width a per-row source column wants.
fn memory_sources(app: &App) -> (Option<String>, u16) {
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
    (common_source, src_want)
}

/// The columns that answer "who and why", placed first: which fit, and their widths.
struct Essentials {
    dev: bool,
    pid: bool,
    pid_w: u16,
    name: u16,
    wl: u16,
    mem: bool,
    label_w: u16,
    gpu: bool,
    gpu_w: u16,
}

/// Places the essentials at their minimum, then grows NAME and WORKLOAD to what they hold,
/// before any optional column exists.
fn essentials(app: &App, w: &mut TableWidths, ndev: usize) -> Essentials {
    use Column::*;
    let pid_w = content_width(app, Pid).max(3);
    let name_want = content_width(app, Name).clamp(4, NAME_MAX);
    let wl_want = content_width(app, Workload).clamp(8, WORKLOAD_MAX);
    let label_w = content_width(app, Memory).max(7);
    let gpu_w = content_width(app, Gpu).max(4);
    // The minimum the essential columns may shrink to on a very narrow terminal.
    let name_min = name_want.min(8);
    let wl_min = wl_want.min(10);
    // DEV is essential when there is more than one device.
    let dev = ndev > 1 && w.take(3);
    let pid = w.take(pid_w);
    let mut name = if w.take(name_min) { name_min } else { 0 };
    let mut wl = if w.take(wl_min) { wl_min } else { 0 };
    let mem = w.take(label_w);
    let gpu = w.take(gpu_w);
    if name > 0 {
        name += w.grow(name_want - name);
    }
    if wl > 0 {
        wl += w.grow(wl_want - wl);
    }
    Essentials {
        dev,
        pid,
        pid_w,
        name,
        wl,
        mem,
        label_w,
        gpu,
        gpu_w,
    }
}

/// Width bookkeeping for [`layout_columns`]: each column costs its width plus one separator.
pub(crate) struct TableWidths {
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

/// Draw the table with ratatui's `Table`: the selection is kept visible by a `TableState` made
/// from the last frame's scroll offset, so drawing changes nothing in the [`App`]; what it drew
/// (header cells, first row, offset) is returned for mouse hits and paging.
pub(crate) fn draw_table(f: &mut Frame, app: &App, area: Rect) -> Geometry {
    let t = &app.theme;
    let mut lay = layout_columns(app, area.width);
    // h / l scroll whole rows: the table is drawn with COMMAND as much wider as it is
    // scrolled, then shown from that many cells in, up to the end of the longest command.
    let max_scroll = lay
        .width(Column::Command)
        .map_or(0, |w| content_width(app, Column::Command).saturating_sub(w));
    let scroll = app.row_scroll.min(max_scroll);
    if let Some(c) = lay.cols.iter_mut().find(|c| c.0 == Column::Command) {
        c.1 += scroll;
    }
    let (header, header_cells) = header_row(app, &lay, area, scroll);
    // Rows that do not all fit leave their last line to say how many are hidden.
    let fits = area.height.saturating_sub(1) as usize;
    let cut = app.rows.len() > fits && fits >= 2;
    let body_rows = if cut { fits - 1 } else { fits };
    let table_area = Rect {
        height: area.height.min(body_rows as u16 + 1),
        ..area
    };
    let mut geometry = Geometry {
        header_y: Some(area.y),
        header_cells,
        body_y: area.y + 1,
        body_rows,
        offset: 0,
        max_scroll,
        ..Geometry::default()
    };

    // Only the rows that can show are built: a frame with thousands of processes stays cheap.
    let first = first_shown(app, body_rows);
    let rows = app
        .rows
        .iter()
        .enumerate()
        .skip(first)
        .take(body_rows)
        .map(|(i, r)| {
            let row = TableRow::new(row_cells(app, r, &lay));
            // Grouped per GPU: a line under each GPU's last row (it costs no row).
            if app.by_device && app.rows.get(i + 1).is_some_and(|n| !same_device(app, r, n)) {
                row.style(Style::default().add_modifier(Modifier::UNDERLINED))
            } else {
                row
            }
        });
    let widths = lay.cols.iter().map(|&(_, w)| Constraint::Length(w));
    let table = Table::new(rows, widths)
        .header(TableRow::new(header).style(t.header))
        .column_spacing(1)
        .flex(Flex::Start)
        .row_highlight_style(t.selected);
    let selected = (!app.rows.is_empty()).then(|| app.selected - first);
    let mut state = TableState::new().with_selected(selected);
    if scroll == 0 {
        f.render_stateful_widget(table, table_area, &mut state);
    } else {
        draw_scrolled(f, table, &mut state, table_area, scroll);
    }
    geometry.offset = first;
    if cut {
        let y = area.y + 1 + body_rows as u16;
        draw_hidden_line(
            f,
            app,
            Rect::new(area.x, y, area.width, 1),
            first,
            body_rows,
        );
    }
    if app.rows.is_empty() {
        draw_empty(f, app, area);
    }
    geometry
}

/// Where each header cell shows on screen: from x, to x, its column (for clicks).
type HeaderCells = Vec<(u16, u16, Column)>;

/// The header's cells (the sort column marked, the one memory source named) and where each
/// shows on screen once the rows are scrolled `scroll` cells.
fn header_row(
    app: &App,
    lay: &TableLayout,
    area: Rect,
    scroll: u16,
) -> (Vec<Cell<'static>>, HeaderCells) {
    let mut header = Vec::with_capacity(lay.cols.len());
    let mut header_cells = Vec::with_capacity(lay.cols.len());
    let mut x = area.x;
    for &(c, w) in &lay.cols {
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
        // Numbers are right-aligned under a right-aligned title: the `%` ends where it ends.
        let numeric = matches!(
            c,
            Column::Pid | Column::Gpu | Column::Cpu | Column::Rss | Column::HostMem | Column::Time
        );
        header.push(Cell::from(if numeric {
            fit_right(&title, w as usize)
        } else {
            fit(&title, w as usize)
        }));
        // Where the header cell shows once scrolled (a column scrolled off is not clickable).
        let (x0, x1) = (x.saturating_sub(scroll), (x + w).saturating_sub(scroll));
        if x1 > area.x {
            header_cells.push((x0.max(area.x), x1.min(area.right()), c));
        }
        x += w + 1;
    }
    (header, header_cells)
}

/// The first row shown: the last frame's, moved as little as keeps the selection in view.
fn first_shown(app: &App, body_rows: usize) -> usize {
    let prev = app.geometry.offset;
    let first = if app.selected < prev {
        app.selected
    } else if body_rows > 0 && app.selected >= prev + body_rows {
        app.selected + 1 - body_rows
    } else {
        prev
    };
    first.min(app.rows.len().saturating_sub(body_rows))
}

/// Under a cut table: which rows are shown, how many are hidden, and how to reach them.
fn draw_hidden_line(f: &mut Frame, app: &App, line: Rect, first: usize, body_rows: usize) {
    let n = app.rows.len();
    let last = (first + body_rows).min(n);
    let text = format!(
        "rows {}–{last} of {n} · {} hidden (PgUp/PgDn, g/G)",
        first + 1,
        n - (last - first)
    );
    f.render_widget(
        Paragraph::new(Span::styled(fit(&text, line.width as usize), app.theme.dim)),
        line,
    );
}

/// Whether two rows are on the same device.
fn same_device(app: &App, a: &Row, b: &Row) -> bool {
    app.usage(a).device == app.usage(b).device
}

/// Why the table has no rows.
fn draw_empty(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
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
    let body = Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(1),
    );
    f.render_widget(Paragraph::new(Span::styled(msg, t.dim)), body);
}

/// Draws `table` `scroll` cells wider off screen and shows it from `scroll` cells in: the
/// whole row moves left. A `◂` in the header's first cell says the rows are scrolled.
fn draw_scrolled(f: &mut Frame, table: Table<'_>, state: &mut TableState, area: Rect, scroll: u16) {
    let wide = Rect::new(0, 0, area.width.saturating_add(scroll), area.height);
    let mut scratch = Buffer::empty(wide);
    StatefulWidget::render(table, wide, &mut scratch, state);
    let buf = f.buffer_mut();
    for y in 0..area.height {
        for x in 0..area.width.min(wide.width - scroll) {
            let mut cell = scratch[(x + scroll, y)].clone();
            if x == 0 && cell.symbol().is_empty() {
                // The right half of a wide character cut at the left edge.
                cell.set_symbol(" ");
            }
            buf[(area.x + x, area.y + y)] = cell;
        }
    }
    if area.width > 0 && area.height > 0 {
        buf[(area.x, area.y)].set_symbol("◂");
    }
}

/// One row's cells, each fitted to its column by display width.
pub(crate) fn row_cells(app: &App, row: &Row, lay: &TableLayout) -> Vec<Cell<'static>> {
    let t = &app.theme;
    let (bar_w, label_w, src_w) = (lay.bar_w, lay.label_w as usize, lay.src_w as usize);
    let mut cells = Vec::with_capacity(lay.cols.len());
    for &(c, w) in &lay.cols {
        let w = w as usize;
        let mut spans = Vec::with_capacity(4);
        match c {
            Column::Memory => {
                let u = app.usage(row);
                match u.memory_bytes {
                    Some(b) => {
                        let frac = app.device_of(row).and_then(|d| bar_fraction(b, d));
                        match frac {
                            Some(frac) if bar_w > 0 => {
                                let (fill, empty) = bar(frac, bar_w as usize);
                                spans.push(Span::styled(fill, t.bar));
                                spans.push(Span::styled(empty, t.bar_empty));
                                spans.push(Span::raw(" "));
                            }
                            // The device's size is unknown: no share to draw (not 0).
                            _ if bar_w > 0 => spans.push(Span::raw(" ".repeat(bar_w as usize + 1))),
                            _ => {}
                        }
                        spans.push(Span::raw(fit_right(&bytes_one_decimal(b), label_w)));
                    }
                    None => {
                        if bar_w > 0 {
                            spans.push(Span::raw(" ".repeat(bar_w as usize + 1)));
                        }
                        spans.push(Span::styled(fit_right("n/a", label_w), t.dim));
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
                // Unknown is normal, not an alarm: dim, never red.
                let style = if s == "n/a" { t.dim } else { Style::default() };
                spans.push(Span::styled(fit_right(&s, w), style));
            }
            Column::Command => spans.push(Span::raw(fit(&app.command_cell(row), w))),
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
        cells.push(Cell::from(Line::from(spans)));
    }
    cells
}
