//! Device cards: memory with the books balanced, utilisation, power, sparklines.

use crate::app::App;
use crate::series::Series;
use gpuledger_model::units::{human_bytes, human_opt};
use gpuledger_model::Device;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Sparkline, Wrap};
use ratatui::Frame;
/// Cards narrower than this are laid out one per row.
pub(crate) const CARD_MIN_WIDTH: u16 = 56;
/// A card's rows: its border, memory, utilisation, the books, and the device's context (clocks,
/// PCIe link).
pub(crate) const CARD_HEIGHT: u16 = 6;
use super::text::{bar, fit, opt, width_of};
use gpuledger_lang::Lang;

pub(crate) fn power_text(lang: Lang, d: &Device) -> String {
    match (d.power.usage_watts, d.power.limit_watts) {
        (Some(u), Some(l)) => format!("{u:.0}/{l:.0} W"),
        (Some(u), None) => {
            lang.t_args("tui-power-no-limit", &[("watts", format!("{u:.0}").into())])
        }
        (None, Some(l)) => format!("n/a / {l:.0} W"),
        (None, None) => lang.t("tui-power-na"),
    }
}

/// `bytes` as a message's `$bytes`.
fn bytes_arg(lang: Lang, key: &str, bytes: u64) -> String {
    lang.t_args(key, &[("bytes", human_bytes(bytes).into())])
}

pub(crate) fn books_text(lang: Lang, d: &Device) -> String {
    let l = &d.ledger;
    let mut s = bytes_arg(lang, "tui-books-processes", l.attributed_bytes);
    s.push_str(" · ");
    match (l.unattributed_bytes, l.over_attributed) {
        (Some(u), _) => s.push_str(&bytes_arg(lang, "tui-books-unattributed", u)),
        (None, true) => s.push_str(&lang.t("tui-books-over")),
        (None, false) => s.push_str(&lang.t("tui-books-unattributed-na")),
    }
    if l.unknown_processes > 0 {
        s.push_str(&format!(" · {} n/a", l.unknown_processes));
    }
    s
}

pub(crate) fn mem_frac(d: &Device) -> Option<f64> {
    let (u, t) = (d.memory.used_bytes?, d.memory.total_bytes?);
    (t > 0).then(|| u as f64 / t as f64)
}

pub(crate) fn spark_data(
    s: Option<&Series>,
    width: usize,
    f: impl Fn(&crate::series::Point) -> Option<u64>,
) -> Vec<Option<u64>> {
    let Some(s) = s else { return vec![] };
    let skip = s.points.len().saturating_sub(width);
    s.points.iter().skip(skip).map(f).collect()
}

