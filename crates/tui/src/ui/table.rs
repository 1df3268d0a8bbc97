//! The process table: column layout by what matters first, drawn with ratatui's `Table`.

use super::text::{bar, fit, fit_right, width_of};
use crate::app::{Align, App, Column, ColumnSpec, Geometry, Priority, Row, Shown, Width, COLUMNS};
use gpuledger_model::bar_fraction;
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

/// Longest display width of a column's cells (tree indentation included for NAME), over the
/// rows near the screen ([`App::near_rows`]): with hundreds of processes, formatting every
/// row's cells each frame was most of a frame's cost.
pub(crate) fn content_width(app: &App, c: Column) -> u16 {
    app.near_rows()
        .iter()
        .map(|r| {
            let indent = if c == TREE_COLUMN && r.depth > 0 {
                2 * r.depth as usize
            } else {
                0
            };
            width_of(app.cell(r, c).text()) + indent
        })
        .max()
        .unwrap_or(0)
        .min(u16::MAX as usize) as u16
}

/// The column the process tree indents (`└─`).
const TREE_COLUMN: Column = Column::Name;

/// Spare width: the bar as long as the header's title with the rows' one memory source
/// (`GPU MEM▼ [nvml]`: every number says where it came from), COMMAND up to its longest line,
/// a longer bar (up to 10 cells), then the rest to COMMAND.
fn spread_spare(
    app: &App,
    w: &mut TableWidths,
    label_w: u16,
    (src_w, common_source): (u16, Option<&str>),
    bar_w: &mut u16,
    command: &mut u16,
) {
    if *bar_w > 0 {
        if let Some(src) = common_source {
            let title = Column::Memory.title_in(app.lang);
            let title = width_of(&format!("{title}▼ [{src}]")) as u16;
            let mem_w = label_w + *bar_w + 1 + if src_w > 0 { src_w + 1 } else { 0 };
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

/// The width a column wants: its content's within its spec's bounds, and never less than its
/// header (a translated header can be wider than the English one the bounds were set for).
fn wanted(app: &App, spec: &ColumnSpec) -> u16 {
    let Width { min, max, .. } = spec.width;
    let header = width_of(&spec.column.title_in(app.lang)).min(u16::MAX as usize) as u16;
    if min == max {
        min.max(header)
    } else {
        content_width(app, spec.column).clamp(min, max).max(header)
    }
}

/// Whether the column can have values in this view at all.
fn shown(app: &App, spec: &ColumnSpec) -> bool {
    match spec.shown {
        Shown::Always => true,
        Shown::HostFigures => app.replay.is_none() && app.remote.is_none(),
        Shown::SomeOwner => any_owner(app),
    }
}

/// Column widths for a table `width` wide, from the column specs and what the rows hold. The
/// essential columns (what answers "who and why") are placed first at their narrow width and
/// grown to their content; then the memory bar and source; then the optional columns by rank,
/// each only whole and where it leaves what its spec asks. The width left goes to COMMAND up
/// to its longest line (what tells two `python3` jobs apart), then to a longer bar, then to
/// COMMAND again. The memory source is per row only when the rows' sources differ; otherwise
/// it is named once in the header.
pub fn layout_columns(app: &App, width: u16) -> TableLayout {
    let ndev = app.snapshot.as_ref().map_or(0, |s| s.devices.len());
    let (common_source, src_want) = memory_sources(app);
    let mut w = TableWidths {
        avail: width,
        used: 0,
    };
    let mut widths = [0u16; COLUMNS.len()];
    let essential = |s: &ColumnSpec| match s.priority {
        Priority::Essential => true,
        Priority::PerDevice { .. } => ndev > 1,
        Priority::Optional { .. } => false,
    };
    // Essentials in display order at their narrow width, then grown to what they hold.
    let mut wants = [0u16; COLUMNS.len()];
    for (i, s) in COLUMNS.iter().enumerate().filter(|(_, s)| essential(s)) {
        wants[i] = wanted(app, s);
        let least = wants[i].min(s.width.narrow);
        if w.take(least) {
            widths[i] = least;
        }
    }
    for (i, _) in COLUMNS.iter().enumerate().filter(|(_, s)| essential(s)) {
        if widths[i] > 0 {
            widths[i] += w.grow(wants[i] - widths[i]);
        }
    }
    let label_w = wants[Column::Memory.index()];
    let mut bar_w: u16 = if w.take(4) { 4 } else { 0 };
    let src_w = if src_want > 0 && w.take(src_want) {
        src_want
    } else {
        0
    };
    // Optional columns, lowest rank first, each only if it fits whole.
    let mut optional: Vec<(u8, u16, usize)> = COLUMNS
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s.priority {
            Priority::Optional { rank, leave } => Some((rank, leave, i)),
            Priority::PerDevice { rank } if ndev == 1 => Some((rank, 0, i)),
            _ => None,
        })
        .collect();
    optional.sort_unstable();
    for (_, leave, i) in optional {
        if !shown(app, &COLUMNS[i]) {
            continue;
        }
        let want = wanted(app, &COLUMNS[i]);
        if want > 0 && w.fits(want + leave) && w.take(want) {
            widths[i] = want;
        }
    }
    let mut command = widths[Column::Command.index()];
    spread_spare(
        app,
        &mut w,
        label_w,
        (src_w, common_source.as_deref()),
        &mut bar_w,
        &mut command,
    );
    widths[Column::Command.index()] = command;
    if widths[Column::Memory.index()] > 0 {
        widths[Column::Memory.index()] +=
            if bar_w > 0 { bar_w + 1 } else { 0 } + if src_w > 0 { src_w + 1 } else { 0 };
    }
    let cols = Column::all()
        .zip(widths)
        .filter(|&(_, cw)| cw > 0)
        .collect();
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
        .table
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
    let scroll = app.table.row_scroll.min(max_scroll);
    if let Some(c) = lay.cols.iter_mut().find(|c| c.0 == Column::Command) {
        c.1 += scroll;
    }
    let (header, header_cells) = header_row(app, &lay, area, scroll);
    // Rows that do not all fit leave their last line to say how many are hidden.
    let fits = area.height.saturating_sub(1) as usize;
    let cut = app.table.rows.len() > fits && fits >= 2;
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

    let first = first_shown(app, body_rows);
    let rows = shown_rows(app, &lay, first, body_rows);
    let widths = lay.cols.iter().map(|&(_, w)| Constraint::Length(w));
    let table = Table::new(rows, widths)
        .header(TableRow::new(header).style(t.header))
        .column_spacing(1)
        .flex(Flex::Start)
        .row_highlight_style(t.selected);
    let selected = (!app.table.rows.is_empty()).then(|| app.table.selected - first);
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
    if app.table.rows.is_empty() {
        draw_empty(f, app, area);
    }
    geometry
}

/// The `n` rows from `first` as table rows. Only the rows that can show are built: a frame
/// with thousands of processes stays cheap.
fn shown_rows(app: &App, lay: &TableLayout, first: usize, n: usize) -> Vec<TableRow<'static>> {
    let rows = &app.table.rows;
    rows.iter()
        .enumerate()
        .skip(first)
        .take(n)
        .map(|(i, r)| {
            let row = TableRow::new(row_cells(app, r, lay));
            // Grouped per GPU: a line under each GPU's last row (it costs no row).
            let last_of_device = rows.get(i + 1).is_some_and(|n| !same_device(app, r, n));
            if app.table.by_device && last_of_device {
                row.style(Style::default().add_modifier(Modifier::UNDERLINED))
            } else {
                row
            }
        })
        .collect()
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
        let mut title = c.title_in(app.lang);
        if c == app.table.sort {
            title.push(if app.table.descending { '▼' } else { '▲' });
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
        header.push(Cell::from(aligned(&title, w as usize, c.spec().align)));
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
    let first = if app.table.selected < prev {
        app.table.selected
    } else if body_rows > 0 && app.table.selected >= prev + body_rows {
        app.table.selected + 1 - body_rows
    } else {
        prev
    };
    first.min(app.table.rows.len().saturating_sub(body_rows))
}

/// Under a cut table: which rows are shown, how many are hidden, and how to reach them.
fn draw_hidden_line(f: &mut Frame, app: &App, line: Rect, first: usize, body_rows: usize) {
    let n = app.table.rows.len();
    let last = (first + body_rows).min(n);
    let text = app.lang.t_args(
        "tui-table-hidden",
        &[
            ("first", (first + 1).to_string().into()),
            ("last", last.to_string().into()),
            ("n", n.to_string().into()),
            ("hidden", (n - (last - first)).to_string().into()),
        ],
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
        app.lang.t("tui-table-waiting")
    } else if app.table.filter.is_empty() {
        app.lang.t("tui-table-none")
    } else {
        let filter = format!("{:?}", app.table.filter);
        app.lang
            .t_args("tui-table-no-match", &[("filter", filter.into())])
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

/// `s` fitted to `w` cells on the column's side.
fn aligned(s: &str, w: usize, align: Align) -> String {
    match align {
        Align::Left => fit(s, w),
        Align::Right => fit_right(s, w),
    }
}

/// One row's cells, each fitted to its column by display width; unknown values dim (normal,
/// not an alarm: never red).
pub(crate) fn row_cells(app: &App, row: &Row, lay: &TableLayout) -> Vec<Cell<'static>> {
    let t = &app.theme;
    let mut cells = Vec::with_capacity(lay.cols.len());
    for &(c, w) in &lay.cols {
        if c == Column::Memory {
            cells.push(Cell::from(Line::from(memory_spans(app, row, lay))));
            continue;
        }
        let v = app.cell(row, c);
        let style = if v.is_known() {
            Style::default()
        } else {
            t.dim
        };
        let text = if c == TREE_COLUMN && row.depth > 0 {
            format!("{}└─{}", "  ".repeat(row.depth as usize - 1), v.text())
        } else {
            v.text().to_string()
        };
        let span = Span::styled(aligned(&text, w as usize, c.spec().align), style);
        cells.push(Cell::from(Line::from(span)));
    }
    cells
}

/// GPU MEM's cell: the bar of the device's memory, the byte label, the source when the rows'
/// sources differ.
fn memory_spans(app: &App, row: &Row, lay: &TableLayout) -> Vec<Span<'static>> {
    let t = &app.theme;
    let (bar_w, label_w, src_w) = (lay.bar_w, lay.label_w as usize, lay.src_w as usize);
    let mut spans = Vec::with_capacity(4);
    let u = app.usage(row);
    // A workload group's total spans several devices: no one device's share to draw.
    let frac = u
        .memory_bytes
        .filter(|_| row.group.is_none())
        .and_then(|b| app.device_of(row).and_then(|d| bar_fraction(b, d)));
    match frac {
        Some(frac) if bar_w > 0 => {
            let (fill, empty) = bar(frac, bar_w as usize);
            spans.push(Span::styled(fill, t.bar));
            spans.push(Span::styled(empty, t.bar_empty));
            spans.push(Span::raw(" "));
        }
        // Unknown memory, or the device's size is unknown: no share to draw (not 0).
        _ if bar_w > 0 => spans.push(Span::raw(" ".repeat(bar_w as usize + 1))),
        _ => {}
    }
    let v = app.cell(row, Column::Memory);
    let style = if v.is_known() {
        Style::default()
    } else {
        t.dim
    };
    spans.push(Span::styled(fit_right(v.text(), label_w), style));
    if src_w > 0 {
        spans.push(Span::styled(
            format!(" {}", fit(&u.memory_source, src_w)),
            t.dim,
        ));
    }
    spans
}
