//! The bottom panes' layout and the history chart with its legend and axes.

use super::details::{draw_estimated, draw_evidence, draw_measured, estimate_height};
use super::text::width_of;
use crate::app::App;
use crate::series::Series;
use gpuledger_lang::Value;
use gpuledger_model::units::human_bytes;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph};
use ratatui::Frame;
use std::time::Instant;

pub(crate) fn draw_bottom(f: &mut Frame, app: &App, area: Rect, now: Instant) {
    if area.height < super::BOTTOM_MIN {
        // Too few rows for a chart: the estimate (the "why" of the selected process), whole
        // width, which no other pane on screen shows.
        draw_estimated(f, app, area);
    } else if area.width >= 200 {
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
    let lang = app.lang;
    let gpu = [("gpu", dev.index.to_string().into())];
    let mut v = vec![
        LegendItem {
            glyph: "━",
            label: lang.t_args("tui-chart-gpu-memory", &gpu),
            style: t.mem_line,
        },
        LegendItem {
            glyph: "━",
            label: lang.t_args("tui-chart-gpu-percent", &gpu),
            style: t.gpu_line,
        },
    ];
    if let Some(r) = sel {
        let p = app.process(&r);
        let who = format!("{} {}", p.pid, p.display_name());
        v.push(LegendItem {
            glyph: "•",
            label: lang.t_args("tui-chart-process-memory", &[("who", who.into())]),
            style: t.accent,
        });
        v.push(LegendItem {
            glyph: "━",
            label: format!("{} SM%", p.pid),
            style: t.warn,
        });
    }
    v
}

pub(crate) fn draw_chart(f: &mut Frame, app: &App, area: Rect, now: Instant) {
    let t = &app.theme;
    let sel = app.selected_row().copied();
    let dev = sel
        .and_then(|r| app.device_of(&r))
        .or_else(|| app.snapshot.as_ref().and_then(|s| s.devices.first()));
    let Some(dev) = dev else {
        let title = format!(" {} ", app.lang.t("tui-chart-history"));
        f.render_widget(Block::bordered().title(title), area);
        return;
    };
    let dev_series = app.history.devices.get(&dev.uuid);
    let proc_series = sel.and_then(|r| {
        let p = app.process(&r);
        app.history
            .process(p.pid, p.start_time, &app.usage(&r).device)
    });
    let w = Window::of(app, dev, dev_series, proc_series);
    let (dm, dg, pm, pg) = (
        w.points(dev_series, true),
        w.points(dev_series, false),
        w.points(proc_series, true),
        w.points(proc_series, false),
    );
    let npoints = dev_series.map_or(0, |s| s.points.len());
    let sets = datasets(app, sel.is_some(), [&dm, &dg, &pm, &pg]);
    let mut title = chart_title(app, dev, npoints);
    if width_of(&title) + 2 > area.width as usize {
        // A narrow pane (80 columns split in two) gets the short form, not a cut one.
        let key = match (app.replay.is_some(), npoints < 2) {
            (true, true) => "tui-chart-short-none",
            (false, true) => "tui-chart-short-building",
            _ => "tui-chart-short-last",
        };
        title = format!(" {} ", app.lang.t_args(key, &chart_args(app, dev)));
    }
    let block = Block::bordered().title(Span::styled(title, t.title));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.width < 20 || inner.height < 3 {
        return;
    }
    let legend_h = draw_legend(f, app, dev, w.top_is_total, inner);
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
                .bounds([w.x0, w.now_t.max(w.x0 + 1.0)])
                .labels([format!("-{}", fmt_span(w.span)), right_label(app)])
                .style(t.dim),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, w.ymax])
                .labels(["0".to_string(), human_bytes(w.top / 2), human_bytes(w.top)])
                .style(t.dim),
        );
    f.render_widget(chart, chart_area);
    draw_percent_axis(f, app, inner);
    let _ = now;
}

/// The device's memory and GPU % lines, and the selected process's when there is one.
fn datasets<'a>(
    app: &App,
    selected: bool,
    [dm, dg, pm, pg]: [&'a [(f64, f64)]; 4],
) -> Vec<Dataset<'a>> {
    let t = &app.theme;
    let mut sets = vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.mem_line)
            .data(dm),
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.gpu_line)
            .data(dg),
    ];
    if selected {
        sets.push(
            Dataset::default()
                .marker(Marker::Dot)
                .graph_type(GraphType::Line)
                .style(t.accent)
                .data(pm),
        );
        // A line like the device's GPU %: half-block bars made a 0 % series a solid bar along
        // the axis, read as load.
        sets.push(
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(t.warn)
                .data(pg),
        );
    }
    sets
}