pub(crate) fn draw_cards(f: &mut Frame, app: &App, area: Rect, compact: bool) {
    let t = &app.theme;
    let Some(snap) = &app.snapshot else {
        f.render_widget(
            Paragraph::new(Span::styled(app.lang.t("tui-cards-waiting"), t.dim)),
            area,
        );
        return;
    };
    if snap.devices.is_empty() {
        // Said once, on the cards' line (the snapshot's own note saying the same is not
        // repeated), with a sample machine to look at when this is the live machine.
        let line = if app.remote.is_some() || app.replay.is_some() {
            app.lang.t("tui-no-gpu")
        } else {
            app.lang.t("tui-no-gpu-sample")
        };
        f.render_widget(
            Paragraph::new(Span::styled(line, t.warn)).wrap(Wrap { trim: true }),
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
                    app.lang.t_args(
                        "tui-cards-more",
                        &[("n", (snap.devices.len() - shown + 1).to_string().into())],
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
    let rows = area.height / CARD_HEIGHT;
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
        let rect = Rect::new(area.x + c * w, area.y + r * CARD_HEIGHT, width, CARD_HEIGHT);
        draw_card(f, app, d, rect);
    }
}

/// Memory used of total as a percentage, for the cards.
pub(crate) fn mem_pct(d: &Device) -> String {
    mem_frac(d).map_or_else(|| "n/a".into(), |f| format!("{:.0}%", f * 100.0))
}

/// `18.1/24.0 GiB` when both are in the same unit, else `512 MiB/24.0 GiB`.
pub(crate) fn used_of_total(d: &Device) -> String {
    let (u, t) = (
        human_opt(d.memory.used_bytes),
        human_opt(d.memory.total_bytes),
    );
    match (u.rsplit_once(' '), t.rsplit_once(' ')) {
        (Some((un, uu)), Some((tn, tu))) if uu == tu => format!("{un}/{tn} {tu}"),
        _ => format!("{u}/{t}"),
    }
}

/// One line per device. Items are placed whole, most important first (memory with its %, GPU %,
/// the books), each in its shorter form when the long one does not fit; the first that does not
/// fit at all ends the line, so a less important item (temperature) never shows where a more
/// important one (unattributed memory, the product's point) does not.
pub(crate) fn compact_card(app: &App, d: &Device, width: u16) -> Vec<Span<'static>> {
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
    let lang = app.lang;
    let unattr = match (l.unattributed_bytes, l.over_attributed) {
        (Some(u), _) => bytes_arg(lang, "tui-compact-unattr", u),
        (None, true) => lang.t("tui-compact-over"),
        (None, false) => lang.t("tui-compact-unattr-na"),
    };
    // The books: processes and the unattributed rest together, or the rest alone when narrow.
    let mut items: Vec<Vec<String>> = vec![
        vec![format!("GPU% {}", opt(d.utilization.gpu_percent, ""))],
        vec![
            lang.t_args(
                "tui-compact-procs",
                &[
                    ("bytes", human_bytes(l.attributed_bytes).into()),
                    ("unattr", unattr.as_str().into()),
                ],
            ),
            unattr,
        ],
    ];
    if l.unknown_processes > 0 {
        items.push(vec![format!("{} n/a", l.unknown_processes)]);
    }
    items.extend([
        vec![format!("MEM% {}", opt(d.utilization.memory_percent, ""))],
        vec![d
            .temperature_c
            .map_or(lang.t("tui-temp-na"), |c| format!("{c}°C"))],
        vec![power_text(lang, d)],
    ]);
    // The context last: it shows where a wide terminal leaves room for it.
    items.extend(
        gpuledger_views::context::device_items(d, lang)
            .into_iter()
            .map(|i| vec![i]),
    );
    let mut used: usize = spans.iter().map(|s| width_of(&s.content)).sum();
    for forms in items {
        let fitting = forms
            .into_iter()
            .map(|item| format!(" · {item}"))
            .find(|piece| used + width_of(piece) <= width as usize);
        let Some(piece) = fitting else { break };
        used += width_of(&piece);
        spans.push(Span::raw(piece));
    }
    spans
}

/// Whole items joined by ` · ` up to `w` columns: the first that does not fit ends the line.
pub(crate) fn fit_items(items: &[String], w: usize) -> String {
    let mut line = String::new();
    for item in items {
        let sep = if line.is_empty() { "" } else { " · " };
        if width_of(&line) + sep.len() + width_of(item) > w {
            break;
        }
        line.push_str(sep);
        line.push_str(item);
    }
    line
}

/// A card's fourth line: the device's context, as many whole items as fit.
fn draw_context(f: &mut Frame, app: &App, d: &Device, line: Rect) {
    let context = fit_items(
        &gpuledger_views::context::device_items(d, app.lang),
        line.width as usize,
    );
    f.render_widget(Paragraph::new(Span::styled(context, app.theme.dim)), line);
}

pub(crate) fn draw_card(f: &mut Frame, app: &App, d: &Device, rect: Rect) {
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
        human_opt(d.memory.used_bytes),
        human_opt(d.memory.total_bytes),
        mem_pct(d)
    );
    let mem = format!("{} ", app.lang.t("tui-card-mem"));
    let bw = w.saturating_sub(width_of(&mem) + width_of(&label));
    let (fill, empty) = match mem_frac(d) {
        Some(fr) => bar(fr, bw),
        // Unknown is not 0: no bar at all (the label says n/a).
        None => (String::new(), " ".repeat(bw)),
    };
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::raw(mem),
            Span::styled(fill, t.bar),
            Span::styled(empty, t.bar_empty),
            Span::raw(label),
        ])),
        Rect::new(inner.x, inner.y, inner.width, 1),
    );
    // Line 2: utilisation, temperature, power; sparkline of GPU % to the right.
    let l2 = format!(
        "GPU% {}  MEM% {}  {}  {}",
        opt(d.utilization.gpu_percent, ""),
        opt(d.utilization.memory_percent, ""),
        d.temperature_c
            .map_or(app.lang.t("tui-temp-na"), |c| format!("{c}°C")),
        power_text(app.lang, d)
    );
    // Line 3: the books; sparkline of memory used to the right.
    let l3 = books_text(app.lang, d);
    if inner.height >= 4 {
        draw_context(f, app, d, Rect::new(inner.x, inner.y + 3, inner.width, 1));
    }
    let series = app.history.devices.get(&d.uuid);
    for (i, (text, which)) in [(l2, 0), (l3, 1)].into_iter().enumerate() {
        let y = inner.y + 1 + i as u16;
        let tw = width_of(&text) as u16;
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