/// The chart's time window and memory scale.
struct Window {
    /// Left and right edges (series time, s) and their distance.
    x0: f64,
    now_t: f64,
    span: f64,
    /// The memory axis top, and whether it is the card's total.
    top: u64,
    top_is_total: bool,
    ymax: f64,
}

impl Window {
    fn of(
        app: &App,
        dev: &gpuledger_model::Device,
        dev_series: Option<&Series>,
        proc_series: Option<&Series>,
    ) -> Window {
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
        Window {
            x0,
            now_t,
            span,
            top,
            top_is_total,
            ymax: top as f64,
        }
    }

    /// A series' memory (`mem`) or GPU % points inside the window.
    fn points(&self, s: Option<&Series>, mem: bool) -> Vec<(f64, f64)> {
        s.map(|s| {
            s.points
                .iter()
                .filter(|p| p.t >= self.x0)
                .filter_map(|p| {
                    if mem {
                        p.memory_bytes.map(|m| (p.t, m as f64))
                    } else {
                        // GPU % is drawn on the memory scale and read on the right axis.
                        p.gpu_percent.map(|g| (p.t, g as f64 / 100.0 * self.ymax))
                    }
                })
                .collect()
        })
        .unwrap_or_default()
    }
}

/// The title says why the chart is empty when it is (a replay of one moment, or too few rounds
/// yet), and that a recording's history is recorded.
fn chart_title(app: &App, dev: &gpuledger_model::Device, npoints: usize) -> String {
    let key = if app.replay.is_some() && npoints < 2 {
        "tui-chart-one-snapshot"
    } else if app.replay.is_some() {
        "tui-chart-recorded"
    } else if npoints < 2 {
        "tui-chart-building"
    } else {
        "tui-chart-last"
    };
    format!(" {} ", app.lang.t_args(key, &chart_args(app, dev)))
}

/// A chart title's values: the device's index and the window's minutes.
fn chart_args(app: &App, dev: &gpuledger_model::Device) -> [(&'static str, Value<'static>); 2] {
    [
        ("gpu", dev.index.to_string().into()),
        ("minutes", app.chart_minutes.to_string().into()),
    ]
}

/// The right end of the time axis: now, or the moment a replay shows (`09:00:00`).
fn right_label(app: &App) -> String {
    let at = app.replay.as_ref().and(app.snapshot.as_ref());
    match at.and_then(|s| s.taken_at.get(11..19)) {
        Some(hms) => hms.to_string(),
        None => app.lang.t("tui-chart-now"),
    }
}

/// The GPU % axis in the strip right of the chart: the plot spans the chart's rows above the
/// two x-axis rows.
fn draw_percent_axis(f: &mut Frame, app: &App, inner: Rect) {
    let top_y = inner.y;
    let bottom = inner.y + inner.height.saturating_sub(3);
    let strip_x = inner.x + inner.width - 5;
    for (y, label) in [
        (top_y, "100%"),
        ((top_y + bottom) / 2, " 50%"),
        (bottom, "  0%"),
    ] {
        f.buffer_mut()
            .set_string(strip_x, y, format!("┤{label}"), app.theme.dim);
    }
}

/// The chart's legend, on as many rows as it needs (it is there in every state): each item
/// placed whole, row by row, so none is cut in the middle of its name. Returns its height.
fn draw_legend(
    f: &mut Frame,
    app: &App,
    dev: &gpuledger_model::Device,
    top_is_total: bool,
    inner: Rect,
) -> u16 {
    let t = &app.theme;
    let total_note = match dev.memory.total_bytes {
        Some(total) => app.lang.t_args(
            if top_is_total {
                "tui-chart-top-is-total"
            } else {
                "tui-chart-total-off-scale"
            },
            &[("bytes", human_bytes(total).into())],
        ),
        None => app.lang.t("tui-chart-total-na"),
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
    legend_h
}

pub(crate) fn fmt_span(secs: f64) -> String {
    if secs >= 60.0 {
        format!("{:.0}m", secs / 60.0)
    } else {
        format!("{secs:.0}s")
    }
}
